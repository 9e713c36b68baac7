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

Pure: no Scrapy imports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from gatecrawl.report.record import list_runs, load_record, report_keys, time_key
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
]

SUMMARY_VERSION = "gatecrawl.report/1"
READERS = ("http", "render", "pdf")
SCORES = (0, 1, 2, 3, 4)
# Illustrative unit costs (replace them with your own measured figures): a plain fetch, one
# second of browser rendering, one PDF page parsed.
DEFAULT_UNIT_COSTS = {"fetch": 0.0001, "render_second": 0.001, "pdf_page": 0.0005}
COST_FORMULA = (
    "per_1000_clean_pages = 1000 * (fetches * fetch + render_seconds * render_second"
    " + pdf_pages * pdf_page) / kept"
)


class ReportError(LookupError):
    """No such site or run in the store."""


@dataclass(frozen=True)
class ReportOptions:
    unit_costs: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_UNIT_COSTS))
    currency: str = "USD"
    drift_escalation: float = 0.02
    drift_drop: float = 0.02
    history: int = 20

    @classmethod
    def from_settings(cls, settings: Any) -> "ReportOptions":
        """From any mapping with ``.get(name, default)`` (Scrapy settings included)."""

        def num(name: str, default: float) -> float:
            v = settings.get(name, default)
            return float(default if v is None or v == "" else v)

        return cls(
            unit_costs={
                "fetch": num("GATECRAWL_COST_FETCH", DEFAULT_UNIT_COSTS["fetch"]),
                "render_second": num("GATECRAWL_COST_RENDER_SECOND", DEFAULT_UNIT_COSTS["render_second"]),
                "pdf_page": num("GATECRAWL_COST_PDF_PAGE", DEFAULT_UNIT_COSTS["pdf_page"]),
            },
            currency=str(settings.get("GATECRAWL_COST_CURRENCY", "USD") or "USD"),
            drift_escalation=num("GATECRAWL_REPORT_DRIFT_ESCALATION", 0.02),
            drift_drop=num("GATECRAWL_REPORT_DRIFT_DROP", 0.02),
            history=int(num("GATECRAWL_REPORT_HISTORY", 20)),
        )


# -- small statistics ---------------------------------------------------------------------


def percentile(values: Iterable[float], p: float) -> float | None:
    """Nearest-rank percentile (``p`` in 0..100); None for no values."""
    vals = sorted(values)
    if not vals:
        return None
    rank = max(1, math.ceil(p / 100.0 * len(vals)))
    return vals[min(rank, len(vals)) - 1]


def distribution(values: Iterable[float | None]) -> dict[str, Any]:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return {"count": 0, "min": None, "p50": None, "p95": None, "max": None, "mean": None}
    return {
        "count": len(vals),
        "min": vals[0],
        "p50": percentile(vals, 50),
        "p95": percentile(vals, 95),
        "max": vals[-1],
        "mean": round(sum(vals) / len(vals), 3),
    }


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 6) if d else None


