"""In-process tests of the downloader middlewares, the spider and its captures (issue 17, items 1 and 6).

Each component is built the way Scrapy builds it (``from_crawler`` on a crawler from
``scrapy.utils.test.get_crawler`` with the project's settings) and driven with real Request and
Response objects, so a failure here names the component instead of a subprocess crawl's outcome.
"""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from gatecrawl.core.recipes import load_recipe_text
from gatecrawl.middlewares.credentials import CredentialScopeMiddleware
from gatecrawl.middlewares.offsite import OffsiteMiddleware
from gatecrawl.middlewares.presence import PresenceMiddleware
from gatecrawl.middlewares.sizecap import SizeCapMiddleware
from gatecrawl.spiders.recipe import RecipeSpider

SHELL = b"""<!doctype html><html><head><title>App</title>
<script src="/static/js/main.4f2a.js"></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>"""

ARTICLE = ("<!doctype html><html><head><title>Tides</title></head><body><main><article><h1>How tides work</h1>"
           + "".join(f"<p>Paragraph {i} explains how the moon {w} the oceans and why coasts see two high waters "
                     f"a day, with the sun adding spring and neap cycles to the pattern number {i}.</p>"
                     for i, w in enumerate(["pulls", "drags", "lifts", "moves", "tugs", "shifts"]))
           + "</article></main></body></html>").encode()


def _crawler(recipe_text: str = 'start_urls = ["https://example.test/"]\n', **settings):
    project = Settings()
    project.setmodule("gatecrawl.settings", priority="project")
    values = {name: project[name] for name in project if name.startswith("GATECRAWL_")}
    values.update(settings)
    recipe = load_recipe_text(recipe_text, source="<test>", default_name="t")
    cls = type("T", (RecipeSpider,), {"name": "t", "recipe": recipe, "allowed_domains": ["example.test"]})
    crawler = get_crawler(cls, settings_dict=values)
    crawler.stats.open_spider()
    crawler.spider = cls.from_crawler(crawler)
    return crawler


def _html(url: str, body: bytes, request: Request | None = None) -> HtmlResponse:
    request = request or Request(url)
    return HtmlResponse(url, body=body, headers={"Content-Type": "text/html; charset=utf-8"}, request=request)


# --- PresenceMiddleware --------------------------------------------------------------------------

def test_presence_flags_a_shell_and_records_the_verdict():
    crawler = _crawler()
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/app")
    response = _html(request.url, SHELL, request)
    assert mw.process_response(request, response) is response
    verdict = request.meta["gatecrawl_presence"]
    assert verdict["needs_render"] is True
    assert verdict["render_policy"] == "auto"
    stats = crawler.stats.get_stats()
    assert stats["gatecrawl/presence/checked"] == 1
    assert stats["gatecrawl/presence/needs_render"] == 1
    assert any(k.startswith("gatecrawl/presence/signal/") for k in stats)


def test_presence_passes_a_complete_article_and_scores_each_request_once():
    crawler = _crawler()
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/tides")
    mw.process_response(request, _html(request.url, ARTICLE, request))
    assert request.meta["gatecrawl_presence"]["needs_render"] is False
    first = dict(request.meta["gatecrawl_presence"])
    mw.process_response(request, _html(request.url, SHELL, request))  # already scored: untouched
    assert request.meta["gatecrawl_presence"] == first
    assert crawler.stats.get_value("gatecrawl/presence/checked") == 1
    assert crawler.stats.get_value("gatecrawl/presence/needs_render") is None


LONG_ARTICLE = ("<!doctype html><html><head><title>Tides</title><script src='/app.js'></script></head><body><main><article>"
                "<h1>How tides work</h1>"
                + "".join(f"<p>Paragraph {i} explains how the moon and the sun pull on the oceans, why most coasts see two "
                          f"high waters a day, and how spring and neap tides follow the phases of the moon ({i}).</p>"
                          for i in range(30))
                + "</article></main></body></html>").encode()


