"""The independent candidates read the page without changing it: script source muted while they run, the
parts trafilatura does not read taken out (``gatecrawl.core.unread``), its text the same."""

import lxml.html
import pytest

from gatecrawl.core import candidates as agreement
from gatecrawl.core import unread
from gatecrawl.core.candidates import candidate_text
from gatecrawl.core.htmlparse import parse_html

PROSE = " ".join(f"Sentence {i} of the report says something plain about the harbour works." for i in range(40))
PAGE = f"""<html><head><title>Harbour</title>
<script>var html = "<p>not content</p>"; window.x = 1;</script>
<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "Harbour"}}</script>
<style>p {{ color: red }}</style></head>
<body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Harbour works</h1><p>{PROSE}</p><script>track("read")</script>tail text stays</article>
</body></html>"""


def _scripts(doc):
    return [(el.get("type"), el.text, el.tail) for el in doc.iter("script", "style")]


@pytest.mark.parametrize("name", agreement.CANDIDATES)
def test_candidate_leaves_the_document_as_it_was(name):
    doc = parse_html(PAGE)
    before = lxml.html.tostring(doc)
    text = candidate_text(doc, name)
    assert "Sentence 39 of the report" in text
    assert "not content" not in text and "track(" not in text
    assert lxml.html.tostring(doc) == before


def test_muting_restores_script_text_when_the_candidate_raises(monkeypatch):
    doc = parse_html(PAGE)
    before = _scripts(doc)

    def boom(*args, **kwargs):
        raise RuntimeError("candidate failed")

    import trafilatura
    monkeypatch.setattr(trafilatura, "extract", boom)
    with pytest.raises(RuntimeError):
        candidate_text(doc, "trafilatura")
    assert _scripts(doc) == before


def test_muted_while_running_json_ld_and_styles_kept():
    doc = parse_html(PAGE)
    before = _scripts(doc)
    with agreement._code_muted(doc):
        plain = [el.text for el in doc.iter("script") if el.get("type") is None]
        ld = [el.text for el in doc.iter("script") if el.get("type") == "application/ld+json"]
        styles = [el.text for el in doc.iter("style")]
        tails = [el.tail for el in doc.iter("script")]
    assert plain == [None, None]
    assert len(ld) == 1 and '"NewsArticle"' in ld[0]
    assert styles == ["p { color: red }"]
    assert any(t and "tail text stays" in t for t in tails)
    assert _scripts(doc) == before


@pytest.mark.parametrize("name", agreement.CANDIDATES)
def test_same_text_as_with_the_scripts_in_place(name):
    """Muting is a speed measure only: the candidate's text is what it reads from the page
    with its scripts (the unmuted call made here by hand)."""
    import copy

    import trafilatura
    from trafilatura.external import try_readability

    doc = parse_html(PAGE)
    if name == "trafilatura":
        expected = trafilatura.extract(doc, fast=True, include_comments=False, include_tables=True,
                                       deduplicate=False) or ""
    else:
        art = try_readability(copy.deepcopy(doc))
        expected = art.text_content() if art is not None and len(art) else ""
    assert candidate_text(doc, name) == expected


SVG_PAGE = f"""<html><head><title>Harbour</title>
<meta charset="utf-8"> <meta name="description" content="works">
<link rel="stylesheet" href="/a.css">
<base href="https://example.test/">
<script src="/app.js"></script>
<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "Harbour"}}</script>
<style>p {{ color: red }}</style>
<meta property="og:type" content="article"></head>
<body><nav><a href="/">Home</a><svg viewBox="0 0 9 9"><path d="M0 0h9"/> <g><path d="M1 1"/></g></svg>
 <a href="/news">News</a></nav>
<article><h1>Harbour works <svg><title>icon</title><svg><text>inner</text></svg> </svg>now</h1>
<p>{PROSE}</p><figure><svg><text x="1">Chart: 40% more ships</text></svg>after the chart</figure></article>
</body></html>"""


