"""Redirects that would leave no packet end with a typed reason instead (issue 15).

Scrapy's redirect middlewares schedule the next hop as a new request; when the target was
already requested in the run (or is a hop of the same chain) the scheduler's duplicate filter
drops it without a word, and the URL that redirected is left with no packet. Here such a hop
is refused before it is scheduled, so the request's errback writes a packet:

- ``redirect_loop``: the target is the URL itself or an earlier hop of its chain;
- ``duplicate_of``: the target was already requested in this run (a start URL, a followed link
  or another redirect's target); the detail names it.

Requests with ``dont_filter`` (retries, renders: the duplicate filter would not drop them) and
requests outside the scheduler (robots.txt) are only checked for loops. A followed link to a URL
that was a redirect's target is not requested again (``RecipeSpider.was_admitted``). Replaces Scrapy's ``RedirectMiddleware`` (600) and ``MetaRefreshMiddleware`` (580).
Stats: ``gatecrawl/redirect/loop``, ``gatecrawl/redirect/duplicate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware as ScrapyMetaRefreshMiddleware
from scrapy.downloadermiddlewares.redirect import RedirectMiddleware as ScrapyRedirectMiddleware
from scrapy.http.request import NO_CALLBACK
from w3lib.url import canonicalize_url

from gatecrawl.core.reasons import Reason
from gatecrawl.core.redact import redact_url
from gatecrawl.exceptions import RedirectDropped

if TYPE_CHECKING:
    from scrapy import Request


def _canonical(url: str) -> str:
    try:
        return canonicalize_url(url)
    except ValueError:
        return url


class _SeenRedirectMixin:
    crawler: Any
    _targets: set[str]

    def _redirect(self, redirected: Request, request: Request, reason: Any) -> Request:
        out = super()._redirect(redirected, request, reason)  # type: ignore[misc]
        target = _canonical(out.url)
        chain = [_canonical(u) for u in (*request.meta.get("redirect_urls", ()), request.url)]
        stats = self.crawler.stats
        if target in chain:
            stats.inc_value("gatecrawl/redirect/loop")
            raise RedirectDropped(Reason.REDIRECT_LOOP, f"redirect loop back to {redact_url(out.url)} after {len(chain)} hop(s)")
        if not request.dont_filter and request.callback is not NO_CALLBACK:
            targets = getattr(self.crawler, "_gatecrawl_redirect_targets", None)
            if targets is None:
                targets = self.crawler._gatecrawl_redirect_targets = set()
            spider = getattr(self.crawler, "spider", None)
            admitted = getattr(spider, "was_admitted", None)
            if target in targets or (admitted is not None and admitted(out.url)):
                stats.inc_value("gatecrawl/redirect/duplicate")
                raise RedirectDropped(Reason.DUPLICATE_OF, f"redirects to {redact_url(out.url)}, already requested in this run")
            targets.add(target)
        return out


class RedirectMiddleware(_SeenRedirectMixin, ScrapyRedirectMiddleware):
    pass


class MetaRefreshMiddleware(_SeenRedirectMixin, ScrapyMetaRefreshMiddleware):
    pass