def test_presence_leaves_the_verdict_of_a_plainly_complete_page_to_conversion():
    crawler = _crawler()
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/tides-long")
    mw.process_response(request, _html(request.url, LONG_ARTICLE, request))
    assert "gatecrawl_presence" not in request.meta
    assert crawler.stats.get_value("gatecrawl/presence/deferred") == 1
    assert crawler.stats.get_value("gatecrawl/presence/checked") is None
    # 0 turns the screen off: the downloader measures every page
    crawler = _crawler(GATECRAWL_PRESENCE_DEFER_CHARS=0)
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/tides-long")
    mw.process_response(request, _html(request.url, LONG_ARTICLE, request))
    assert request.meta["gatecrawl_presence"]["needs_render"] is False
    assert crawler.stats.get_value("gatecrawl/presence/deferred") is None


def test_presence_leaves_non_html_alone():
    crawler = _crawler()
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/file.pdf")
    response = Response(request.url, body=b"%PDF-1.7\n...", headers={"Content-Type": "application/pdf"}, request=request)
    assert mw.process_response(request, response) is response
    assert "gatecrawl_presence" not in request.meta
    assert crawler.stats.get_value("gatecrawl/presence/checked") is None


def test_presence_skips_a_page_over_the_node_cap():
    crawler = _crawler(GATECRAWL_MAX_DOM_NODES=50)
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/huge")
    body = b"<html><body>" + b"<div><span>x</span></div>" * 200 + b"</body></html>"
    mw.process_response(request, _html(request.url, body, request))
    assert "gatecrawl_presence" not in request.meta
    assert crawler.stats.get_value("gatecrawl/presence/skipped/too_complex") == 1


def test_presence_force_policy_is_recorded():
    # Every page is measured under a forced render, one the screen would let by too: a forced
    # render must know of a bot challenge before the page goes to the browser.
    crawler = _crawler('start_urls = ["https://example.test/"]\n[render]\npolicy = "force"\n')
    mw = PresenceMiddleware.from_crawler(crawler)
    request = Request("https://example.test/tides-long")
    mw.process_response(request, _html(request.url, LONG_ARTICLE, request))
    assert request.meta["gatecrawl_presence"]["render_policy"] == "force"
    assert crawler.stats.get_value("gatecrawl/presence/policy/force") == 1
    assert crawler.stats.get_value("gatecrawl/presence/deferred") is None


# --- SizeCapMiddleware ---------------------------------------------------------------------------

def test_sizecap_refuses_html_over_its_cap_with_a_typed_reason():
    crawler = _crawler(GATECRAWL_MAXSIZE_HTML=1000)
    mw = SizeCapMiddleware.from_crawler(crawler)
    request = Request("https://example.test/big")
    with pytest.raises(IgnoreRequest) as info:
        mw.process_response(request, _html(request.url, b"<html><body>" + b"a" * 2000 + b"</body></html>", request))
    assert info.value.reason == "size_exceeded"
    assert crawler.stats.get_value("gatecrawl/size/exceeded/html") == 1


def test_sizecap_routes_by_content_not_by_name():
    # A PDF body under the PDF cap passes although the HTML cap is tiny; an HTML body named
    # x.pdf is capped as HTML.
    crawler = _crawler(GATECRAWL_MAXSIZE_HTML=100, GATECRAWL_MAXSIZE_PDF=10_000)
    mw = SizeCapMiddleware.from_crawler(crawler)
    pdf = Request("https://example.test/report")
    body = b"%PDF-1.7\n" + b"0" * 500
    response = Response(pdf.url, body=body, headers={"Content-Type": "application/pdf"}, request=pdf)
    assert mw.process_response(pdf, response) is response
    fake = Request("https://example.test/x.pdf")
    with pytest.raises(IgnoreRequest):
        mw.process_response(fake, Response(fake.url, body=b"<html><body>" + b"b" * 500 + b"</body></html>",
                                           headers={"Content-Type": "application/octet-stream"}, request=fake))
    assert crawler.stats.get_value("gatecrawl/size/exceeded/html") == 1
    assert crawler.stats.get_value("gatecrawl/size/exceeded/pdf") is None


