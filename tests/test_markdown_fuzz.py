"""Robustness: parse_html + select_main + to_markdown never raise, whatever the input."""

from __future__ import annotations

import hashlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecrawl.core.extract import _select_main, select_main
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import MarkdownResult, _to_markdown, to_markdown

BASE = "https://example.com/a/b.html"


def pipeline(body, content_type=None) -> MarkdownResult:
    doc = parse_html(body, content_type=content_type)
    assert doc.tag == "html" and doc.find("body") is not None
    sel = select_main(doc)
    res = to_markdown(sel.root, base_url=BASE)
    assert isinstance(res.text, str)
    assert res.text == "" or (res.text.endswith("\n") and not res.text.endswith("\n\n"))
    assert "\r" not in res.text
    return res


TAGS = ["p", "div", "span", "a", "b", "i", "em", "strong", "ul", "ol", "li", "table", "tr",
        "td", "th", "thead", "pre", "code", "h1", "h2", "h3", "blockquote", "br", "img", "hr",
        "article", "main", "nav", "script", "style", "dl", "dt", "dd", "figure", "figcaption",
        "caption", "sup", "q", "del", "form", "input", "svg", "math", "template", "base"]
ATTRS = [' href="javascript:x"', ' href="/rel"', " href='mailto:a@b.c'", ' src="data:x"',
         ' class="language-py share comments"', ' colspan="3"', ' rowspan="0"', ' colspan="x"',
         ' hidden', ' style="display:none"', ' role="main"', ' id="content"', ""]
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


@st.composite
def html_soup(draw):
    parts = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 3))
        tag = draw(st.sampled_from(TAGS))
        if kind == 0:
            parts.append(f"<{tag}{draw(st.sampled_from(ATTRS))}>")
        elif kind == 1:
            parts.append(f"</{tag}>")
        else:
            parts.append(draw(TEXT).replace("\x00", ""))
    return "".join(parts)


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(body):
    pipeline(body)


@SETTINGS
@given(TEXT)
def test_arbitrary_text(body):
    pipeline(body)


@SETTINGS
@given(html_soup(), st.sampled_from([None, "text/html", "text/html; charset=utf-16",
                                     "text/html; charset=nonsense", "text/html; charset=latin1"]))
def test_malformed_html(body, content_type):
    res = pipeline(body.encode("utf-8", "surrogatepass"), content_type)
    # the guarded entry points fall back on internal errors; the inner ones must not need to
    doc = parse_html(body.encode("utf-8", "surrogatepass"), content_type=content_type)
    sel = _select_main(doc, main_selectors=(), exclude_selectors=(), keep_comments=False)
    _to_markdown(sel.root, base_url=BASE)
    again = pipeline(body.encode("utf-8", "surrogatepass"), content_type)
    assert res.text == again.text  # deterministic


def test_unclosed_tags():
    res = pipeline(b"<html><body><div><p>one<p>two<ul><li>three<table><tr><td>four<pre><code>five")
    for word in ("one", "two", "three", "four", "five"):
        assert word in res.text


def test_deep_nesting_5000_levels():
    pipeline("<div>" * 5000 + "deep text" + "</div>" * 5000)
    pipeline("<ul><li>" * 2500 + "x")
    pipeline("<b><i>" * 2500 + "y")
    pipeline("<table><tr><td>" * 1700 + "z")


def test_ten_megabytes_of_text():
    body = ("<p>" + "word " * 2_000_000 + "</p>").encode()
    assert len(body) >= 10_000_000
    res = pipeline(body)
    assert res.text.startswith("word word")


def test_binary_garbage():
    garbage = hashlib.sha256(b"seed").digest() * 4000 + bytes(range(256)) * 50
    pipeline(garbage)
    pipeline(b"\x00" * 10000)
    pipeline(b"\xff\xfe" + b"\x00<\x00p\x00>" * 100)  # UTF-16 BOM with odd content


def test_wrong_declared_encodings():
    utf8 = "<p>Grüße – café</p>".encode("utf-8")
    latin = "<p>Grüße café</p>".encode("latin-1")
    for body, ct in ((utf8, "text/html; charset=iso-8859-1"), (latin, "text/html; charset=utf-8"),
                     (utf8, "text/html; charset=utf-16"), (utf8, "text/html; charset=bogus-enc"),
                     (b"<meta charset='utf-32'>" + utf8, None), (b"<meta charset=x-nope>" + latin, None),
                     (b"\xef\xbb\xbf" + latin, "text/html; charset=shift_jis")):
        res = pipeline(body, ct)
        assert res.text  # some text survives


def test_encoding_rule():
    assert "Grüße" in pipeline("<p>Grüße</p>".encode("utf-8")).text
    assert "Grüße" in pipeline("<p>Grüße</p>".encode("cp1252")).text  # invalid UTF-8 -> cp1252
    assert "Grüße" in pipeline(b"<meta charset='windows-1252'><p>Gr\xfc\xdfe</p>").text
    assert "Grüße" in pipeline("<p>Grüße</p>".encode("utf-16"), "text/html").text  # BOM wins


def test_to_markdown_odd_roots():
    import lxml.html

    for root in (lxml.html.Element("p"), lxml.html.fromstring("<table><tr><td>x</td></tr></table>"),
                 lxml.html.fromstring("<pre>code</pre>")):
        assert isinstance(to_markdown(root, base_url="").text, str)
    assert to_markdown(lxml.html.fromstring("<p><a href='x'>y</a></p>"), base_url="not a url").text
