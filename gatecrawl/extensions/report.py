"""ReportExtension: at the end of every crawl, the run's record, JSON summary and HTML report.

While the crawl runs it collects one compact entry per exported page (the
``gatecrawl.signals.page_stored`` signal of the ExportPipeline: kept and dropped pages), appended as one JSON line to a
spill file (:mod:`gatecrawl.store.spill`, under ``<GATECRAWL_SPOOL_DIR>/spill/``) rather than kept
in memory; the file is read back, then removed, when the report is written. When the spider closes
(after the pipelines, so the run manifest is already stored) it writes, next to the manifest::

    <site>/runs/reports/<run id>.record.json    per-page facts of this run (for later comparisons)
    <site>/runs/reports/<run id>.summary.json   the JSON summary (gatecrawl.report/1)
    <site>/runs/reports/<run id>.html           the HTML report

compared against the latest earlier run of the site that is comparable (both succeeded, same
render policy, not a distributed worker's share: :func:`gatecrawl.report.aggregate.comparable`).
Drift alerts are printed once: under the summary, and as log warnings when the log goes to a
file or no summary is printed.

Settings: ``GATECRAWL_REPORT_ENABLED``, ``GATECRAWL_REPORT_HTML``, ``GATECRAWL_REPORT_HISTORY``, ``GATECRAWL_SPOOL_DIR``,
``GATECRAWL_REPORT_DRIFT_ESCALATION``, ``GATECRAWL_REPORT_DRIFT_DROP``, ``GATECRAWL_COST_*``.
Stats: ``gatecrawl/report/written``, ``gatecrawl/report/failed``, ``gatecrawl/report/drift_alerts``.
"""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core.evidence import url_key
from gatecrawl.core.redact import redact_url
from gatecrawl.items import PageCapture
from gatecrawl.signals import page_stored
from gatecrawl.report.record import list_runs, load_record
from gatecrawl.report import ReportError, ReportOptions, build_record, build_summary, dump_json, packet_linker, page_entry, render_html, report_keys
from gatecrawl.store import StoreError, open_store, page_keys
from gatecrawl.store.spill import SpillDir, SpillFile, open_spill

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ReportExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.settings = crawler.settings
        self.stats = crawler.stats
        self.options = ReportOptions.from_settings(crawler.settings)
        self.write_html = crawler.settings.getbool("GATECRAWL_REPORT_HTML", True)
        self.print_summary = crawler.settings.getbool("GATECRAWL_SUMMARY_PRINT")
        # One entry per page, in the order collected, on disk until the report is written.
        self._spill: SpillDir | None = None
        self._pages: SpillFile | None = None
        self.started_at: str | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportExtension:
        if not crawler.settings.getbool("GATECRAWL_REPORT_ENABLED", True):
            raise NotConfigured
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.page_stored, signal=page_stored)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, **kw: Any) -> None:
        self.started_at = _now()
        self._open_spill()

    def _open_spill(self) -> SpillFile:
        if self._pages is None:
            self._spill = open_spill(self.settings.get("GATECRAWL_SPOOL_DIR"), "report")
            self._pages = self._spill.file("pages")
        return self._pages

    def _close_spill(self) -> None:
        if self._spill is not None:
            self._spill.close()
        self._spill = self._pages = None

    def _collect(self, item: PageCapture) -> None:
        packet = item.packet.to_dict() if item.packet is not None else {}
        site = packet.get("site") or self.crawler.spider.name
        keys = page_keys(site, packet.get("url_key") or "")
        key = keys["packet"] if item.outcome == "kept" else keys["quarantine"]
        markdown = item.markdown if item.outcome == "kept" else None
        entry = page_entry({**packet, "outcome": item.outcome, "drop_reason": item.drop_reason if item.outcome != "kept" else None}, markdown if markdown is not None else None, packet_key=key)
        if item.outcome == "kept" and markdown is None:
            entry["headings"] = []
        self._open_spill().append(entry)

    def page_stored(self, item: Any, **kw: Any) -> None:
        if isinstance(item, PageCapture) and item.not_modified and item.previous is not None:
            # Its stored copy stands (a 304, a sitemap lastmod skip): the page's facts come from
            # the latest earlier record when the report is written; it cost one fetch at most.
            prev = item.previous
            url = str(prev.get("url") or item.url_final)
            self._open_spill().append(
                {
                    "carried": url_key(url),
                    "url": redact_url(url),
                    "outcome": prev.get("outcome"),
                    "drop_reason": prev.get("drop_reason"),
                    "not_modified": item.not_modified,
                    "latency_ms": item.latency_ms,
                }
            )
            return
        if isinstance(item, PageCapture) and item.packet is not None and item.outcome in ("kept", "dropped"):
            self._collect(item)

    @staticmethod
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

    def _with_carried(self, store: Any, site: str, run_id: str, pages: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The collected pages, each carried one (not fetched in full) filled in from the latest
        earlier record: what the page is stays; what this run spent on it (no render, no body) is
        this run's."""
        earlier: dict[str, dict[str, Any]] | None = None
        for p in pages:
            if "carried" not in p:
                yield p
                continue
            if earlier is None:
                earlier = self._previous_entries(store, site, run_id)
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

    async def spider_closed(self, spider: Any, reason: str = "finished") -> None:
        # Store calls (local disk or S3) run in a thread, never on the reactor.
        pages = self._open_spill()
        try:
            await run_in_thread(self._write_report, spider, reason, pages.read(pages.mark()))
        finally:
            self._close_spill()

    def _write_report(self, spider: Any, reason: str, pages: Iterable[dict[str, Any]] = ()) -> None:
        recipe = getattr(spider, "recipe", None)
        site = spider.name
        run_id = str(getattr(spider, "run_id", None) or _now())
        uri = self.settings.get("GATECRAWL_STORE_URI")
        options = {k: v for k, v in self.settings.items() if k.startswith("AWS_") or k.startswith("GATECRAWL_")}
        try:
            store = open_store(uri, options)
        except StoreError as exc:
            self.stats.inc_value("gatecrawl/report/failed")
            logger.error("crawl report: cannot open the store %s: %s", redact_url(str(uri)), exc)
            return
        record = build_record(
            site=site,
            run_id=run_id,
            pages=self._with_carried(store, site, run_id, pages),
            started_at=self.started_at,
            finished_at=_now(),
            recipe={
                "name": getattr(recipe, "name", site),
                "digest": getattr(recipe, "digest", None),
                "main_selectors": list(getattr(recipe, "main_selectors", ()) or ()),
            },
            finish_reason=reason,
            stats=self.stats.get_stats() if self.stats else {},
            conditions={
                # What makes runs comparable (drift is computed only between comparable runs).
                "render_policy": getattr(recipe, "render_policy", None),
                "crawl_id": self._crawl_id(),
            },
        )
        keys = report_keys(site, run_id)
        # gatecrawl/report/written counts a report whose record, summary and HTML were all stored;
        # any failure on the way (a store error or a crash while building) counts as failed.
        ok = False
        summary: dict[str, Any] | None = None
        try:
            self._put(store, keys["record"], dump_json(record), "application/json")
            summary, _ = build_summary(store, site, current_record=record, options=self.options, store_uri=uri)
            self._put(store, keys["summary"], dump_json(summary), "application/json")
            if self.write_html:
                html_dir = None
                root = getattr(store, "root", None)
                if root is not None:
                    html_dir = root / keys["html"].rsplit("/", 1)[0]
                html = render_html(summary, record, packet_href=packet_linker(store, html_dir))
                self._put(store, keys["html"], html.encode("utf-8"), "text/html; charset=utf-8")
            ok = True
        except (StoreError, ReportError) as exc:
            logger.error("crawl report: %s", exc)
        except Exception as exc:  # noqa: BLE001 - counted and logged: the crawl's exit must not hide a lost report
            logger.error("crawl report failed: %s: %s", type(exc).__name__, exc, exc_info=True)
        finally:
            try:
                store.close()
            except StoreError as exc:
                ok = False
                logger.error("crawl report: closing the store failed: %s", exc)
        self.stats.inc_value("gatecrawl/report/written" if ok else "gatecrawl/report/failed")
        if summary is None:
            return
        alerts = summary["drift"]["alerts"]
        self.stats.set_value("gatecrawl/report/drift_alerts", len(alerts))
        # Once: in the printed summary, or (no summary printed, or a log file) in the log.
        if not self.print_summary or self.settings.get("LOG_FILE"):
            for a in alerts:
                logger.warning("drift: %s", a["message"])
        if ok:
            logger.info("crawl report: %s (summary %s)", keys["html"] if self.write_html else keys["record"], keys["summary"])
        if self.print_summary and ok:
            lines = [f"  report {keys['html'] if self.write_html else keys['summary']}"]
            lines += [f"  DRIFT: {a['message']}" for a in alerts]
            print("\n".join(lines), file=sys.stderr)

    def _crawl_id(self) -> str | None:
        try:
            engine = self.crawler.engine
        except (AttributeError, RuntimeError):  # Scrapy raises RuntimeError before the crawl starts
            engine = None
        scheduler = getattr(engine, "scheduler", None)
        crawl_id = getattr(scheduler, "crawl_id", None)
        return str(crawl_id) if crawl_id else None

    def _put(self, store: Any, key: str, data: bytes, content_type: str) -> None:
        try:
            store.put(key, data, content_type=content_type)
        except StoreError as exc:
            raise StoreError(f"cannot write {key}: {exc}") from exc
