"""Browser escalation: render only the pages that need it, once, until the content is ready.

Two downloader middlewares share this module.

``RenderMiddleware`` (priority 560, after ``PresenceMiddleware`` at 570, so it sees the
decompressed, redirected response and the gate's verdict; before ``RetryMiddleware``).
On a plain HTML response it decides, from the recipe's render policy and the presence
verdict, whether the page must be rendered:

- policy ``skip`` (recipe or a ``[[render.rules]]`` match): never;
- policy ``force``: always (reason ``force``, or ``force_rule`` from a URL rule);
- policy ``auto``: when the gate flagged a shell (``needs_render``; reason ``shell_page``).

It then returns the request again with ``playwright`` meta, ``dont_filter=True``, ``dont_cache``
(Scrapy's HTTP cache never answers a render with the cached plain page) and its own
counter ``gatecrawl_render_attempts`` (at most ``GATECRAWL_RENDER_MAX_ATTEMPTS``), recording
``gatecrawl_escalated_from="http"`` and ``gatecrawl_escalation_reason``; the presence verdict
(with its score) stays in ``gatecrawl_presence``. The spider callback therefore sees the
rendered DOM, and links that exist only after rendering are followed. Error statuses (>= 400)
are never rendered. When conversion flags a plain page as a shell after all (the extraction
gate, or a shell's embedded data that failed), :class:`Escalation` builds the same request
with the same counter, and the spider middleware ``ConvertMiddleware`` yields it in place of
the capture: both ways end as a request handed back to Scrapy, which schedules it.

``BrowserPageMiddleware`` (priority 950, next to the download handler) dresses every render
request for scrapy-playwright: the site's browser context (``playwright_context``, recycled
after ``GATECRAWL_BROWSER_CONTEXT_MAX_PAGES`` pages), pinned context arguments, the readiness
session (init callback + page method), ``playwright_include_page`` so that it can close the
page itself, first thing, on every response and every exception. It writes the readiness
report to ``gatecrawl_render`` and enforces ``DOWNLOAD_MAXSIZE`` on the rendered DOM. A render
that ran out of time becomes a response flagged ``playwright`` whose report says
``render_readiness_passed: False``, so the conversion path drops it as ``readiness_timeout``
(never a silent partial page). A crash or navigation error goes to the errback.

Settings: ``GATECRAWL_RENDER_ENABLED``, ``GATECRAWL_RENDER_MAX_ATTEMPTS``,
``GATECRAWL_BROWSER_CONTEXT_MAX_PAGES``, ``DOWNLOAD_MAXSIZE``.
Meta (written): ``gatecrawl_render_attempts``, ``gatecrawl_escalated_from``,
``gatecrawl_escalation_reason``, ``gatecrawl_render``, ``gatecrawl_url_requested``,
``gatecrawl_plain_capture`` (the plain response, up to ``GATECRAWL_RENDER_FALLBACK_MAX_BYTES``) and
scrapy-playwright's ``playwright*`` keys. Meta (read): ``gatecrawl_presence``.
Stats: ``gatecrawl/render/requested``, ``gatecrawl/render/requested/<reason>``,
``gatecrawl/render/max_reached``, ``gatecrawl/render/skipped/<why>``,
``gatecrawl/render/deferred/embedded_data`` (a shell left to the embedded-data reader first),
``gatecrawl/render/succeeded``, ``gatecrawl/render/ready/<condition>``,
``gatecrawl/render/readiness_timeout``, ``gatecrawl/render/readiness_timeout/<condition>``,
``gatecrawl/render/failed``, ``gatecrawl/render/failed/<error>``, ``gatecrawl/render/fallback/not_carried``,
``gatecrawl/render/waited_for_page`` (a render held before its download slot until one of the
browser's ``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT`` pages was free),
``gatecrawl/browser/{page_opened,page_closed,context_opened,context_closed}``,
``gatecrawl/browser/context_recycled`` (after N pages), ``gatecrawl/browser/context_idle_closed``
(no render left to do),
``gatecrawl/browser/aborted/<resource type>``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

import scrapy
from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse

from gatecrawl.browser.contexts import BrowserLedger, ContextPool
from gatecrawl.browser.options import BrowserOptions
from gatecrawl.browser.readiness import ReadinessSession, RenderAborted, RenderTimeout
from gatecrawl.core.convert import page_type
from gatecrawl.core.reasons import RenderReason
from gatecrawl.exceptions import BrowserLaunchFailed
from gatecrawl.items import PageCapture, first_headers
from gatecrawl.middlewares.recrawl import strip_conditional
from gatecrawl.meta import CONDITIONAL, ESCALATED_FROM, ESCALATION_REASON, NOT_MODIFIED, PLAIN_CAPTURE, PRESENCE, RENDER, RENDER_ATTEMPTS, START_TIME, URL_REQUESTED

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from gatecrawl.core.recipes import Recipe

__all__ = ["RenderMiddleware", "BrowserPageMiddleware", "Escalation", "render_decision", "render_request", "plain_capture"]

logger = logging.getLogger(__name__)

# Meta left by the plain download that must not leak into the browser request.
_TRANSIENT_META = (
    "download_latency",
    "download_slot",
    "download_maxsize",
    "download_warnsize",
    "redirect_urls",
    "redirect_reasons",
    "redirect_times",
    "redirect_ttl",
    "retry_times",
    "_gatecrawl_render_session",
)
_EMPTY_DOM = b"<html><head></head><body></body></html>"


def render_decision(recipe: Recipe, url: str, presence: dict | None, status: int = 200) -> tuple[str | None, str]:
    """``(reason, why)``: the escalation reason, or None and why not."""
    policy, origin = recipe.render_policy_for(url)
    if policy == "skip":
        return None, "policy_skip"
    if status >= 400:
        return None, "http_status"
    if presence and presence.get("bot_challenge"):
        # A challenge would challenge the browser too: never render it blindly.
        return None, "bot_challenge"
    if policy == "force":
        return (RenderReason.FORCE if origin == "recipe" else RenderReason.FORCE_RULE), ""
    if presence and presence.get("needs_render"):
        return RenderReason.SHELL_PAGE, ""
    return None, "not_needed"


def plain_capture(url: str, status: int, headers: dict, body: bytes, max_bytes: int) -> dict | None:
    """The plain capture that travels with a render request (None over ``max_bytes``)."""
    if max_bytes <= 0 or len(body) > max_bytes:
        return None
    return {"url": url, "status": status, "headers": dict(headers), "content_type": headers.get("content-type"), "body": bytes(body)}


def render_request(request: Request, url: str, reason: str, plain: dict | None = None) -> Request:
    """The browser request for ``request``: one more attempt, playwright meta, not filtered.
    ``plain`` (from :func:`plain_capture`) rides along as ``gatecrawl_plain_capture``."""
    meta = {k: v for k, v in request.meta.items() if k not in _TRANSIENT_META and not k.startswith("playwright") and k != CONDITIONAL}
    meta[PLAIN_CAPTURE] = plain
    meta[URL_REQUESTED] = request.meta.get(URL_REQUESTED) or (request.meta.get("redirect_urls") or [request.url])[0]
    meta[RENDER_ATTEMPTS] = int(request.meta.get(RENDER_ATTEMPTS, 0)) + 1
    meta[ESCALATED_FROM] = "http"
    meta[ESCALATION_REASON] = reason
    meta[RENDER] = {}
    meta["playwright"] = True
    # Never answered from (nor stored in) Scrapy's HTTP cache: the cache keys ignore meta, so it
    # would answer the render with the cached plain shell (HTTPCACHE_ENABLED looped on shells).
    meta["dont_cache"] = True
    # The browser must get the page, never a 304 to the plain fetch's conditional headers.
    headers = request.headers.copy()
    strip_conditional(headers)
    return request.replace(url=url, meta=meta, headers=headers, dont_filter=True)


def _stats_requested(stats: Any, reason: str) -> None:
    stats.inc_value("gatecrawl/render/requested")
    stats.inc_value(f"gatecrawl/render/requested/{reason}")


class RenderMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("GATECRAWL_RENDER_ENABLED"):
            raise NotConfigured("GATECRAWL_RENDER_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats
        self.max_attempts = crawler.settings.getint("GATECRAWL_RENDER_MAX_ATTEMPTS")
        self.fallback_max = crawler.settings.getint("GATECRAWL_RENDER_FALLBACK_MAX_BYTES")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RenderMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Request | Response:
        if request.meta.get("playwright") or "playwright" in (response.flags or []) or request.meta.get(NOT_MODIFIED):
            return response
        if not isinstance(response, HtmlResponse):
            return response
        recipe = getattr(self.crawler.spider, "recipe", None)
        if recipe is None:
            return response
        ctype = response.headers.get(b"Content-Type")
        if page_type(response.body, ctype.decode("latin-1") if ctype else None, response.url) == "pdf":
            # A PDF served as text/html goes to the PDF reader, never to Chromium (render=force too).
            self.stats.inc_value("gatecrawl/render/skipped/pdf")
            return response
        reason, why = render_decision(recipe, response.url, request.meta.get(PRESENCE), response.status)
        if reason is None:
            if why in ("policy_skip", "http_status", "bot_challenge") and (request.meta.get(PRESENCE) or {}).get("needs_render"):
                self.stats.inc_value(f"gatecrawl/render/skipped/{why}")
            return response
        if reason == RenderReason.SHELL_PAGE and (request.meta.get(PRESENCE) or {}).get("embedded_sources"):
            # The shell carries its data: the converter reads the content from it first and
            # ConvertMiddleware escalates the page (Escalation) only when that content fails.
            self.stats.inc_value("gatecrawl/render/deferred/embedded_data")
            return response
        if int(request.meta.get(RENDER_ATTEMPTS, 0)) >= self.max_attempts:
            self.stats.inc_value("gatecrawl/render/max_reached")
            return response
        _stats_requested(self.stats, reason)
        logger.debug("rendering %s (%s)", response.url, reason, extra={"spider": self.crawler.spider})
        plain = plain_capture(response.url, response.status, first_headers(response.headers), response.body, self.fallback_max)
        if plain is None:
            self.stats.inc_value("gatecrawl/render/fallback/not_carried")
        return render_request(request, response.url, reason, plain)


class Escalation:
    """The browser request for a plain capture that conversion found to be a shell, built with
    the same shape and the same attempt counter as :class:`RenderMiddleware`'s. Settings are
    read once, here; :class:`gatecrawl.middlewares.convert.ConvertMiddleware` yields the request
    in place of the capture (Scrapy schedules it: no component calls the engine)."""

    def __init__(self, settings: Any, stats: Any) -> None:
        self.enabled = settings.getbool("GATECRAWL_RENDER_ENABLED")
        self.max_attempts = settings.getint("GATECRAWL_RENDER_MAX_ATTEMPTS")
        self.fallback_max = settings.getint("GATECRAWL_RENDER_FALLBACK_MAX_BYTES")
        self.stats = stats

    def request_for(self, spider: Any, item: PageCapture, presence: dict | None) -> Request | None:
        """The render request for ``item`` (a plain-HTTP capture), or None when it must not be
        rendered (counted as the middleware counts it)."""
        fetch = item.fetch
        if fetch.reader != "http" or not self.enabled:
            return None
        recipe = getattr(spider, "recipe", None)
        if recipe is None:
            return None
        reason, why = render_decision(recipe, item.url_final, dict(presence or {}, needs_render=True), fetch.http_status or 200)
        if reason is None:
            if fetch.fetch_presence is None:  # else RenderMiddleware already counted it
                self.stats.inc_value(f"gatecrawl/render/skipped/{why}")
            return None
        if self.max_attempts <= int(item.render_attempts or 0):
            self.stats.inc_value("gatecrawl/render/max_reached")
            return None
        if reason == RenderReason.SHELL_PAGE:
            reason = RenderReason.EMBEDDED_DATA_FAILED if (presence or {}).get("embedded_sources") else RenderReason.PIPELINE_SHELL_PAGE
        plain = scrapy.Request(
            item.url_final,
            callback=spider.parse,
            errback=spider.errback,
            meta={
                "depth": fetch.depth or 0,
                START_TIME: time.monotonic(),
                URL_REQUESTED: fetch.url_requested,
                PRESENCE: presence,
            },
        )
        _stats_requested(self.stats, reason)
        capture = plain_capture(item.url_final, fetch.http_status or 200, fetch.headers, item.body, self.fallback_max)
        if capture is None:
            self.stats.inc_value("gatecrawl/render/fallback/not_carried")
        return render_request(plain, item.url_final, reason, capture)


class BrowserPageMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("GATECRAWL_RENDER_ENABLED"):
            raise NotConfigured("GATECRAWL_RENDER_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats
        self.max_bytes = crawler.settings.getint("DOWNLOAD_MAXSIZE")
        self.pool = ContextPool(max_pages=crawler.settings.getint("GATECRAWL_BROWSER_CONTEXT_MAX_PAGES"))
        self.ledger = BrowserLedger(lambda event: self.stats.inc_value(f"gatecrawl/browser/{event}"))
        self._sessions: weakref.WeakKeyDictionary[Any, tuple[ReadinessSession, str]] = weakref.WeakKeyDictionary()
        self._options: dict[str, BrowserOptions] = {}
        # A render waits here for one of the browser's pages (PLAYWRIGHT_MAX_PAGES_PER_CONTEXT)
        # before it takes its place in the download slot: waiting inside the download handler
        # instead, queued renders held the site's slots (CONCURRENT_REQUESTS_PER_DOMAIN) while
        # plain fetches of the site waited behind them. 0: no limit (scrapy-playwright's own).
        self.max_pages = max(0, crawler.settings.getint("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT"))
        self._pages_free = self.max_pages
        self._page_waiters: list[asyncio.Future] = []
        self._holding: weakref.WeakSet[Any] = weakref.WeakSet()
        # Renders queued or in flight, counted from Scrapy's scheduling signals (not from the
        # stats): a page closing with none left lets the contexts close at once.
        self._scheduled = 0
        self._finished = 0
        crawler.signals.connect(self._on_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self._on_dropped, signal=signals.request_dropped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BrowserPageMiddleware:
        return cls(crawler)

    @staticmethod
    def _is_render(request: Request) -> bool:
        return bool(request.meta.get("playwright")) and RENDER_ATTEMPTS in request.meta

    def _on_scheduled(self, request: Request, **kw: Any) -> None:
        if self._is_render(request):
            self._scheduled += 1

    def _on_dropped(self, request: Request, **kw: Any) -> None:
        if self._is_render(request):
            self._scheduled -= 1

    def _options_for(self, recipe: Recipe) -> BrowserOptions:
        opts = self._options.get(recipe.digest)
        if opts is None:
            opts = self._options[recipe.digest] = BrowserOptions.from_recipe(recipe)
        return opts

    def _abort_stat(self, resource_type: str) -> None:
        self.stats.inc_value(f"gatecrawl/browser/aborted/{resource_type}")

    async def _take_page(self, request: Request) -> None:
        """Return once a browser page is free for ``request`` (first come, first served); the
        page is given back by :meth:`_give_page` when the render ends."""
        if not self.max_pages or request in self._holding:
            return
        if self._pages_free <= 0 or self._page_waiters:
            self.stats.inc_value("gatecrawl/render/waited_for_page")
            fut = asyncio.get_running_loop().create_future()
            self._page_waiters.append(fut)
            try:
                await fut  # resolved by _give_page, with the page handed over
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():  # handed over, then cancelled: pass it on
                    self._holding.add(request)
                    self._give_page(request)
                raise
        else:
            self._pages_free -= 1
        self._holding.add(request)

    def _give_page(self, request: Request) -> None:
        if request not in self._holding:
            return
        self._holding.discard(request)
        while self._page_waiters:
            fut = self._page_waiters.pop(0)
            if not fut.done():
                fut.set_result(None)  # the page passes to the next render in line
                return
        self._pages_free += 1

    async def process_request(self, request: Request) -> None:
        if not request.meta.get("playwright") or RENDER_ATTEMPTS not in request.meta:
            return None
        await self._take_page(request)
        try:
            self._dress(request)
        except BaseException:
            self._give_page(request)
            raise
        return None

    def _dress(self, request: Request) -> None:
        """The readiness session, context and page options of a render request."""
        from scrapy_playwright.page import PageMethod

        recipe = getattr(self.crawler.spider, "recipe", None)
        opts = self._options_for(recipe) if recipe is not None else BrowserOptions.from_table(None)
        previous = self._sessions.pop(request, None)
        if previous is not None:  # the same request again (a retry): its old slot is free
            self.pool.release(previous[1])
        name = self.pool.assign(recipe.name if recipe is not None else "default")
        session = ReadinessSession(
            opts,
            max_bytes=int(request.meta.get("download_maxsize", self.max_bytes) or 0),
            context_name=name,
            on_page=self.ledger.page_opened,
            on_abort=self._abort_stat,
        )
        self._sessions[request] = (session, name)
        meta = request.meta
        meta[RENDER] = session.report
        meta["playwright_include_page"] = True
        meta["playwright_context"] = name
        meta["playwright_context_kwargs"] = opts.context_kwargs()
        meta["playwright_page_init_callback"] = session.init_page
        meta["playwright_page_methods"] = [PageMethod(session.wait_ready)]
        meta["playwright_page_goto_kwargs"] = {"wait_until": "commit", "timeout": opts.max_render_time_ms}

    async def _close_page(self, request: Request, name: str) -> None:
        page = request.meta.pop("playwright_page", None)
        # the session is only needed by the handler; drop the references it holds
        request.meta.pop("playwright_page_init_callback", None)
        request.meta.pop("playwright_page_methods", None)
        ctx = None
        if page is not None:
            try:
                ctx = page.context
                if not page.is_closed():
                    await asyncio.wait_for(page.close(), timeout=10)
            except Exception as exc:  # a crashed browser: the page is gone with it
                logger.debug("closing page failed: %r", exc)
        self._finished += 1
        self._give_page(request)
        retired = self.pool.release(name)
        # No render left anywhere (scheduled or in flight): close the context now rather than
        # at engine stop, so that the run summary can show every context closed. The next
        # render of the site opens a fresh one.
        idle = self._scheduled - self._finished <= 0 and self.pool.inflight(name) == 0
        if retired and ctx is not None:
            await self._close_context(ctx, "gatecrawl/browser/context_recycled", name)
        if idle:
            # Every open context, not only this page's: an earlier generation may have finished
            # its last page while this one was still rendering.
            for other in self.ledger.open_contexts():
                if other is not ctx or not retired:
                    await self._close_context(other, "gatecrawl/browser/context_idle_closed", name)

    async def _close_context(self, ctx: Any, stat: str, name: str) -> None:
        try:
            await asyncio.wait_for(ctx.close(), timeout=10)
            self.stats.inc_value(stat)
        except Exception as exc:
            logger.debug("closing context %s failed: %r", name, exc)

    async def process_response(self, request: Request, response: Response) -> Response:
        entry = self._sessions.pop(request, None)
        if entry is None:
            return response
        session, name = entry
        await self._close_page(request, name)
        report = session.report
        if report.get("render_readiness_passed") is None:
            # the handler returned without running the readiness method (a download, not a page)
            report.update(render_readiness_passed=False, render_readiness_reason="timeout:not_evaluated")
        if self.max_bytes and len(response.body) > self.max_bytes:
            self._failed("too_large")
            raise IgnoreRequest(f"rendered DOM of {len(response.body)} bytes is over DOWNLOAD_MAXSIZE ({self.max_bytes})")
        self._count_verdict(report)
        return response

    async def process_exception(self, request: Request, exception: BaseException) -> Response | None:
        entry = self._sessions.pop(request, None)
        if entry is None:
            return None
        session, name = entry
        await self._close_page(request, name)
        if isinstance(exception, RenderAborted):
            self._failed(exception.reason)
            return None
        if not isinstance(exception, RenderTimeout) and not _is_playwright_timeout(exception):
            self._failed(type(exception).__name__)
            if isinstance(exception, BrowserLaunchFailed):  # typed by the browser provider
                # The browser was needed but could not start: the crawl must say so in its exit status.
                self.stats.set_value("gatecrawl/exit/browser_unavailable", f"{type(exception).__name__}")
            session.report.update(render_readiness_passed=False, render_readiness_reason=f"render_failed:{type(exception).__name__}")
            logger.info("render failed for %s: %s", request.url, exception, extra={"spider": self.crawler.spider})
            return None
        if session.report.get("render_readiness_passed") is None:
            session.fail_navigation()
        self._count_verdict(session.report)
        # The DOM could not be read in time: an empty rendered response whose report fails
        # readiness, so the page is dropped as readiness_timeout with its packet.
        return HtmlResponse(
            url=request.url,
            status=session.nav_status or 200,
            body=_EMPTY_DOM,
            encoding="utf-8",
            request=request,
            flags=["playwright"],
        )

    def _failed(self, why: str) -> None:
        self.stats.inc_value("gatecrawl/render/failed")
        self.stats.inc_value(f"gatecrawl/render/failed/{why}")

    def _count_verdict(self, report: dict) -> None:
        reason = str(report.get("render_readiness_reason") or "")
        if report.get("render_readiness_passed"):
            self.stats.inc_value("gatecrawl/render/succeeded")
            self.stats.inc_value(f"gatecrawl/render/ready/{reason.partition(':')[2] or reason}")
        else:
            self.stats.inc_value("gatecrawl/render/readiness_timeout")
            self.stats.inc_value(f"gatecrawl/render/readiness_timeout/{reason.partition(':')[2] or reason}")


def _is_playwright_timeout(exc: BaseException) -> bool:
    try:
        from playwright.async_api import TimeoutError as PlaywrightTimeoutError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, (PlaywrightTimeoutError, asyncio.TimeoutError))
