"""FetchInfo: what the fetch knows about one response, the record ``convert()`` reads beside the body.

The crawl's spider builds one for every page it captures (``PageCapture.fetch``) and the
conversion pipeline hands it to ``convert()`` as it is, adding only what conversion itself
decides (the host's "not found" probe, the element cap). It is a frozen dataclass of plain
values, so it pickles into the conversion worker processes unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["FetchInfo"]


@dataclass(frozen=True, kw_only=True)
class FetchInfo:
    """What the fetcher knows about a response. Every field is optional for ``convert()`` users."""

    url_requested: str | None = None
    """The URL asked for (before redirects); ``None``: the final URL."""
    http_status: int | None = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers (first value each); cookies are filtered out before any packet is written."""
    reader: str = "http"
    """``http`` (plain request) or ``render`` (browser); ``embedded_data`` (the rebuilt page of a
    shell) is set by ``convert()`` itself."""
    latency_ms: int | None = None
    fetched_at: str | None = None
    depth: int | None = None
    run_id: str | None = None
    error: str | None = None
    """Set when the download failed: no body to convert."""
    error_reason: str | None = None
    """Typed reason for a failed download (``egress_blocked``, ``timeout``, ...)."""
    egress: Mapping[str, Any] | None = None
    """The egress decision for a refused request (reason, detail, hop)."""
    escalated_from: str | None = None
    escalation_reason: str | None = None
    fetch_presence: Mapping[str, Any] | None = None
    """The downloader-side gate verdict on the plain fetch (``Presence.to_dict``, meta
    ``gatecrawl_presence``)."""
    render: Mapping[str, Any] | None = None
    """Readiness report from the browser."""
    viewer_url: str | None = None
    """The HTML page whose embedded PDF this is."""
    capture: str | None = None
    """``plain``: the plain side of an escalated page (its shell signal was answered by a render)."""
    not_found_probe: Mapping[str, Any] | None = None
    """The host's "not found" fingerprint for this reader (:mod:`gatecrawl.core.soft404`)."""
    max_dom_nodes: int | None = None
    """Element cap before parsing (``None``: ``DEFAULT_MAX_DOM_NODES``; 0: no cap)."""
