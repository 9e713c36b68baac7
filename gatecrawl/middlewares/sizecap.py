"""Per-content-type size caps, on both fetch paths.

``DOWNLOAD_MAXSIZE`` is the transport cap (Scrapy aborts a download past it, also while
decompressing). On top of it, a response whose (decompressed or rendered) body is larger
than the cap for its type is refused with ``size_exceeded``: ``GATECRAWL_MAXSIZE_HTML`` for
HTML (plain and browser-rendered alike, Markdown answers and XML), ``GATECRAWL_MAXSIZE_PDF`` for PDFs,
``GATECRAWL_MAXSIZE_OTHER`` for everything else; the type is the content router's
(:mod:`gatecrawl.core.route`), the same answer the conversion gets.

Stats: ``gatecrawl/size/exceeded/<type>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


from gatecrawl.core.route import media_type, page_type
from gatecrawl.exceptions import SizeExceeded

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from scrapy.statscollectors import StatsCollector


class SizeCapMiddleware:
    def __init__(self, settings: BaseSettings, stats: StatsCollector) -> None:
        s = settings
        self.stats = stats
        self.caps = {
            "html": s.getint("GATECRAWL_MAXSIZE_HTML"),
            "pdf": s.getint("GATECRAWL_MAXSIZE_PDF"),
            "other": s.getint("GATECRAWL_MAXSIZE_OTHER"),
        }

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SizeCapMiddleware:
        return cls(crawler.settings, crawler.stats)

    @staticmethod
    def kind(response: Response) -> str:
        """The content router's answer (:func:`gatecrawl.core.route.page_type`); a rendered DOM
        is HTML, and so are Markdown and XML for the caps (text read like a page)."""
        if "playwright" in (response.flags or []):
            return "html"
        ctype = response.headers.get("Content-Type")
        kind = page_type(response.body, ctype, response.url)
        if kind == "markdown" or (kind == "other" and "xml" in media_type(ctype)):
            return "html"  # text read like HTML (a site's Markdown answer, sitemaps, feeds)
        return kind

    def process_response(self, request: Request, response: Response) -> Response:
        kind = self.kind(response)
        cap = self.caps[kind]
        if cap and len(response.body) > cap:
            self.stats.inc_value(f"gatecrawl/size/exceeded/{kind}")
            raise SizeExceeded(f"size_exceeded: {kind} body of {len(response.body)} bytes over the cap of {cap}")
        return response
