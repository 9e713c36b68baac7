"""Two runs: which runs may be compared, stability of the kept pages, drift alerts (definitions
in :mod:`gatecrawl.report.aggregate`)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from gatecrawl.report.options import ReportOptions
from gatecrawl.report.stats import _rate

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
