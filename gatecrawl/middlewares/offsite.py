"""OffsiteMiddleware with a typed refusal, so an off-site redirect hop still leaves a packet.

Scrapy's own middleware drops off-site requests silently when they are scheduled; a start URL
that redirects off-site would then vanish without a trace. This subclass filters in
``process_request`` instead and raises :class:`OffsiteBlocked`, which reaches the request's
errback: the page gets a packet with the reason ``offsite``. Hosts match ``allowed_domains``
and their subdomains; the port is not part of the match (ports are the egress policy's job:
``GATECRAWL_EGRESS_ALLOW`` entries can name one).

Stats: ``offsite/filtered``, ``offsite/domains`` (as Scrapy's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware as ScrapyOffsiteMiddleware
from scrapy.exceptions import IgnoreRequest

from gatecrawl.exceptions import OffsiteBlocked

if TYPE_CHECKING:
    from scrapy import Request


class OffsiteMiddleware(ScrapyOffsiteMiddleware):
    def request_scheduled(self, request: Request, spider: Any) -> None:
        """Filtering happens at download time, where the errback can record it."""
        return None

    def process_request(self, request: Request) -> None:  # type: ignore[override]
        try:
            super().process_request(request)
        except IgnoreRequest as exc:
            hop = len(request.meta.get("redirect_urls", ()))
            raise OffsiteBlocked(f"offsite: {exc} (hop {hop})") from None
