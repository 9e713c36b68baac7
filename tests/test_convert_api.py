"""The public API and `scrapy convert` go through the same path and give the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys

from crawlutil import ROOT
from gatecrawl import convert
from gatecrawl.core.evidence import dumps, load_schema

ARTICLE = (
    "<html><head><title>Ports and adapters</title><meta name='author' content='A. Writer'></head><body>"
    "<nav><a href='/'>Home</a><a href='/blog'>Blog</a></nav><article><h1>Ports and adapters</h1>"
    + "".join(f"<p>Paragraph {i}: a pure core keeps the conversion rules testable without a crawler running around it.</p>" for i in range(6))
    + "<h2>Details</h2><p>See <a href='/docs?token=abc123secret'>the docs</a>.</p></article></body></html>"
)
URL = "https://example.org/posts/ports"


def test_convert_returns_markdown_and_evidence():
    r = convert(ARTICLE.encode(), URL, content_type="text/html")
    assert r.ok
    assert r.markdown.startswith("# Ports and adapters\n") and r.markdown.endswith("\n") and "\r" not in r.markdown
    ev = r.evidence
    assert ev["outcome"] == "kept" and ev["reader"] == "http" and ev["page_type"] == "html"
    assert ev["selection_rule"] and isinstance(ev["boilerplate_filter_rules_used"], list)
    assert ev["sample_provenance"][0]["markdown_span"].startswith("# Ports and adapters")
    assert ev["versions"]["gate"] and ev["versions"]["converter"] and ev["versions"]["extractor"]


def test_packet_validates_and_is_redacted(packet_validator):
    from gatecrawl.core.convert import FetchInfo

    fetch = FetchInfo(
        url_requested="https://user:hunter2@example.org/posts/ports?access_token=XYZSECRET",
        headers={"Set-Cookie": "sid=COOKIESECRET", "Authorization": "Bearer AUTHSECRET", "Content-Type": "text/html"},
    )
    r = convert(ARTICLE.encode(), URL, "text/html", fetch=fetch)
    packet = json.loads(dumps(r.evidence))
    assert not list(packet_validator.iter_errors(packet))
    blob = dumps(r.evidence).decode()
    for secret in ("hunter2", "XYZSECRET", "COOKIESECRET", "AUTHSECRET"):
        assert secret not in blob
    assert "set-cookie" not in packet["response_headers"] and "authorization" not in packet["response_headers"]


def test_same_input_same_bytes():
    a = convert(ARTICLE.encode(), URL)
    b = convert(ARTICLE, URL)  # str input is accepted too
    assert a.markdown.encode() == b.markdown.encode()
    assert a.evidence["markdown_sha256"] == b.evidence["markdown_sha256"]


def test_schema_is_loadable():
    assert load_schema()["properties"]["schema_version"]["const"] == "gatecrawl.evidence/1"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", "convert", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_scrapy_convert_file_prints_the_same_markdown(tmp_path):
    f = tmp_path / "page.html"
    f.write_text(ARTICLE, encoding="utf-8")
    proc = _cli(str(f), "--url", URL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == convert(ARTICLE.encode(), URL).markdown


def test_scrapy_convert_evidence_and_failure_exit(tmp_path):
    f = tmp_path / "404.html"
    f.write_text("<html><head><title>Page not found</title></head><body><h1>Page not found</h1></body></html>")
    proc = _cli(str(f), "--url", URL, "--evidence")
    assert proc.returncode == 2
    assert "dropped: soft_404" in proc.stderr
    packet = json.loads(proc.stdout)
    assert packet["drop_reason"] == "soft_404" and packet["outcome"] == "dropped"


def test_scrapy_convert_url(demo_server):
    proc = _cli(f"{demo_server.base_url}/articles/quality-gates")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Quality gates that catch junk early\n")
    bad = _cli(f"{demo_server.base_url}/old/page-that-moved")
    assert bad.returncode == 2 and "soft_404" in bad.stderr


BYLINE_ARTICLE = (
    "<html><head><title>Rivers at dawn</title></head><body><article><h1>Rivers at dawn</h1>"
    "<div class='byline'>By Jane Doe</div><p>Updated <time>May 1, 2020</time></p>"
    "<figure><img src='/a.jpg' alt=''><figcaption>The river at dawn, seen from the bridge"
    "</figcaption></figure>"
    + "".join(f"<p>Paragraph {i}: the water rises slowly in the cold morning and the town "
              "wakes to the sound of it moving under the old stone bridge.</p>" for i in range(6))
    + "</article></body></html>"
)


def test_set_aside_bylines_and_captions_in_the_packet(packet_validator):
    from gatecrawl.core.recipes import load_recipe_text

    r = convert(BYLINE_ARTICLE.encode(), URL, content_type="text/html")
    assert r.ok
    assert "Jane Doe" not in r.markdown and "river at dawn, seen" not in r.markdown
    assert "Paragraph 5" in r.markdown and r.markdown.startswith("# Rivers at dawn\n")
    assert r.evidence["set_aside"] == [
        {"kind": "byline", "text": "By Jane Doe"},
        {"kind": "dateline", "text": "Updated May 1, 2020"},
        {"kind": "caption", "text": "The river at dawn, seen from the bridge"},
    ]
    assert not list(packet_validator.iter_errors(json.loads(dumps(r.evidence))))
    # the recipe keeps them in the body when asked to
    recipe = load_recipe_text(
        "start_urls = ['https://example.org/']\n[content]\nkeep_bylines = true\n"
        "keep_captions = true\n", source="keep.toml", default_name="keep")
    k = convert(BYLINE_ARTICLE.encode(), URL, content_type="text/html", recipe=recipe)
    assert "By Jane Doe" in k.markdown and "Updated May 1, 2020" in k.markdown
    assert "The river at dawn, seen from the bridge" in k.markdown
    assert k.evidence["set_aside"] == []
