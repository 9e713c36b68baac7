"""Plain-or-rendered fallback and the "not found" probe, crawled end to end with Debian's Chromium
on a loopback site that mixes real pages and junk (issue 14, item 3 and the soft-404 fingerprint):

- three real static articles (from ../shared/bench/article-extraction) and one article wrapped in
  the site's own chrome: kept from the plain fetch, never escalated to the browser;
- two articles in the HTML whose render then fails (a script loop; a script that tears the
  content down so readiness finds no container), rendered by a force rule: kept from the plain
  capture, with the render's report and ``capture_choice``;
- a true SPA shell whose render works: kept from the render;
- the site's "not found" template served with 200 at a made-up URL, wording nothing like "not
  found": dropped as ``soft_404`` through the host's probe fingerprint; the probe leaves no packet;
- with a browser that cannot start, the article behind the failed render is still kept.
"""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crawlutil import run_crawl
from gatecrawl.browser.options import find_system_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(find_system_chromium() is None, reason="no Chromium installed"),
]

CORPUS = Path("/work/shared/bench/article-extraction/html")
STATIC = {  # real news pages without shell signals (the presence gate passes them as they are)
    "/articles/a": "05844573ca7e1fba714d715bb11ca08c26e25328999c74a1cb3bc8a0e4399f0f",
    "/articles/b": "06e5123e4ef7cfb4",
    "/articles/c": "06ee193de4bd611f",
}

CHROME = (
    "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
    "<header><nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a> <a href='/about'>About us</a>"
    " <a href='/contact'>Contact</a></nav><p>The Riverside Courier: local news since 1901</p></header>"
    "<main>{main}</main>"
    "<footer><p>Copyright 2024 The Riverside Courier. All rights reserved. Registered office: 1 Mill Lane, Riverside.</p>"
    "<ul><li><a href='/privacy'>Privacy</a></li><li><a href='/terms'>Terms</a></li></ul></footer>{script}</body></html>"
)
NOT_FOUND = (
    "<div><h1>We looked everywhere</h1><p>The page at {path} seems to have wandered off. It may have moved when we redesigned "
    "the site last spring, or the address may be mistyped. Our newsroom keeps every story we have published since 1998, so "
    "try the search box above, or start again from one of these sections:</p><ul><li>Local politics and the council</li>"
    "<li>Schools, colleges and the library</li><li>Sport, from the rowing club to the cricket league</li></ul></div>"
)
LOCAL = (
    "<article><h1>Council approves new footbridge over the river</h1><p>The council voted on Tuesday to build a footbridge "
    "linking the market square with the east bank, ending a decade of debate about the crossing.</p><p>Work is expected to "
    "start in the spring and to take eighteen months. The bridge will be wide enough for bicycles and prams, and it will be "
    "lit at night.</p><p>Residents who opposed the plan said the money would be better spent on the library, which has cut "
    "its opening hours twice since 2019.</p></article>"
)
LOOP = "<script>while (true) {}</script>"
VANISH = ("<script>setTimeout(function () { document.body.innerHTML = '<div class=\"skeleton\">Loading...</div>'; }, 50);</script>")
SHELL = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Harbour festival</title></head><body><div id='app'></div>"
    "<script>setTimeout(function () { document.getElementById('app').innerHTML = '<article><h1>Harbour festival returns</h1>"
    + "".join(
        f"<p>Day {i}: boats from {i + 3} towns moor along the quay, the brass band plays at {i + 10} o\\'clock and the "
        f"lifeboat crew shows visitors how rescue number {i * 7} was carried out last winter.</p>"
        for i in range(1, 6)
    )
    + "</article>'; }, 150);</script></body></html>"
)


def _corpus(stem: str) -> bytes:
    f = next(CORPUS.glob(stem + "*.html.gz"))
    return gzip.open(f).read()