def _count(items: Iterable[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        k = "none" if it is None else str(it)
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


# -- one run ------------------------------------------------------------------------------


def _is_rendered(p: Mapping[str, Any]) -> bool:
    return p.get("reader") == "render"


def _is_fetch(p: Mapping[str, Any]) -> bool:
    reader = p.get("reader")
    # a page read from its embedded data or a site's Markdown answer cost one plain fetch too
    return reader in ("http", "pdf", "embedded_data", "native_markdown", None) or (reader == "render" and p.get("escalated_from") == "http")


def cost(pages: list[Mapping[str, Any]], kept: int, options: ReportOptions) -> dict[str, Any]:
    uc = {k: float(v) for k, v in options.unit_costs.items()}
    fetches = sum(1 for p in pages if _is_fetch(p))
    render_ms = sum(p.get("render_elapsed_ms") or 0 for p in pages)
    pdf_pages = sum(p.get("pdf_pages") or 0 for p in pages if p.get("page_type") == "pdf" or p.get("reader") == "pdf")
    parts = {
        "fetch": fetches * uc["fetch"],
        "render": render_ms / 1000.0 * uc["render_second"],
        "pdf": pdf_pages * uc["pdf_page"],
    }
    total = sum(parts.values())
    return {
        "currency": options.currency,
        "unit_costs": uc,
        "usage": {"fetches": fetches, "render_seconds": render_ms / 1000.0, "pdf_pages": pdf_pages},
        "parts": parts,
        "total": total,
        "kept": kept,
        "per_1000_clean_pages": (1000.0 * total / kept) if kept else None,
        "formula": COST_FORMULA,
    }


def run_stats(record: Mapping[str, Any], options: ReportOptions | None = None) -> dict[str, Any]:
    """Counts, rates, distributions and cost of one run record."""
    options = options or ReportOptions()
    pages: list[Mapping[str, Any]] = list(record.get("pages") or [])
    kept_pages = [p for p in pages if p.get("outcome") == "kept"]
    dropped = [p for p in pages if p.get("outcome") != "kept"]
    n = len(pages)
    escalated = [p for p in pages if p.get("escalated")]
    rendered = [p for p in pages if _is_rendered(p)]

    by_type: dict[str, Any] = {}
    for t in sorted({str(p.get("page_type") or "none") for p in pages}):
        tp = [p for p in pages if str(p.get("page_type") or "none") == t]
        esc = sum(1 for p in tp if p.get("escalated"))
        ren = sum(1 for p in tp if _is_rendered(p))
        by_type[t] = {
            "pages": len(tp),
            "kept": sum(1 for p in tp if p.get("outcome") == "kept"),
            "dropped": sum(1 for p in tp if p.get("outcome") != "kept"),
            "escalated": esc,
            "rendered": ren,
            "escalation_rate": _rate(esc, len(tp)),
            "render_rate": _rate(ren, len(tp)),
        }

    by_reader: dict[str, Any] = {}
    readers = list(READERS) + sorted({str(p.get("reader")) for p in pages} - set(READERS))
    for r in readers:
        rp = [p for p in pages if str(p.get("reader")) == r]
        scores = {str(s): 0 for s in SCORES}
        scores["none"] = 0
        for p in rp:
            s = p.get("quality_score")
            key = str(s) if s is not None else "none"
            scores[key] = scores.get(key, 0) + 1
        by_reader[r] = {
            "pages": len(rp),
            "kept": sum(1 for p in rp if p.get("outcome") == "kept"),
            "dropped": sum(1 for p in rp if p.get("outcome") != "kept"),
            "quality_scores": scores,
            "quality_score_mean": distribution(p.get("quality_score") for p in rp)["mean"],
            "latency_ms": distribution(p.get("latency_ms") for p in rp),
            "bytes_in": sum(p.get("bytes_in") or 0 for p in rp),
            "chars_out": sum(p.get("chars_out") or 0 for p in rp),
        }

    render_pages = [p for p in pages if p.get("render_elapsed_ms") is not None or _is_rendered(p)]
    recipe_selectors = list((record.get("recipe") or {}).get("main_selectors") or [])
    selectors = {s: sum(1 for p in pages if s in (p.get("main_selectors_used") or [])) for s in recipe_selectors}

    return {
        "counts": {
            "pages": n,
            "kept": len(kept_pages),
            "dropped": len(dropped),
            "needs_render": sum(1 for p in pages if p.get("needs_render")),
            "escalated": len(escalated),
            "rendered": len(rendered),
            "dropped_by_reason": _count(p.get("drop_reason") for p in dropped),
        },
        "rates": {
            "drop_rate": _rate(len(dropped), n),
            "escalation_rate": _rate(len(escalated), n),
            "render_rate": _rate(len(rendered), n),
            "keep_rate": _rate(len(kept_pages), n),
        },
        "by_page_type": by_type,
        "by_reader": by_reader,
        "render": {
            "pages": len(render_pages),
            "readiness_passed": sum(1 for p in render_pages if p.get("render_readiness_passed") is True),
            "readiness_reasons": _count(p.get("render_readiness_reason") for p in render_pages),
            "elapsed_ms": distribution(p.get("render_elapsed_ms") for p in render_pages),
        },
        "pdf": {
            "documents": sum(1 for p in pages if p.get("page_type") == "pdf"),
            "pages": sum(p.get("pdf_pages") or 0 for p in pages if p.get("page_type") == "pdf"),
        },
        "volume": {
            "bytes_in": sum(p.get("bytes_in") or 0 for p in pages),
            "markdown_chars": sum(p.get("chars_out") or 0 for p in kept_pages),
            "markdown_chars_mean": distribution(p.get("chars_out") for p in kept_pages)["mean"],
            "markdown_chars_p50": distribution(p.get("chars_out") for p in kept_pages)["p50"],
        },
        "selection_rules": _count(p.get("selection_rule") for p in kept_pages),
        "selectors": selectors,
        "cost": cost(pages, len(kept_pages), options),
    }


# -- two runs -----------------------------------------------------------------------------


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def stability(current: Mapping[str, Any], other: Mapping[str, Any], limit: int = 200) -> dict[str, Any]:
    cur = {p.get("url_key"): p for p in current.get("pages") or []}
    prev = {p.get("url_key"): p for p in other.get("pages") or []}
    cur_kept = {k for k, p in cur.items() if p.get("outcome") == "kept"}
    prev_kept = {k for k, p in prev.items() if p.get("outcome") == "kept"}
    common = sorted(cur_kept & prev_kept)
    identical = 0
    changed = []
    for k in common:
        a, b = cur[k], prev[k]
        if a.get("markdown_sha256") and a.get("markdown_sha256") == b.get("markdown_sha256"):
            identical += 1
            continue
        j = _jaccard(a.get("headings") or [], b.get("headings") or [])
        changed.append(
            {
                "url": a.get("url"),
                "url_key": k,
                "heading_jaccard": round(j, 6),
                "headings_added": sorted(set(a.get("headings") or []) - set(b.get("headings") or [])),
                "headings_removed": sorted(set(b.get("headings") or []) - set(a.get("headings") or [])),
            }
        )
    outcome_changed = []
    for k in sorted(set(cur) & set(prev)):
        a, b = cur[k], prev[k]
        if (a.get("outcome"), a.get("drop_reason")) != (b.get("outcome"), b.get("drop_reason")):
            outcome_changed.append(
                {
                    "url": a.get("url"),
                    "url_key": k,
                    "previous": b.get("outcome"),
                    "previous_reason": b.get("drop_reason"),
                    "current": a.get("outcome"),
                    "current_reason": a.get("drop_reason"),
                }
            )
    js = [c["heading_jaccard"] for c in changed]
    changed.sort(key=lambda c: (c["heading_jaccard"], c["url"] or ""))
    return {
        "against_run_id": other.get("run_id"),
        "compared": len(common),
        "identical": identical,
        "identical_share": _rate(identical, len(common)),
        "changed": len(changed),
        "heading_jaccard_mean": round(sum(js) / len(js), 6) if js else None,
        "score": round((identical + sum(js)) / len(common), 6) if common else None,
        "changed_pages": changed[:limit],
        "outcome_changed": outcome_changed[:limit],
        "outcome_changed_count": len(outcome_changed),
        "added": len(set(cur) - set(prev)),
        "removed": len(set(prev) - set(cur)),
        "added_urls": sorted(cur[k].get("url") or "" for k in set(cur) - set(prev))[:limit],
        "removed_urls": sorted(prev[k].get("url") or "" for k in set(prev) - set(cur))[:limit],
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def drift_alerts(
    current: Mapping[str, Any],
    other: Mapping[str, Any],
    cur_stats: Mapping[str, Any],
    other_stats: Mapping[str, Any],
    options: ReportOptions,
) -> list[dict[str, Any]]:
    site = current.get("site")
    alerts: list[dict[str, Any]] = []
    for metric, threshold in (("escalation_rate", options.drift_escalation), ("drop_rate", options.drift_drop)):
        a, b = cur_stats["rates"].get(metric), other_stats["rates"].get(metric)
        if a is None or b is None:
            continue
        delta = round(a - b, 6)
        if abs(delta) <= threshold:
            continue
        # Pages in both runs whose escalation (or kept/dropped outcome) flipped.
        prev_by_key = {p.get("url_key"): p for p in other.get("pages") or []}
        moved = []
        for p in current.get("pages") or []:
            q = prev_by_key.get(p.get("url_key"))
            if q is None:
                continue
            if metric == "escalation_rate":
                flipped = bool(p.get("escalated")) != bool(q.get("escalated"))
            else:
                flipped = (p.get("outcome") == "kept") != (q.get("outcome") == "kept")
            if flipped:
                moved.append(p.get("url"))
        by_type = {}
        for t in sorted(set(cur_stats["by_page_type"]) | set(other_stats["by_page_type"])):
            ca = (cur_stats["by_page_type"].get(t) or {}).get(metric)
            cb = (other_stats["by_page_type"].get(t) or {}).get(metric)
            if metric == "drop_rate":
                ct, ot = cur_stats["by_page_type"].get(t), other_stats["by_page_type"].get(t)
                ca = _rate(ct["dropped"], ct["pages"]) if ct else None
                cb = _rate(ot["dropped"], ot["pages"]) if ot else None
            by_type[t] = {"current": ca, "previous": cb}
        name = metric.replace("_", " ")
        alerts.append(
            {
                "kind": metric,
                "site": site,
                "metric": metric,
                "current": a,
                "previous": b,
                "delta": delta,
                "threshold": threshold,
                "direction": "up" if delta > 0 else "down",
                "by_page_type": by_type,
                "pages": sorted(u or "" for u in moved)[:50],
                "message": f"{name} for site {site} moved from {_pct(b)} to {_pct(a)} ({'+' if delta > 0 else ''}{100 * delta:.1f} points, threshold {100 * threshold:.1f})",
            }
        )
    cur_sel = cur_stats.get("selectors") or {}
    prev_sel = other_stats.get("selectors") or {}
    for sel in sorted(set(cur_sel) | set(prev_sel)):
        before, now = prev_sel.get(sel), cur_sel.get(sel)
        if before and sel in cur_sel and not now:
            alerts.append(
                {
                    "kind": "selector_stopped_matching",
                    "site": site,
                    "metric": "main_selector_matches",
                    "selector": sel,
                    "current": 0,
                    "previous": before,
                    "delta": -before,
                    "threshold": 0,
                    "direction": "down",
                    "message": f"recipe selector {sel!r} for site {site} matched {before} page(s) in the previous run and none now",
                }
            )
    return alerts


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


# Earlier runs looked at for one to compare with.
_LOOKBACK = 20


def run_failed(record: Mapping[str, Any]) -> bool:
    """The run failed: an exit reason (``gatecrawl/exit/*``) or a finish other than "finished"."""
    stats = record.get("stats") or {}
    if any(k.startswith("gatecrawl/exit/") and v for k, v in stats.items()):
        return True
    return record.get("finish_reason") not in (None, "finished")


def comparable_alone(record: Mapping[str, Any]) -> bool:
    """A run that may be compared with another by default: it succeeded, and it is not one
    worker's share of a distributed crawl."""
    return not run_failed(record) and not (record.get("conditions") or {}).get("crawl_id")


def comparable(current: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Two runs whose rates mean the same: both comparable alone and under the same render policy
    (records written before the policy was recorded match any)."""
    if not (comparable_alone(current) and comparable_alone(other)):
        return False
    a = (current.get("conditions") or {}).get("render_policy")
    b = (other.get("conditions") or {}).get("render_policy")
    return a is None or b is None or a == b


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