@pytest.mark.parametrize("page", [PAGE, SVG_PAGE])
def test_unread_parts_detached_with_the_same_text_and_put_back(page):
    doc = parse_html(page)
    before = lxml.html.tostring(doc)
    with agreement._code_muted(doc):
        text = doc.text_content()
        with unread.unread_detached(doc):
            assert doc.text_content() == text  # every text measure on the raw tree is unchanged
            head = doc.find("head")
            assert [c.tag for c in head] == ["title", "script", "style"]
            assert all(c.get("type") == "application/ld+json" for c in head.iter("script"))
            assert all(len(s) == 0 for s in doc.iter("svg"))
            assert all(c.get("type") == "application/ld+json" for c in doc.iter("script"))
    assert lxml.html.tostring(doc) == before


VOID_PAGE = f"""<html><head><title>Harbour</title><meta charset="utf-8"></head>
<body><div><img src="/a.png">first child, its tail</div>
<p>Lead <img src="/b.png"><img src="/c.png"> two images <input type="hidden" value="x">
and an input <wbr/> in the text.<script>track()</script> after the script</p>
<p>{PROSE}<br>Second line<script>one()</script><script>two()</script></p>
<form><input name="q"><input type="submit" value="Go"></form>
<p>soft<img src="/d.png">\u00adhyphen after an image<script>x()</script>\u200bzero width</p>
<script type="application/ld+json">{{"@type": "NewsArticle"}}</script>
</body></html>"""


def test_void_elements_and_scripts_detached_their_tails_joined():
    doc = parse_html(VOID_PAGE)
    before = lxml.html.tostring(doc)
    with agreement._code_muted(doc):
        text = doc.text_content()
    with unread.unread_detached(doc):
        assert doc.text_content() == text
        tags = [el.tag for el in doc.iter()]
        assert tags.count("input") == 0 and "meta" not in tags
        # the JSON-LD script stays, and so do the two elements whose tails hold characters
        # trafilatura's measure filters (a soft hyphen, a zero-width space)
        assert [el.get("type") for el in doc.iter("script")] == [None, "application/ld+json"]
        assert tags.count("img") == 1
        first = doc.find(".//div")
        assert len(first) == 0 and first.text == "first child, its tail"
    assert lxml.html.tostring(doc) == before


EMPTY_PAGE = f"""<html><body><div class="page"><h1>Game</h1><p>{PROSE}</p>
<div class="purchase"><div class="platform"><span class="icon win"></span><span class="icon linux"></span></div>
<p><i class="star"></i><b></b> rated</p><p><span></span></p><ul><li><em></em><strong></strong></li></ul>
<h2>Play the game</h2><div class="price">Free To Play</div></div></div></body></html>"""


@pytest.mark.parametrize("page", ["PAGE", "SVG_PAGE", "VOID_PAGE", "EMPTY_PAGE", "CHROME_PAGE", "NESTED_PAGE"])
def test_trafilatura_cleans_to_the_same_tree(page):
    """What trafilatura extracts from is its cleaned copy of the page: the same with and
    without the detached parts (an empty inline element whose parent it would leave empty
    stays: trafilatura prunes the parent only when it was empty before its own pruning)."""
    import copy

    from trafilatura.htmlprocessing import tree_cleaning
    from trafilatura.settings import Extractor

    options = Extractor(fast=True, comments=False, tables=True)
    doc = parse_html(globals()[page])
    expected = lxml.html.tostring(tree_cleaning(copy.deepcopy(doc), options))
    with unread.unread_detached(doc):
        assert lxml.html.tostring(tree_cleaning(copy.deepcopy(doc), options)) == expected


def test_empty_inline_leaves_its_parent_filled():
    doc = parse_html(EMPTY_PAGE)
    with unread.unread_detached(doc):
        platform = doc.find(".//div[@class='platform']")
        assert [c.get("class") for c in platform] == ["icon win"]  # the second goes, the first stays
        # a first child with no text before or after it stays; the one after it goes
        assert doc.find(".//i") is not None and doc.find(".//b") is None
        assert [c.tag for c in doc.find(".//ul/li")] == ["em"]


def test_put_back_when_taking_out_stops_half_way(monkeypatch):
    doc = parse_html(VOID_PAGE)
    before = lxml.html.tostring(doc)
    calls = []
    real = unread._plain_tail

    def failing(tail):
        calls.append(tail)
        if len(calls) == 4:
            raise RuntimeError("stopped")
        return real(tail)

    monkeypatch.setattr(unread, "_plain_tail", failing)
    with pytest.raises(RuntimeError):
        with unread.unread_detached(doc):
            pass
    assert len(calls) == 4
    assert lxml.html.tostring(doc) == before


