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
    plain: dict[str, Any] | None = None
    """A rendered page's plain capture (``gatecrawl_plain_capture`` meta: url, status, headers,
    content_type, body); the pipeline converts both and keeps one (``capture_choice``)."""
    # Filled by ConvertPipeline:
    markdown: str | None = None
    evidence: dict[str, Any] | None = None
    outcome: str | None = None
    drop_reason: str | None = None


def first_headers(headers: Any) -> dict[str, str]:
    """Response headers as ``{lowercase name: first value}``, cookies left out."""
    out = {}
    for k, v in headers.items():
        name = k.decode("latin-1").lower()
        if name in ("set-cookie", "cookie"):
            continue
        out[name] = v[0].decode("latin-1") if v else ""
    return out