# --- CredentialScopeMiddleware -------------------------------------------------------------------

def test_credentials_are_stripped_when_a_redirect_changes_origin():
    crawler = _crawler()
    mw = CredentialScopeMiddleware.from_crawler(crawler)
    hop = Request("https://other.test/landing", headers={"Authorization": "Bearer s3cret", "X-Api-Key": "k", "Accept": "text/html"},
                  meta={"redirect_urls": ["https://example.test/start"]})
    assert mw.process_request(hop) is None
    assert b"Authorization" not in hop.headers and b"X-Api-Key" not in hop.headers
    assert hop.headers[b"Accept"] == b"text/html"
    assert crawler.stats.get_value("gatecrawl/credentials/stripped") == 2


def test_credentials_stay_on_the_same_origin_and_leave_the_probe():
    crawler = _crawler()
    mw = CredentialScopeMiddleware.from_crawler(crawler)
    same = Request("https://example.test/b", headers={"Authorization": "Bearer s3cret"}, meta={"redirect_urls": ["https://example.test/a"]})
    mw.process_request(same)
    assert same.headers[b"Authorization"] == b"Bearer s3cret"
    other_port = Request("https://example.test:8443/b", headers={"Authorization": "Bearer s3cret"},
                         meta={"redirect_urls": ["https://example.test/a"]})
    mw.process_request(other_port)
    assert b"Authorization" not in other_port.headers
    probe = Request("https://example.test/gatecrawl-probe", headers={"Cookie": "sid=1"}, meta={"gatecrawl_not_found_probe": True})
    mw.process_request(probe)
    assert b"Cookie" not in probe.headers


# --- OffsiteMiddleware ---------------------------------------------------------------------------

def test_offsite_refusal_is_typed_and_subdomains_pass():
    crawler = _crawler()
    mw = OffsiteMiddleware.from_crawler(crawler)
    mw.spider_opened(crawler.spider)
    assert mw.process_request(Request("https://docs.example.test/a")) is None
    with pytest.raises(IgnoreRequest) as info:
        mw.process_request(Request("https://elsewhere.test/a", meta={"redirect_urls": ["https://example.test/r"]}))
    assert info.value.reason == "offsite"
    assert "hop 1" in str(info.value)


# --- RecipeSpider --------------------------------------------------------------------------------

LINKS = (b"<html><body><main><h1>Index</h1><p>Start here.</p>"
         b'<a href="/a">a</a> <a href="/b">b</a> <a href="/a#again">a again</a> <a href="https://elsewhere.test/x">off</a>'
         b'<a href="/private/c">denied</a></main></body></html>')


def test_spider_parse_yields_the_capture_first_then_the_allowed_links():
    crawler = _crawler('start_urls = ["https://example.test/"]\n[follow]\ndeny = ["/private/"]\n')
    spider = crawler.spider
    request = Request("https://example.test/", meta={"depth": 0})
    out = list(spider.parse(_html(request.url, LINKS, request)))
    capture, followed = out[0], out[1:]
    assert type(capture).__name__ == "PageCapture"
    assert capture.url_final == "https://example.test/" and capture.fetch.http_status == 200 and capture.fetch.reader == "http"
    assert capture.fetch.url_requested == "https://example.test/" and capture.fetch.depth == 0 and capture.fetch.run_id == spider.run_id
    assert capture.links == ["https://example.test/a", "https://example.test/b", "https://example.test/a#again"]
    assert [r.url for r in followed] == ["https://example.test/a", "https://example.test/b"]  # /a#again: the same page
    assert all(r.meta["depth"] == 1 and r.callback == spider.parse and r.errback == spider.errback for r in followed)
    assert crawler.stats.get_value("gatecrawl/pages/seen") == 1


