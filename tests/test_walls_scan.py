"""walls: the consent dialog and the paywall container are looked for only among the elements
whose id or class holds one of the pattern's words (one search over all of a page's id and
class values, issue 13 item 6). The answers are the ones the scan of every identified element
gave, on real pages and on the cases the case-folding and the value offsets must get right.
The controls outside chrome are counted as the body's controls less those inside each
outermost chrome element; the count is the one the ancestor walk per control gave."""

from __future__ import annotations

import gzip
from pathlib import Path

import lxml.etree
import lxml.html
import pytest

from gatecrawl.core import page, walls
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.pageindex import PageIndex

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]
JUNK = Path(__file__).resolve().parent.parent / "bench" / "junk"

_IDENTIFIED = lxml.etree.XPath("descendant::*[@id or @class]")
_IDENTIFIED_OR_SELF = lxml.etree.XPath("descendant-or-self::*[@id or @class]")


def _outermost_scan(body, pred) -> list:
    """walls._outermost as it was written before: ``pred`` asked of every element, top down,
    not inside a match."""
    out = []
    stack = list(body)
    stack.reverse()
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        if pred(el):
            out.append(el)
        else:
            children = list(el)
            children.reverse()
            stack.extend(children)
    return out


def _consent_scan(doc):
    """consent_dialog as it was written before: every identified element is tested."""
    body = doc.find(".//body")
    if body is None:
        body = doc

    def is_consent(el) -> bool:
        ident = walls._ident(el)
        return (bool(ident) and el.tag.lower() not in ("html", "body") and walls._CONSENT_IDENT.search(ident) is not None
                and not page._holds_main(el)
                and any(isinstance(d.tag, str) and d.tag.lower() in walls._CONTROLS for d in el.iterdescendants())
                and not walls._holds_prose(el))

    found = [el for el in _IDENTIFIED(body) if is_consent(el)]
    if len(found) >= 2:
        held = set(found)
        found = [el for el in found if not any(a in held for a in el.iterancestors() if a is not body)]
    if not found:
        return None
    total = len(walls.visible_text(body))
    consent = sum(len(walls.visible_text(el)) for el in found)
    if consent == 0:
        return None
    chrome_test = page._chrome_test(total)
    chrome_els = _outermost_scan(body, lambda el: is_consent(el) or chrome_test(el))
    chrome = sum(len(walls.visible_text(el)) for el in chrome_els if not is_consent(el))
    ident = walls._ident(found[0])
    return {"container": f"{found[0].tag}.{ident}"[:80], "consent_chars": consent, "chrome_chars": chrome,
            "other_chars": max(0, total - consent - chrome)}


def _paywall_scan(doc):
    for el in _IDENTIFIED_OR_SELF(doc):
        if el.tag.lower() in ("html", "body"):
            continue
        ident = walls._ident(el)
        if ident and walls._PAYWALL_IDENT.search(ident):
            return {"container": f"{el.tag}.{ident}"[:80], "container_chars": len(walls.visible_text(el))}
    return None


_BUTTON = "<button>OK</button>"
_DOTTED_I = "\u0130" * 12
CASES = {
    "upper_case": f'<div class="COOKIE-Banner">We use cookies {_BUTTON}</div><p>{"text " * 50}</p>',
    # letters the case-insensitive pattern matches as ASCII ones: Kelvin sign, long s, dotless/dotted i
    "kelvin_sign": f'<div class="coo\u212aie-notice">Cookies {_BUTTON}</div><p>{"text " * 50}</p>',
    "long_s": f'<div id="con\u017fent-box">Consent {_BUTTON}</div><p>{"text " * 50}</p>',
    "dotless_i": f'<div class="pr\u0131vacy-wall">Privacy {_BUTTON}</div><div class="PAYWALL-\u0130t">x</div>',
    # U+0130 lower-cases to two characters: the offsets after it must still name the right value
    "dotted_capital_i_before": (f'<div class="{_DOTTED_I}"></div><div class="a"></div><div class="b"></div>'
                                f'<div class="consent">Consent {_BUTTON}</div><p class="paywall">x</p>'),
    # values that hold line breaks: the value offsets must not be counted by lines
    "multi_line_values": ('<div class="a\nb\nc"></div><div id="x\ny" class="p\nq"></div>'
                          f'<div class="one\ntwo consent">Consent {_BUTTON}</div>'
                          '<section class="\n\npaywall\n">locked</section>'),
    "id_and_class_both": f'<div id="cookie-bar" class="consent cookie">Cookies {_BUTTON}</div>',
    "nested": f'<div class="consent-wrap"><div class="consent-inner">Yes {_BUTTON}</div></div><nav>{"menu " * 9}</nav>',
    "word_without_token": f'<div class="myconsentx">Consent {_BUTTON}</div><div class="buyer">x</div>',
    "paywall_in_head_and_body": '<html><head><meta class="paywall"></head><body><div class="buy-box">Buy</div></body></html>',
    "none": "<p>Plain page</p>",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cases_answer_as_the_scan(name):
    doc = parse_html(CASES[name].encode("utf-8"), content_type="text/html; charset=utf-8")
    assert walls.consent_dialog(doc) == _consent_scan(doc)
    assert walls.paywall_container(doc) == _paywall_scan(doc)
    signals = walls.page_signals(doc)
    assert signals["consent"] == _consent_scan(doc)
    assert signals["paywall_container"] == _paywall_scan(doc)


def test_cases_find_what_they_should():
    """The cases are not vacuous: the folded and the multi-line ones are found."""
    for name in ("upper_case", "kelvin_sign", "long_s", "multi_line_values", "nested", "dotted_capital_i_before"):
        doc = parse_html(CASES[name].encode("utf-8"), content_type="text/html; charset=utf-8")
        assert walls.consent_dialog(doc) is not None, name
    doc = parse_html(CASES["multi_line_values"].encode("utf-8"), content_type="text/html; charset=utf-8")
    assert walls.paywall_container(doc)["container"].startswith("section.")


def _pages():
    bodies = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    bodies += [p.read_bytes() for p in sorted(JUNK.glob("*/*.html"))]
    for corpus in CORPORA:
        if corpus.is_dir():
            bodies += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:60]]
    return bodies