def test_plain_tail():
    assert unread._plain_tail(None) and unread._plain_tail("")
    assert unread._plain_tail(" text\n\t and\u00a0more ")
    assert not unread._plain_tail("soft\u00adhyphen")
    assert not unread._plain_tail("\u200b")


def test_unread_parts_put_back_when_the_candidate_raises(monkeypatch):
    doc = parse_html(SVG_PAGE)
    before = lxml.html.tostring(doc)

    def boom(*args, **kwargs):
        raise RuntimeError("candidate failed")

    import trafilatura
    monkeypatch.setattr(trafilatura, "extract", boom)
    with pytest.raises(RuntimeError):
        candidate_text(doc, "trafilatura")
    assert lxml.html.tostring(doc) == before


@pytest.mark.parametrize("page", [PAGE, SVG_PAGE, VOID_PAGE])
def test_trafilatura_reads_the_same_without_the_unread_parts(page):
    import trafilatura

    doc = parse_html(page)
    expected = trafilatura.extract(doc, fast=True, include_comments=False, include_tables=True,
                                   deduplicate=False) or ""
    assert "Sentence 39" in expected
    assert candidate_text(doc, "trafilatura") == expected


@pytest.mark.parametrize("comments", [False, True])
def test_trafilatura_settings_made_once_and_left_unchanged(comments):
    import trafilatura

    doc = parse_html(VOID_PAGE)
    expected = trafilatura.extract(doc, fast=True, include_comments=comments, include_tables=True,
                                   deduplicate=False) or ""
    assert candidate_text(doc, "trafilatura", include_comments=comments) == expected
    options = agreement._trafilatura_options(comments)
    fields = type(options).__slots__
    before = {k: getattr(options, k) for k in fields}
    assert candidate_text(parse_html(SVG_PAGE), "trafilatura", include_comments=comments)
    assert agreement._trafilatura_options(comments) is options
    assert {k: getattr(options, k) for k in fields} == before
    assert options.comments is comments and options.fast and options.focus == "balanced"


def test_elements_the_parser_can_nest_stay():
    """``source``, ``track`` and ``embed`` can hold another of their tag in this parser's tree:
    trafilatura deletes them while iterating, so taking a nested one out could change which of
    them its loop reaches. They stay."""
    doc = parse_html("<html><body><video><source src=a><source src=b><track src=c><track src=d>"
                     "</video><embed src=e><embed src=f><p>text</p></body></html>")
    assert doc.find(".//source/source") is not None  # (nested, as the test says)
    with unread.unread_detached(doc):
        assert [len(doc.findall(f".//{t}")) for t in ("source", "track", "embed")] == [2, 2, 2]


SIDE = " ".join(f"Side note {i} tells a longer story about the old lighthouse keepers." for i in range(12))
CHROME_PAGE = f"""<html><head><title>Harbour</title></head><body>
<header><a href="/">Home</a></header>
<article><h1>Harbour works</h1><p>{PROSE}</p>
<aside id="related"><h3>Related</h3><ul><li><a href="/a">Older works</a></li></ul><script>ad()</script>
<footer id="in-aside">Inside the aside</footer></aside>after the aside
<aside id="titled"><h1>A second title</h1></aside>
<aside id="jsonld"><script type="application/ld+json">{{"@type": "NewsArticle"}}</script>Note</aside>
<p>Closing words of the article, plain and short.</p></article>
<nav><aside id="in-nav">Inside a nav</aside></nav>
<footer id="site"><p>Contact the harbour office.</p><svg><path d="M0 0"/></svg></footer>soft\u00adtail
<footer id="last">Last words</footer></body></html>"""


def _ids(doc, *tags):
    return [el.get("id") for el in doc.iter(*tags)]


def test_aside_and_footer_taken_out_where_nothing_reads_them():
    doc = parse_html(CHROME_PAGE)
    before = lxml.html.tostring(doc)
    with unread.unread_detached(doc):
        # the nested footer goes with its aside; a title, JSON-LD, an element inside a deleted
        # one, and a tail with a soft hyphen keep theirs in place
        assert _ids(doc, "aside", "footer") == ["titled", "jsonld", "in-nav", "site"]
        assert doc.find(".//article").text_content().count("after the aside") == 1
    assert lxml.html.tostring(doc) == before


