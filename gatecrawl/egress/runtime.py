"""The crawl's egress runtime: one :class:`Egress` object per crawler, no module state.

It holds what the egress feature keeps for one run: the policy (settings, the operator's
environment, the start URLs it may admit), the pin table of vetted addresses and the browser's
egress proxy. :func:`egress_for` creates it on first use and keeps it on the crawler; the
components that need it ask for it with the crawler they are built from:

- :class:`~gatecrawl.egress.middleware.EgressMiddleware` checks every request with it and pins
  the vetted addresses;
- the Playwright download handler (:mod:`gatecrawl.browser.handler`) hands it to the browser
  provider, which starts the proxy before launching Chromium (:meth:`Egress.ensure_proxy`),
  adds :meth:`Egress.chromium_proxy_args` to its flags, and stops it when it closes.

The pin table is the one of :class:`~gatecrawl.egress.resolver.EgressResolver` when that
resolver is installed on the reactor (``TWISTED_DNS_RESOLVER``; it answers every connection of
the process), so Scrapy's HTTP connections go to the vetted addresses; otherwise the runtime
keeps its own. With ``GATECRAWL_EGRESS_ENABLED`` off there is no runtime and the browser is
launched without a proxy.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from gatecrawl.egress.policy import EgressPolicy, PinTable, load_resolver, start_url_entries
from gatecrawl.egress.proxy import EgressProxy
from gatecrawl.envsettings import setting_list

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["Egress", "egress_for"]

# The crawler attribute that holds its runtime (set by egress_for only).
_CRAWLER_ATTR = "_gatecrawl_egress"


class Egress:
    def __init__(self, policy: EgressPolicy, pins: PinTable | None = None) -> None:
        self.policy = policy
        self.pins = pins if pins is not None else PinTable()
        self._proxy: EgressProxy | None = None
        self._proxy_lock: asyncio.Lock | None = None

    @classmethod
    def from_settings(cls, settings: Any, recipe: object = None, pins: PinTable | None = None) -> "Egress":
        """The policy of ``GATECRAWL_EGRESS_ALLOW`` (plus the operator's environment), the
        ``recipe``'s local start URLs when ``GATECRAWL_EGRESS_ADMIT_START_URLS`` is on, resolved
        with ``GATECRAWL_EGRESS_RESOLVER``."""
        allow = setting_list(settings, "GATECRAWL_EGRESS_ALLOW")
        if settings.getbool("GATECRAWL_EGRESS_ADMIT_START_URLS"):
            allow += start_url_entries(recipe)
        try:
            policy = EgressPolicy(allow, include_env=True, resolver=load_resolver(settings.get("GATECRAWL_EGRESS_RESOLVER")))
        except ValueError as exc:
            raise ValueError(f"GATECRAWL_EGRESS_ALLOW: {exc}") from None
        return cls(policy, pins)

    async def ensure_proxy(self) -> EgressProxy:
        """The browser's egress proxy, started on the running event loop the first time."""
        if self._proxy_lock is None:
            self._proxy_lock = asyncio.Lock()
        async with self._proxy_lock:
            if self._proxy is None:
                self._proxy = await EgressProxy(self.policy, pins=self.pins).start()
        return self._proxy

    async def close_proxy(self) -> None:
        if self._proxy is not None:
            await self._proxy.stop()
            self._proxy = None

    @staticmethod
    def chromium_proxy_args(proxy: EgressProxy) -> list[str]:
        # "<-loopback>" removes Chromium's implicit bypass of localhost/127.0.0.1: loopback is
        # exactly what an SSRF wants, so it goes through the policy too.
        return [f"--proxy-server={proxy.url}", "--proxy-bypass-list=<-loopback>"]


def egress_for(crawler: Crawler) -> Egress | None:
    """The crawler's egress runtime, created the first time it is asked for (the crawler's
    spider must exist: its recipe's start URLs may be admitted); None when
    ``GATECRAWL_EGRESS_ENABLED`` is off."""
    if not crawler.settings.getbool("GATECRAWL_EGRESS_ENABLED"):
        return None
    runtime = getattr(crawler, _CRAWLER_ATTR, None)
    if runtime is None:
        from gatecrawl.egress.resolver import installed_pins

        runtime = Egress.from_settings(crawler.settings, getattr(crawler.spider, "recipe", None), pins=installed_pins())
        setattr(crawler, _CRAWLER_ATTR, runtime)
    return runtime
