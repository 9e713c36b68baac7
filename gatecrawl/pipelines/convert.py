"""ConvertPipeline: the crawl's call into the one conversion path.

Settings: ``GATECRAWL_PDF_WORKERS`` (size of the PDF worker-process pool).
Stats: ``gatecrawl/items/processed``, ``gatecrawl/items/escalated`` (a shell re-requested
through the browser; its plain capture is not exported), ``gatecrawl/kept``, ``gatecrawl/dropped/<reason>``,
``gatecrawl/reader/<reader>``, ``gatecrawl/page_type/<type>``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import DropItem

from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core.convert import FetchInfo, convert, page_type
from gatecrawl.items import PageCapture
from gatecrawl.middlewares.render import escalate_item

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class ConvertPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.pdf_workers = crawler.settings.getint("GATECRAWL_PDF_WORKERS")

    def open_spider(self) -> None:
        from gatecrawl.core.pdf import set_pool_size

        set_pool_size(max(1, self.pdf_workers))

    def close_spider(self) -> None:
        from gatecrawl.core.pdf import shutdown_pool

        shutdown_pool()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConvertPipeline:
        return cls(crawler)

    def _convert(self, item: PageCapture) -> Any:
        spider = self.crawler.spider
        fetch = FetchInfo(
            url_requested=item.url_requested,
            http_status=item.http_status,
            headers=item.headers,
            reader=item.reader,
            latency_ms=item.latency_ms,
            fetched_at=item.fetched_at,
            depth=item.depth,
            run_id=spider.run_id,
            error=item.error,
            error_reason=item.error_reason,
            egress=item.egress,
            escalated_from=item.escalated_from,
            escalation_reason=item.escalation_reason,
            fetch_presence=item.presence,
            render=item.render,
            viewer_url=item.viewer_url,
        )
        return convert(item.body, item.url_final, item.content_type, spider.recipe, fetch=fetch)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageCapture):
            return item
        self.stats.inc_value("gatecrawl/items/processed")
        if page_type(item.body, item.content_type, item.url_final) == "pdf":
            # PDFs are parsed in worker processes; wait for them off the reactor thread.
            result = await run_in_thread(self._convert, item)
        else:
            result = self._convert(item)
        if not result.ok and result.drop_reason == "shell_page" and item.reader == "http":
            # A shell the downloader did not escalate: render it (same request shape and
            # counter as RenderMiddleware); this plain capture is not exported.
            presence = item.presence or result.evidence.get("fetch_gate")
            if escalate_item(self.crawler, item, presence):
                self.stats.inc_value("gatecrawl/items/escalated")
                raise DropItem(f"escalated to the browser: {item.url_final}", log_level="DEBUG")
        ev = result.evidence
        item.markdown = result.markdown
        item.evidence = ev
        item.outcome = result.outcome
        item.drop_reason = result.drop_reason
        item.body = b""  # the raw body is not needed past this point
        self.stats.inc_value(f"gatecrawl/reader/{ev.get('reader')}")
        self.stats.inc_value(f"gatecrawl/page_type/{ev.get('page_type')}")
        if not result.ok:
            self.stats.inc_value(f"gatecrawl/dropped/{result.drop_reason}")
            self.stats.inc_value("gatecrawl/dropped")
            raise DropItem(f"{result.drop_reason}: {item.url_final}", log_level="INFO")
        self.stats.inc_value("gatecrawl/kept")
        return item
