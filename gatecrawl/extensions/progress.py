"""ProgressLog: a periodic progress line while crawling, in the style of Scrapy's LogStats::

    gatecrawl progress: 25 pages (+25 in 60s): kept 17, dropped 8, rendered 0, flagged for render 2,
    pending export 0; render rate 0.0% (last 60s: 0.0%)

"pending export" appears when a component sets the ``gatecrawl/export/pending`` stat. In
distributed mode the line ends with the shared frontier's depths (``frontier: fetch N, render N,
in processing N``). A last line is logged when the spider closes.

Settings: ``GATECRAWL_PROGRESS_INTERVAL`` (seconds, default 60; 0 turns the line off).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

from gatecrawl.engineport import EnginePort

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "n/a"


class ProgressLog:
    def __init__(self, stats: StatsCollector, interval: float, port: EnginePort | None = None) -> None:
        self.stats = stats
        self.port = port  # the distributed frontier's depths, when there is one
        self.interval = interval
        self.task: Any = None
        self.prev = (0, 0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProgressLog:
        interval = crawler.settings.getfloat("GATECRAWL_PROGRESS_INTERVAL", 60.0)
        if interval <= 0:
            raise NotConfigured
        ext = cls(crawler.stats, interval, EnginePort(crawler))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any) -> None:
        self.task = create_looping_call(self.log, spider)
        self.task.start(self.interval, now=False)

    def line(self, final: bool = False) -> str:
        get = self.stats.get_value
        kept = int(get("gatecrawl/kept", 0) or 0)
        dropped = int(get("gatecrawl/dropped", 0) or 0)
        rendered = int(get("gatecrawl/reader/render", 0) or 0)
        flagged = int(get("gatecrawl/presence/needs_render", 0) or 0)
        pending = get("gatecrawl/export/pending")
        pages = kept + dropped
        d_pages, d_rendered = pages - self.prev[0], rendered - self.prev[1]
        self.prev = (pages, rendered)
        head = "gatecrawl progress (final)" if final else "gatecrawl progress"
        rate = "" if final else f" (+{d_pages} in {self.interval:g}s)"
        msg = f"{head}: {pages} pages{rate}: kept {kept}, dropped {dropped}, rendered {rendered}, flagged for render {flagged}"
        if pending is not None:
            msg += f", pending export {pending}"
        msg += f"; render rate {_pct(rendered, pages)}"
        if not final:
            msg += f" (last {self.interval:g}s: {_pct(d_rendered, d_pages)})"
            msg += self._frontier()
        return msg

    def _frontier(self) -> str:
        """Distributed mode: the shared frontier's depths (what every worker waits on)."""
        queue = self.port.scheduler_queue() if self.port is not None else None
        outstanding = getattr(queue, "outstanding", None)
        if outstanding is None:
            return ""
        try:
            fetch, render, processing = outstanding()
        except Exception:  # noqa: BLE001 - Redis unreachable: the line goes out without it
            return "; frontier: unreachable"
        return f"; frontier: fetch {fetch}, render {render}, in processing {processing}"

    def log(self, spider: Any = None) -> None:
        logger.info(self.line(), extra={"spider": spider})

    def spider_closed(self, spider: Any, reason: str = "finished") -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        logger.info(self.line(final=True), extra={"spider": spider})
