"""The repeated-block rule run after the vote: a later sibling that copies (or nearly copies)
an earlier one is a responsive or cloned duplicate and goes (``exclude_duplicate``)."""

from __future__ import annotations

import re

import lxml.etree

from gatecrawl.core.agreement import _shingles
from gatecrawl.core.extract.dom import _TOKEN_RX, _drop, _holding_blocks, _is_el, _squash


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: a repeated block: sibling copies shorter than this (normalised characters) are left alone
REPEAT_MIN_CHARS = 100
#: ... and so are copies holding fewer block elements than this (a paragraph repeated in each
#: tab of a tabbed code sample is a part of each tab, not a copy of a section)
REPEAT_MIN_BLOCKS = 2
#: ... a sibling sharing this share of its 4-token shingles with an earlier one (of the larger
#: of the two sets) is a copy too
NEAR_COPY_MIN = 0.9
_DIGITS_RX = re.compile(r"\d+")


def _cached_shingles(entry: list) -> set:
    """The 4-token shingles (``agreement._shingles``) of ``entry[0]`` lower-cased, computed
    once and kept in ``entry[1]``."""
    if entry[1] is None:
        entry[1] = _shingles(_TOKEN_RX.findall(entry[0].lower()))
    return entry[1]


def _near_copy(a: set, b: set) -> bool:
    """Two shingle sets share :data:`NEAR_COPY_MIN` of the larger one."""
    return bool(a) and bool(b) and len(a & b) >= NEAR_COPY_MIN * max(len(a), len(b))


def _drop_repeated_siblings(root: lxml.etree._Element, fired: set[str],
                            removed: list | None = None) -> None:
    """``exclude_duplicate`` for repeated blocks: an element holding at least
    ``REPEAT_MIN_BLOCKS`` block elements whose whole text (normalised, at least
    ``REPEAT_MIN_CHARS`` characters) equals an earlier *sibling*'s is a second copy of
    the same block (the mobile and desktop copies of a product description, one of them shown
    per screen size; a slider's cloned slide): the later copy goes, unless a heading lies
    between them (sibling sections of a flat page may share a paragraph). A near copy counts
    too: :data:`NEAR_COPY_MIN` of the shingles shared, the same numbers in the same order and no
    code in either (a page builder's variants differ by a label; a pricing tier differs in its
    price, a tab of a code sample in its code). Copies elsewhere in
    the page are not touched: the same feature list under each tier of a pricing table, the same
    criteria under each card of a comparison sit in cards whose texts differ. Removed text is
    appended to ``removed`` as ``("exclude_duplicate", text)``."""
    inside_gone: set = set()  # what lies inside a dropped copy is not looked at
    # A copy needs REPEAT_MIN_BLOCKS block elements, and an earlier sibling with as many:
    # only a parent of two such children can lose one. Counted once, before any removal: a
    # removal changes the counts of the removed copy's ancestors (visited already: a parent
    # comes before its children) and of what lies inside it (not looked at again).
    copyable_els = _holding_blocks(root, REPEAT_MIN_BLOCKS)
    twice: set = set()  # parents of at least two copyable elements
    once: set = set()
    for el in copyable_els:
        p = el.getparent()
        if p in once:
            twice.add(p)
        else:
            once.add(p)
    if not twice:
        return
    for parent in list(root.iter()):
        if parent not in twice or parent in inside_gone:
            continue
        kids = [c for c in parent if _is_el(c)]
        copyable = [kid in copyable_els for kid in kids]
        seen: set[str] = set()
        near: list[list] = []  # [text, its 4-token shingles once needed, holds no code] for seen
        for child, blocks in zip(kids, copyable):
            headed = child.tag in _HEADINGS or any(True for _ in child.iter(*_HEADINGS))
            if not headed and not blocks:
                continue  # neither starts a section nor can be a copy: its text is not needed
            t = _squash(child.text_content())
            copy = t in seen
            codeless = blocks and len(t) >= REPEAT_MIN_CHARS and not any(True for _ in child.iter("pre", "code"))
            mine = [t, None, codeless]
            if not copy and codeless and near:
                # a near copy: a responsive variant that differs by a label or a line break,
                # with the same numbers in the same order (the tiers of a pricing table differ
                # in their prices, the tabs of a code sample in their code: neither is a copy)
                digits = None  # (read once a text of about the same length is met)
                for other in near:
                    if NEAR_COPY_MIN * max(len(t), len(other[0])) <= min(len(t), len(other[0])) and other[2]:
                        if digits is None:
                            digits = _DIGITS_RX.findall(t)
                        if digits == _DIGITS_RX.findall(other[0]) and \
                                _near_copy(_cached_shingles(other), _cached_shingles(mine)):
                            copy = True
                            break
            if headed and not copy:
                seen = set()  # a new section: a repeat after a heading is that section's own text
                near = []
            if len(t) < REPEAT_MIN_CHARS or not blocks:
                continue
            if copy:
                if removed is not None:
                    removed.append(("exclude_duplicate", t[:300]))
                inside_gone.update(child.iterdescendants())
                _drop(child)
                fired.add("exclude_duplicate")
            else:
                seen.add(t)
                near.append(mine)
