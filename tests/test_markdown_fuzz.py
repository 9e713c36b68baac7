"""Robustness: parse_html + select_main + to_markdown never raise, whatever the input.

``to_markdown`` has no guard of its own (an internal error propagates, and ``convert()`` ends
the page as ``converter_error``), so any exception in the Markdown conversion fails these
tests. The structured strategy nests the block constructs (definition lists, details,
admonitions, figures) inside each other and inside lists, quotes and tables, and checks that
no text is lost and no raw HTML is written."""

from __future__ import annotations

import hashlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecrawl.core.extract import _select_main, select_main
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import MarkdownResult, to_markdown

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
        "caption", "sup", "q", "del", "form", "input", "svg", "math", "template", "base",
        "details", "summary", "aside", "section"]
ATTRS = [' href="javascript:x"', ' href="/rel"', " href='mailto:a@b.c'", ' src="data:x"',
         ' class="language-py share comments"', ' colspan="3"', ' rowspan="0"', ' colspan="x"',
         ' hidden', ' style="display:none"', ' role="main"', ' id="content"', "",
         ' class="admonition note"', ' class="admonition-title"', ' class="note"',
         ' class="markdown-alert markdown-alert-warning"', ' class="markdown-alert-title"',
         ' class="theme-admonition theme-admonition-tip"', ' class="alert alert-info"',
         ' class="alert-heading"', ' class="admonitionblock caution"', ' class="icon"',
         ' class="content"', ' class="callout callout-tip"']
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
    # select_main's guard must not be needed either; to_markdown has none
    doc = parse_html(body.encode("utf-8", "surrogatepass"), content_type=content_type)
    sel = _select_main(doc, main_selectors=(), exclude_selectors=(), keep_comments=False)
    to_markdown(sel.root, base_url=BASE)
    to_markdown(doc.find("body"), base_url=BASE)
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


# --------------------------------------------------------------------------- block constructs

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"]
PHRASE = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
ADMONITIONS = [
    ("<div class='admonition {t}'><p class='admonition-title'>{title}</p>{body}</div>", True),
    ("<div class='admonition {t}'>{body}</div>", False),
    ("<div class='markdown-alert markdown-alert-{t}'><p class='markdown-alert-title'>{title}</p>"
     "{body}</div>", True),
    ("<div class='theme-admonition theme-admonition-{t} alert alert--{t}'><div "
     "class='admonitionHeading_x'>{title}</div><div class='admonitionContent_y'>{body}</div></div>",
     True),
    ("<aside class='callout callout-{t}'>{body}</aside>", False),
    ("<details class='{t}'><summary>{title}</summary>{body}</details>", True),
    ("<div class='admonitionblock {t}'><table><tr><td class='icon'><div class='title'>{title}"
     "</div></td><td class='content'>{body}</td></tr></table></div>", True),
]
# a leaf is (html, words, fenced code blocks, pipe tables)
LEAVES = st.one_of(
    PHRASE.map(lambda p: (f"<p>{p}</p>", p.split(), 0, 0)),
    st.tuples(PHRASE, PHRASE).map(lambda t: (
        f"<pre><code class='language-py'>{t[0]}\n{t[1]}</code></pre>", (t[0] + " " + t[1]).split(), 1, 0)),
    st.tuples(PHRASE, PHRASE, PHRASE, PHRASE).map(lambda t: (
        f"<table><tr><th>{t[0]}</th><th>{t[1]}</th></tr><tr><td>{t[2]}</td><td>{t[3]}</td></tr></table>",
        " ".join(t).split(), 0, 1)),
    PHRASE.map(lambda p: (f"<ul><li>{p}</li></ul>", p.split(), 0, 0)),
    PHRASE.map(lambda p: (f"<p><img src='/i.png' alt='{p}'></p>", p.split(), 0, 0)),
)


def _seq(parts):
    return ("".join(p[0] for p in parts), [w for p in parts for w in p[1]],
            sum(p[2] for p in parts), sum(p[3] for p in parts))


@st.composite
def _block(draw, children):
    body = _seq(draw(st.lists(children, min_size=1, max_size=3)))
    html, words, codes, tables = body
    kind = draw(st.integers(0, 6))
    if kind == 0:  # definition list, optionally grouped in divs
        entries = draw(st.lists(st.tuples(st.lists(PHRASE, min_size=1, max_size=2),
                                          st.lists(children, min_size=1, max_size=2)),
                                min_size=1, max_size=3))
        grouped = draw(st.booleans())
        out, words, codes, tables = [], [], 0, 0
        for terms, defs in entries:
            d = [_seq([dd]) for dd in defs]
            group = "".join(f"<dt>{t}</dt>" for t in terms) + "".join(f"<dd>{x[0]}</dd>" for x in d)
            out.append(f"<div>{group}</div>" if grouped else group)
            words += [w for t in terms for w in t.split()] + [w for x in d for w in x[1]]
            codes += sum(x[2] for x in d)
            tables += sum(x[3] for x in d)
        return f"<dl>{''.join(out)}</dl>", words, codes, tables
    if kind == 1:  # details
        summary = draw(PHRASE)
        return f"<details><summary>{summary}</summary>{html}</details>", summary.split() + words, codes, tables
    if kind == 2:  # admonition
        template, titled = draw(st.sampled_from(ADMONITIONS))
        typ = draw(st.sampled_from(["note", "tip", "warning", "danger", "important", "caution"]))
        title = draw(PHRASE) if titled else ""
        out = template.format(t=typ, title=title, body=html)
        return out, title.split() + words, codes, tables
    if kind == 3:  # figure, caption first or last
        caption = draw(PHRASE)
        cap = f"<figcaption>{caption}</figcaption>"
        out = f"<figure>{cap}{html}</figure>" if draw(st.booleans()) else f"<figure>{html}{cap}</figure>"
        return out, words + caption.split(), codes, tables
    if kind == 4:  # list item holding blocks
        return f"<ul><li>{html}</li><li>end</li></ul>", words + ["end"], codes, tables
    if kind == 5:
        return f"<blockquote>{html}</blockquote>", words, codes, tables
    # layout table (a cell with two paragraphs): unwrapped, its cells' blocks stay
    return (f"<table><tr><td>{html}</td><td><p>cell</p><p>cell</p></td></tr></table>",
            words + ["cell", "cell"], codes, tables)


BLOCKS = st.recursive(LEAVES, lambda children: _block(children), max_leaves=10)
_MD = None


def _parse_md(text: str):
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark", {"html": True}).enable("table")
    return _MD.parse(text)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(BLOCKS, min_size=1, max_size=3))
def test_block_constructs_nested(blocks):
    html, words, codes, tables = _seq(blocks)
    body = parse_html(f"<html><body>{html}</body></html>".encode()).find("body")
    res = to_markdown(body, base_url=BASE)
    text = res.text
    assert text.endswith("\n") and not text.endswith("\n\n") and "\n\n\n" not in text
    assert to_markdown(body, base_url=BASE).text == text  # deterministic
    low = text.lower()
    for w in set(words):  # no text lost (labels may change the case of a title word)
        assert low.count(w) >= words.count(w), (w, html, text)
    tokens = _parse_md(text)
    assert not [t for t in tokens if t.type == "html_block"], text
    for tok in tokens:
        assert not [c for c in tok.children or [] if c.type == "html_inline"], text
    # every code block is still a fenced block, every data table still a table
    assert sum(t.type == "fence" for t in tokens) == codes, text
    assert sum(t.type == "table_open" for t in tokens) == tables, text