def test_spider_stops_following_at_max_pages():
    crawler = _crawler('start_urls = ["https://example.test/"]\n[follow]\nmax_pages = 2\n')
    spider = crawler.spider
    assert spider._admit("https://example.test/")  # the start URL counts
    request = Request("https://example.test/", meta={"depth": 0})
    followed = [r for r in spider.parse(_html(request.url, LINKS, request)) if isinstance(r, Request)]
    assert [r.url for r in followed] == ["https://example.test/a"]
    assert crawler.stats.get_value("gatecrawl/follow/max_pages_reached") >= 1


def test_spider_errback_turns_a_typed_refusal_into_a_capture():
    from twisted.python.failure import Failure

    crawler = _crawler()
    spider = crawler.spider
    request = Request("https://elsewhere.test/x", meta={"redirect_urls": ["https://example.test/r"], "depth": 2})
    mw = OffsiteMiddleware.from_crawler(crawler)
    mw.spider_opened(spider)
    try:
        mw.process_request(request)
    except IgnoreRequest as exc:
        failure = Failure(exc)
    else:
        pytest.fail("the off-site hop was not refused")
    failure.request = request
    (capture,) = list(spider.errback(failure))
    assert capture.fetch.error_reason == "offsite"
    assert capture.fetch.url_requested == "https://example.test/r" and capture.url_final == "https://elsewhere.test/x"
    assert capture.fetch.http_status is None and capture.fetch.depth == 2 and capture.fetch.run_id == spider.run_id
    assert crawler.stats.get_value("gatecrawl/fetch/failed/offsite") == 1


def test_spider_records_that_max_pages_cut_the_run():
    crawler = _crawler('start_urls = ["https://example.test/"]\n[follow]\nmax_pages = 1\n')
    spider = crawler.spider
    assert spider._admit("https://example.test/") and not spider.max_pages_reached
    assert not spider._admit("https://example.test/a")
    assert spider.max_pages_reached  # what ExportPipeline reads to skip pruning (not the stats)


def test_spider_capture_carries_the_fetch_info_that_convert_reads():
    """One page record: the spider builds the capture's FetchInfo and ConvertPipeline hands it to
    convert() as it is, adding only the probe and the element cap; it pickles into a worker."""
    import dataclasses
    import pickle

    from gatecrawl.core.fetch import FetchInfo
    from gatecrawl.meta import ESCALATED_FROM, ESCALATION_REASON, PRESENCE, RENDER, URL_REQUESTED
    from gatecrawl.pipelines.convert import ConvertPipeline

    crawler = _crawler()
    spider = crawler.spider
    meta = {"depth": 1, PRESENCE: {"needs_render": True, "fetch_presence_score": 1}, ESCALATED_FROM: "http",
            ESCALATION_REASON: "shell_page", RENDER: {"render_readiness_passed": True}, URL_REQUESTED: "https://example.test/r"}
    request = Request("https://example.test/a", meta=meta)
    capture = next(iter(spider.parse(_html(request.url, ARTICLE, request))))
    fetch = capture.fetch
    assert isinstance(fetch, FetchInfo)
    assert (fetch.url_requested, fetch.http_status, fetch.reader, fetch.depth, fetch.run_id) == ("https://example.test/r", 200, "http", 1, spider.run_id)
    assert fetch.fetch_presence == meta[PRESENCE] and fetch.render == meta[RENDER]
    assert (fetch.escalated_from, fetch.escalation_reason) == ("http", "shell_page")
    assert fetch.headers["content-type"] == "text/html; charset=utf-8" and capture.content_type == fetch.headers["content-type"]
    assert pickle.loads(pickle.dumps(fetch)) == fetch

    pipeline = ConvertPipeline(crawler)
    (body, url, ctype, recipe), kwargs = pipeline._convert(capture, {"fingerprint": "x"})
    assert (body, url, ctype, recipe) == (capture.body, capture.url_final, capture.content_type, spider.recipe)
    sent = kwargs["fetch"]
    assert sent.max_dom_nodes == pipeline.max_dom_nodes
    assert dataclasses.replace(sent, not_found_probe=None, max_dom_nodes=None) == fetch