def _site() -> dict[str, bytes]:
    pages = {path: _corpus(stem) for path, stem in STATIC.items()}
    pages["/local/footbridge"] = CHROME.format(title="Footbridge approved", main=LOCAL, script="").encode()
    pages["/spa-article/loop"] = CHROME.format(title="Footbridge approved", main=LOCAL, script=LOOP).encode()
    article = _corpus(STATIC["/articles/b"])
    pages["/spa-article/vanish"] = article.replace(b"</body>", VANISH.encode() + b"</body>", 1)
    pages["/app/shell"] = SHELL.encode()
    return pages


class _Site:
    def __init__(self) -> None:
        pages = _site()
        self.hits: list[str] = []
        self.unknown_status = 200  # the status unknown paths are answered with
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                path = urlsplit(self.path).path
                site.hits.append(path)
                if path == "/robots.txt":
                    status, body = 404, b"no robots"
                elif path in pages:
                    status, body = 200, pages[path]
                else:  # the soft 404: the site's template, with a success status
                    status, body = site.unknown_status, CHROME.format(title="Riverside Courier", main=NOT_FOUND.format(path=path), script="").encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


RECIPE = """start_urls = ["http://127.0.0.1/"]
[follow]
max_depth = 0
[render]
policy = "auto"
[[render.rules]]
pattern = "/spa-article/"
policy = "force"
[render.browser]
max_render_time_ms = 4000
"""

PATHS = list(STATIC) + ["/local/footbridge", "/spa-article/loop", "/spa-article/vanish", "/app/shell", "/news/2019/made-up-story"]


@pytest.fixture(scope="module")
def site():
    s = _Site()
    yield s
    s.stop()


def _crawl(tmp: Path, site: _Site, paths: list[str], settings: dict | None = None, args: tuple = (), timeout: int = 240, store: str = "store"):
    recipes = tmp / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "fallback.toml").write_text(RECIPE)
    run = run_crawl(
        "fallback", tmp / store,
        "-a", "start_url=" + " ".join(site.base + p for p in paths), *args,
        settings={"GATECRAWL_RECIPES_DIRS": str(recipes), "GATECRAWL_SUMMARY_PRINT": "False", "RETRY_TIMES": 0, **(settings or {})},
        env={"GATECRAWL_EGRESS_ALLOW": "127.0.0.1", "PYTHONHASHSEED": "0"},
        timeout=timeout,
    )
    packets = {urlsplit(p["url_final"]).path: p for p in run.packets("fallback")}
    stats = run.summary("fallback").get("stats", {})
    return packets, stats, run


@pytest.fixture(scope="module")
def crawl(site, tmp_path_factory):
    return _crawl(tmp_path_factory.mktemp("fallback"), site, PATHS)


def test_static_pages_kept_from_the_plain_fetch_and_never_escalated(crawl):
    packets, stats, run = crawl
    for path in list(STATIC) + ["/local/footbridge"]:
        p = packets[path]
        assert (p["outcome"], p["reader"], p["escalated_from"], p["capture_choice"]) == ("kept", "http", None, None), (path, p["drop_reason"], p["drop_detail"])
    # the only renders: the two forced articles and the shell
    assert stats["gatecrawl/render/requested"] == 3
    assert stats["gatecrawl/render/requested/force_rule"] == 2 and stats["gatecrawl/render/requested/shell_page"] == 1


# The vanishing article's container empties and the page goes quiet: readiness ends either at the
# budget (timeout:) or, when the quiet time passes first, as settled: (give_up_after_quiet_ms).
@pytest.mark.parametrize("path,why", [("/spa-article/loop", ("timeout:page_unresponsive",)), ("/spa-article/vanish", ("timeout:", "settled:"))])
def test_failed_render_keeps_the_plain_capture(crawl, path, why):
    packets, stats, _ = crawl
    p = packets[path]
    assert (p["outcome"], p["reader"], p["escalated_from"], p["escalation_reason"]) == ("kept", "http", "http", "force_rule"), (p["drop_reason"], p["capture_choice"])
    assert p["render_readiness_passed"] is False and p["render_readiness_reason"].startswith(why), p["render_readiness_reason"]
    c = p["capture_choice"]
    assert (c["kept"], c["reason"]) == ("plain", "plain_passed")
    assert c["render"]["outcome"] == "dropped" and c["render"]["drop_reason"] == "readiness_timeout"
    assert c["plain"]["outcome"] == "kept" and c["plain"]["chars_out"] == p["chars_out"] > 200
    assert stats["gatecrawl/capture/plain_passed"] == 2


