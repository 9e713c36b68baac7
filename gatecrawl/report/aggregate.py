"""Aggregates over per-run records: the numbers that tune a routing table.

``build_summary(store, site, ...)`` returns the JSON summary (``SUMMARY_VERSION``) of one run
of one site, compared against another run (default: the previous one by finished time).
Definitions (each page counted once per run, by ``url_key``):

- drop rate: dropped / pages;
- escalation rate: pages whose plain fetch was flagged for the browser (``needs_render``) or
  that were read after an escalation (``escalated_from`` set), over pages;
- render rate: pages read by the browser (``reader == "render"``), over pages;
- percentiles: nearest rank (p50 of 1..10 is 5, p95 is 10);
- cost: ``total = fetches * cost_fetch + render_seconds * cost_render_second + pdf_pages *
  cost_pdf_page`` and ``per_1000_clean_pages = 1000 * total / kept`` (null when nothing was
  kept), where fetches = pages read by a plain request (``reader`` http, pdf, embedded_data or native_markdown) plus rendered
  pages escalated from one, render_seconds = sum of ``render_elapsed_ms`` / 1000, pdf_pages =
  sum of PDF page counts. Every page costs, dropped ones included: junk is paid for too.
- stability (against the other run), over pages kept in both runs: ``identical_share`` = share
  whose Markdown is byte-identical (same sha256); for the others, Jaccard similarity of their
  heading sets; ``score`` = mean over all compared pages of 1 (identical) or that Jaccard.
- drift alerts: escalation rate or drop rate moved by more than its threshold (absolute,
  in rate units: 0.02 = 2 percentage points); a recipe main selector that matched pages in
  the other run matches none now.

This module builds the summary; the numbers of one run are computed in
:mod:`gatecrawl.report.stats`, the comparison of two runs in :mod:`gatecrawl.report.compare`,
and the options live in :mod:`gatecrawl.report.options`.

Pure: no Scrapy imports.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Mapping

from gatecrawl.report.compare import comparable, comparable_alone, drift_alerts, run_failed, stability
from gatecrawl.report.options import COST_FORMULA, DEFAULT_UNIT_COSTS, ReportError, ReportOptions
from gatecrawl.report.record import list_runs, load_record, report_keys, time_key
from gatecrawl.report.stats import cost, distribution, percentile, run_stats
from gatecrawl.store.base import Store

__all__ = [
    "SUMMARY_VERSION",
    "DEFAULT_UNIT_COSTS",
    "ReportOptions",
    "ReportError",
    "percentile",
    "distribution",
    "run_stats",
    "stability",
    "drift_alerts",
    "build_summary",
    "COST_FORMULA",
    # also importable from here (defined in options, stats and compare)
    "comparable",
    "comparable_alone",
    "cost",
    "run_failed",
]

SUMMARY_VERSION = "gatecrawl.report/1"


# -- the summary --------------------------------------------------------------------------

_COMPARED = (
    ("pages", ("counts", "pages")),
    ("kept", ("counts", "kept")),
    ("dropped", ("counts", "dropped")),
    ("escalated", ("counts", "escalated")),
    ("rendered", ("counts", "rendered")),
    ("drop_rate", ("rates", "drop_rate")),
    ("escalation_rate", ("rates", "escalation_rate")),
    ("render_rate", ("rates", "render_rate")),
    ("bytes_in", ("volume", "bytes_in")),
    ("markdown_chars", ("volume", "markdown_chars")),
    ("cost_per_1000_clean_pages", ("cost", "per_1000_clean_pages")),
    ("http_latency_p50_ms", ("by_reader", "http", "latency_ms", "p50")),
    ("http_latency_p95_ms", ("by_reader", "http", "latency_ms", "p95")),
)


def _dig(doc: Any, path: tuple[str, ...]) -> Any:
    for p in path:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(p)
    return doc


def _delta(a: Any, b: Any) -> Any:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        d = a - b
        return round(d, 6) if isinstance(d, float) else d
    return None


def _history_point(record: Mapping[str, Any], stats: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "run_id": record.get("run_id"),
        "finished_at": record.get("finished_at"),
        "pages": stats["counts"]["pages"],
        "kept": stats["counts"]["kept"],
        "dropped": stats["counts"]["dropped"],
        "drop_rate": stats["rates"]["drop_rate"],
        "escalation_rate": stats["rates"]["escalation_rate"],
        "render_rate": stats["rates"]["render_rate"],
        "cost_per_1000_clean_pages": stats["cost"]["per_1000_clean_pages"],
    }


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_LOOKBACK = 20


def build_summary(
    store: Store,
    site: str,
    *,
    run_id: str | None = None,
    against: str | None = None,
    options: ReportOptions | None = None,
    current_record: Mapping[str, Any] | None = None,
    store_uri: str | None = None,
    standalone: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build the summary of one run. Returns ``(summary, record)``.

    ``current_record``: the record of the run being reported (the crawl's own, which may not
    be readable from an asynchronous store yet); default: the stored run ``run_id`` (default:
    the latest). ``against``: the run to compare with (default: the latest earlier run that is
    :func:`comparable` with it: both succeeded, same render policy, neither a distributed
    worker's share; none for a run that failed).
    ``standalone``: the current record stands apart from the stored runs (a whole distributed
    crawl, whose workers' runs are stored): no run is compared or shown in the history unless
    named by ``against``.
    """
    options = options or ReportOptions()
    runs = list_runs(store, site)
    if current_record is not None:
        run_id = str(current_record.get("run_id"))
        if not any(r["run_id"] == run_id for r in runs):
            runs.append({"run_id": run_id, "finished_at": current_record.get("finished_at") or "", "manifest_key": None, "record_key": None})
            runs.sort(key=lambda r: (time_key(r["finished_at"]), r["run_id"]))
        if standalone:
            runs = [r for r in runs if r["run_id"] in (run_id, against)]
    if not runs:
        raise ReportError(f"no runs of site {site!r} in {store_uri or getattr(store, 'uri', 'the store')}")
    ids = [r["run_id"] for r in runs]
    if run_id is None:
        run_id = ids[-1]
    if run_id not in ids:
        raise ReportError(f"no run {run_id!r} of site {site!r} (runs: {', '.join(ids[-10:])})")
    idx = ids.index(run_id)
    record = dict(current_record) if current_record is not None else load_record(store, site, runs[idx])
    if record is None:
        raise ReportError(f"run {run_id!r} of site {site!r} has no readable record or manifest")
    other = None
    if against is None:
        # The latest earlier run this one can be compared with (never a failed one).
        if comparable_alone(record):
            for j in range(idx - 1, max(-1, idx - 1 - _LOOKBACK), -1):
                candidate = load_record(store, site, runs[j])
                if candidate is not None and comparable(record, candidate):
                    against, other = ids[j], candidate
                    break
    elif against not in ids:
        raise ReportError(f"no run {against!r} of site {site!r} to compare against")

    stats = run_stats(record, options)
    other_stats = None
    if other is None and against is not None and against != run_id:
        other = load_record(store, site, runs[ids.index(against)])
    if other is not None:
        other_stats = run_stats(other, options)

    history = []
    for r in runs[max(0, idx + 1 - max(options.history, 1)) : idx + 1]:
        rec = record if r["run_id"] == run_id else (other if other is not None and r["run_id"] == against else load_record(store, site, r))
        if rec is not None:
            history.append(_history_point(rec, stats if rec is record else run_stats(rec, options)))

    comparison = None
    if other_stats is not None:
        metrics = {}
        for name, path in _COMPARED:
            a, b = _dig(stats, path), _dig(other_stats, path)
            metrics[name] = {"current": a, "previous": b, "delta": _delta(a, b)}
        reasons = sorted(set(stats["counts"]["dropped_by_reason"]) | set(other_stats["counts"]["dropped_by_reason"]))
        comparison = {
            "against_run_id": against,
            "against_finished_at": other.get("finished_at") if other else None,
            "metrics": metrics,
            "dropped_by_reason": {
                r: {"current": stats["counts"]["dropped_by_reason"].get(r, 0), "previous": other_stats["counts"]["dropped_by_reason"].get(r, 0)}
                for r in reasons
            },
        }

    quarantine = [
        {
            "url": p.get("url"),
            "url_key": p.get("url_key"),
            "drop_reason": p.get("drop_reason"),
            "drop_detail": p.get("drop_detail"),
            "reader": p.get("reader"),
            "page_type": p.get("page_type"),
            "quality_score": p.get("quality_score"),
            "http_status": p.get("http_status"),
            "packet_key": p.get("packet_key") or (f"{site}/quarantine/{p.get('url_key')}.json" if p.get("url_key") else None),
        }
        for p in sorted(record.get("pages") or [], key=lambda p: (p.get("drop_reason") or "", p.get("url") or ""))
        if p.get("outcome") != "kept"
    ]

    summary = {
        "schema_version": SUMMARY_VERSION,
        "site": site,
        "run_id": run_id,
        "against_run_id": against if other is not None else None,
        "generated_at": _now(),
        "store_uri": store_uri or getattr(store, "uri", None),
        "keys": report_keys(site, run_id),
        "run": {
            "started_at": record.get("started_at"),
            "finished_at": record.get("finished_at"),
            "finish_reason": record.get("finish_reason"),
            "recipe": record.get("recipe") or {},
            "record_source": record.get("source"),
            "duplicates": record.get("duplicates", 0),
        },
        **stats,
        "stability": stability(record, other) if other is not None else None,
        "comparison": comparison,
        "drift": {
            "thresholds": {"escalation_rate": options.drift_escalation, "drop_rate": options.drift_drop},
            "alerts": drift_alerts(record, other, stats, other_stats, options) if other is not None and other_stats is not None else [],
        },
        "history": history,
        "quarantine": quarantine,
        "changes": changes_section(site, run_id, record),
        "routing": {k: int((record.get("stats") or {}).get(f"gatecrawl/routing/{k}", 0) or 0) for k in ("routed", "rechecked", "mispredicted", "check_skipped")},
    }
    return summary, record


def changes_section(site: str, run_id: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """The run's change list counts (changed-only recrawls, :mod:`gatecrawl.store.recrawl`), from
    its ``gatecrawl/recrawl/*`` stats, and the key of the full list."""
    from gatecrawl.store.recrawl import changes_key

    st = record.get("stats") or {}
    counts = {k: int(st.get(f"gatecrawl/recrawl/{k}", 0) or 0) for k in ("added", "changed", "removed", "unchanged", "dropped")}
    counts["not_modified"] = int(st.get("gatecrawl/recrawl/not_modified", 0) or 0)
    counts["skipped_lastmod"] = int(st.get("gatecrawl/recrawl/skipped_lastmod", 0) or 0)
    return {**counts, "key": changes_key(site, run_id)}