def test_the_plain_side_of_a_failed_render_is_converted_as_a_plain_fetch():
    """A render that failed (errback) brought its plain capture: the plain side's FetchInfo is the
    render capture's with the plain response's status and headers, reader http, no failure and
    capture "plain"; the rest (requested URL, depth, run id, presence, render report) is kept."""
    from twisted.python.failure import Failure

    from gatecrawl.meta import ESCALATED_FROM, PLAIN_CAPTURE, PRESENCE, RENDER, VIEWER_URL
    from gatecrawl.pipelines.convert import ConvertPipeline

    crawler = _crawler()
    spider = crawler.spider
    plain = {"url": "https://example.test/a", "status": 203, "headers": {"content-type": "text/html"}, "content_type": "text/html", "body": ARTICLE}
    meta = {"depth": 3, "playwright": True, PLAIN_CAPTURE: plain, PRESENCE: {"needs_render": True}, ESCALATED_FROM: "http",
            RENDER: {"render_readiness_passed": False}, VIEWER_URL: "https://example.test/viewer"}
    request = Request("https://example.test/a", meta=meta)
    failure = Failure(TimeoutError("browser gave up"))
    failure.request = request
    (capture,) = list(spider.errback(failure))
    assert capture.fetch.reader == "render" and capture.fetch.error and capture.plain == plain
    (body, url, ctype, _), kwargs = ConvertPipeline(crawler)._convert_plain(capture, capture.plain, None)
    sent = kwargs["fetch"]
    assert (body, url, ctype) == (ARTICLE, plain["url"], "text/html")
    assert (sent.reader, sent.capture, sent.http_status, dict(sent.headers)) == ("http", "plain", 203, plain["headers"])
    assert (sent.error, sent.error_reason, sent.egress, sent.viewer_url) == (None, None, None, None)
    assert (sent.url_requested, sent.depth, sent.run_id) == ("https://example.test/a", 3, spider.run_id)
    assert sent.fetch_presence == meta[PRESENCE] and sent.render == meta[RENDER] and sent.escalated_from == "http"


def test_a_url_over_the_length_limit_becomes_a_capture_with_a_typed_fetch():
    crawler = _crawler(URLLENGTH_LIMIT=40)
    spider = crawler.spider
    url = "https://example.test/" + "x" * 40
    capture = spider._request(url, depth=2)
    assert type(capture).__name__ == "PageCapture" and capture.url_final == url and capture.body == b""
    assert (capture.fetch.error_reason, capture.fetch.url_requested, capture.fetch.depth, capture.fetch.run_id) == ("url_too_long", url, 2, spider.run_id)
    assert capture.fetch.http_status is None


def test_spider_capture_of_a_render_that_ended_on_a_browser_error_page_keeps_the_request_url():
    """A render whose navigation the browser could not finish (e.g. a script redirect that egress
    refused) ends on Chromium's error page: the capture's URL stays the one requested, or every
    such page would share chrome-error://chromewebdata/ as its URL and store key."""
    from gatecrawl.meta import URL_REQUESTED

    spider = _crawler().spider
    request = Request("https://example.test/p/447", meta={"depth": 1, URL_REQUESTED: "https://example.test/p/447"})
    response = HtmlResponse("chrome-error://chromewebdata/", body=ARTICLE, request=request, flags=["playwright"],
                            headers={"Content-Type": "text/html; charset=utf-8"})
    capture = next(iter(spider.parse(response)))
    assert capture.url_final == "https://example.test/p/447"
    assert capture.fetch.url_requested == "https://example.test/p/447"
