"""Block rules applied inside the selection, by text and link share: repeated captions and
leaf blocks (``exclude_duplicate``), cookie notices (``exclude_cookie_banner``), copyright and
legal lines (``exclude_footer``), link-dense blocks (``exclude_link_dense``)."""

from __future__ import annotations

import lxml.etree

from gatecrawl.core.extract.dom import _BLOCKS, _attrs, _drop, _fold, _is_el, _rx, _short_lengths, _squash, _text_len
from gatecrawl.core.extract.patterns import _keep_kind


_LEGAL_RX = _rx(r"©|\(c\) \d{4}|all rights reserved|terms (?:&|and) conditions|terms of (?:use|service)"
                r"|privacy policy|cookie policy")


_STRONG_LEGAL_RX = _rx(r"all rights reserved|registered trademarks? of|for your personal, non-commercial use"
                      r"|have not been evaluated by the food and drug")


_COOKIE_TEXT_RX = _rx(r"\bcookies?\b.{0,120}\b(?:website|site|browsing|experience|consent|accept|agree|"
                      r"settings|opt-?out)\b|\b(?:website|site|we) uses? cookies\b"
                      r"|processing of my personal data")


#: words one of which every match of ``_LEGAL_RX`` (``_STRONG_LEGAL_RX``, ``_COOKIE_TEXT_RX``)
#: holds, in ``_fold``ed text
_LEGAL_WORDS = ("©", "(c) ", "all rights reserved", "terms ", "privacy policy", "cookie policy")
_STRONG_LEGAL_WORDS = ("all rights reserved", "registered trademark", "for your personal, non-commercial use",
                       "have not been evaluated by the food and drug")
_COOKIE_WORDS = ("cookie", "processing of my personal data")


def _clean_links(root: lxml.etree._Element, fired: set[str], skip: frozenset = frozenset(),
                 kinds: list | None = None) -> None:
    """Link-dense lists and blocks (menus, tag clouds, "related" link lists), legal lines,
    repeated blocks (a caption or teaser that appears twice is kept once). ``kinds``: the
    ``(element, kind)`` list of ``patterns._protected_blocks`` from a walk of a tree that
    ``root`` is a part of, changed since by removals only: the elements below ``root`` whose
    class/id words name a caption are read from it."""
    seen: set[str] = set()
    if kinds is None:
        names_caption: dict = {}  # element -> its class/id names a caption (siblings share a parent)

        def caption_named(x) -> bool:
            v = names_caption.get(x)
            if v is None:
                v = names_caption[x] = _keep_kind(_attrs(x)) == "caption"
            return v
    else:
        captions = {el for el, kind in kinds if kind == "caption"}
        root_named = _keep_kind(_attrs(root)) == "caption"

        def caption_named(x) -> bool:
            return root_named if x is root else x in captions

    for el in list(root.iter("figcaption", "div", "span", "p")):
        parent = el.getparent()
        if el is root or parent is None:
            continue
        captionish = el.tag == "figcaption" or caption_named(el) or caption_named(parent)
        if el.tag != "figcaption" and not captionish:
            if el.tag != "div" or any(True for c in el if _is_el(c) and c.tag in _BLOCKS):
                continue
        t = _squash(el.text_content())
        if len(t) < 30:
            continue
        # captions often come twice (full and truncated, or page and lightbox copies):
        # the key is the first 60 characters for them, the whole text otherwise
        key = ("c:" + t[:60]) if captionish else ("t:" + t)
        if key in seen:
            _drop(el)
            fired.add("exclude_duplicate")
        else:
            seen.add(key)
    total = max(1, _text_len(root))
    # Measured once, before the loop: an element's text changes only when something inside it
    # is removed, and elements are visited in document order (a removal comes after the
    # element's own visit), so the figures hold at each visit.
    # An element's text is a part of the root's: a pattern none of whose words the root's text
    # holds matches no element's (one search over the root, not one per element).
    whole = _fold(root.text_content())
    cookie = any(w in whole for w in _COOKIE_WORDS)
    legal = any(w in whole for w in _LEGAL_WORDS)
    strong = any(w in whole for w in _STRONG_LEGAL_WORDS)
    cands = list(root.iter("p", "div", "small", "span")) if cookie or legal or strong else []
    short = _short_lengths(cands, 700)
    for el in cands:
        if el is root or el.getparent() is None:
            continue
        n = short.get(el, 0)
        if not n:  # empty, or 700 characters or more
            continue
        txt = el.text_content()
        folded = _fold(txt)  # (the words' test first: the case-blind patterns' scan is slow)
        if cookie and n < 500 and any(w in folded for w in _COOKIE_WORDS) and _COOKIE_TEXT_RX.search(txt):
            if el.tag == "div" and any(True for _ in el.iter("div", "ul", "table")):
                continue
            _drop(el)
            fired.add("exclude_cookie_banner")
            continue
        if legal and n < 200 and any(w in folded for w in _LEGAL_WORDS) and _LEGAL_RX.search(txt) or \
                strong and any(w in folded for w in _STRONG_LEGAL_WORDS) and _STRONG_LEGAL_RX.search(txt):
            if el.tag == "div" and any(True for _ in el.iter("p", "div", "ul", "table")):
                continue
            _drop(el)
            fired.add("exclude_footer")
    if "exclude_link_dense" in skip:
        return
    cands = list(root.iter("ul", "ol", "div", "section", "dl", "table"))
    short = _short_lengths(cands, 1500)  # 1,500 characters or more: never link-dense
    link_len: dict = {}  # a link's text, measured once (nothing inside it is removed here)
    for el in cands:
        if el is root or el.getparent() is None:
            continue
        n = short.get(el, 0)
        if not n:
            continue
        if n > 0.5 * total and n > 400:
            continue
        if any(True for _ in el.iter("figcaption")):
            continue
        link = nlinks = 0
        for a in el.iter("a"):
            k = link_len.get(a)
            if k is None:
                k = link_len[a] = _text_len(a)
            link += k
            nlinks += 1
        if link / n > 0.6:
            if nlinks >= 2 or el.tag in ("ul", "ol"):
                _drop(el)
                fired.add("exclude_link_dense")
