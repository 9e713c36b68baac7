"""The crawl report of a run, written by the run ledger when the spider closes::

    <site>/runs/reports/<run id>.record.json    per-page facts of this run (for later comparisons)
    <site>/runs/reports/<run id>.summary.json   the JSON summary (gatecrawl.report/1)
    <site>/runs/reports/<run id>.html           the HTML report

compared against the latest earlier run of the site that is comparable (both succeeded, same
render policy, not a distributed worker's share: :func:`gatecrawl.report.aggregate.comparable`).
Drift alerts are printed once: under the summary, and as log warnings when the log goes to a
file or no summary is printed.

Settings: ``GATECRAWL_REPORT_ENABLED``, ``GATECRAWL_REPORT_HTML``, ``GATECRAWL_REPORT_HISTORY``,
``GATECRAWL_REPORT_DRIFT_ESCALATION``, ``GATECRAWL_REPORT_DRIFT_DROP``, ``GATECRAWL_COST_*``.
Stats: ``gatecrawl/report/written``, ``gatecrawl/report/failed``, ``gatecrawl/report/drift_alerts``.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from gatecrawl.report import ReportError, ReportOptions, build_record, build_summary, dump_json, packet_linker, page_entry, render_html
from gatecrawl.report.record import list_runs, load_record
from gatecrawl.store import StoreError
from gatecrawl.store.keys import report_keys

__all__ = ["ReportSettings", "with_carried", "write_report"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ReportSettings:
    enabled: bool = True
    html: bool = True
    print_summary: bool = False
    log_to_file: bool = False
    options: ReportOptions | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> ReportSettings:
        return cls(
            enabled=settings.getbool("GATECRAWL_REPORT_ENABLED", True),
            html=settings.getbool("GATECRAWL_REPORT_HTML", True),
            print_summary=settings.getbool("GATECRAWL_SUMMARY_PRINT"),
            log_to_file=bool(settings.get("LOG_FILE")),
            options=ReportOptions.from_settings(settings),
        )


def _previous_entries(store: Any, site: str, run_id: str) -> dict[str, dict[str, Any]]:
    """Page entries by url_key of the latest earlier run that has a record ({} when none can
    be read: the unchanged pages then get their stored outcome only)."""
    try:
        for run in reversed(list_runs(store, site)):
            if run.get("run_id") == run_id or not run.get("record_key"):
                continue
            record = load_record(store, site, run)
            if record is not None:
                return {str(p.get("url_key")): p for p in record.get("pages") or [] if isinstance(p, dict)}
    except (StoreError, ReportError) as exc:
        logger.warning("crawl report: the earlier record of the unchanged pages could not be read: %s", exc)
    return {}


def with_carried(store: Any, site: str, run_id: str, pages: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The collected pages, each carried one (not fetched in full) filled in from the latest
    earlier record: what the page is stays; what this run spent on it (no render, no body) is
    this run's."""
    earlier: dict[str, dict[str, Any]] | None = None
    for p in pages:
        if "carried" not in p:
            yield p
            continue
        if earlier is None:
            earlier = _previous_entries(store, site, run_id)
        old = earlier.get(p["carried"])
        base = dict(old) if old is not None else page_entry({"url_final": p["url"], "url_key": p["carried"], "outcome": p["outcome"], "drop_reason": p["drop_reason"]})
        base.update(
            {
                "outcome": p["outcome"],
                "drop_reason": p["drop_reason"],
                "not_modified": p["not_modified"],
                "latency_ms": p["latency_ms"],
                "render_elapsed_ms": None,
                "bytes_in": 0,
                "pdf_pages": 0,
            }
        )
        yield base


def _put(store: Any, key: str, data: bytes, content_type: str) -> None:
    try:
        store.put(key, data, content_type=content_type)
    except StoreError as exc:
        raise StoreError(f"cannot write {key}: {exc}") from exc


def write_report(store: Any, stats: Any, settings: ReportSettings, *, site: str, run_id: str, store_uri: str,
                 pages: Iterable[dict[str, Any]], started_at: str | None, finished_at: str, recipe: dict[str, Any],
                 finish_reason: str, conditions: dict[str, Any]) -> None:
    """Record, summary and HTML report of the run, through ``store``; counted in ``stats``."""
    record = build_record(
        site=site,
        run_id=run_id,
        pages=with_carried(store, site, run_id, pages),
        started_at=started_at,
        finished_at=finished_at,
        recipe=recipe,
        finish_reason=finish_reason,
        stats=stats.get_stats() if stats else {},
        conditions=conditions,
    )
    keys = report_keys(site, run_id)
    # gatecrawl/report/written counts a report whose record, summary and HTML were all stored;
    # any failure on the way (a store error or a crash while building) counts as failed.
    ok = False
    summary: dict[str, Any] | None = None
    try:
        _put(store, keys["record"], dump_json(record), "application/json")
        summary, _ = build_summary(store, site, current_record=record, options=settings.options, store_uri=store_uri)
        _put(store, keys["summary"], dump_json(summary), "application/json")
        if settings.html:
            html_dir = None
            root = getattr(store, "root", None)
            if root is not None:
                html_dir = root / keys["html"].rsplit("/", 1)[0]
            html = render_html(summary, record, packet_href=packet_linker(store, html_dir))
            _put(store, keys["html"], html.encode("utf-8"), "text/html; charset=utf-8")
        ok = True
    except (StoreError, ReportError) as exc:
        logger.error("crawl report: %s", exc)
    except Exception as exc:  # noqa: BLE001 - counted and logged: the crawl's exit must not hide a lost report
        logger.error("crawl report failed: %s: %s", type(exc).__name__, exc, exc_info=True)
    stats.inc_value("gatecrawl/report/written" if ok else "gatecrawl/report/failed")
    if summary is None:
        return
    alerts = summary["drift"]["alerts"]
    stats.set_value("gatecrawl/report/drift_alerts", len(alerts))
    # Once: in the printed summary, or (no summary printed, or a log file) in the log.
    if not settings.print_summary or settings.log_to_file:
        for a in alerts:
            logger.warning("drift: %s", a["message"])
    if ok:
        logger.info("crawl report: %s (summary %s)", keys["html"] if settings.html else keys["record"], keys["summary"])
    if settings.print_summary and ok:
        lines = [f"  report {keys['html'] if settings.html else keys['summary']}"]
        lines += [f"  DRIFT: {a['message']}" for a in alerts]
        print("\n".join(lines), file=sys.stderr)
