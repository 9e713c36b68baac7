"""The spider's one-pass link extraction (issue 19) follows what the recipe's LinkExtractor
followed: same URLs, same order, same rules, on the tree the presence gate parsed."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse, Request
from scrapy.utils.python import unique as unique_list
from scrapy.utils.test import get_crawler
from w3lib.url import canonicalize_url

from gatecrawl.core.recipes import load_recipe_text
from gatecrawl.middlewares.presence import response_doc
from gatecrawl.spiders.recipe import RecipeSpider

CORPUS = Path("/work/shared/bench/article-extraction/html")

HANDMADE = """<html><head><title>t</title>{base}</head><body>
<a href="/a">a</a> <a href=" /b?x=1&amp;y=2 ">b</a> <a href="c#frag">c</a> <a href="c#other">c again</a>
<a href="//example.test/proto-relative">p</a> <a href="https://EXAMPLE.test/Upper">u</a>
<a href="https://sub.example.test/s">sub</a> <a href="https://other.test/x">off</a>
<a href="https://bücher.example.test/idn">idn</a> <a href="http://[::1/broken">bad</a>
<a href="/img/photo.jpg">jpg</a> <a href="/doc/file.pdf">pdf</a> <a href="/private/x">denied</a>
<a href="/café/é?q=ü">unicode</a> <a href="javascript:void(0)">js</a> <a href="mailto:x@example.test">mail</a>
<a href="ftp://example.test/f">ftp</a> <a>no href</a> <area href="/area-link"> <a href="">empty</a>
<a href="/a">a twice</a> <a href="  ">spaces</a> <a href="/%zz">bad escape</a>
<a href="HTTPS://OTHER.test/x">upper off</a> <a href="HTTP://Example.Test:8080/port">upper on</a>
<a href="http://user@other.test/">userinfo off</a> <a href="http://example.test@other.test/">at off</a>
<a href="http://other.test@example.test/at-on">at on</a> <a href=" https://example.test/lead ">lead</a>
<a href="http:relative">http relative</a> <a href="https://[::1]/v6">v6</a> <a href="https://other.test:99999/">bad port</a>
</body></html>"""


def _pages() -> list[tuple[str, bytes, str]]:
    # (Undeclared bytes that are not UTF-8 are read as cp1252 in the tree, htmlparse's rule; Scrapy
    # decodes them as UTF-8 with replacement characters: a link with such bytes may differ.)
    pages = [("https://example.test/dir/page.html", HANDMADE.format(base="").encode(), "text/html"),
             ("https://example.test/dir/page.html", HANDMADE.format(base='<base href="https://example.test/other/">').encode(), "text/html"),
             ("https://example.test/dir/page.html", HANDMADE.format(base="").encode("cp1252", "replace"), "text/html; charset=windows-1252")]
    if CORPUS.is_dir():
        for p in sorted(CORPUS.glob("*.html.gz"))[:25]:
            pages.append(("https://example.test/news/2024/story.html", gzip.decompress(p.read_bytes()), "text/html"))
    return pages


def _spider(follow: str) -> RecipeSpider:
    recipe = load_recipe_text(f'start_urls = ["https://example.test/"]\n[follow]\n{follow}', source="<t>", default_name="t")
    cls = type("T", (RecipeSpider,), {"name": "t", "recipe": recipe})
    crawler = get_crawler(cls)
    spider = cls.from_crawler(crawler)
    return spider


@pytest.mark.parametrize("follow", ["", 'deny = ["/private/"]', 'allow = ["/a", "/c", "news"]'])
def test_one_pass_links_equal_the_link_extractor(follow):
    spider = _spider(follow)
    total = 0
    for url, body, ctype in _pages():
        response = HtmlResponse(url, body=body, headers={"Content-Type": ctype}, request=Request(url))
        expected = [link.url for link in spider._link_extractor.extract_links(response) if spider._host_allowed(link.url)]
        got = unique_list(spider._links(response, response_doc(response)), key=lambda u: canonicalize_url(u, keep_fragments=True))
        assert got == expected, url
        total += len(got)
    assert total > 20


def test_the_gate_and_the_spider_share_one_parse(monkeypatch):
    import gatecrawl.middlewares.presence as presence

    calls = []
    real = presence.parse_html
    monkeypatch.setattr(presence, "parse_html", lambda *a, **k: calls.append(1) or real(*a, **k))
    response = HtmlResponse("https://example.test/p", body=HANDMADE.format(base="").encode(), headers={"Content-Type": "text/html"})
    assert response_doc(response) is response_doc(response)
    assert len(calls) == 1
