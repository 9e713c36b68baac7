"""Repeated linked items: lists of teasers leave the page (``exclude_related``, a pattern rule),
and the listing rescue takes the page's repeated items when the selection missed them."""

from __future__ import annotations

import lxml.etree

from gatecrawl.core import pagetype
from gatecrawl.core.extract.dom import _drop, _is_el, _short_lengths, _text_len


#: listing rescue: the page's largest group of repeated linked items has at least this many items
LISTING_RESCUE_MIN_ITEMS = 8
#: ... holding at least this share of the page's text
LISTING_RESCUE_MIN_SHARE = 0.1
#: ... and the selection holds less than this share of the group's text
LISTING_RESCUE_MAX_RATIO = 0.15


def _listing_rescue(body: lxml.etree._Element, selected_chars: int, body_chars: int | None = None):
    """The container of the page's repeated items when the selection missed them: a group of
    at least ``LISTING_RESCUE_MIN_ITEMS`` cards (siblings with a link and text of their own,
    outside navigation, header, footer and aside) holding ``LISTING_RESCUE_MIN_SHARE``
    of the page's text, next to which the selection is tiny (under
    ``LISTING_RESCUE_MAX_RATIO`` of the group's text): a product grid or a result list whose
    density score lost to a banner or a single paragraph. None otherwise. ``body_chars``:
    ``_text_len(body)`` when the caller has it."""
    if selected_chars >= LISTING_RESCUE_MAX_RATIO * (_text_len(body) if body_chars is None else body_chars):
        return None  # a group holds no more text than the page: the selection is not tiny next to it
    parent, n, share = pagetype.largest_card_group(body)
    if parent is None or n < LISTING_RESCUE_MIN_ITEMS or share < LISTING_RESCUE_MIN_SHARE:
        return None
    if selected_chars >= LISTING_RESCUE_MAX_RATIO * _text_len(parent):
        return None
    return parent


def _looks_like_teaser(item: lxml.etree._Element) -> bool:
    links = [a for a in item.iter("a") if a.get("href")]
    if not links:
        return False  # (looked at first: an item without links is not measured)
    n = _text_len(item)
    if n == 0 or n > 600:
        return False
    headed = any(True for h in item.iter("h2", "h3", "h4", "h5", "h6")
                 if any(True for _ in h.iter("a")) or h.getparent().tag == "a")
    pictured = any(True for a in links if any(True for _ in a.iter("img")))
    # (a headed item is a teaser whatever its text ends with: its text is not read)
    truncated = not headed and item.text_content().rstrip().endswith(("...", "…", "[…]", "[...]"))
    if not (headed or pictured or truncated or any(True for _ in item.iter("time"))):
        return False
    link_chars = sum(_text_len(a) for a in links)
    return headed or truncated or link_chars >= 0.2 * n or n < 120


def _drop_teaser_lists(root, total, protected, fired) -> None:
    """Containers whose children are mostly teasers (link + heading/image/date, short)."""
    # Containers of 3+ items, measured once before the loop (a removal comes after the
    # removed element's visit and changes only the text around it, not what is visited later)
    # and bottom-up: one around a container over half the page is over half the page too.
    cands = [el for el in root.iter("div", "section", "ul", "ol")
             if len(el) >= 3 and el is not root and el not in protected and _three_elements(el)]
    at_most_half = _short_lengths(cands, int(0.5 * total) + 1)
    for el in cands:
        if el.getparent() is None or el not in at_most_half:
            continue
        items = [c for c in el if _is_el(c)]
        if _mostly_teasers(items):
            _drop(el)
            fired.add("exclude_related")


def _three_elements(el: lxml.etree._Element) -> bool:
    """``el`` has at least three element children (not counting comments and the like): its
    first three children are elements (most of the time, three indexings), or three of all its
    children are."""
    return (_is_el(el[0]) and _is_el(el[1]) and _is_el(el[2])) or sum(1 for c in el if _is_el(c)) >= 3


def _mostly_teasers(items: list) -> bool:
    """At least 3 of ``items``, and at least 60% of them, look like teasers. The items are
    looked at in order until the answer is known (the test is pure)."""
    need = max(3, 0.6 * len(items))
    teasers = 0
    left = len(items)
    for c in items:
        if teasers + left < need:
            return False
        left -= 1
        if _looks_like_teaser(c):
            teasers += 1
            if teasers >= need:
                return True
    return False
