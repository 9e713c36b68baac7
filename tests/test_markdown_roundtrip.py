"""``reads_back`` (gatecrawl.core.markdown.roundtrip) tells when lxml's HTML serialiser and parser
give the prepared tree back unchanged, so that the writer may read the tree itself: its tables
are libxml2's (checked against the installed libxml2), a tree it accepts comes back identical
from the reparse, and the Markdown is the same through either path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import lxml.etree
import lxml.html
import pytest

import gatecrawl.core.markdown.writer as writer
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import to_markdown
from gatecrawl.core.markdown.conversion import _reparse
from gatecrawl.core.markdown.converter import GatecrawlConverter
from gatecrawl.core.markdown.roundtrip import _CLOSED_BY, _NOT_READ_BACK, VOID, NotReadBack, reads_back

FIXTURES = Path(__file__).parent / "fixtures"

TAGS = sorted(set(
    "a abbr acronym address applet area article aside b base basefont bdi bdo big blockquote br "
    "button caption center cite code col colgroup dd del details dfn dir div dl dt em embed "
    "fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 header hr i "
    "iframe img input ins isindex kbd label legend li link listing main map mark menu meta nav "
    "noembed noframes noscript object ol optgroup option p param plaintext pre q s samp script "
    "section select small source span strike strong style sub summary sup table tbody td "
    "textarea tfoot th thead time title tr tt u ul var video wbr xmp custom-el o:p".split()))


def _serialise(el) -> str:
    return lxml.html.tostring(el, encoding="unicode", method="html")


def _below_body(el):
    """The reparsed copy of ``el`` (the element the parser put below ``<body>``)."""
    return _reparse(_serialise(el)).find("body")[0]


def _same(a, b) -> bool:
    if a.tag != b.tag or (a.text or "") != (b.text or "") or (a.tail or "") != (b.tail or ""):
        return False
    if dict(a.attrib) != dict(b.attrib) or len(a) != len(b):
        return False
    return all(_same(x, y) for x, y in zip(a, b))


def test_closed_by_is_libxml2s_start_close_table():
    for parent in TAGS:
        if parent in VOID or parent in _NOT_READ_BACK:
            continue
        for child in TAGS:
            if child in ("html", "head", "body"):
                continue
            div = lxml.html.Element("div")
            p = lxml.etree.SubElement(div, parent, id="p")
            x = lxml.etree.SubElement(p, child, id="x")
            if child not in VOID:
                x.text = "t"
            p.tail = "after"
            got = _below_body(div)
            inside = got.find(".//*[@id='x']").getparent().get("id") == "p"
            assert inside == (child not in _CLOSED_BY.get(parent, ())), (parent, child)


def test_void_and_raw_text_elements_are_libxml2s():
    for tag in TAGS:
        if tag in ("html", "head", "body"):
            continue
        div = lxml.html.Element("div")
        el = lxml.etree.SubElement(div, tag)
        el.text = "a & b"
        lxml.etree.SubElement(el, "span").text = "c"
        el.tail = "d"
        same = _same(div, _below_body(div))
        assert same == (tag not in VOID and tag not in _NOT_READ_BACK), tag


def test_an_empty_list_item_is_left_open():
    ul = lxml.html.fromstring("<ul><li></li><li>x</li></ul>")
    assert reads_back(ul) and _same(ul, _below_body(ul))
    for html in ("<ul><li></li> <li>x</li></ul>", "<ul><li></li><p>x</p></ul>"):
        ul = lxml.html.fromstring(html)
        assert not reads_back(ul) and not _same(ul, _below_body(ul))


_FUZZ_TAGS = ("div p span a b i em strong li ul ol h2 h3 table tr td th tbody thead pre blockquote "
              "br img hr code dl dt dd section custom-el o:p noembed xmp title u s small font center "
              "form fieldset caption col colgroup option address listing menu dir Upper").split()
_FUZZ_TEXTS = ["", None, None, " ", "\n  ", "x", "a & b", "<t>", "\u00e9", "&amp;", "\xa0", "y--z"]


def _tree(rng: random.Random, depth: int):
    el = lxml.html.Element(rng.choice(_FUZZ_TAGS))
    el.text = rng.choice(_FUZZ_TEXTS)
    if rng.random() < 0.2:
        el.set("class", rng.choice(["x", "a\"'b", "\u00e9 <z>"]))
    if depth < 4:
        for _ in range(rng.choice((0, 0, 1, 2, 3))):
            child = _tree(rng, depth + 1)
            child.tail = rng.choice(_FUZZ_TEXTS)
            el.append(child)
    return el


def _fuzz_roots(n: int):
    rng = random.Random(3)
    for _ in range(n):
        root = lxml.html.Element(rng.choice(["div", "p", "span", "li", "td", "section"]))
        root.text = rng.choice(_FUZZ_TEXTS)
        for _ in range(rng.randint(0, 4)):
            child = _tree(rng, 1)
            child.tail = rng.choice(_FUZZ_TEXTS)
            root.append(child)
        yield root


def test_a_tree_that_reads_back_comes_back_identical():
    accepted = 0
    for root in _fuzz_roots(6000):
        if reads_back(root):
            accepted += 1
            doc = _reparse(_serialise(root))
            body = doc.find("body")
            assert len(doc) == 1 and len(body) == 1 and not body.text, _serialise(root)
            assert _same(root, body[0]), _serialise(root)
    assert accepted > 1000


def _writes_plain(root) -> bool:
    try:
        GatecrawlConverter([]).write(root, plain=True)
    except NotReadBack:
        return False
    return True


def test_the_writer_reads_directly_the_trees_that_read_back():
    for root in _fuzz_roots(3000):
        assert _writes_plain(root) == reads_back(root), _serialise(root)
    for n in (150, 199, 200, 201, 260):
        deep = lxml.html.fromstring("<div>" * n + "x" + "</div>" * n)
        assert _writes_plain(deep) == reads_back(deep) == (n <= 200), n


def test_a_tree_too_deep_for_the_parser_is_reparsed():
    deep = lxml.html.fromstring("<div>" * 260 + "x" + "</div>" * 260)
    assert not reads_back(deep)
    assert reads_back(lxml.html.fromstring("<div>" * 150 + "x" + "</div>" * 150))


def _cases():
    return sorted(p.name for p in FIXTURES.iterdir() if (p / "input.html").is_file())


@pytest.mark.parametrize("case", _cases())
def test_the_markdown_is_the_same_through_the_reparse(case, monkeypatch):
    d = FIXTURES / case
    meta = json.loads((d / "meta.json").read_text("utf-8")) if (d / "meta.json").exists() else {}
    body = parse_html((d / "input.html").read_bytes()).find("body")
    base = meta.get("base_url", "https://example.com/page.html")
    direct = to_markdown(body, base_url=base)
    monkeypatch.setattr(writer, "root_reads_back", lambda root: False)  # every tree reparsed
    reparsed = to_markdown(body, base_url=base)
    assert (direct.text, direct.title, direct.provenance) == \
        (reparsed.text, reparsed.title, reparsed.provenance)


def test_a_root_that_reads_back_is_placed_in_the_body():
    for tag in TAGS:
        root = lxml.html.Element(tag)
        root.text = "a"
        lxml.etree.SubElement(root, "b").text = "c"
        if reads_back(root):
            doc = _reparse(_serialise(root))
            body = doc.find("body")
            assert body is not None and len(doc) == 1 and len(body) == 1, tag
            assert _same(root, body[0]), tag

