"""ConvertMiddleware: the spider middleware that converts each captured page where Scrapy lets a
component answer with a request.

A spider callback yields a :class:`~gatecrawl.items.PageCapture` and the requests for the
page's links. This middleware lets the requests through at once (the crawl's frontier never
waits for a conversion), then converts the page in the conversion pool
(:meth:`gatecrawl.pipelines.convert.ConvertPipeline.convert_capture`, the one conversion path)
and yields either the converted capture, which goes on to the item pipelines, or, when the gate
found the plain page to be a shell after all (the extraction gate, or a shell whose embedded
data failed), the browser request built by :class:`gatecrawl.middlewares.render.Escalation`.
That request goes back to Scrapy's scheduler like any request a callback yields: together with
:class:`~gatecrawl.middlewares.render.RenderMiddleware` on the downloader side, every way into
the browser is a request handed back to Scrapy, and no component calls the engine.

Back-pressure goes through Scrapy's own limits too. A response stays in the scraper's slot while
its page is converted (the engine starts no new request while the slot holds more than
``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` bytes of responses), but that slot counts bytes, at least 1 KB a
response: thousands of small pages would fit. So the downloader middleware
:class:`ConvertBackpressureMiddleware` (priority 30, before anything else) holds a spider's new
request while 4 pages per conversion worker wait for conversion
(``gatecrawl/convert/backpressure``): a held request keeps its place in the downloader
(``CONCURRENT_REQUESTS``), so the engine takes no more requests from the scheduler either. A
render request waits only past ``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT`` pages more: the browser keeps
rendering while the pool is busy.

Only the output of callbacks passes through spider middlewares: captures from an errback (a
failed fetch) or from ``start()`` are converted by ``ConvertPipeline`` itself. Without
``ConvertPipeline`` in ``ITEM_PIPELINES`` this middleware lets everything through.

Priority 600 (``SPIDER_MIDDLEWARES``): ``process_spider_output`` runs in decreasing order, so
the escalation request leaves after Scrapy's depth (900), URL-length (800) and referer (700)
middlewares: it keeps the depth of the page it renders again (a callback's request would get
one more) and, as the page's own request again, no referer. Stats: those of ``ConvertPipeline`` and of
``Escalation`` (``gatecrawl/items/escalated``, ``gatecrawl/render/requested/<reason>``...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.http.request import NO_CALLBACK

from gatecrawl.items import PageCapture
from gatecrawl.middlewares.render import Escalation

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from gatecrawl.pipelines.convert import ConvertPipeline

__all__ = ["ConvertMiddleware", "ConvertBackpressureMiddleware"]

_UNSET: Any = object()


class _UsesConverter:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._converter: ConvertPipeline | None = _UNSET

    def _pipeline(self) -> ConvertPipeline | None:
        """The crawl's ConvertPipeline (Scrapy's component lookup; None when it is not enabled)."""
        if self._converter is _UNSET:
            from gatecrawl.pipelines.convert import ConvertPipeline

            self._converter = self.crawler.get_item_pipeline(ConvertPipeline)
        return self._converter


class ConvertBackpressureMiddleware(_UsesConverter):
    """Downloader middleware: a spider's request waits here while the conversion pool is full.
    Requests without a callback (robots.txt, the not-found probe, which pages wait for) never do."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConvertBackpressureMiddleware:
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        if request.callback is None or request.callback is NO_CALLBACK:
            return None
        pipeline = self._pipeline()
        if pipeline is not None:
            await pipeline.room(render=bool(request.meta.get("playwright")))
        return None


class ConvertMiddleware(_UsesConverter):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.escalation = Escalation(crawler.settings, crawler.stats)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConvertMiddleware:
        return cls(crawler)

    def _escalate(self, item: PageCapture, presence: dict | None) -> Any:
        return self.escalation.request_for(self.crawler.spider, item, presence)

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        captures = []
        async for out in result:
            if isinstance(out, PageCapture) and out.packet is None:
                captures.append(out)  # converted once the requests beside it are on their way
            else:
                yield out
        pipeline = self._pipeline() if captures else None
        for capture in captures:
            yield capture if pipeline is None else await pipeline.convert_capture(capture, self._escalate)
