"""The readiness contract: wait until the page's main content is there, not for a fixed time.

A :class:`ReadinessSession` belongs to one render. scrapy-playwright calls
:meth:`ReadinessSession.init_page` before navigating (``playwright_page_init_callback``) and
:meth:`ReadinessSession.wait_ready` after the navigation commits (a ``PageMethod``). The wait
polls a probe script (:data:`PROBE_JS`) in the page every ``readiness_poll_interval_ms`` and
checks the recipe's conditions, all of which must hold at the same time:

- ``selector`` (A): the main container exists, its visible text has at least
  ``min_main_text_chars`` characters, and it is not a placeholder (a loading skeleton, a
  "Loading..." text, or a 404 template shown before the client-side route resolves);
- ``heading`` (B): an h1-h3 matches ``required_heading_regex``;
- ``network_idle`` (C): no request started or finished for ``network_idle_ms``; after
  ``network_idle_cap_ms`` it counts as met (long polls never block a render);
- ``stability`` (D): the main container's text hash has not changed for ``stability_window_ms``;
- ``scroll`` (E): once A holds (when enabled), scroll to the bottom in steps, waiting
  ``scroll_step_wait_ms`` after each, until the container has not grown for two steps in a
  row, at most ``scroll_max_steps`` steps.

Everything runs under ``max_render_time_ms``. The outcome is a JSON-able report (the
``gatecrawl_render`` meta key, copied to the evidence packet):

- ``render_readiness_passed``: bool;
- ``render_readiness_reason``: ``ready:<condition>`` (the condition that completed the
  contract), ``timeout:<condition>[+<condition>...]`` (those still unmet at the deadline),
  ``timeout:page_unresponsive`` (the page's main thread is blocked, e.g. a JS loop) or
  ``timeout:navigation`` (the navigation did not commit in time);
- ``render_elapsed_ms``: from page creation to the verdict;
- ``condition_met_ms``: for each condition, the time (ms from page creation) since which it
  has held, or None.

A page whose main thread never answers raises :class:`RenderTimeout` (the DOM cannot be read);
a page whose network traffic exceeds the byte cap raises :class:`RenderAborted`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from gatecrawl.browser.options import BrowserOptions
from gatecrawl.core.reasons import Reason
from gatecrawl.exceptions import RenderAborted, RenderTimeout

__all__ = ["PROBE_JS", "ReadinessSession", "RenderAborted", "RenderTimeout"]

logger = logging.getLogger(__name__)

# One call returns everything the conditions need; FNV-1a over the container's innerText
# (which skips hidden elements, so inactive tabs and collapsed panels do not count).
PROBE_JS = r"""
(args) => {
  let el = null;
  try { el = args.selector ? document.querySelector(args.selector) : null; } catch (e) { el = null; }
  const root = el || document.body;
  const raw = root ? (root.innerText || '') : '';
  const text = raw.replace(/\s+/g, ' ').trim();
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  let heading = null;
  if (args.heading) {
    try {
      const re = new RegExp(args.heading, 'i');
      heading = Array.from(document.querySelectorAll('h1, h2, h3')).some(
        (x) => re.test((x.innerText || x.textContent || '').trim()));
    } catch (e) { heading = false; }
  }
  let pending = false;
  if (el) {
    try {
      if (args.pendingSelector && (el.matches(args.pendingSelector) || el.querySelector(args.pendingSelector))) pending = true;
    } catch (e) {}
    if (!pending && args.pendingRegex) {
      try {
        const re = new RegExp(args.pendingRegex, 'i');
        const fh = el.querySelector('h1, h2, h3');
        if ((fh && re.test((fh.innerText || '').trim())) || re.test(text.slice(0, 80))) pending = true;
      } catch (e) {}
    }
  }
  const se = document.scrollingElement || document.documentElement;
  return {found: !!el, chars: text.length, hash: (h >>> 0).toString(16), heading: heading,
          pending: pending, height: se ? se.scrollHeight : 0, readyState: document.readyState};
}
"""

_SCROLL_JS = "() => { const se = document.scrollingElement || document.documentElement; window.scrollTo(0, se.scrollHeight); return se.scrollHeight; }"


# Scrolling stops after this many consecutive steps without growth (one slow loader is not the end).
_SCROLL_SETTLE_STEPS = 2
# A page is unresponsive when a probe does not answer within the remaining budget plus this.
_PROBE_GRACE_S = 0.5


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


class ReadinessSession:
    """State of one render: network activity, the byte count, and the readiness report."""

    def __init__(
        self,
        options: BrowserOptions,
        *,
        max_bytes: int = 0,
        context_name: str | None = None,
        on_page: Callable[[Any], None] | None = None,
        on_abort: Callable[[str], None] | None = None,
    ) -> None:
        self.options = options
        self.max_bytes = max_bytes
        self.context_name = context_name
        self._on_page = on_page
        self._on_abort = on_abort
        self.report: dict[str, Any] = {}
        self._reset()

    def _reset(self) -> None:
        self.t0: float | None = None
        self.last_net = 0.0
        self.requests = 0
        self.inflight = 0  # requests started and not yet finished or failed
        self.aborted = 0
        self.bytes_in = 0  # announced (Content-Length) bytes of the page's responses
        self.bytes_received = 0  # bytes that really arrived (Chromium: CDP Network.dataReceived)
        self.too_large = False
        self.nav_status: int | None = None
        self.egress_blocked: list[dict[str, str]] = []
        self.report.clear()
        self.report.update(
            render_readiness_passed=None,
            render_readiness_reason=None,
            render_elapsed_ms=None,
            conditions=list(self.options.conditions),
            condition_met_ms={c: None for c in self.options.conditions},
            browser=self.options.summary(),
        )

    # -- before navigation ------------------------------------------------------------

    async def init_page(self, page: Any, request: Any = None) -> None:
        """scrapy-playwright ``playwright_page_init_callback``: timeouts, resource blocking,
        network and byte accounting. Runs before ``page.goto``."""
        self._reset()
        self.t0 = time.monotonic()
        self.last_net = self.t0
        budget = self.options.max_render_time_ms
        page.set_default_timeout(budget)
        page.set_default_navigation_timeout(budget)
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_request_done)
        page.on("requestfailed", self._on_request_failed)
        page.on("response", self._on_response)
        if self.options.blocked_resources:
            await page.route("**/*", self._route)
        if self.max_bytes:
            await self._count_received(page)
        if self._on_page is not None:
            self._on_page(page)

    async def _count_received(self, page: Any) -> None:
        """Count the bytes that really arrive, not only announced lengths: a chunked body that
        the page's own script reads (``fetch``/XHR streaming) announces nothing. Chromium only
        (a DevTools session on the page); other engines keep the announced-length check."""
        try:
            cdp = await page.context.new_cdp_session(page)
            cdp.on("Network.dataReceived", self._on_data)
            await cdp.send("Network.enable")
        except Exception:  # not Chromium, or the page is already gone
            return

    def _on_data(self, params: dict[str, Any]) -> None:
        try:
            n = max(int(params.get("encodedDataLength") or 0), int(params.get("dataLength") or 0))
        except (TypeError, ValueError):
            return
        self.bytes_received += n
        if self.max_bytes and self.bytes_received > self.max_bytes:
            self.too_large = True

    async def _route(self, route: Any, request: Any) -> None:
        if request.resource_type in self.options.blocked_resources:
            self.aborted += 1
            if self._on_abort is not None:
                self._on_abort(request.resource_type)
            await route.abort("blockedbyclient")
        else:
            await route.fallback()

    def _on_request(self, request: Any) -> None:
        self.requests += 1
        self.inflight += 1
        self.last_net = time.monotonic()

    def _on_request_done(self, request: Any) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_net = time.monotonic()

    def _on_request_failed(self, request: Any) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_net = time.monotonic()
        try:
            failure = request.failure or ""
        except Exception:
            failure = ""
        if "TUNNEL_CONNECTION_FAILED" in str(failure):  # the egress proxy refused a CONNECT
            self._note_blocked(request.url, Reason.EGRESS_BLOCKED, "tunnel refused")

    def _note_blocked(self, url: str, reason: str, detail: str) -> None:
        from gatecrawl.core.redact import redact_url

        if len(self.egress_blocked) < 50:
            self.egress_blocked.append({"url": redact_url(url), "reason": reason, "detail": detail})

    def _on_response(self, response: Any) -> None:
        try:
            if self.nav_status is None and response.request.is_navigation_request():
                self.nav_status = response.status
            length = int(response.headers.get("content-length") or 0)
            marker = response.headers.get("x-gatecrawl-egress")
        except Exception:  # a response of a closed page: nothing to count
            return
        if marker:  # the egress proxy refused this request
            reason, _, detail = marker.partition(";")
            self._note_blocked(response.url, reason.strip(), detail.strip())
        self.bytes_in += length
        if self.max_bytes and self.bytes_in > self.max_bytes:
            self.too_large = True

    # -- after navigation -------------------------------------------------------------

    async def wait_ready(self, page: Any) -> dict[str, Any]:
        """Wait for the readiness contract; return the report (also kept in ``self.report``).

        Returns normally when the contract holds or the deadline passes with the DOM still
        readable (the report then says ``passed: False``); raises :class:`RenderTimeout`
        when the page stops answering and :class:`RenderAborted` over the byte cap.
        """
        from playwright.async_api import Error as PlaywrightError

        opts = self.options
        if self.t0 is None:
            self.t0 = self.last_net = time.monotonic()
        t0 = self.t0
        deadline = t0 + opts.max_render_time_ms / 1000
        poll = opts.readiness_poll_interval_ms / 1000
        conds = opts.conditions
        since: dict[str, float | None] = {c: None for c in conds}
        args = {
            "selector": opts.main_selector,
            "heading": opts.required_heading_regex if "heading" in conds else None,
            "pendingSelector": opts.pending_selector if "selector" in conds else None,
            "pendingRegex": opts.pending_heading_regex if "selector" in conds else None,
        }
        self.report["navigation_ms"] = _ms(time.monotonic() - t0)
        last_hash: str | None = None
        changed_at = time.monotonic()
        scroll_done = "scroll" not in conds
        scroll_steps = 0
        scroll_at: float | None = None
        scroll_chars = -1
        scroll_idle = 0
        scroll_height = -1
        capped = False
        polls = 0
        probe: dict[str, Any] = {}
        while True:
            now = time.monotonic()
            if self.too_large:
                self._finish(False, "too_large", since, probe, polls, scroll_steps, capped)
                raise RenderAborted("too_large")
            remaining = deadline - now
            if remaining <= 0:
                unmet = [c for c in conds if since[c] is None] or list(conds)
                self._finish(False, "timeout:" + "+".join(unmet), since, probe, polls, scroll_steps, capped)
                return self.report
            try:
                # a probe started just before the deadline may finish just after it
                probe = await asyncio.wait_for(page.evaluate(PROBE_JS, args), timeout=remaining + _PROBE_GRACE_S)
            except asyncio.TimeoutError:
                self._finish(False, "timeout:page_unresponsive", since, probe, polls, scroll_steps, capped)
                raise RenderTimeout("timeout:page_unresponsive") from None
            except PlaywrightError as exc:
                if page.is_closed() or "closed" in str(exc).lower() and "context was destroyed" not in str(exc).lower():
                    raise
                # a navigation replaced the document between polls: probe again
                await asyncio.sleep(min(poll, max(0.0, deadline - time.monotonic())))
                continue
            polls += 1
            now = time.monotonic()
            if probe["hash"] != last_hash:
                last_hash = probe["hash"]
                changed_at = now
            met: dict[str, bool] = {}
            if "selector" in conds:
                met["selector"] = bool(probe["found"]) and probe["chars"] >= opts.min_main_text_chars and not probe["pending"]
            if "heading" in conds:
                met["heading"] = bool(probe["heading"])
            if "network_idle" in conds:
                quiet = now - self.last_net >= opts.network_idle_ms / 1000
                if not quiet and now - t0 >= opts.network_idle_cap_ms / 1000:
                    quiet = capped = True
                met["network_idle"] = quiet
            if "stability" in conds:
                met["stability"] = now - changed_at >= opts.stability_window_ms / 1000
            if "scroll" in conds:
                if not scroll_done and met.get("selector", True):
                    if scroll_at is None or now - scroll_at >= opts.scroll_step_wait_ms / 1000:
                        grew = probe["chars"] > scroll_chars or probe["height"] > scroll_height
                        scroll_idle = 0 if grew else scroll_idle + 1
                        if scroll_at is not None and scroll_idle >= _SCROLL_SETTLE_STEPS:
                            scroll_done = True
                        elif scroll_steps >= opts.scroll_max_steps:
                            scroll_done = True
                            self.report["scroll_steps_exhausted"] = True
                        else:
                            scroll_chars, scroll_height = probe["chars"], probe["height"]
                            try:
                                await asyncio.wait_for(self._scroll(page), timeout=max(0.05, deadline - time.monotonic()) + _PROBE_GRACE_S)
                            except asyncio.TimeoutError:
                                self._finish(False, "timeout:page_unresponsive", since, probe, polls, scroll_steps, capped)
                                raise RenderTimeout("timeout:page_unresponsive") from None
                            except PlaywrightError:
                                pass
                            scroll_steps += 1
                            scroll_at = time.monotonic()
                met["scroll"] = scroll_done
            last = None
            for c in conds:
                if met[c]:
                    if since[c] is None:
                        since[c] = now if c != "stability" else max(changed_at + opts.stability_window_ms / 1000, t0)
                        last = c
                else:
                    since[c] = None
            settle = opts.give_up_after_quiet_ms / 1000
            content_unmet = [c for c in ("selector", "heading") if c in met and not met[c]]
            if (
                settle > 0 and content_unmet and self.inflight == 0
                and now - t0 >= settle and now - self.last_net >= settle and now - changed_at >= settle
            ):
                # The content is missing and the page has gone quiet: no request in flight, none
                # started or finished and the container's text unchanged for this long. Nothing is
                # left that could fill it: waiting out max_render_time_ms would only cost time.
                self._finish(False, "settled:" + "+".join(content_unmet), since, probe, polls, scroll_steps, capped)
                return self.report
            if all(met.values()):
                if last is None:  # every condition already held: the latest one completed the contract
                    last = max(conds, key=lambda c: since[c] or 0.0)
                self._finish(True, f"ready:{last}", since, probe, polls, scroll_steps, capped)
                return self.report
            await asyncio.sleep(min(poll, max(0.0, deadline - time.monotonic())))

    async def _scroll(self, page: Any) -> None:
        """One scroll step to the bottom. Headless Chromium produces frames only for the tab in
        front, and IntersectionObserver-based lazy loaders need frames: with several renders
        in one context, a page scrolled in the background never loads its next section. So
        the page comes to the front, then scrolls (``scrollTo`` plus a wheel event)."""
        await page.bring_to_front()
        height = await page.evaluate(_SCROLL_JS)
        await page.mouse.wheel(0, max(int(height or 0), self.options.viewport_height))

    def _finish(self, passed: bool, reason: str, since: dict, probe: dict, polls: int, scroll_steps: int, capped: bool) -> None:
        t0 = self.t0 or time.monotonic()
        self.report.update(
            render_readiness_passed=passed,
            render_readiness_reason=reason,
            render_elapsed_ms=_ms(time.monotonic() - t0),
            condition_met_ms={c: (_ms(v - t0) if v is not None else None) for c, v in since.items()},
            polls=polls,
            main_selector=self.options.main_selector,
            main_found=bool(probe.get("found")),
            main_text_chars=int(probe.get("chars") or 0),
            main_text_hash=probe.get("hash"),
            scroll_steps=scroll_steps,
            network_idle_capped=capped,
            requests=self.requests,
            aborted_requests=self.aborted,
            bytes_in=self.bytes_in,
            bytes_received=self.bytes_received,
            context=self.context_name,
            egress_blocked=list(self.egress_blocked),
        )

    def fail_navigation(self) -> None:
        """Record a navigation that did not commit within the budget."""
        self._finish(False, "timeout:navigation", {c: None for c in self.options.conditions}, {}, 0, 0, False)


async def render_with_readiness(context: Any, url: str, options: BrowserOptions, *, max_bytes: int = 0) -> tuple[dict[str, Any], str | None]:
    """Render ``url`` in a new page of ``context`` the way a crawl does (init, navigate until
    commit, wait for readiness, read the DOM, close the page). Returns ``(report, html)``;
    ``html`` is None when the page could not be read. For tests and benchmarks."""
    from playwright.async_api import Error as PlaywrightError

    session = ReadinessSession(options, max_bytes=max_bytes)
    page = await context.new_page()
    try:
        await session.init_page(page)
        try:
            await page.goto(url, wait_until="commit", timeout=options.max_render_time_ms)
        except PlaywrightError:
            session.fail_navigation()
            return dict(session.report), None
        try:
            await session.wait_ready(page)
        except (RenderTimeout, RenderAborted):
            return dict(session.report), None
        html = await asyncio.wait_for(page.content(), timeout=max(1.0, options.max_render_time_ms / 1000))
        return dict(session.report), html
    finally:
        await page.close()
