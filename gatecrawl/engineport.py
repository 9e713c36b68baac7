"""EnginePort: the one place gatecrawl's components reach Scrapy's engine.

Fetches outside the crawl. Some fetches are not pages of the crawl: robots.txt (:mod:`gatecrawl.middlewares.robots`) and
the per-host "not found" probe (:mod:`gatecrawl.pipelines.probe`). They go through every
downloader middleware (egress, robots, size caps, the browser) but not through the scheduler
or the spider, which is what Scrapy's ``ExecutionEngine.download_async`` does (Scrapy's own
``RobotsTxtMiddleware`` uses it the same way). A component that needs such a fetch is given an
``EnginePort`` by its ``from_crawler`` instead of reading ``crawler.engine`` itself, so the
engine is touched here and nowhere else in those components, and a test can hand a component a
port that answers from a table.

Requests found outside a callback. A changed-only recrawl asks, once the crawl is idle, for the
pages an earlier run kept and this run did not reach; no callback is running then, so the spider
hands them to :meth:`EnginePort.schedule` (Scrapy's ``ExecutionEngine.crawl``, the documented
way for a ``spider_idle`` handler).

The distributed scheduler (:mod:`gatecrawl.distributed.scheduler`) wakes the engine when work
appears in the shared frontier (:meth:`EnginePort.wake`) and acknowledges a task when the
scraper is done with its response (:meth:`EnginePort.scraper_slot`).

Diagnostics: the progress line shows the distributed frontier's depths
(:meth:`EnginePort.scheduler_queue`) and the SIGUSR2 stack dump the engine's status
(:meth:`EnginePort.status`); both through the port as well.

The engine is looked up when it is used, not when the port is built: components are built
while the engine is being created.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["EnginePort"]


class EnginePort:
    def __init__(self, crawler: Crawler) -> None:
        self._crawler = crawler

    async def download(self, request: Request) -> Response:
        """Fetch ``request`` through the downloader (and its middlewares), outside the
        scheduler and the spider; raises what the download raises (and RuntimeError before the
        crawl has started: no engine yet)."""
        return await self._crawler.engine.download_async(request)

    def schedule(self, request: Request) -> None:
        """Queue ``request`` in the scheduler, as a callback's yielded request would be."""
        self._crawler.engine.crawl(request)

    def wake(self) -> None:
        """Ask the engine to pull from the scheduler now rather than at its next heartbeat (5 s).
        Uses the engine's private ``_slot.nextcall``; without it the heartbeat still works."""
        nextcall = getattr(getattr(self._engine(), "_slot", None), "nextcall", None)
        if nextcall is not None:
            nextcall.schedule()

    def scraper_slot(self) -> Any:
        """The scraper's slot (its ``finish_response`` marks a response done), or None."""
        return getattr(getattr(self._engine(), "scraper", None), "slot", None)

    def _engine(self) -> Any:
        try:
            return self._crawler.engine
        except (AttributeError, RuntimeError):  # the crawl has not started: no engine yet
            return None

    def scheduler_queue(self) -> Any:
        """The scheduler's queue (the distributed frontier's has ``outstanding()``), or None."""
        return getattr(getattr(self._engine(), "scheduler", None), "queue", None)

    def status(self) -> str | None:
        """Scrapy's engine status report (``format_engine_status``), or None without an engine."""
        from scrapy.utils.engine import format_engine_status

        engine = self._engine()
        return None if engine is None else format_engine_status(engine)
