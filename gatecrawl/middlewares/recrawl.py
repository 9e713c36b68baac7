"""RecrawlMiddleware: conditional requests for pages an earlier run stored.

For a plain GET of a URL the site's earlier runs stored (``<site>/recrawl.jsonl``, loaded by the
export pipeline as :class:`gatecrawl.store.recrawl.PreviousState`), it sends the stored response's
validators back: ``If-None-Match`` (its ``ETag``) and ``If-Modified-Since`` (its
``Last-Modified``), and marks the request ``gatecrawl_conditional``. A ``304 Not Modified`` answer
to such a request is marked ``gatecrawl_not_modified``: the gate and the render middleware leave it
alone, the spider yields an unchanged capture (nothing converted, nothing rewritten, the stored
outcome stays) and requests the page's stored links again.

Priority 575: after the gate's and the render middleware's ``process_response`` in the chain
(570, 560), so they see the mark; before Scrapy's HTTP cache (900) in ``process_request``:
conditional requests carry ``dont_cache``, so the cache neither answers them (the server decides)
nor stores a 304 that a later, unconditional request would be answered with. Render requests
(``playwright`` meta) are never conditional: the browser must get the page.

Settings: ``GATECRAWL_RECRAWL_ENABLED``.
Meta: ``gatecrawl_conditional`` and ``gatecrawl_not_modified`` (written).
Stats: ``gatecrawl/recrawl/conditional``, ``gatecrawl/recrawl/not_modified``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatecrawl.exceptions import require_enabled
from gatecrawl.store.recrawl import conditional_headers
from gatecrawl.meta import CONDITIONAL, NOT_FOUND_PROBE, NOT_MODIFIED, SITEMAP

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

CONDITIONAL_HEADERS = (b"If-None-Match", b"If-Modified-Since")


def strip_conditional(headers: dict) -> None:
    """Remove the conditional headers (a render request must not carry them to the browser)."""
    for name in CONDITIONAL_HEADERS:
        headers.pop(name, None)


class RecrawlMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        require_enabled(crawler.settings, "GATECRAWL_RECRAWL_ENABLED")
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RecrawlMiddleware:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        meta = request.meta
        if request.method != "GET" or meta.get("playwright") or meta.get(SITEMAP) or meta.get(NOT_FOUND_PROBE):
            return None
        previous = getattr(self.crawler, "_gatecrawl_previous", None)
        if previous is None or not len(previous):
            return None
        headers = conditional_headers(previous.get(request.url))
        if not headers:
            if meta.pop(CONDITIONAL, None):  # a redirect hop to a URL with no validators
                strip_conditional(request.headers)
            return None
        for name, value in headers.items():
            request.headers[name] = value
        if not meta.get(CONDITIONAL):
            self.stats.inc_value("gatecrawl/recrawl/conditional")
        meta[CONDITIONAL] = True
        meta["dont_cache"] = True
        return None

    def process_response(self, request: Request, response: Response) -> Response:
        if response.status == 304 and request.meta.get(CONDITIONAL):
            request.meta[NOT_MODIFIED] = True
            self.stats.inc_value("gatecrawl/recrawl/not_modified")
        return response