def test_true_shell_kept_from_the_render(crawl):
    packets, stats, _ = crawl
    p = packets["/app/shell"]
    assert (p["outcome"], p["reader"], p["escalation_reason"]) == ("kept", "render", "shell_page"), (p["drop_reason"], p["capture_choice"])
    c = p["capture_choice"]
    assert (c["kept"], c["reason"]) == ("render", "render_passed") and c["plain"]["outcome"] == "dropped"
    assert stats["gatecrawl/capture/render_passed"] == 1


def test_soft_404_template_dropped_through_the_probe_fingerprint(crawl, site):
    packets, stats, _ = crawl
    p = packets["/news/2019/made-up-story"]
    assert (p["outcome"], p["drop_reason"], p["http_status"]) == ("dropped", "soft_404", 200)
    nf = p["validation_report"]["detail"]["soft_404_fingerprint"]
    assert nf["similarity"]["text"] >= nf["threshold"]["text"] and nf["similarity"]["skeleton"] >= nf["threshold"]["skeleton"]
    assert "soft_404_marker" not in p["validation_report"]["detail"]  # the wording alone would not have caught it
    assert "text similarity" in p["drop_detail"]
    assert stats["gatecrawl/not_found_probe/requested"] == 1
    assert stats["gatecrawl/not_found_probe/fingerprinted"] == 1
    assert stats["gatecrawl/not_found_probe/matched"] == 1
    probes = [h for h in site.hits if h.startswith("/gatecrawl-probe-")]
    assert len(probes) == 1  # one probe per host
    assert not any("gatecrawl-probe-" in path for path in packets)  # and no packet for it
    assert stats.get("gatecrawl/dropped/soft_404") == 1


def test_every_packet_validates(crawl, packet_validator):
    packets, _, _ = crawl
    assert set(PATHS) <= set(packets)
    for path, p in packets.items():
        assert not list(packet_validator.iter_errors(p)), path


def test_browser_that_cannot_start_loses_no_plain_page(site, tmp_path):
    launch = json.dumps({"headless": True, "executable_path": str(tmp_path / "no-such-chromium")})
    packets, stats, run = _crawl(tmp_path, site, ["/spa-article/loop", "/app/shell", "/articles/a"], settings={"PLAYWRIGHT_LAUNCH_OPTIONS": launch})
    p = packets["/spa-article/loop"]
    assert (p["outcome"], p["reader"]) == ("kept", "http"), (p["drop_reason"], p["capture_choice"])
    c = p["capture_choice"]
    assert (c["kept"], c["reason"], c["render"]["drop_reason"]) == ("plain", "plain_passed", "render_failed")
    s = packets["/app/shell"]  # a true shell has nothing to fall back on
    assert (s["outcome"], s["drop_reason"], s["capture_choice"]["reason"]) == ("dropped", "render_failed", "neither_passed")
    assert packets["/articles/a"]["outcome"] == "kept"
    assert "gatecrawl/exit/browser_unavailable" in stats


