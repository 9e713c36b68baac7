"""ConvertPipeline: the crawl's call into the one conversion path.

A rendered page that brought its plain capture along (``PageCapture.plain``) is converted
twice, plain and rendered; :func:`gatecrawl.core.capture.choose_capture` keeps one and the
packet says which and why (``capture_choice``). Before an HTML page is judged, the host's
"not found" probe (:mod:`gatecrawl.pipelines.probe`, recipe ``validation.not_found_probe``)
gives the fingerprint that drops a matching page as ``soft_404``.

HTML conversion runs in a bounded pool of worker processes (``GATECRAWL_CONVERT_POOL=process``,
the default: :mod:`gatecrawl.core.convertpool`, one worker per core unless
``GATECRAWL_CONVERT_WORKERS``) or threads (``thread``), never on the reactor thread, so a slow
page cannot stall fetching and exporting of the others (T33), and in processes conversion uses
every core. A page over ``GATECRAWL_MAX_DOM_NODES`` element nodes is dropped as ``too_complex``
before it is parsed.

Where conversion runs: the pages a spider callback captured are converted by the spider
middleware :class:`gatecrawl.middlewares.convert.ConvertMiddleware`, which calls
:meth:`ConvertPipeline.convert_capture` and, when the gate asks for the browser after all,
yields the render request in place of the capture. This pipeline converts the captures that do
not pass through spider middlewares (an errback's failed fetch, a URL refused before it was
requested) and passes converted ones on unchanged. Back-pressure: while 4 pages per worker wait
for conversion, :meth:`ConvertPipeline.room` holds a spider's new request in the downloader
middleware ``ConvertBackpressureMiddleware`` (so the engine takes no more from the scheduler);
no component pauses the engine.

Settings: ``GATECRAWL_PDF_WORKERS`` (size of the PDF worker-process pool),
``GATECRAWL_CONVERT_POOL``, ``GATECRAWL_CONVERT_WORKERS``, ``GATECRAWL_MAX_DOM_NODES``.
Stats: ``gatecrawl/items/processed``, ``gatecrawl/items/escalated`` (a shell re-requested
through the browser; its plain capture is not exported), ``gatecrawl/kept``, ``gatecrawl/dropped/<reason>``,
``gatecrawl/reader/<reader>``, ``gatecrawl/page_type/<type>``, ``gatecrawl/embedded/{tried,kept}``,
``gatecrawl/embedded/rejected/<why>`` (a shell's embedded data not used: why, or the drop reason), ``gatecrawl/capture/<reason>``
(the choice between an escalated page's plain and rendered captures), ``gatecrawl/stage_ms/convert``
(conversion time, summed over the pages), ``gatecrawl/convert/pool_restarted`` (a worker process died),
``gatecrawl/convert/backpressure`` (a spider request held until the pool had room).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core.capture import choose_capture, outcome_of
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from scrapy.utils.defer import maybe_deferred_to_future

from gatecrawl.core.convert import DEFAULT_MAX_DOM_NODES, convert, page_type
from gatecrawl.core.convertpool import ConvertProcessPool, default_workers, replay_logs
from gatecrawl.items import PageCapture
from gatecrawl.core.reasons import Reason
from gatecrawl.pipelines.probe import NotFoundProber

#: pages waiting for conversion per conversion worker before new requests wait (back-pressure)
CONVERT_WAITING_PER_WORKER = 4

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class ConvertPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.pdf_workers = crawler.settings.getint("GATECRAWL_PDF_WORKERS")
        self.convert_workers = crawler.settings.getint("GATECRAWL_CONVERT_WORKERS", 0) or default_workers()
        self.pool_kind = crawler.settings.get("GATECRAWL_CONVERT_POOL", "process")
        if self.pool_kind not in ("process", "thread"):
            raise ValueError(f"GATECRAWL_CONVERT_POOL: 'process' or 'thread', got {self.pool_kind!r}")
        self._procs: ConvertProcessPool | None = None
        self.max_dom_nodes = crawler.settings.getint("GATECRAWL_MAX_DOM_NODES", DEFAULT_MAX_DOM_NODES)
        self._pool: ThreadPool | None = None
        # Back-pressure: while this many pages wait for (or are in) conversion, the spider's new
        # requests wait in ConvertBackpressureMiddleware (holding their downloader slots, so the
        # engine takes no more from the scheduler) until fewer do. Without it, downloads of small
        # pages run ahead of conversion (Scrapy's scraper slot counts bytes, at least 1 KB a
        # response, 5 MB in all): the 5,000-page soak peaked at 650 MB instead of 140 MB, and a
        # distributed worker held so many tasks that its heartbeat came late.
        self.max_waiting = CONVERT_WAITING_PER_WORKER * self.convert_workers
        # A render request (playwright meta) waits only past this many more: the browser keeps
        # rendering while the pool is busy (a render mostly waits on readiness windows; held
        # here, it waited for the pool first, then for a page). At most one more page per
        # browser page (PLAYWRIGHT_MAX_PAGES_PER_CONTEXT), so memory stays bounded.
        self.render_headroom = max(1, crawler.settings.getint("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", 1))
        self._waiting = 0
        self._waiters: list[Any] = []
        self.prober = NotFoundProber.from_crawler(crawler)
        crawler.signals.connect(self.prober.on_response, signal=signals.response_received)

    def open_spider(self) -> None:
        from gatecrawl.core.pdf import set_pool_size

        set_pool_size(max(1, self.pdf_workers))
        self._start_pool()
        if self._procs is not None:
            # The workers start while robots.txt and the first pages are fetched, not when the
            # first pages are already waiting for them.
            self._procs.warm()

    def _start_pool(self) -> ThreadPool:
        if self.pool_kind == "process" and self._procs is None:
            self._procs = ConvertProcessPool(self.convert_workers)
        if self._pool is None:
            self._pool = ThreadPool(minthreads=0, maxthreads=self.convert_workers, name="gatecrawl-convert")
            self._pool.start()
        return self._pool

    def close_spider(self) -> None:
        from gatecrawl.core.pdf import shutdown_pool

        shutdown_pool()
        if self._procs is not None:
            self._procs.shutdown()
            self._procs = None
        if self._pool is not None:
            self._pool.stop()
            self._pool = None

    async def _off_reactor(self, fn: Any, *args: Any) -> Any:
        """Convert ``fn(*args)`` (the arguments of ``convert()``) in the conversion pool and wait
        for it without blocking the reactor."""
        from twisted.internet import reactor

        self._waiting += 1
        try:
            call = fn(*args)
            pool = self._start_pool()
            if self._procs is not None:
                return await self._in_process(call)
            return await maybe_deferred_to_future(deferToThreadPool(reactor, pool, lambda: convert(*call[0], **call[1])))
        finally:
            self._converted()

    def _converted(self) -> None:
        """One page left the pool: requests waiting for room look again (each goes on once
        fewer pages than its limit wait)."""
        self._waiting -= 1
        if self._waiters and self._waiting < self.max_waiting + self.render_headroom:
            waiters, self._waiters = self._waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

    async def room(self, render: bool = False) -> None:
        """Return once fewer than ``max_waiting`` pages wait for conversion (``render``: fewer
        than ``max_waiting + render_headroom``)."""
        limit = self.max_waiting + (self.render_headroom if render else 0)
        if self._waiting < limit:
            return
        import asyncio

        self.stats.inc_value("gatecrawl/convert/backpressure")
        while self._waiting >= limit:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            await fut

    async def _in_process(self, call: tuple[tuple, dict]) -> Any:
        """``convert()`` in a worker process; a page whose worker died is converted in a thread."""
        from concurrent.futures.process import BrokenProcessPool

        from twisted.internet import defer, reactor

        assert self._procs is not None
        args, kwargs = call
        d: defer.Deferred = defer.Deferred()

        def done(fut: Any) -> None:  # in the executor's thread
            if fut.cancelled():
                reactor.callFromThread(d.errback, defer.CancelledError())
                return
            exc = fut.exception()
            if exc is not None:
                reactor.callFromThread(d.errback, exc)
            else:
                reactor.callFromThread(d.callback, fut.result())

        self._procs.submit(*args, fetch=kwargs["fetch"]).add_done_callback(done)
        try:
            result, records = await maybe_deferred_to_future(d)
        except BrokenProcessPool:
            self._procs.discard_broken()
            self.stats.inc_value("gatecrawl/convert/pool_restarted")
            logger.warning("a conversion worker process died; converting %s in a thread", args[1])
            return await maybe_deferred_to_future(deferToThreadPool(reactor, self._start_pool(), lambda: convert(*args, **kwargs)))
        replay_logs(records)
        return result

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ConvertPipeline:
        return cls(crawler)

    def _convert(self, item: PageCapture, probe: dict | None = None) -> tuple[tuple, dict]:
        """The arguments of ``convert()`` for a captured page: its ``FetchInfo`` as the spider
        built it, plus what conversion decides (the probe for its reader, the element cap)."""
        fetch = replace(item.fetch, not_found_probe=NotFoundProber.for_reader(probe, item.fetch.reader), max_dom_nodes=self.max_dom_nodes)
        return (item.body, item.url_final, item.content_type, self.crawler.spider.recipe), {"fetch": fetch}

    def _convert_plain(self, item: PageCapture, plain: dict, probe: dict | None) -> tuple[tuple, dict]:
        """The plain side of an escalated page: its own body, status and headers, no failure; the
        render's report attached; its shell signal not held against it (the render answered it)."""
        fetch = replace(
            item.fetch, http_status=plain.get("status"), headers=plain.get("headers") or {}, reader="http",
            error=None, error_reason=None, egress=None, viewer_url=None, capture="plain",
            not_found_probe=NotFoundProber.for_reader(probe, "http"), max_dom_nodes=self.max_dom_nodes,
        )
        return (plain.get("body") or b"", plain.get("url") or item.url_final, plain.get("content_type"), self.crawler.spider.recipe), {"fetch": fetch}

    async def _probe(self, item: PageCapture) -> dict | None:
        """The host's "not found" probe result, for an HTML page with a success status."""
        if not self.crawler.spider.recipe.not_found_probe:
            return None
        if (urlsplit(item.url_final).path or "/") == "/":
            return None  # a site root is never judged by the probe (some hosts answer unknown paths with it)
        captures = [(item.body, item.content_type, item.fetch.http_status)] if item.fetch.error is None else []
        if item.plain is not None:
            captures.append((item.plain.get("body") or b"", item.plain.get("content_type"), item.plain.get("status")))
        if not any((status or 200) < 400 and page_type(body, ctype, item.url_final) == "html" for body, ctype, status in captures):
            return None
        return await self.prober.probe_for(item.url_final)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageCapture) or item.packet is not None:
            return item  # not a page, or converted already (by ConvertMiddleware)
        result = await self.convert_capture(item)
        assert result is item  # no escalation here: a pipeline cannot answer with a request
        return item

    async def convert_capture(self, item: PageCapture, escalate: Callable[[PageCapture, dict | None], Request | None] | None = None) -> PageCapture | Request:
        """Convert ``item`` in place and return it; or, when conversion found a plain page to be
        a shell and ``escalate`` returns the browser request for it, return that request (the
        plain capture is not exported)."""
        if item.not_modified and item.previous is not None:
            # The stored copy stands (a 304, or a sitemap lastmod skip): nothing to convert; the
            # outcome stays what was stored, and the export pipeline rewrites nothing.
            item.outcome = item.previous.get("outcome")
            item.drop_reason = item.previous.get("drop_reason")
            return item
        self.stats.inc_value("gatecrawl/items/processed")
        probe = await self._probe(item)
        if page_type(item.body, item.content_type, item.url_final) == "pdf":
            # PDFs are parsed in worker processes; wait for them off the reactor thread.
            args, kwargs = self._convert(item)
            result = await run_in_thread(convert, *args, **kwargs)
        else:
            result = await self._off_reactor(self._convert, item, probe)
        plain, item.plain = item.plain, None
        if item.fetch.reader == "render" and item.fetch.escalated_from == "http":
            # Two captures of one page: keep the better one that passes validation.
            plain_result = await self._off_reactor(self._convert_plain, item, plain, probe) if plain is not None else None
            choice = choose_capture(
                outcome_of(plain_result.packet, plain_result.ok, plain_result.drop_reason) if plain_result is not None else None,
                outcome_of(result.packet, result.ok, result.drop_reason),
            )
            if choice.kept == "plain":
                result = plain_result
            result.packet.capture_choice = choice.to_dict()
            self.stats.inc_value(f"gatecrawl/capture/{choice.reason}")
        if result.drop_reason == "soft_404" and "soft_404_fingerprint" in ((result.packet.validation_report or {}).get("detail") or {}):
            self.stats.inc_value("gatecrawl/not_found_probe/matched")
        embedded = result.packet.embedded
        if embedded:  # a shell read from the data in its first response (core.embedded)
            self.stats.inc_value("gatecrawl/embedded/tried")
            if result.packet.reader == "embedded_data":
                self.stats.inc_value("gatecrawl/embedded/kept")
            else:
                self.stats.inc_value(f"gatecrawl/embedded/rejected/{embedded.get('rejected') or embedded.get('drop_reason') or 'unknown'}")
        # A shell RenderMiddleware left to the embedded-data reader goes to the browser when it was
        # not kept, whatever its plain page was dropped for (as the middleware would have sent it).
        deferred = item.fetch.reader == "http" and bool((item.fetch.fetch_presence or {}).get("embedded_sources"))
        if escalate is not None and not result.ok and (result.drop_reason == Reason.SHELL_PAGE or deferred) and item.fetch.reader == "http":
            # A shell the downloader did not escalate: render it (same request shape and
            # counter as RenderMiddleware); this plain capture is not exported.
            request = escalate(item, item.fetch.fetch_presence or result.packet.fetch_gate)
            if request is not None:
                self.stats.inc_value("gatecrawl/items/escalated")
                return request
        packet = result.packet
        self.stats.inc_value("gatecrawl/stage_ms/convert", int(packet.conversion_ms or 0))
        item.markdown = result.markdown
        item.packet = packet
        item.outcome = result.outcome
        item.drop_reason = result.drop_reason
        item.body = b""  # the raw body is not needed past this point
        self.stats.inc_value(f"gatecrawl/reader/{packet.reader}")
        self.stats.inc_value(f"gatecrawl/page_type/{packet.page_type}")
        if not result.ok:
            # Not dropped here: the export pipeline quarantines it, then leaves it out of the
            # feeds unless GATECRAWL_FEED_DROPPED.
            self.stats.inc_value(f"gatecrawl/dropped/{result.drop_reason}")
            self.stats.inc_value("gatecrawl/dropped")
            return item
        self.stats.inc_value("gatecrawl/kept")
        return item
