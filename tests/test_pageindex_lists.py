"""The PageIndex's tag lists, itemtypes and parsed JSON-LD stand for the scans they replaced
(``doc.iter(tag)``, ``doc.find(".//tag")``, the itemtype XPath, ``jsonld_documents``), and the
page type, the shell signals, the interstitial signals and the canonical URL read from the
index are the ones the scans gave."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import lxml.etree
import lxml.html

from gatecrawl.core import page, pageindex, pagetype, walls
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.pageindex import _LISTED_TAGS, PageIndex, find_below, jsonld_of, tagged_with, tagged_within
from gatecrawl.core.pdf.routing import find_pdf_viewer_source

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]

_CASES = [
    # a <noscript> view, two titles (an svg's first), JSON-LD with and without a type, a canonical link
    '<html><head><link rel="Canonical  x" href=" /c "><script type=" Application/LD+JSON ">{"@type": "Product"}'
    '</script><script type="application/ld+json">not json</script></head><body><svg><title>s</title></svg>'
    '<h1>A</h1><h1>B</h1><noscript><p>Please enable JavaScript</p></noscript><script src="a.js"></script>'
    '<div itemtype="">x</div><div itemscope itemtype="https://schema.org/Product/">y</div></body></html>',
    # post-like classes: letters the case-blind pattern reads as ASCII ones, class and id joined by the space
    '<html><body><div class="Po\u017ft"><time>1</time><p>' + "reply text " * 10 + '</p></div>'
    '<li class="x" id="comment-1"><span class="date">d</span>' + "more words " * 10 + '</li>'
    '<section class="message\u212a"><time>2</time>' + "words " * 20 + '</section>'
    '<article class="thread-post"><i class="posted">p</i>' + "post text " * 10 + '</article>'
    # a date in an id only (not a class): no time for the post test
    '<div class="post"><span id="date-1">d</span>' + "undated text " * 10 + '</div></body></html>',
    # a PDF viewer, dates (the first time element without a datetime), code blocks in and out of a section
    '<html><head><base href="https://d.example/files/"></head><body><time>now</time><time datetime="2024-05-01">'
    'May</time><section><pre>a</pre><iframe src="viewer.html?file=r.pdf"></iframe></section><pre>b</pre></body></html>',
    # a price class and a cart control
    '<html><body><span class="Pri\u0130ce">$ 5</span><span itemprop="price">10 EUR</span>'
    '<button id="add-to-cart">Add</button></body></html>',
]


def _docs():
    bodies = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    for corpus in CORPORA:
        if corpus.is_dir():
            bodies += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:60]]
    docs = [parse_html(b) for b in bodies]
    docs += [parse_html(c.encode("utf-8"), content_type="text/html; charset=utf-8") for c in _CASES]
    # a post-like div moved into the head (outside the body the page type reads)
    doc = parse_html(_CASES[1].encode("utf-8"), content_type="text/html; charset=utf-8")
    doc.find("head").append(lxml.html.fromstring('<div class="post"><time>t</time>' + "x " * 30 + "</div>"))
    return docs + [doc]


def test_tag_lists_and_first_below_are_the_scans():
    itemtypes = viewers = 0
    for doc in _docs():
        index = PageIndex(doc)
        for tag in _LISTED_TAGS:
            assert index.tagged[tag] == list(doc.iter(tag)) == list(tagged_with(doc, tag))
            assert tagged_with(doc, tag, index) is index.tagged[tag]
            assert find_below(doc, tag, index) is doc.find(".//" + tag) is find_below(doc, tag)
        dated = next((el for el in index.tagged["time"] if el is not doc and el.get("datetime") is not None), None)
        assert dated is doc.find(".//time[@datetime]")  # (find_fields' date element)
        assert index.itemtypes == [el.get("itemtype") for el in doc.xpath("//*[@itemtype]")]
        itemtypes += len(index.itemtypes)
        documents = jsonld_of(index, doc)
        assert json.dumps(documents) == json.dumps(list(page.jsonld_documents(doc)))
        assert jsonld_of(index, doc) is documents  # parsed once
        assert page.canonical_url(doc, index=index) == page.canonical_url(doc)
        body = doc.find(".//body")
        for el in [doc, body] + list(body)[:5] + [el for el in doc.iter("section")][:3]:
            for tag in ("pre", "time", "iframe"):
                assert tagged_within(index, el, tag) == list(el.iter(tag))
        viewer = find_pdf_viewer_source(doc, "https://d.example/page")
        assert find_pdf_viewer_source(doc, "https://d.example/page", index=index) == viewer
        viewers += viewer is not None
    assert itemtypes > 20 and viewers >= 1


def test_readers_of_the_index_give_what_the_scans_gave():
    types = set()
    for doc in _docs():
        index = PageIndex(doc)
        body = doc.find(".//body")
        guess = pagetype.detect_page_type(doc, "https://x.example/forum/t/1")
        assert pagetype.detect_page_type(doc, "https://x.example/forum/t/1", index=index) == guess
        types.add(guess.type)
        assert pagetype._repeated_posts(body, index) == pagetype._repeated_posts(body)
        assert pagetype._price_candidates(body, index) == pagetype._price_candidates(body)
        for prop in ("og:type", "generator"):
            assert pagetype._meta(doc, prop, index) == pagetype._meta(doc, prop)
        # the post-like elements are those of the body's scan that the post test can hold for
        scan = [el for el in body.iter(*pagetype._POST_TAGS)
                if pagetype._post_ident(f"{el.get('class') or ''} {el.get('id') or ''}")]
        assert [el for el in pagetype._post_like(body, index)
                if pagetype._post_ident(f"{el.get('class') or ''} {el.get('id') or ''}")] == scan
        assert walls.page_signals(doc, index=index) == walls.page_signals(doc)
        assert page.find_fields(doc, index=index) == page.find_fields(doc)
        assert page.measure_page(doc, index=index) == page.measure_page(doc)
    assert {"article", "forum", "product", "listing"} <= types


def test_shell_signals_read_the_noscript_tags_as_they_are_now():
    """The <noscript> view renames the noscript elements after the index was taken: the shell
    signals read from the index then see none, as a scan of the document would."""
    doc = parse_html(_CASES[0].encode("utf-8"), content_type="text/html; charset=utf-8")
    index = PageIndex(doc)
    assert "noscript_javascript_hint" in page.shell_signals(doc, 10, index=index)
    for el in list(doc.iter("noscript")):
        el.tag = "div"
    assert "noscript_javascript_hint" not in page.shell_signals(doc, 10, index=index)
    assert page.shell_signals(doc, 10, index=index) == page.shell_signals(doc, 10)


def _named_scan(values, words) -> list:
    """_Values.named as it was written before: the alternation's finditer over the folded text."""
    import bisect
    import itertools

    out: list = []
    literals = pageindex._literals(words.pattern)
    if literals is not None and not any(w in values.text for w in literals):
        return out
    seps = [end + i for i, end in enumerate(itertools.accumulate(map(len, values._distinct)))]
    held: list[int] = []
    last = -1
    for m in words.finditer(values.text):
        k = bisect.bisect_left(seps, m.start())
        if k != last:
            last = k
            held.extend(values._at[k])
    held.sort()
    for i in held:
        el = values.owners[i]
        if not out or out[-1] is not el:
            out.append(el)
    return out


def test_named_finds_what_the_alternation_finds():
    """_Values.named finds literal lower-case words with str.find, from the value after each
    one found: the elements the alternation's scan named, for the patterns the readers ask, on
    real pages and on values with line breaks, repeated and overlapping words."""
    import re

    patterns = [page._BANNER_WORD_RE, page._ROLE_WORD_RE, walls._CONSENT_WORDS, walls._PAYWALL_WORDS, pagetype._POST_HINT,
                pagetype._DATE_WORDS, re.compile("a|ab|b"), re.compile("share", re.I),
                re.compile("Share"), re.compile(r"sha?re")]
    cases = ['<div class="share share-bar"></div><p id="x\nshare">a</p><p class="ab\nb\n">b</p><i class="">c</i>'
             '<b class="x" id="y">d</b><s class="shareshare">e</s><u class="SHARE">f</u>']
    docs = _docs() + [parse_html(c.encode("utf-8"), content_type="text/html; charset=utf-8") for c in cases]
    found = 0
    for doc in docs:
        index = PageIndex(doc)
        for values in (index.idents, index.roles):
            for words in patterns:
                named = values.named(words)
                assert named == _named_scan(values, words), words.pattern
                found += len(named)
    assert found > 1000
