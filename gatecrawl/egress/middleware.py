"""EgressMiddleware: no request leaves unless its destination passes the egress policy.

Runs first in the downloader chain (priority 40), for every request: start URLs, followed
links, redirect hops (the redirect middleware re-schedules each hop through the chain),
robots.txt and sitemap fetches. It checks the scheme, resolves the host once per run, refuses
the request when any address is not global and not allow-listed, and pins the vetted
addresses in the crawl's pin table (read by :class:`gatecrawl.egress.resolver.EgressResolver`),
so the connection goes to exactly the address that was checked. Policy and pins are the
crawler's :class:`~gatecrawl.egress.runtime.Egress` runtime, which the browser's proxy shares.

Settings: ``GATECRAWL_EGRESS_ENABLED``, ``GATECRAWL_EGRESS_ALLOW``, ``GATECRAWL_EGRESS_RESOLVER``,
``GATECRAWL_EGRESS_ADMIT_START_URLS`` (admit exactly the ``host:port`` of the run's start URLs
when their host is ``localhost`` or a loopback or private address literal, for recipes of sites
on a private network such as the demo; never a name or a link-local/metadata address; off by
default, because start URLs may come from whoever can schedule a crawl).
Stats: ``gatecrawl/egress/checked``, ``gatecrawl/egress/blocked/<address class>``,
``gatecrawl/egress/scheme_blocked``.
Meta: ``gatecrawl_egress`` (the decision for the request's host).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core.reasons import Reason
from gatecrawl.egress.policy import EgressDecision, EgressPolicy, admit_hint
from gatecrawl.egress.runtime import Egress, egress_for
from gatecrawl.exceptions import EgressBlocked
from gatecrawl.meta import EGRESS

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class EgressMiddleware:
    def __init__(self, egress: Egress, stats: StatsCollector) -> None:
        self.egress = egress
        self.policy = egress.policy
        self.stats = stats
        self._cache: dict[tuple[str, str, int], EgressDecision] = {}
        self._hinted: list[str] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> EgressMiddleware:
        egress = egress_for(crawler)
        if egress is None:
            raise NotConfigured("GATECRAWL_EGRESS_ENABLED is off")
        return cls(egress, crawler.stats)

    async def process_request(self, request: Request) -> None:
        hop = len(request.meta.get("redirect_urls", ()))
        decision = self.policy.check_scheme(request.url)
        if decision.allowed:
            try:
                parts = urlsplit(request.url)
                key = (parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or EgressPolicy.default_port(parts.scheme.lower()))
            except ValueError:
                key = ("", "", 0)
            decision = self._cache.get(key)
            if decision is None:
                decision = await run_in_thread(self.policy.check_url, request.url)
                self._cache[key] = decision
                if decision.allowed:
                    self.egress.pins.pin(key[1], key[2], decision.addresses)
        self.stats.inc_value("gatecrawl/egress/checked")
        request.meta[EGRESS] = {"allowed": decision.allowed, "reason": decision.reason, "detail": decision.detail, "hop": hop}
        if decision.allowed:
            return None
        if decision.reason == Reason.SCHEME_BLOCKED:
            self.stats.inc_value("gatecrawl/egress/scheme_blocked")
        else:
            self.stats.inc_value(f"gatecrawl/egress/blocked/{decision.address_class}")
        logger.info("Refused by egress policy (%s, hop %d)", decision.describe(), hop)
        hint = admit_hint(request.url, decision)
        if hint is not None and hint not in self._hinted:
            # Once per destination: a local site refused on the first try says what admits it.
            self._hinted.append(hint)
            logger.warning("egress: %s", hint)
            self.stats.set_value("gatecrawl/egress/admit_hint", "; ".join(self._hinted[:5]))
        raise EgressBlocked(decision, hop)
