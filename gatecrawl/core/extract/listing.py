"""Listing rescue: the page's repeated items when the selection missed them."""

from __future__ import annotations

import lxml.etree

from gatecrawl.core import pagetype
from gatecrawl.core.extract.dom import _text_len


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
