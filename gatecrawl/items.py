"""Typed items passed from the spider to the pipelines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class PageCapture:
    """One fetched URL, as the spider saw it. The pipelines turn it into Markdown and a packet."""

    url_requested: str
    """The URL the spider asked for (before redirects)."""
    url_final: str
    """The response URL (after redirects)."""
    http_status: int | None = None
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers (first value each); cookies are filtered out before any packet is written."""
    body: bytes = b""
    reader: str = "http"
    """``http`` (plain request) or ``render`` (browser)."""
    latency_ms: int | None = None
    fetched_at: str | None = None
    depth: int | None = None
    error: str | None = None
    """Set when the download failed (no body)."""
    error_reason: str | None = None
    """Typed reason for a failed download (``egress_blocked``, ``timeout``, ...)."""
    egress: dict[str, Any] | None = None
    presence: dict[str, Any] | None = None
    """The downloader-side gate verdict on the plain fetch (``gatecrawl_presence`` meta)."""
    escalated_from: str | None = None
    escalation_reason: str | None = None
    render: dict[str, Any] | None = None
    viewer_url: str | None = None
    # Filled by ConvertPipeline:
    markdown: str | None = None
    evidence: dict[str, Any] | None = None
    outcome: str | None = None
    drop_reason: str | None = None
