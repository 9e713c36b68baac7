"""Credential headers never follow a request to another origin.

Scrapy's redirect middleware drops ``Authorization`` when a redirect leaves the domain, but
``DefaultHeadersMiddleware`` then sets ``DEFAULT_REQUEST_HEADERS`` again on the new request,
so credentials configured there would reach any host a redirect points to. This middleware
runs after it (priority 450) and removes credential headers (``Authorization``, ``Cookie``,
``Proxy-Authorization``, ``X-Api-Key`` and the other names in
``gatecrawl.core.redact.SECRET_HEADERS``) from any redirect hop whose origin (scheme, host,
port) differs from the first request's, and from the per-host "not found" probe. Cookies from the cookie jar are added later, per
domain, by the cookies middleware as usual.

Stats: ``gatecrawl/credentials/stripped``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from gatecrawl.core.redact import SECRET_HEADERS
from gatecrawl.meta import NOT_FOUND_PROBE

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlsplit(url)
    scheme = p.scheme.lower()
    return scheme, (p.hostname or "").lower(), p.port or (443 if scheme == "https" else 80)


class CredentialScopeMiddleware:
    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CredentialScopeMiddleware:
        return cls(crawler.stats)

    def process_request(self, request: Request) -> None:
        if request.meta.get(NOT_FOUND_PROBE):
            # The per-host "not found" probe (gatecrawl.pipelines.probe) needs no credentials, and
            # its host may be one the crawl only reached through a redirect: it never carries any.
            for name in list(request.headers.keys()):
                if name.decode("latin-1").lower() in SECRET_HEADERS:
                    del request.headers[name]
            return None
        hops = request.meta.get("redirect_urls")
        if not hops or _origin(hops[0]) == _origin(request.url):
            return None
        removed = 0
        for name in list(request.headers.keys()):
            if name.decode("latin-1").lower() in SECRET_HEADERS:
                del request.headers[name]
                removed += 1
        if removed:
            self.stats.inc_value("gatecrawl/credentials/stripped", removed)
        return None
