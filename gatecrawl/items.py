"""Typed items passed from the spider to the pipelines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.packet import EvidencePacket


@dataclass(kw_only=True)
class PageCapture:
    """One fetched URL, as the spider saw it. The pipelines turn it into Markdown and a packet.

    The capture is the response (``url_final``, ``content_type``, ``body``), what the fetch
    knows about it (``fetch``: the :class:`~gatecrawl.core.fetch.FetchInfo` that
    ``convert()`` reads, built by the spider and passed to ``convert()`` as it is) and what
    only the crawl needs (the plain capture of a render, the links, the stored state of an
    unchanged page). The conversion fills ``markdown``, ``packet``, ``outcome`` and
    ``drop_reason``."""

    url_final: str
    """The response URL (after redirects); the URL asked for is ``fetch.url_requested``."""
    fetch: FetchInfo
    """What the fetch knows: requested URL, status, headers, reader (``http``/``render``),
    timing, depth, run id, the typed failure of a failed download, the presence verdict, the
    escalation and render reports, the viewer page of a PDF."""
    content_type: str | None = None
    body: bytes = b""
    plain: dict[str, Any] | None = None
    """A rendered page's plain capture (``gatecrawl_plain_capture`` meta: url, status, headers,
    content_type, body); the pipeline converts both and keeps one (``capture_choice``)."""
    render_attempts: int = 0
    """Browser renders of this URL before this capture (``gatecrawl_render_attempts`` meta): a
    capture of a render request is never escalated again, whatever answered it."""
    links: list[str] | None = None
    """The followable links the page held (stored for changed-only recrawls: requested again when
    a later run does not fetch the page); None when its links were not read."""
    not_modified: str | None = None
    """Set when the page was not fetched again because the stored copy stands: ``304`` (the
    server answered a conditional request with Not Modified) or ``sitemap_lastmod``."""
    previous: dict[str, Any] | None = None
    """For a ``not_modified`` capture: the page's line in ``<site>/recrawl.jsonl``."""
    # Filled by ConvertPipeline:
    markdown: str | None = None
    packet: EvidencePacket | None = None
    """The page's evidence packet (:class:`gatecrawl.core.packet.EvidencePacket`)."""
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


def feed_item(item: PageCapture, keys: dict[str, str]) -> dict[str, Any]:
    """What the feeds (``-O pages.jsonl``, ``FEEDS``) get for one stored page: plain JSON types
    only, no raw body, no headers. ``keys`` are its store keys (``markdown`` and ``packet`` for a
    kept page, ``quarantine`` for a dropped one)."""
    p = item.packet
    assert p is not None
    kept = item.outcome == "kept"
    return {
        "url": p.url_final or item.url_final,
        "url_requested": p.url_requested or item.fetch.url_requested,
        "status": p.http_status,
        "outcome": item.outcome,
        "drop_reason": None if kept else item.drop_reason,
        "drop_detail": None if kept else p.drop_detail,
        "title": p.title,
        "fields": dict(p.fields or {}),
        "markdown": item.markdown if kept else None,
        "markdown_sha256": p.markdown_sha256 if kept else None,
        "keys": dict(keys),
        "site": p.site,
        "run_id": p.run_id,
        "fetched_at": p.fetched_at,
        "reader": p.reader,
        "page_type": p.page_type,
        "content_type": p.content_type,
        "needs_render": p.needs_render,
        "quality_score": p.quality_score,
    }
