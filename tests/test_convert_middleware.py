"""ConvertMiddleware in-process (issue 17: one way into the browser): the page a callback captured
is converted where a component may answer with a request; a shell found by conversion leaves as
its browser request, returned to Scrapy, and no engine is called."""

from __future__ import annotations

import asyncio

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from gatecrawl.core.recipes import load_recipe_text
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.items import PageCapture
from gatecrawl.middlewares.convert import ConvertMiddleware


class _Spider:
    name = "s"

    def __init__(self):
        self.recipe = load_recipe_text("", source="recipes/t.toml", default_name="t")

    def parse(self, response):
        return None

    def errback(self, failure):
        return None


class _Converter:
    """Stands in for ConvertPipeline.convert_capture: records the order of events and answers
    as the gate would (``shell`` in the URL: a shell after conversion)."""

    def __init__(self, events):
        self.events = events

    async def convert_capture(self, item, escalate=None):
        self.events.append(("convert", item.url_final))
        await asyncio.sleep(0)
        if "shell" in item.url_final and escalate is not None:
            request = escalate(item, {"needs_render": True})
            if request is not None:
                return request
        item.packet = {"converted": True}
        return item


def _middleware(converter):
    crawler = get_crawler(settings_dict={"GATECRAWL_RENDER_ENABLED": True, "GATECRAWL_RENDER_MAX_ATTEMPTS": 1})
    crawler.stats.open_spider()
    crawler.spider = _Spider()
    mw = ConvertMiddleware.from_crawler(crawler)
    mw._converter = converter
    return mw, crawler


def _run(mw, outputs, events):
    async def callback_output():
        for out in outputs:
            yield out

    async def consume():
        got = []
        response = HtmlResponse("http://x/p", body=b"<html></html>", request=Request("http://x/p"))
        async for out in mw.process_spider_output(response, callback_output()):
            events.append(("out", out.url if isinstance(out, Request) else out.url_final))
            got.append(out)
        return got

    return asyncio.run(consume())


def _capture(url, depth=0, **kw):
    fetch = FetchInfo(url_requested=url, http_status=200, reader="http", depth=depth)
    return PageCapture(url_final=url, fetch=fetch, content_type="text/html", body=b"<div id=root></div>", **kw)


def test_links_leave_before_the_page_is_converted_and_the_page_follows_converted():
    events = []
    mw, _ = _middleware(_Converter(events))
    got = _run(mw, [_capture("http://x/p"), Request("http://x/a"), Request("http://x/b")], events)
    assert events == [("out", "http://x/a"), ("out", "http://x/b"), ("convert", "http://x/p"), ("out", "http://x/p")]
    assert isinstance(got[-1], PageCapture) and got[-1].packet == {"converted": True}


def test_a_shell_found_by_conversion_leaves_as_its_browser_request():
    events = []
    mw, crawler = _middleware(_Converter(events))
    got = _run(mw, [_capture("http://x/shell", depth=1), Request("http://x/a")], events)
    assert [type(o) for o in got] == [Request, Request]
    render = got[1]
    assert render.url == "http://x/shell" and render.meta["playwright"] and render.dont_filter
    assert render.meta["gatecrawl_render_attempts"] == 1 and render.meta["depth"] == 1
    assert render.meta["gatecrawl_escalation_reason"] == "pipeline_shell_page"
    assert crawler.stats.get_value("gatecrawl/render/requested") == 1


def test_a_capture_that_used_its_attempt_stays_a_capture():
    events = []
    mw, crawler = _middleware(_Converter(events))
    got = _run(mw, [_capture("http://x/shell", render_attempts=1)], events)
    assert len(got) == 1 and isinstance(got[0], PageCapture) and got[0].packet == {"converted": True}
    assert crawler.stats.get_value("gatecrawl/render/max_reached") == 1


def test_without_the_convert_pipeline_everything_passes_through():
    events = []
    mw, _ = _middleware(None)
    capture = _capture("http://x/shell")
    got = _run(mw, [capture, Request("http://x/a")], events)
    assert got[1] is capture and capture.packet is None


def test_a_spider_request_waits_while_the_conversion_pool_is_full():
    """Back-pressure without the engine: while 4 pages per worker wait for conversion, a spider's
    request waits in ConvertBackpressureMiddleware; robots.txt and probe requests never wait."""
    from scrapy.http.request import NO_CALLBACK

    from gatecrawl.middlewares.convert import ConvertBackpressureMiddleware
    from gatecrawl.pipelines.convert import ConvertPipeline

    crawler = get_crawler(settings_dict={"GATECRAWL_CONVERT_WORKERS": 1, "GATECRAWL_CONVERT_POOL": "thread"})
    crawler.stats.open_spider()
    pipe = ConvertPipeline(crawler)
    mw = ConvertBackpressureMiddleware.from_crawler(crawler)
    mw._converter = pipe
    assert pipe.max_waiting == 4
    spider = _Spider()

    async def scenario():
        pipe._waiting = 4  # four pages in conversion
        page = asyncio.ensure_future(mw.process_request(Request("http://x/a", callback=spider.parse)))
        robots = asyncio.ensure_future(mw.process_request(Request("http://x/robots.txt", callback=NO_CALLBACK)))
        probe = asyncio.ensure_future(mw.process_request(Request("http://x/probe")))
        await asyncio.sleep(0.01)
        assert robots.done() and probe.done() and not page.done()

        pipe._converted()  # one page converted: three wait
        await asyncio.sleep(0.01)
        return page.done()

    assert asyncio.run(scenario()) is True
    assert crawler.stats.get_value("gatecrawl/convert/backpressure") == 1


def test_a_render_request_passes_a_full_pool_within_the_browser_headroom():
    """Issue 19: a render request waited for conversion room like any page, then for a browser
    page, so the browser idled while the pool was busy (bench.crawl: 0.5 s per render on average,
    up to 2.8 s). It now waits only past PLAYWRIGHT_MAX_PAGES_PER_CONTEXT pages more."""
    from gatecrawl.middlewares.convert import ConvertBackpressureMiddleware
    from gatecrawl.middlewares.render import render_request
    from gatecrawl.pipelines.convert import ConvertPipeline

    crawler = get_crawler(settings_dict={"GATECRAWL_CONVERT_WORKERS": 1, "GATECRAWL_CONVERT_POOL": "thread", "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": 2})
    crawler.stats.open_spider()
    pipe = ConvertPipeline(crawler)
    mw = ConvertBackpressureMiddleware.from_crawler(crawler)
    mw._converter = pipe
    spider = _Spider()
    render = render_request(Request("http://x/r", callback=spider.parse), "http://x/r", "shell_page")

    async def scenario():
        pipe._waiting = 5  # the pool is full (4 per worker), within the render headroom
        page = asyncio.ensure_future(mw.process_request(Request("http://x/a", callback=spider.parse)))
        first = asyncio.ensure_future(mw.process_request(render))
        await asyncio.sleep(0.01)
        assert first.done() and not page.done()
        pipe._waiting = 6  # at the headroom's end (4 + 2): the render waits too
        second = asyncio.ensure_future(mw.process_request(render.replace(url="http://x/r2")))
        await asyncio.sleep(0.01)
        assert not second.done()
        pipe._converted()  # 5 left: the render goes on, the page still waits
        await asyncio.sleep(0.01)
        assert second.done() and not page.done()
        pipe._waiting = 4
        pipe._converted()  # 3 left: the page goes on
        await asyncio.sleep(0.01)
        return page.done()

    assert asyncio.run(scenario()) is True