NESTED_PAGE = f"""<html><body><article><h1>Harbour</h1><p>{PROSE}</p>
<aside class="a1"><aside class="inner">Inner note.</aside>Outer note.</aside>
<div><p>{SIDE}</p></div>
<aside class="a2"><p>Second aside: {SIDE}</p></aside>
<p>Closing words of the article, plain and short.</p></article></body></html>"""
NAV = " ".join(f'<a href="/s{i}">Section number {i} of the site</a>' for i in range(200))
ROWS = "".join(f"<tr><td>Harbour works begin on day {i}, the council said.</td></tr>" for i in range(12))
#: every paragraph in an aside: trafilatura's recall retry keeps its copy of the page, asides in
NO_PARAGRAPH_PAGE = f"""<html><body><nav>{NAV}</nav><div class="box"><table>{ROWS}</table></div>
<aside class="story"><p>{SIDE}</p><p>Another paragraph: {SIDE}</p></aside></body></html>"""


def _expected(doc, comments=False):
    import copy

    import trafilatura

    return trafilatura.extract(copy.deepcopy(doc), options=agreement._trafilatura_options(comments)) or ""


def test_no_aside_taken_out_when_an_aside_nests_in_an_aside(monkeypatch):
    """trafilatura's cleaning loop over ``aside`` ends inside the first aside holding another,
    so the later ones stay in its tree, and their text in its output."""
    doc = parse_html(NESTED_PAGE)
    expected = _expected(doc)
    assert "Second aside" in expected
    with unread.unread_detached(doc):
        assert len(doc.findall(".//aside")) == 3
    real = unread._read_only_inside
    monkeypatch.setattr(unread, "_read_only_inside", lambda el, watched, nests: real(el, watched, lambda tag: False))
    assert "Second aside" not in candidate_text(doc, "trafilatura")  # (the rule is needed)


def test_no_aside_taken_out_when_no_paragraph_stays(monkeypatch):
    doc = parse_html(NO_PARAGRAPH_PAGE)
    expected = _expected(doc)
    assert "Side note 11" in expected  # (the recall retry read the aside)
    with unread.unread_detached(doc):
        assert doc.find(".//aside") is not None
    monkeypatch.setattr(unread, "_paragraph_stays", lambda *args: True)
    assert "Side note 11" not in candidate_text(doc, "trafilatura")  # (the rule is needed)


LONG = PROSE[:150]


@pytest.mark.parametrize("body, stays", [
    (f"<article><p>{LONG}</p></article>", True),
    ("<article><p>A short paragraph only.</p></article>", False),
    (f"<aside><p>{LONG}</p></aside><footer><p>{LONG}</p></footer>", False),
    (f"<nav><p>{LONG}</p></nav><figure><p>{LONG}</p></figure>", False),
    (f'<div id="comments"><p>{LONG}</p></div><div class="infinite-scroll"><p>{LONG}</p></div>', False),
    (f'<div class="site-footer"><p>{LONG}</p></div><div id="CookieBanner"><p>{LONG}</p></div>', False),
    (f'<section class="post-Comments"><p>{LONG}</p></section>', False),  # (a superset: any case)
    (f"<form><p>{LONG}</p></form>", True),
    ("<div>No paragraph at all</div>", False),
])
def test_paragraph_stays(body, stays):
    doc = parse_html(f"<html><body>{body}</body></html>")
    chrome = unread._PageChrome(doc)
    assert unread._paragraph_stays(doc, chrome.cleaned, chrome.cookie, chrome.blocks) is stays


def test_cookie_words_cover_trafilaturas_pattern():
    """The words that let names pass without the search were read from this pattern: each of
    its alternatives holds one. A new trafilatura with another pattern fails here."""
    from trafilatura.settings import _COOKIE_CONSENT_RE

    assert _COOKIE_CONSENT_RE == (
        "cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie"
        "|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr")
    chrome = unread._PageChrome(parse_html("<html><body></body></html>"))
    for names, found in [("site-nav\nmenu", False), ("Cookie-Banner", True), ("notice__cookie x", True),
                         ("CMPLZ", True), ("consentmanager", True), ("cookies", False),
                         ("co\u212aokie-bar", False), ("coo\u212aie-bar", True)]:
        assert chrome.cookie(names) is found, names


