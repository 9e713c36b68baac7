"""The page type's counts read the way they are now give what the plain scans gave: the prices
found through the index's search (``_price_count``), the thread posts skipped by the last
container taken (``_repeated_posts``), the listing share measured for the largest group only
(``_repeated_items``), and the text measure of an element without children."""

from __future__ import annotations

import gzip
from pathlib import Path

import lxml.html

from gatecrawl.core import pagetype
from gatecrawl.core.extract import collapsed_menu_chars
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.pageindex import PageIndex, find_below

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]

_CASES = [
    # price classes (one cased as the case-blind pattern reads it), an id naming a price, itemprop
    '<html><body><div class="Pri\u0130ce-box"><span class="price">$ 5</span></div><b id="price">$ 7</b>'
    '<span itemprop="price" class="amount">10 EUR</span><span itemprop="price">3 EUR</span>'
    '<i class="co\u017ft">\u20ac 2</i><button>Add to cart</button></body></html>',
    # price words in the head only
    '<html><head><meta class="price" content="x"></head><body><p class="x">$ 5</p></body></html>',
    # thread posts inside posts
    '<html><body>' + ''.join(
        f'<div class="post"><time>t</time><p>{"words of a reply " * 5}</p>'
        f'<div class="comment"><time>u</time>{"nested reply text " * 5}</div></div>' for _ in range(4))
    + '</body></html>',
    # a listing of cards, a menu of bare links
    '<html><body><ul>' + ''.join(f'<li class="m"><a href="/{i}">m{i}</a></li>' for i in range(9)) + '</ul>'
    '<div>' + ''.join(f'<div class="card"><a href="/c{i}">Card {i}</a> by someone, $ {i}</div>' for i in range(12))
    + '</div><p>' + "text " * 40 + '</p></body></html>',
]


def _docs() -> list:
    raw = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    for corpus in CORPORA:
        if corpus.is_dir():
            raw += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:80]]
    docs = [parse_html(b) for b in raw]
    return docs + [parse_html(c.encode("utf-8"), content_type="text/html; charset=utf-8") for c in _CASES]


def _plain_text_len(el) -> int:
    return len(" ".join((el.text_content() or "").split()))


def _plain_posts(body) -> tuple[int, float]:
    n = chars = 0
    inside: set = set()
    for el in body.iter(*pagetype._POST_TAGS):
        if el in inside or not pagetype._post_ident(f"{el.get('class') or ''} {el.get('id') or ''}"):
            continue
        if el.find(".//time") is None and not pagetype._DATE_CLASS.search("\n".join(pagetype._CLASSES(el))):
            continue
        size = _plain_text_len(el)
        if size < 40:
            continue
        inside.update(el.iter())
        n += 1
        chars += size
    return n, (chars / max(1, _plain_text_len(body)) if chars and n >= pagetype.FORUM_MIN_POSTS else 0.0)


def _plain_items(body) -> tuple[int, float]:
    total = max(1, _plain_text_len(body) - collapsed_menu_chars(body))
    best_n, best_share = 0, 0.0
    for _parent, items in pagetype._sibling_groups(body, ("ul", "ol", "div", "section", "main", "tbody")):
        linked = [it for it in items if it.find(".//a") is not None]
        if len(linked) < 0.8 * len(items):
            continue
        share = sum(_plain_text_len(it) for it in linked) / total
        if share > best_share:
            best_n, best_share = len(items), share
    return best_n, best_share


def test_counts_are_the_plain_scans():
    prices = posts = listings = 0
    for doc in _docs():
        index = PageIndex(doc)
        body = find_below(doc, "body", index)
        if body is None:
            continue
        plain = sum(1 for el in pagetype._price_candidates(body)
                    if (pagetype._PRICE_CLASS.search(el.get("class") or "") or el.get("itemprop") == "price")
                    and pagetype._CURRENCY.search(el.text_content() or ""))
        assert pagetype._price_count(body, index) == plain == pagetype._price_count(body)
        prices += plain
        expected = _plain_posts(body)
        assert pagetype._repeated_posts(body, index) == expected == pagetype._repeated_posts(body)
        posts += expected[0]
        n, share = _plain_items(body)
        assert pagetype._repeated_items(body) == (n, share)
        assert pagetype._repeated_items(body, pagetype.LISTING_MIN_ITEMS) == (n, share if n >= 8 else 0.0)
        listings += n >= 8 and share >= 0.4
        for el in list(body.iter("p", "li"))[:50]:
            assert pagetype._text_len(el) == _plain_text_len(el)
    assert prices >= 5 and posts >= 8 and listings >= 1


def test_text_len_of_an_element_without_children():
    el = lxml.html.fromstring("<p>  two \u00a0 words\u2009 </p>")
    assert pagetype._text_len(el) == len("two words") == _plain_text_len(el)
    assert pagetype._text_len(lxml.html.fromstring("<p></p>")) == 0
