"""EgressMiddleware: no request leaves unless its destination passes the egress policy.

Runs first in the downloader chain (priority 40), for every request: start URLs, followed
links, redirect hops (the redirect middleware re-schedules each hop through the chain),
robots.txt and sitemap fetches. It checks the scheme, resolves the host once per run, refuses
the request when any address is not global and not allow-listed, and pins the vetted
addresses for :class:`gatecrawl.resolver.EgressResolver`, so the connection goes to exactly
the address that was checked.

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

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.envsettings import setting_list
from gatecrawl.core.egress import ADMITTABLE_CLASSES, EgressDecision, EgressPolicy, address_class, admit_hint, load_resolver
from gatecrawl.resolver import pin

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class EgressBlocked(IgnoreRequest):
    """A request refused by the egress policy; ``reason`` is ``egress_blocked`` or ``scheme_blocked``."""

    def __init__(self, decision: EgressDecision, hop: int) -> None:
        self.reason = decision.reason or "egress_blocked"
        self.detail = decision.detail or ""
        self.address_class = decision.address_class
        self.hop = hop
        super().__init__(f"{self.reason}: {self.detail} (hop {hop})")


def _admittable_start_host(host: str) -> bool:
    """A start URL's host that ``GATECRAWL_EGRESS_ADMIT_START_URLS`` may admit: ``localhost`` or
    a loopback or private address literal. Never a name (it could resolve anywhere), never a
    link-local, CGNAT, ULA or other special address (cloud metadata endpoints live there)."""
    if host.lower() == "localhost":
        return True
    try:
        return address_class(host) in ADMITTABLE_CLASSES
    except ValueError:
        return False


def start_url_entries(recipe: object) -> list[str]:
    """``host:port`` of each start URL and sitemap of ``recipe`` (spider arguments applied) whose
    host is ``localhost`` or a loopback or private address literal; other start URLs are left
    to the egress policy like any other URL."""
    out = []
    for url in tuple(getattr(recipe, "start_urls", ())) + tuple(getattr(recipe, "sitemaps", ())):
        parts = urlsplit(url)
        if parts.hostname and _admittable_start_host(parts.hostname):
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            out.append(f"{host}:{parts.port or EgressPolicy.default_port(parts.scheme.lower())}")
    return out


class EgressMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("GATECRAWL_EGRESS_ENABLED"):
            raise NotConfigured("GATECRAWL_EGRESS_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats
        allow = setting_list(crawler.settings, "GATECRAWL_EGRESS_ALLOW")
        if crawler.settings.getbool("GATECRAWL_EGRESS_ADMIT_START_URLS"):
            allow += start_url_entries(getattr(crawler.spider, "recipe", None))
        try:
            self.policy = EgressPolicy(
                allow,
                include_env=True,
                resolver=load_resolver(crawler.settings.get("GATECRAWL_EGRESS_RESOLVER")),
            )
        except ValueError as exc:
            raise ValueError(f"GATECRAWL_EGRESS_ALLOW: {exc}") from None
        self._cache: dict[tuple[str, str, int], EgressDecision] = {}
        self._hinted: list[str] = []
        # The browser's traffic goes through a local proxy that applies this same policy.
        from gatecrawl.browser import egress as browser_egress

        browser_egress.configure(self.policy)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> EgressMiddleware:
        return cls(crawler)

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
                    pin(key[1], key[2], decision.addresses)
        self.stats.inc_value("gatecrawl/egress/checked")
        request.meta["gatecrawl_egress"] = {"allowed": decision.allowed, "reason": decision.reason, "detail": decision.detail, "hop": hop}
        if decision.allowed:
            return None
        if decision.reason == "scheme_blocked":
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