NAV_ITEMS = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(8))
NAV_PAGE = f"""<html><body>
<nav id="top"><ul>{NAV_ITEMS}</ul><a href="/x">Hel</a>lo<br>world<svg><title>icon</title></svg> after
<script>menu()</script><style>a {{}}</style><div><span>Deep</span> <b>er</b></div></nav>tail of the nav
<article><h1>Harbour</h1><nav id="in-article"><a href="/a">Previous</a> | <a href="/b">Next</a></nav><p>{PROSE}</p></article>
<nav id="with-p"><p>A paragraph in a nav is read by the baseline rescue.</p></nav>
<nav id="named"><div class="site-footer-links"><a href="/c">Contact</a></div></nav>
<footer><p>Closing words.</p></footer></body></html>"""
#: paragraphs too short for trafilatura's baseline rescue: it falls back to the page's whole text
SHORT_PAGE = f"""<html><body><nav><ul>{NAV_ITEMS}</ul></nav>
<div class="box"><p>Short text of the page.</p></div></body></html>"""


def test_navs_emptied_to_the_words_trafilatura_measures():
    doc = parse_html(NAV_PAGE)
    before = lxml.html.tostring(doc)
    with unread.unread_detached(doc):
        top, in_article, with_p, named = doc.findall(".//nav")
        assert len(top) == 0 and top.text == ("Section 0 Section 1 Section 2 Section 3 Section 4 Section 5 "
                                              "Section 6 Section 7 Hello world after Deep er")
        assert top.tail.startswith("tail of the nav")
        assert len(in_article) == 0 and in_article.text == "Previous | Next"
        assert len(with_p) == 1 and len(named) == 1  # (read by the rescue; deleted inside by its cleaning)
    assert lxml.html.tostring(doc) == before


@pytest.mark.parametrize("nav", [0, 1, 2])  # (the fourth holds what the measure's cleaning deletes)
def test_spaced_words_are_trafilaturas_page_measure(nav):
    import copy

    from trafilatura.baseline import _spaced_text, basic_cleaning

    doc = parse_html(NAV_PAGE)
    el = doc.findall(".//nav")[nav]
    el.tail = None
    chrome = unread._PageChrome(doc)
    expected = _spaced_text(basic_cleaning(copy.deepcopy(el)))
    assert unread._spaced_words(el, chrome.blocks) == expected


@pytest.mark.parametrize("comments", [False, True])
@pytest.mark.parametrize("page", ["CHROME_PAGE", "NESTED_PAGE", "NO_PARAGRAPH_PAGE", "NAV_PAGE", "SHORT_PAGE"])
def test_trafilatura_reads_the_same_without_the_chrome(page, comments):
    """Asides and footers taken out, navs emptied (or left, where a rule says so): the same text."""
    doc = parse_html(globals()[page])
    before = lxml.html.tostring(doc)
    assert candidate_text(doc, "trafilatura", include_comments=comments) == _expected(doc, comments)
    assert lxml.html.tostring(doc) == before


def test_no_nav_emptied_when_the_rescue_may_read_the_whole_page(monkeypatch):
    doc = parse_html(SHORT_PAGE)
    expected = _expected(doc)
    assert expected.startswith("Section 0\nSection 1\n")  # (its whole-page text, a line per text)
    with unread.unread_detached(doc):
        assert len(doc.find(".//nav")) == 1
    monkeypatch.setattr(unread, "_paragraph_stays", lambda *args: True)
    assert candidate_text(doc, "trafilatura") != expected  # (the rule is needed)


def test_nothing_taken_out_with_another_trafilatura(monkeypatch):
    """The rules were read from one trafilatura release: with another, the candidate reads the
    whole page (slower, and still trafilatura's own text)."""
    import trafilatura

    doc = parse_html(CHROME_PAGE)
    before = lxml.html.tostring(doc)
    assert unread._verified_trafilatura()  # (the pinned release is the one installed)
    monkeypatch.setattr(trafilatura, "__version__", "9.9.9")
    unread._verified_trafilatura.cache_clear()
    try:
        with unread.unread_detached(doc):
            assert lxml.html.tostring(doc) == before
        assert candidate_text(doc, "trafilatura") == _expected(doc)
    finally:
        monkeypatch.undo()
        unread._verified_trafilatura.cache_clear()
    assert unread._verified_trafilatura()
