"""Browser-path security: reliability matrix T07, T10 and the browser half of T12 (issue 8).

The crawl renders pages through Chromium, whose traffic goes through gatecrawl's egress proxy.
"""

from __future__ import annotations

import json
import shutil

import pytest

from crawlutil import packets_by_url, probe_crawl

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.skipif(not shutil.which("chromium"), reason="no Chromium")]

TEXT = " ".join(
    f"Sentence {i} explains how a crawler keeps its browser on a short leash while the page renders its content."
    for i in range(8)
)
FORCE_RECIPE = """start_urls = ["http://x.test/"]
allowed_domains = ["127.0.0.2", "127.0.0.3"]
[render]
policy = "force"
[render.browser]
allow_resources = ["image"]
max_render_time_ms = 6000
[validation]
min_markdown_chars = 50
"""


def _page(body: str, title: str = "Browser egress") -> bytes:
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body><main><h1>{title}</h1><p>{TEXT}</p>{body}</main></body></html>".encode()


def test_t07_browser_egress_subresources_frames_fetch_navigation(tmp_path, recipes_dir, origin, canary):
    (recipes_dir / "probe.toml").write_text(FORCE_RECIPE)
    c = canary.base_url
    origin.pages["/t07"] = (200, "text/html; charset=utf-8", _page(f"""
        <img src="{c}/img.png" alt="x">
        <iframe src="http://169.254.169.254/latest/meta-data/"></iframe>
        <iframe src="{c}/frame"></iframe>
        <script>
          fetch("{c}/fetch").catch(function () {{}});
          if (navigator.serviceWorker) {{ navigator.serviceWorker.register("/sw.js").catch(function () {{}}); }}
        </script>"""))
    origin.pages["/t07-nav"] = (200, "text/html; charset=utf-8", _page(f"""
        <script>setTimeout(function () {{ location = "/redirect?to={c}/navigated"; }}, 10);</script>""", "Navigation"))
    origin.pages["/sw.js"] = (200, "application/javascript", b"self.addEventListener('fetch', function () {});")
    urls = [origin.url("/t07"), origin.url("/t07-nav")]
    run = probe_crawl(tmp_path, recipes_dir, urls, allow=f"127.0.0.3:{origin.port}")
    assert canary.connections == 0, canary.hits
    assert origin.hits["/sw.js"] == 0, "service workers are blocked"
    got = packets_by_url(run)
    main = got[urls[0]]
    assert main["reader"] == "render", (main["reader"], main["drop_reason"])
    assert main["outcome"] == "kept", main["drop_reason"]
    blocked = main["render"]["egress_blocked"]
    assert len(blocked) >= 2 and all(b["reason"] == "egress_blocked" for b in blocked), blocked
    assert origin.hits["/redirect"] <= 1  # the JS navigation's redirect hop was refused at the proxy


def test_t10_browser_does_not_send_credentials_cross_origin(tmp_path, recipes_dir, origin, canary):
    (recipes_dir / "probe.toml").write_text(FORCE_RECIPE)
    origin.pages["/t10"] = (200, "text/html; charset=utf-8", _page(f"""
        <iframe src="{canary.base_url}/echo"></iframe>
        <script>fetch("{canary.base_url}/echo?xhr=1").catch(function () {{}});</script>""", "Credentials"))
    headers = json.dumps({"Authorization": "Bearer CANARY10", "Cookie": "s=CANARYCOOKIE10"})
    run = probe_crawl(
        tmp_path, recipes_dir, [origin.url("/t10")], allow=f"127.0.0.2:{canary.port},127.0.0.3:{origin.port}",
        extra={"DEFAULT_REQUEST_HEADERS": headers},
    )
    assert canary.hits["/echo"] >= 1, "the cross-origin frame was loaded"
    for h in canary.seen_headers:
        blob = json.dumps(h)
        assert "CANARY10" not in blob and "CANARYCOOKIE10" not in blob, h
    assert any("CANARY10" in h.get("authorization", "") for h in origin.seen_headers), "the origin itself got them"
    assert packets_by_url(run)[origin.url("/t10")]["reader"] == "render"


def test_t12_rendered_dom_is_capped_like_plain_html(tmp_path, recipes_dir, origin):
    (recipes_dir / "probe.toml").write_text(FORCE_RECIPE)
    origin.pages["/grow"] = (200, "text/html; charset=utf-8", _page("""
        <div id="big"></div><script>document.getElementById("big").textContent = "x".repeat(400000);</script>""", "Growing"))
    url = origin.url("/grow")
    run = probe_crawl(tmp_path, recipes_dir, [url], allow=f"127.0.0.3:{origin.port}", extra={"GATECRAWL_MAXSIZE_HTML": 200_000})
    p = packets_by_url(run)[url]
    assert p["drop_reason"] == "size_exceeded", (p["drop_reason"], p["drop_detail"])
    assert not list(run.store.rglob("*.md"))
