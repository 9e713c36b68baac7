"""The per-host "not found" probe: one made-up URL per host, fetched before its pages are judged.

``NotFoundProber.probe_for(url)`` fetches, once per origin (scheme, host, port; started as soon as
the origin's first HTML page answered with a success status), the path
:func:`gatecrawl.core.soft404.probe_path` derives from the run id, through every downloader
middleware (robots.txt, egress, size caps, presence, and the browser when the answer is a shell)
but not through the scheduler or the spider: the probe leaves no page packet and does not count
against ``max_pages``. It carries no credential headers (``CredentialScopeMiddleware`` strips them:
its host may be one the crawl only reached through a redirect) and no cookies (``dont_merge_cookies``). Every item of that origin waits for the answer. The answer becomes a
fingerprint (``gatecrawl.core.soft404``) only when the host served it as a page: a 4xx/5xx status
(an honest 404, or an error: the probe is not retried), a redirect to the site root, a non-HTML answer, a failure or a page without
text give none, and that host's pages are judged without one.

Built by :meth:`NotFoundProber.from_crawler`: it fetches through an
:class:`~gatecrawl.engineport.EnginePort` and reads the running spider's recipe and run id when a
probe starts.

Meta (written on the probe request): ``gatecrawl_not_found_probe``.
Stats: ``gatecrawl/not_found_probe/requested``, ``gatecrawl/not_found_probe/<outcome>``
(``fingerprinted``, ``real_404`` (404/410), ``error_status`` (other 4xx/5xx), ``redirected_home``,
``not_html``, ``no_text``, ``failed``),
``gatecrawl/not_found_probe/matched`` (pages dropped as ``soft_404`` by the fingerprint).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse

from gatecrawl.core import soft404
from gatecrawl.engineport import EnginePort
from gatecrawl.meta import NOT_FOUND_PROBE, SITEMAP, URL_REQUESTED

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class NotFoundProber:
    def __init__(self, port: EnginePort, stats: StatsCollector, spider: Callable[[], Any]) -> None:
        self.port = port
        self.stats = stats
        self._spider = spider  # the running spider (None before the crawl starts)
        self._origins: dict[str, asyncio.Future] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NotFoundProber:
        return cls(EnginePort(crawler), crawler.stats, lambda: crawler.spider)

    def start(self, url: str) -> asyncio.Future | None:
        """Start the probe of ``url``'s origin unless it was started already (idempotent)."""
        p = urlsplit(url)
        if p.scheme not in ("http", "https") or not p.hostname:
            return None
        origin = f"{p.scheme}://{p.netloc}"
        fut = self._origins.get(origin)
        if fut is None:
            fut = self._origins[origin] = asyncio.ensure_future(self._probe(origin, p.hostname))
        return fut

    def on_response(self, response: Any, request: Any, spider: Any = None) -> None:
        """``response_received``: a host's first page answered with a success status (after
        redirects) starts its probe, so the probe runs while that page goes through the spider
        rather than after it. Hosts a crawl only passes through (redirect hops) or that answer only
        errors are never probed."""
        meta = request.meta
        if meta.get(NOT_FOUND_PROBE) or meta.get(SITEMAP) or meta.get("dont_obey_robotstxt"):
            return  # not the probe itself, a sitemap or robots.txt
        if response.status >= 400 or not isinstance(response, HtmlResponse):
            return
        recipe = getattr(self._spider(), "recipe", None)
        if recipe is None or not recipe.not_found_probe:
            return
        self.start(response.url)

    async def probe_for(self, url: str) -> dict | None:
        """``{"reader": "http"|"render", "fingerprint": ...}`` for the origin of ``url``, or None."""
        fut = self.start(url)
        return None if fut is None else await asyncio.shield(fut)

    def _outcome(self, outcome: str) -> None:
        self.stats.inc_value(f"gatecrawl/not_found_probe/{outcome}")

    async def _probe(self, origin: str, host: str) -> dict | None:
        spider = self._spider()
        url = origin + soft404.probe_path(spider.run_id, host)
        self.stats.inc_value("gatecrawl/not_found_probe/requested")
        # Not retried: a probe that fails gives no fingerprint, and the host's pages wait for it.
        # Its own download slot: one request per host and run that does not queue behind the
        # host's pages (which wait for it).
        # No cookies either way: the probe neither sends the jar's cookies nor stores the ones a
        # "not found" page sets (they would change the requests that follow).
        meta = {
            NOT_FOUND_PROBE: True,
            URL_REQUESTED: url,
            "dont_retry": True,
            "dont_merge_cookies": True,
            "download_slot": f"{host}#not-found-probe",
        }
        request = scrapy.Request(url, meta=meta, dont_filter=True)
        try:
            response = await self.port.download(request)
        except Exception as exc:  # refused by robots/egress, timeout, render failure: no fingerprint
            logger.debug("not-found probe failed for %s: %r", origin, exc)
            self._outcome("failed")
            return None
        if response.status >= 400:
            self._outcome("real_404" if response.status in (404, 410) else "error_status")
            return None
        final = urlsplit(response.url)
        if response.url != url and (final.path or "/") == "/":
            self._outcome("redirected_home")
            return None
        if not isinstance(response, HtmlResponse):
            self._outcome("not_html")
            return None
        ctype = response.headers.get("Content-Type", b"").decode("latin-1")
        try:
            fp = soft404.fingerprint_page(response.body, response.url, ctype, spider.recipe)
        except Exception as exc:  # a page the fingerprint cannot read: judge the host without one
            logger.warning("not-found probe of %s could not be fingerprinted: %r", origin, exc)
            self._outcome("failed")
            return None
        if not soft404.usable(fp):
            self._outcome("no_text")
            return None
        self._outcome("fingerprinted")
        return {"reader": "render" if "playwright" in (response.flags or []) else "http", "fingerprint": fp}

    @staticmethod
    def for_reader(probe: dict | None, reader: str) -> Any:
        return probe["fingerprint"] if probe and probe.get("reader") == reader else None
