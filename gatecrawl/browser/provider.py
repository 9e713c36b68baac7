"""scrapy-playwright browser provider (``PLAYWRIGHT_BROWSER_PROVIDER``).

- Lazy: Playwright's driver and the browser start when the first page is rendered, never
  in a crawl that renders nothing (scrapy-playwright's default provider starts the driver
  when the engine starts; the browser itself is already launched lazily).
- Works on a fresh machine: an explicit ``executable_path`` in ``PLAYWRIGHT_LAUNCH_OPTIONS``
  wins; else a Playwright-managed Chromium when one is installed; else the system Chromium
  (Debian's ``chromium`` package, ``/usr/bin/chromium``). With none, the render fails with a
  message saying what to install.
- Egress: Chromium is launched with ``--proxy-server`` pointing at the crawl's egress proxy
  (the :class:`~gatecrawl.egress.runtime.Egress` runtime the download handler passes in), so
  the browser's traffic obeys the same policy as the HTTP path.
- Pinned flags for a closed network (:data:`gatecrawl.browser.options.CHROMIUM_ARGS`) and
  ``--no-sandbox`` when running as root.

Relaunching after a crash is scrapy-playwright's (``PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER``,
on by default): on ``disconnected`` it forgets the browser and its contexts, and the next
page calls :meth:`launch_browser` again.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from scrapy_playwright.provider import PlaywrightBrowserProvider

from gatecrawl.browser.options import find_system_chromium, launch_args
from gatecrawl.exceptions import BrowserLaunchFailed, BrowserNotFound

if TYPE_CHECKING:
    from playwright.async_api import Browser
    from scrapy_playwright.handler import Config

    from gatecrawl.egress.runtime import Egress

__all__ = ["GatecrawlBrowserProvider", "BrowserNotFound"]

logger = logging.getLogger(__name__)


class GatecrawlBrowserProvider(PlaywrightBrowserProvider):
    launches = 0  # per process; the crash tests read it

    def __init__(self, config: Config, egress: Egress | None = None) -> None:
        super().__init__(config)
        self.egress = egress  # None: egress disabled, no proxy

    async def start(self) -> None:
        """Called when the engine starts: do nothing until a page is rendered."""

    async def _ensure_started(self) -> None:
        if self.playwright is None:
            await PlaywrightBrowserProvider.start(self)

    def resolve_launch_options(self) -> dict[str, Any]:
        opts = dict(self.config.launch_options or {})
        opts.setdefault("headless", True)
        opts["args"] = launch_args(opts.get("args") or ())
        if not opts.get("executable_path") and self.config.browser_type_name == "chromium":
            managed = None
            try:
                managed = self.browser_type.executable_path if self.browser_type is not None else None
            except Exception:  # no managed browser registered for this Playwright
                managed = None
            if managed and os.path.isfile(managed):
                logger.debug("using the Playwright-managed Chromium at %s", managed)
            else:
                system = find_system_chromium(headless=bool(opts.get("headless")))
                if system is None:
                    raise BrowserNotFound(
                        "no Chromium found: install Debian's chromium (apt-get install -y chromium), "
                        "run `playwright install chromium`, or set PLAYWRIGHT_LAUNCH_OPTIONS executable_path"
                    )
                opts["executable_path"] = system
        return opts

    async def launch_browser(self) -> Browser:
        try:
            return await self._launch_browser()
        except BrowserLaunchFailed:
            raise
        except Exception as exc:  # Playwright's launch errors are untyped: name them once, here
            raise BrowserLaunchFailed(f"{type(exc).__name__}: {exc}") from exc

    async def _launch_browser(self) -> Browser:
        await self._ensure_started()
        if self.config.cdp_url or self.config.connect_url:
            return await super().launch_browser()
        assert self.browser_type is not None
        opts = self.resolve_launch_options()
        if self.egress is not None:
            proxy = await self.egress.ensure_proxy()
            opts["args"] = list(opts["args"]) + self.egress.chromium_proxy_args(proxy)
        logger.info("Launching browser %s (%s)", self.browser_type.name, opts.get("executable_path") or "playwright-managed")
        browser = await self.browser_type.launch(**opts)
        type(self).launches += 1
        return browser

    async def launch_persistent_context(self, context_kwargs: dict) -> Any:
        await self._ensure_started()
        return await super().launch_persistent_context(context_kwargs)

    async def close(self) -> None:
        if self.playwright is not None:
            await super().close()
        if self.egress is not None:
            await self.egress.close_proxy()
