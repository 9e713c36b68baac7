"""Escalation, readiness options and context policy without a browser."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from gatecrawl.browser.contexts import ContextPool
from gatecrawl.browser.options import CHROMIUM_ARGS, BrowserOptions, launch_args
from gatecrawl.core.recipes import RecipeError, load_recipe_text
from gatecrawl.middlewares.render import RenderMiddleware, render_decision, render_request


def recipe(text: str = ""):
    return load_recipe_text(text, source="recipes/t.toml", default_name="t")


@pytest.mark.parametrize(
    "text, key",
    [
        ("[render.browser]\nwait_ms = 3", "render.browser.wait_ms"),
        ("[render.browser]\nmin_main_text_chars = 'x'", "render.browser.min_main_text_chars"),
        ("[render.browser]\nconditions = ['selector', 'sleep']", "render.browser.conditions[1]"),
        ("[render.browser]\nconditions = ['heading']", "render.browser.conditions"),
        ("[render.browser]\nmain_selector = 'main['", "render.browser.main_selector"),
        ("[render.browser]\nallow_resources = ['script']", "render.browser.allow_resources[0]"),
    ],
)
def test_browser_table_is_strict(text, key):
    with pytest.raises(RecipeError) as err:
        recipe(text)
    assert err.value.key == key and "recipes/t.toml" in str(err.value)


def test_options_defaults_and_pinning():
    o = BrowserOptions.from_recipe(recipe())
    assert o.conditions == ("selector", "stability")  # A + D
    assert o.blocked_resources == {"image", "font", "media"}
    kw = o.context_kwargs()
    assert kw["viewport"] == {"width": 1280, "height": 800}
    assert (kw["locale"], kw["timezone_id"], kw["service_workers"]) == ("en-US", "UTC", "block")
    o2 = BrowserOptions.from_recipe(recipe('[content]\nmain_selectors = ["#story"]\n[render.browser]\nlocale = "de-DE"\ntimezone = "Europe/Berlin"\nallow_resources = ["image"]'))
    assert o2.main_selector == "#story"
    assert o2.context_kwargs()["locale"] == "de-DE" and o2.context_kwargs()["timezone_id"] == "Europe/Berlin"
    assert o2.blocked_resources == {"font", "media"}


def test_launch_args_closed_network():
    args = launch_args(["--foo", "--disable-gpu"])
    for flag in ("--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu", "--disable-quic"):
        assert flag in args
    assert args.count("--disable-gpu") == 1 and args[-1] == "--foo"
    assert len(args) >= len(CHROMIUM_ARGS)


@pytest.mark.parametrize(
    "text, url, presence, status, expected",
    [
        ("", "http://x/a", {"needs_render": True}, 200, "shell_page"),
        ("", "http://x/a", {"needs_render": False}, 200, None),
        ("", "http://x/a", None, 200, None),
        ("", "http://x/a", {"needs_render": True}, 404, None),
        ('[render]\npolicy = "skip"', "http://x/a", {"needs_render": True}, 200, None),
        ('[render]\npolicy = "force"', "http://x/a", {"needs_render": False}, 200, "force"),
        ('[[render.rules]]\npattern = "/app/"\npolicy = "force"', "http://x/app/1", None, 200, "force_rule"),
        ('[[render.rules]]\npattern = "/app/"\npolicy = "skip"', "http://x/app/1", {"needs_render": True}, 200, None),
    ],
)
def test_render_decision(text, url, presence, status, expected):
    assert render_decision(recipe(text), url, presence, status)[0] == expected


def test_render_request_shape():
    req = Request("http://x/old", meta={"depth": 2, "redirect_urls": ["http://x/start"], "retry_times": 1, "download_latency": 0.1, "gatecrawl_presence": {"needs_render": True, "fetch_presence_score": 0.25}})
    r = render_request(req, "http://x/final", "shell_page")
    assert r.url == "http://x/final" and r.dont_filter
    assert r.meta["playwright"] is True and r.meta["gatecrawl_render_attempts"] == 1
    assert r.meta["gatecrawl_escalated_from"] == "http" and r.meta["gatecrawl_escalation_reason"] == "shell_page"
    assert r.meta["gatecrawl_url_requested"] == "http://x/start"
    assert r.meta["gatecrawl_presence"]["fetch_presence_score"] == 0.25 and r.meta["depth"] == 2
    for k in ("retry_times", "redirect_urls", "download_latency"):
        assert k not in r.meta
    assert render_request(r, r.url, "shell_page").meta["gatecrawl_render_attempts"] == 2
    assert r.meta["dont_cache"] is True, "Scrapy's HTTP cache must never answer a render"


class _Spider:
    def __init__(self, rec):
        self.recipe = rec


def _mw(text: str = "", **settings):
    crawler = get_crawler(settings_dict={"GATECRAWL_RENDER_ENABLED": True, "GATECRAWL_RENDER_MAX_ATTEMPTS": 1, **settings})
    crawler.stats.open_spider()
    crawler.spider = _Spider(recipe(text))
    return RenderMiddleware(crawler), crawler


def _resp(req, status=200):
    return HtmlResponse(req.url, status=status, body=b"<html><body><div id=root></div></body></html>", request=req)


def test_middleware_escalates_once():
    mw, crawler = _mw()
    req = Request("http://x/a", meta={"gatecrawl_presence": {"needs_render": True}})
    out = mw.process_response(req, _resp(req))
    assert isinstance(out, Request) and out.meta["playwright"]
    assert crawler.stats.get_value("gatecrawl/render/requested") == 1
    assert crawler.stats.get_value("gatecrawl/render/requested/shell_page") == 1
    # a rendered response is never escalated again
    rendered = HtmlResponse(out.url, body=b"<html></html>", request=out, flags=["playwright"])
    assert mw.process_response(out, rendered) is rendered
    # a plain response of a request that already used its attempt: max reached
    again = req.replace(meta={**req.meta, "gatecrawl_render_attempts": 1})
    resp = _resp(again)
    assert mw.process_response(again, resp) is resp
    assert crawler.stats.get_value("gatecrawl/render/max_reached") == 1


def test_pipeline_escalation_at_most_once():
    """A capture of a render request is never escalated again, even when what answered it
    looked plain (a cache, a proxy): the escalation after conversion honours the same attempt
    bound. It builds the request (ConvertMiddleware yields it); nothing is scheduled here."""
    from gatecrawl.core.fetch import FetchInfo
    from gatecrawl.items import PageCapture
    from gatecrawl.middlewares.render import Escalation

    _, crawler = _mw()
    crawler.spider.parse = crawler.spider.errback = lambda *a: None
    escalation = Escalation(crawler.settings, crawler.stats)
    first = PageCapture(url_final="http://x/a", fetch=FetchInfo(url_requested="http://x/a", depth=2), body=b"<div id=root></div>")
    request = escalation.request_for(crawler.spider, first, {"needs_render": True})
    assert request is not None and request.meta["gatecrawl_render_attempts"] == 1 and request.meta["playwright"]
    assert request.meta["depth"] == 2 and request.dont_filter
    assert crawler.stats.get_value("gatecrawl/render/requested/pipeline_shell_page") == 1
    again = PageCapture(url_final="http://x/a", fetch=FetchInfo(url_requested="http://x/a"), body=b"<div id=root></div>", render_attempts=1)
    assert escalation.request_for(crawler.spider, again, {"needs_render": True}) is None
    assert crawler.stats.get_value("gatecrawl/render/requested") == 1
    assert crawler.stats.get_value("gatecrawl/render/max_reached") == 1


def test_middleware_leaves_static_and_skip_alone():
    mw, crawler = _mw()
    req = Request("http://x/a", meta={"gatecrawl_presence": {"needs_render": False}})
    resp = _resp(req)
    assert mw.process_response(req, resp) is resp
    mw, crawler = _mw('[render]\npolicy = "skip"')
    req = Request("http://x/a", meta={"gatecrawl_presence": {"needs_render": True}})
    resp = _resp(req)
    assert mw.process_response(req, resp) is resp
    assert crawler.stats.get_value("gatecrawl/render/skipped/policy_skip") == 1
    assert crawler.stats.get_value("gatecrawl/render/requested") is None


def test_context_pool_recycles():
    pool = ContextPool(max_pages=2)
    a, b = pool.assign("s"), pool.assign("s")
    assert a == b == "gatecrawl:s:0"
    c = pool.assign("s")
    assert c == "gatecrawl:s:1" and pool.assign("other") == "gatecrawl:other:0"
    assert pool.release(a) is False  # one page of generation 0 still open
    assert pool.release(b) is True  # retired and drained: close it
    assert pool.release(c) is False  # current generation stays open


def test_a_pdf_served_as_html_is_never_rendered_even_under_force():
    """Issue 15 item 9: under render=force a PDF served as text/html went to Chromium."""
    mw, crawler = _mw('[render]\npolicy = "force"')
    req = Request("http://x/report")
    pdf = HtmlResponse(req.url, body=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", request=req,
                       headers={"Content-Type": "text/html; charset=utf-8"})
    assert mw.process_response(req, pdf) is pdf
    assert crawler.stats.get_value("gatecrawl/render/skipped/pdf") == 1
    assert not crawler.stats.get_value("gatecrawl/render/requested")
    # an HTML page under force is still rendered
    html = _resp(req)
    assert isinstance(mw.process_response(req, html), Request)


def test_a_render_waits_for_a_browser_page_before_its_download_slot():
    """Issue 19: a render waited for one of the browser's pages inside the download handler,
    holding a place in the site's download slot (CONCURRENT_REQUESTS_PER_DOMAIN) meanwhile: with
    renders queued, plain fetches of the site waited behind them (bench.crawl, 1,000 pages: the
    crawl took 118 s instead of 95 s at 4 pages). Now it waits in BrowserPageMiddleware, before
    the slot, until a page is free (PLAYWRIGHT_MAX_PAGES_PER_CONTEXT), first come first served."""
    import asyncio

    from gatecrawl.middlewares.render import BrowserPageMiddleware

    crawler = get_crawler(settings_dict={"GATECRAWL_RENDER_ENABLED": True, "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": 2})
    crawler.stats.open_spider()
    crawler.spider = _Spider(recipe())
    mw = BrowserPageMiddleware(crawler)
    renders = [render_request(Request(f"http://x/{i}"), f"http://x/{i}", "shell_page") for i in range(4)]

    async def run() -> list[str]:
        events: list[str] = []

        async def through(req: Request) -> None:
            await mw.process_request(req)
            events.append("slot " + req.url[-1])

        tasks = [asyncio.ensure_future(through(r)) for r in renders]
        await asyncio.sleep(0.05)
        assert events == ["slot 0", "slot 1"], "two pages: the other renders wait before the slot"
        await mw.process_response(renders[1], HtmlResponse(renders[1].url, body=b"<html></html>", request=renders[1], flags=["playwright"]))
        await asyncio.sleep(0.05)
        assert events == ["slot 0", "slot 1", "slot 2"]
        await mw.process_exception(renders[0], TimeoutError("render took too long"))
        await asyncio.gather(*tasks)
        return events

    assert asyncio.run(run()) == ["slot 0", "slot 1", "slot 2", "slot 3"]
    assert crawler.stats.get_value("gatecrawl/render/waited_for_page") == 2