def test_honest_404_needs_no_fingerprint_and_the_root_is_never_judged(site, tmp_path):
    site.unknown_status = 404
    try:
        packets, stats, _ = _crawl(tmp_path / "honest", site, ["/news/2019/made-up-story", "/local/footbridge"], args=("-a", "render=skip"))
    finally:
        site.unknown_status = 200
    assert packets["/news/2019/made-up-story"]["drop_reason"] == "http_error"
    assert packets["/local/footbridge"]["outcome"] == "kept"
    assert stats["gatecrawl/not_found_probe/real_404"] == 1 and "gatecrawl/not_found_probe/fingerprinted" not in stats
    # A host that answers unknown paths with 200: its root is not judged by the probe (only pages are).
    packets, stats, _ = _crawl(tmp_path / "root", site, ["/", "/news/2019/made-up-story"], args=("-a", "render=skip"))
    assert packets["/"]["drop_reason"] != "soft_404"
    assert packets["/news/2019/made-up-story"]["drop_reason"] == "soft_404"


SPA_STORY = "".join(
    f"<p>Chapter {i}: the ferry left the harbour at {i + 6} o\\'clock with {i * 40} passengers, and the captain logged "
    f"wind, tide and the {i}th buoy before turning towards the island.</p>"
    for i in range(1, 6)
)
SPA_LOST = (
    "<div class=\"lost\"><h2>Lost at sea</h2><p>We could not chart a course to this address. The harbour master suggests "
    "checking the spelling, or sailing back to the timetable, the ferry routes or the news from the island, where every "
    "crossing since the new pier opened is listed with its weather, its passengers and the name of its captain.</p></div>"
)
SPA = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Harbour app</title></head><body><div id='app'></div>"
    "<script>var routes = {'/spa/story': '<article><h1>The long crossing</h1>" + SPA_STORY + "</article>'};"
    "setTimeout(function () { document.getElementById('app').innerHTML = routes[location.pathname] || '" + SPA_LOST + "'; }, 150);"
    "</script></body></html>"
)


class _SpaSite:
    """Every path answers 200 with the same shell; the script renders the story or a 'lost' view."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                status, body = (404, b"") if self.path == "/robots.txt" else (200, SPA.encode())
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_spa_route_not_found_render_dropped_through_the_rendered_probe(tmp_path):
    spa = _SpaSite()
    try:
        packets, stats, _ = _crawl(tmp_path, spa, ["/spa/story", "/spa/made-up/route"])  # type: ignore[arg-type]
    finally:
        spa.stop()
    story, lost = packets["/spa/story"], packets["/spa/made-up/route"]
    assert (story["outcome"], story["reader"]) == ("kept", "render"), (story["drop_reason"], story["capture_choice"])
    assert (lost["outcome"], lost["drop_reason"], lost["reader"]) == ("dropped", "soft_404", "render"), lost["capture_choice"]
    assert "soft_404_fingerprint" in lost["validation_report"]["detail"]
    # the plain shell gives no fingerprint; the probe was rendered like any shell and fingerprinted
    assert stats["gatecrawl/not_found_probe/fingerprinted"] == 1
    assert stats["gatecrawl/render/requested"] == 3


def test_http_cache_never_answers_the_render(site, tmp_path):
    """HTTPCACHE_ENABLED: the browser re-fetch of a shell must reach the browser (not the cached
    plain shell, which was escalated again and again); one render per run, a cold and a warm cache."""
    cache = {"HTTPCACHE_ENABLED": "True", "HTTPCACHE_DIR": str(tmp_path / "httpcache")}
    for store in ("cold", "warm"):
        packets, stats, run = _crawl(tmp_path, site, ["/app/shell"], settings=cache, timeout=90, store=store)
        assert run.returncode == 0, run.stderr[-2000:]
        shell = packets["/app/shell"]
        assert (shell["outcome"], shell["reader"]) == ("kept", "render"), (store, shell["drop_reason"], shell["capture_choice"])
        assert stats["gatecrawl/render/requested"] == 1, (store, stats)
        assert stats.get("gatecrawl/render/succeeded") == 1, (store, stats)
    assert any(p.is_file() for p in (tmp_path / "httpcache").rglob("*")), "the plain fetches are cached"
