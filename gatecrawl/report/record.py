"""Per-run records: the compact, per-page facts a report needs, kept for every run.

Page packets in ``<site>/pages/`` and ``<site>/quarantine/`` hold each URL's *latest* state
only (and an unchanged packet is not rewritten, so its per-run timings may be older). To
compare runs, the report extension writes one record per run at the end of the crawl::

    <site>/runs/reports/<run id>.record.json    the per-run record (this module)
    <site>/runs/reports/<run id>.summary.json   the JSON summary (``aggregate``)
    <site>/runs/reports/<run id>.html           the HTML report (``html``)

They live in a ``reports/`` folder under ``runs/`` so that ``<site>/runs/*.json`` stays the
set of run manifests. A run that has a manifest but no record (crawled with the report
extension off) gets a record rebuilt from its manifest and the packets currently stored.

Pure: no Scrapy imports.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from gatecrawl.core.evidence import url_key
from gatecrawl.core.redact import redact_obj, redact_text, redact_url
from gatecrawl.store.base import Store
from gatecrawl.store.keys import REPORTS_FOLDER, key_safe, report_keys, runs_prefix  # noqa: F401 - re-exported: keys live in store.keys

__all__ = [
    "RECORD_VERSION",
    "report_keys",
    "headings_from_markdown",
    "headings_from_provenance",
    "page_entry",
    "build_record",
    "dump_json",
    "list_runs",
    "time_key",
    "load_record",
    "record_from_store",
]

RECORD_VERSION = "gatecrawl.report.record/1"

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")


def headings_from_markdown(markdown: str) -> list[str]:
    """ATX heading lines (``## Title``, trailing ``#``s and spaces removed), outside code fences."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)[0]
            if fence is None:
                fence = mark
            elif fence == mark:
                fence = None
            continue
        if fence is None and _HEADING.match(line):
            out.append(re.sub(r"[ \t]+#+[ \t]*$", "", line).rstrip())
    return out


def headings_from_provenance(packet: Mapping[str, Any]) -> list[str]:
    """Headings named by the packet's provenance spans (those that start with ``#``)."""
    out = []
    for span in packet.get("sample_provenance") or []:
        text = (span or {}).get("markdown_span") or ""
        if _HEADING.match(text):
            out.append(text.split("\n", 1)[0].rstrip())
    return out


def _pdf_pages(packet: Mapping[str, Any]) -> int | None:
    pdf = packet.get("pdf")
    if not isinstance(pdf, dict):
        return None
    n = pdf.get("page_count")
    if isinstance(n, int):
        return n
    pages = pdf.get("pages")
    if isinstance(pages, list):
        return len(pages)
    return pages if isinstance(pages, int) else None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def page_entry(packet: Mapping[str, Any], markdown: str | None = None, *, packet_key: str | None = None) -> dict[str, Any]:
    """The per-page facts of one packet (and its Markdown, for the heading list)."""
    outcome = packet.get("outcome")
    if markdown is not None:
        headings = headings_from_markdown(markdown)
    else:
        headings = headings_from_provenance(packet)
    detail = packet.get("drop_detail")
    if isinstance(detail, str):
        detail = redact_text(detail)
    if isinstance(detail, str) and len(detail) > 300:
        detail = detail[:297] + "..."
    return {
        "url": redact_url(str(packet.get("url_final") or packet.get("url_requested") or "")) or None,
        "url_key": packet.get("url_key"),
        "outcome": outcome,
        "drop_reason": packet.get("drop_reason"),
        "drop_detail": detail,
        "http_status": _int(packet.get("http_status")),
        "reader": packet.get("reader"),
        "page_type": packet.get("page_type"),
        "needs_render": bool(packet.get("needs_render")),
        "escalated_from": packet.get("escalated_from"),
        "escalated": bool(packet.get("needs_render")) or packet.get("escalated_from") is not None,
        "quality_score": _int(packet.get("quality_score")),
        "latency_ms": _int(packet.get("latency_ms")),
        "render_elapsed_ms": _int(packet.get("render_elapsed_ms")),
        "render_readiness_passed": packet.get("render_readiness_passed"),
        "render_readiness_reason": packet.get("render_readiness_reason"),
        "bytes_in": _int(packet.get("bytes_in")) or 0,
        "chars_out": _int(packet.get("chars_out")) or 0,
        "markdown_sha256": packet.get("markdown_sha256") if outcome == "kept" else None,
        "headings": headings if outcome == "kept" else [],
        "pdf_pages": _pdf_pages(packet),
        "selection_rule": packet.get("selection_rule"),
        "main_selectors_used": list(packet.get("main_selectors_used") or []),
        "packet_key": packet_key or packet.get("packet_key"),
    }


def build_record(
    *,
    site: str,
    run_id: str,
    pages: Iterable[Mapping[str, Any]],
    started_at: str | None = None,
    finished_at: str | None = None,
    recipe: Mapping[str, Any] | None = None,
    finish_reason: str | None = None,
    stats: Mapping[str, Any] | None = None,
    source: str = "crawl",
    conditions: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A run record; pages are de-duplicated by ``url_key`` (the last wins, as in the store).
    ``conditions``: what makes two runs comparable (``render_policy``, ``crawl_id``)."""
    by_key: dict[str, dict[str, Any]] = {}
    duplicates = 0
    for p in pages:
        k = p.get("url_key") or p.get("url") or ""
        if k in by_key:
            duplicates += 1
        by_key[k] = dict(p)
    # The whole record goes through the one redaction used for packets, logs and stats.
    return redact_obj({
        "schema_version": RECORD_VERSION,
        "site": site,
        "run_id": run_id,
        "source": source,
        "started_at": started_at,
        "finished_at": finished_at,
        "finish_reason": finish_reason,
        "recipe": dict(recipe or {}),
        "conditions": dict(conditions or {}),
        "duplicates": duplicates,
        "pages": [by_key[k] for k in sorted(by_key)],
        "stats": {k: v for k, v in sorted((stats or {}).items()) if k.startswith("gatecrawl/") and isinstance(v, (int, float, str, bool))},
    })


def dump_json(doc: Any) -> bytes:
    return (json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=2, default=str) + "\n").encode("utf-8")


def _load_json(store: Store, key: str) -> Any:
    data = store.get(key)
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def list_runs(store: Store, site: str) -> list[dict[str, Any]]:
    """Stored runs of ``site``, oldest first (by finished time, then run id).

    Each item: ``run_id``, ``finished_at``, ``started_at``, ``manifest_key`` (or None),
    ``record_key`` (or None)."""
    runs: dict[str, dict[str, Any]] = {}
    prefix = runs_prefix(site)
    rec_prefix = f"{prefix}{REPORTS_FOLDER}/"
    for key in store.list(prefix):
        rest = key[len(prefix) :]
        if "/" not in rest and rest.endswith(".json"):
            rid = rest[: -len(".json")]
            runs.setdefault(rid, {"run_id": rid, "manifest_key": None, "record_key": None})["manifest_key"] = key
        elif key.startswith(rec_prefix) and key.endswith(".record.json") and "/" not in key[len(rec_prefix) :]:
            rid = key[len(rec_prefix) : -len(".record.json")]
            runs.setdefault(rid, {"run_id": rid, "manifest_key": None, "record_key": None})["record_key"] = key
    for info in runs.values():
        doc = _load_json(store, info["record_key"]) if info["record_key"] else None
        if not isinstance(doc, dict) and info["manifest_key"]:
            doc = _load_json(store, info["manifest_key"])
        doc = doc if isinstance(doc, dict) else {}
        if doc.get("run_id"):
            info["run_id"] = str(doc["run_id"])
        info["finished_at"] = doc.get("finished_at") or ""
        info["started_at"] = doc.get("started_at") or ""
    return sorted(runs.values(), key=lambda r: (time_key(r["finished_at"]), r["run_id"]))


def time_key(ts: str) -> str:
    # "2026-01-01T00:00:00Z" and "2026-01-01T00:00:00.123456Z" must sort by time, not by text.
    if not ts:
        return ""
    ts = ts.rstrip("Z")
    if "." not in ts:
        ts += ".000000"
    return ts


def load_record(store: Store, site: str, run: Mapping[str, Any]) -> dict[str, Any] | None:
    """The run's record; rebuilt from its manifest and the stored packets when it has none."""
    if run.get("record_key"):
        doc = _load_json(store, run["record_key"])
        if isinstance(doc, dict) and doc.get("schema_version") == RECORD_VERSION:
            return doc
    if run.get("manifest_key"):
        manifest = _load_json(store, run["manifest_key"])
        if isinstance(manifest, dict):
            return record_from_store(store, site, manifest)
    return None


def record_from_store(store: Store, site: str, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A record from a run manifest and the packets stored now (latest state of each URL)."""
    pages = []
    for entry in manifest.get("pages") or []:
        packet_key = next((k for k in entry.get("keys") or [] if k.endswith(".json")), None)
        md_key = next((k for k in entry.get("keys") or [] if k.endswith(".md")), None)
        packet = _load_json(store, packet_key) if packet_key else None
        if isinstance(packet, dict):
            md = store.get(md_key) if md_key else None
            p = page_entry(packet, md.decode("utf-8", "replace") if md is not None else None, packet_key=packet_key)
            # The manifest is the truth for this run; the packet may be a later run's.
            p["outcome"] = entry.get("outcome", p["outcome"])
            p["drop_reason"] = entry.get("drop_reason", p["drop_reason"])
            if entry.get("markdown_sha256") and p["outcome"] == "kept":
                p["markdown_sha256"] = entry["markdown_sha256"]
        else:
            p = {
                "url": entry.get("url"),
                "url_key": url_key(entry["url"]) if entry.get("url") else None,
                "outcome": entry.get("outcome"),
                "drop_reason": entry.get("drop_reason"),
                "reader": entry.get("reader"),
                "page_type": None,
                "needs_render": bool(entry.get("needs_render")),
                "escalated": bool(entry.get("needs_render")),
                "markdown_sha256": entry.get("markdown_sha256") if entry.get("outcome") == "kept" else None,
                "headings": [],
                "packet_key": packet_key,
            }
        pages.append(p)
    recipe = manifest.get("recipe") or {}
    return build_record(
        site=site,
        run_id=str(manifest.get("run_id")),
        pages=pages,
        started_at=manifest.get("started_at"),
        finished_at=manifest.get("finished_at"),
        recipe={"name": recipe.get("name"), "digest": recipe.get("digest"), "main_selectors": []},
        stats=manifest.get("stats") or {},
        source="manifest",
    )
