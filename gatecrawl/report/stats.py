"""The numbers of one run record: counts, rates, distributions, cost (definitions in
:mod:`gatecrawl.report.aggregate`)."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from gatecrawl.report.options import COST_FORMULA, ReportOptions

READERS = ("http", "render", "pdf")
SCORES = (0, 1, 2, 3, 4)


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