def test_real_pages_answer_as_the_scan():
    pages = _pages()
    assert len(pages) > 20
    found = 0
    for body in pages:
        doc = parse_html(body, content_type="text/html")
        old = (_consent_scan(doc), _paywall_scan(doc))
        assert (walls.consent_dialog(doc), walls.paywall_container(doc)) == old
        found += old[0] is not None
    assert found  # some page has a consent dialog


_CHROME_TAGS = {"nav", "header", "footer", "aside"}


def _choice_controls_scan(doc):
    """choice_controls as it was written before: an ancestor walk per control."""
    body = doc.find(".//body")
    if body is None:
        body = doc
    n = 0
    for el in body.iter("a", "button", "input"):
        if any(isinstance(a.tag, str) and (a.tag.lower() in _CHROME_TAGS or (a.get("role") or "").lower() in walls._CHROME_ROLE)
               for a in el.iterancestors()):
            continue
        if el.tag == "input" and (el.get("type") or "").lower() not in ("submit", "button"):
            continue
        n += 1
    return n


def test_choice_controls_count_as_the_ancestor_walk():
    html = ('<nav><a href="/1">1</a><div><a href="/2">2</a></div></nav><div role="Navigation"><button>b</button></div>'
            '<header><input type="submit"></header><main><a href="/3">3</a><input type="text"><input type="BUTTON">'
            '<footer><a href="/4">4</a></footer><a role="navigation" href="/5">5</a></main>')
    doc = parse_html(html.encode(), content_type="text/html")
    assert walls.choice_controls(doc) == _choice_controls_scan(doc) == 3
    # a chrome element around the body, the body itself chrome
    for html in ('<html role="banner"><body><a href="/1">1</a></body></html>',
                 '<html><body role="navigation"><a href="/1">1</a><button>b</button></body></html>'):
        doc = parse_html(html.encode(), content_type="text/html")
        assert walls.choice_controls(doc) == _choice_controls_scan(doc) == 0
    for body in _pages():
        doc = parse_html(body, content_type="text/html")
        assert walls.choice_controls(doc) == walls.choice_controls(doc, index=PageIndex(doc)) == _choice_controls_scan(doc)


def test_choice_controls_leave_out_the_controls_outside_the_body():
    """The body's controls are the document's less those above and beside the body (taken
    from the index's lists): controls in the head, in a wrapper around the body, beside it,
    on the root itself."""
    E = lxml.html.Element

    def el(tag, parent=None, **attrs):
        node = E(tag, **attrs)
        if parent is not None:
            parent.append(node)
        return node

    doc = el("a", href="/r")
    head = el("head", doc)
    el("a", head, href="/h"), el("button", head), el("input", head, type="submit")
    wrapper = el("div", doc)
    el("input", wrapper, type="Submit")
    body = el("body", wrapper)
    el("a", body, href="/1"), el("input", body, type="button"), el("input", body, type="text")
    el("a", el("nav", body), href="/n")
    el("a", wrapper, href="/after"), el("button", doc)
    assert doc.find(".//body") is body
    assert walls.choice_controls(doc) == walls.choice_controls(doc, index=PageIndex(doc)) == _choice_controls_scan(doc) == 2
