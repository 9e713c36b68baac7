"""The run's per-page records, built from the page's :class:`~gatecrawl.core.packet.EvidencePacket`.

Two records per page, one packet:

- the **manifest entry** (``<site>/runs/<run id>.json`` ``pages``): what happened to the page's
  store objects, how it changed since the last run, and its per-run facts (``fetched_at``,
  ``latency_ms``, the render's timings: the fields the stored packet's identity leaves out);
- the **report entry** (``<site>/runs/reports/<run id>.record.json``): the page's facts for the
  crawl report (:func:`gatecrawl.report.record.page_entry`).

A page not fetched again because its stored copy stands (a 304, a sitemap lastmod skip) has no
new packet: its entries repeat what is stored (``PageCapture.previous``), and its report entry is
filled in from the latest earlier record when the report is written (``carried``).

Pure: no Scrapy imports.
"""

from __future__ import annotations

from typing import Any, Mapping

from gatecrawl.core.evidence import url_key
from gatecrawl.core.packet import EvidencePacket
from gatecrawl.core.redact import redact_url
from gatecrawl.report.record import page_entry
from gatecrawl.store.identity import run_facts

__all__ = ["carried_report_entry", "manifest_entry", "report_entry", "unchanged_manifest_entry"]


def manifest_entry(
    packet: EvidencePacket,
    *,
    outcome: str | None,
    drop_reason: str | None,
    links: list[str] | None,
    written: list[str],
    stale: list[str],
    identities: dict[str, str],
    change: str,
    content_fetched_at: str | None,
) -> dict[str, Any]:
    headers = packet.response_headers or {}
    return {
        "url": packet.url_final,
        "url_requested": packet.url_requested,
        "depth": packet.depth,
        "change": change,
        "not_modified": None,
        "etag": headers.get("etag"),
        "last_modified": headers.get("last-modified"),
        "content_fetched_at": content_fetched_at,
        "links": links,
        "outcome": outcome,
        "drop_reason": drop_reason,
        "keys": written,
        "stale_keys": stale,
        "identity_sha256": identities,
        "markdown_sha256": packet.markdown_sha256,
        "needs_render": packet.needs_render,
        "reader": packet.reader,
        "title": packet.title,
        # Per-run facts: they are not part of the stored packet's identity.
        "fetched_at": packet.fetched_at,
        "latency_ms": packet.latency_ms,
        "render": run_facts({"render": packet.render}),
    }


def unchanged_manifest_entry(prev: Mapping[str, Any], *, url: str, url_requested: str, depth: int | None, change: str,
                             not_modified: str, fetched_at: str | None, latency_ms: int | None) -> dict[str, Any]:
    """A page whose stored copy stands: no object is written or removed; the entry repeats what
    is stored (``prev``, its line in ``<site>/recrawl.jsonl``) and says why."""
    return {
        "url": prev.get("url") or url,
        "url_requested": prev.get("url_requested") or url_requested,
        "depth": depth,
        "change": change,
        "not_modified": not_modified,
        "etag": prev.get("etag"),
        "last_modified": prev.get("last_modified"),
        "content_fetched_at": prev.get("content_fetched_at"),
        "links": prev.get("links"),
        "outcome": prev.get("outcome"),
        "drop_reason": prev.get("drop_reason"),
        "keys": list(prev.get("keys") or []),
        "stale_keys": [],
        "identity_sha256": dict(prev.get("identity_sha256") or {}),
        "markdown_sha256": prev.get("markdown_sha256"),
        "needs_render": None,
        "reader": None,
        "title": prev.get("title"),
        "fetched_at": fetched_at,
        "latency_ms": latency_ms,
        "render": None,
    }


def report_entry(packet: EvidencePacket, *, outcome: str | None, drop_reason: str | None, markdown: str | None, packet_key: str) -> dict[str, Any]:
    """The crawl report's entry of an exported page (``markdown`` None for a dropped page)."""
    doc = {**packet.to_dict(), "outcome": outcome, "drop_reason": drop_reason if outcome != "kept" else None}
    kept_md = markdown if outcome == "kept" else None
    entry = page_entry(doc, kept_md, packet_key=packet_key)
    if outcome == "kept" and kept_md is None:
        entry["headings"] = []
    return entry


def carried_report_entry(prev: Mapping[str, Any], *, url: str, not_modified: str, latency_ms: int | None) -> dict[str, Any]:
    """The report entry of a page whose stored copy stands, to be filled in from the latest
    earlier record when the report is written (:func:`gatecrawl.ledger.report.with_carried`)."""
    u = str(prev.get("url") or url)
    return {
        "carried": url_key(u),
        "url": redact_url(u),
        "outcome": prev.get("outcome"),
        "drop_reason": prev.get("drop_reason"),
        "not_modified": not_modified,
        "latency_ms": latency_ms,
    }
