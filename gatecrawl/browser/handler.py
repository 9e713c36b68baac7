"""gatecrawl's download handler: scrapy-playwright's, with page creation that cannot hang.

Chromium sometimes never answers Playwright's "new page" (seen here under heavy CPU load: a
crawl waited for it for minutes, its pages waiting behind the render), and Playwright puts no
timeout on ``BrowserContext.new_page``. This handler gives every context it creates a bounded
``new_page``: past ``GATECRAWL_RENDER_NEW_PAGE_TIMEOUT`` seconds the attempt is abandoned and
made once more; a second miss is a render failure like any other (the plain capture is kept,
``render_failed``). Stats: ``gatecrawl/browser/new_page_timeout``,
``gatecrawl/browser/new_page_failed``.

It also hands the crawler's egress runtime (:func:`gatecrawl.egress.runtime.egress_for`) to
gatecrawl's browser provider when it creates it, so Chromium runs behind the crawl's egress proxy.

Everything else is scrapy-playwright's ``ScrapyPlaywrightDownloadHandler`` (requests without
``playwright`` meta go to Scrapy's HTTP handler).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any

from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

from gatecrawl.browser.provider import GatecrawlBrowserProvider
from gatecrawl.egress.runtime import egress_for
from gatecrawl.exceptions import NewPageTimeout

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["GatecrawlPlaywrightHandler", "BoundedContext", "NewPageTimeout"]

logger = logging.getLogger(__name__)


class BoundedContext:
    """A Playwright ``BrowserContext`` whose ``new_page`` gives up after ``timeout`` seconds
    and tries once more; every other attribute is the context's own."""

    def __init__(self, context: Any, timeout: float, stats: Any = None) -> None:
        self._context = context
        self._timeout = timeout
        self._stats = stats

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def _inc(self, key: str) -> None:
        if self._stats is not None:
            self._stats.inc_value(key)

    async def new_page(self, *args: Any, **kwargs: Any) -> Any:
        for attempt in (1, 2):
            try:
                return await asyncio.wait_for(self._context.new_page(*args, **kwargs), timeout=self._timeout)
            except asyncio.TimeoutError:
                self._inc("gatecrawl/browser/new_page_timeout")
                logger.warning("the browser did not open a page in %.0f s (attempt %d of 2)", self._timeout, attempt)
        self._inc("gatecrawl/browser/new_page_failed")
        raise NewPageTimeout(f"render_failed: the browser did not open a page in {self._timeout:.0f} s, twice")


class GatecrawlPlaywrightHandler(ScrapyPlaywrightDownloadHandler):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.new_page_timeout = crawler.settings.getfloat("GATECRAWL_RENDER_NEW_PAGE_TIMEOUT", 20.0)

    async def _launch(self) -> None:
        # Before anything can launch a browser (startup contexts included): the provider gets
        # the crawl's egress runtime (built by then: the engine starts after its middlewares).
        egress = egress_for(self.crawler)
        provider_cls = self.browser_provider_cls
        if egress is not None and isinstance(provider_cls, type) and issubclass(provider_cls, GatecrawlBrowserProvider):
            self.browser_provider_cls = functools.partial(provider_cls, egress=egress)  # type: ignore[assignment]
        await super()._launch()

    async def _create_browser_context(self, name: str, context_kwargs: dict | None, spider: Any = None) -> Any:
        wrapper = await super()._create_browser_context(name, context_kwargs, spider=spider)
        if self.new_page_timeout > 0 and not isinstance(wrapper.context, BoundedContext):
            wrapper.context = BoundedContext(wrapper.context, self.new_page_timeout, self.stats)
        return wrapper
