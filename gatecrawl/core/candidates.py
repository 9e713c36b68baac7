"""The independent candidates of the agreement vote (see :mod:`gatecrawl.core.agreement`):
the text another extractor finds on the whole page, from the page's one parse.

* ``trafilatura``: trafilatura's own extractor (fast mode: no internal fallback; comments
  off unless the page is a thread);
* ``readability``: the Readability algorithm (trafilatura's port).

Both are optional at run time: when trafilatura cannot be imported the vote degrades to the
own selection alone. The page is not modified (see :func:`_code_muted` and
:func:`_unread_detached`: parts are taken out while a candidate runs, then put back). No Scrapy
imports.
"""

from __future__ import annotations

import contextlib
import copy
import logging

import lxml.html

__all__ = ["CANDIDATES", "candidate_text"]


class _Quiet(logging.Filter):
    """The candidates often find nothing to say on a page: their "discarding data" and
    "readability_lxml failed" warnings are expected, not worth a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        return "discarding data" not in msg and "readability_lxml failed" not in msg


_QUIET = _Quiet()


def _quiet_logs() -> None:
    for name in ("trafilatura.core", "trafilatura.external", "trafilatura.main_extractor",
                 "trafilatura.readability_lxml", "trafilatura.htmlprocessing", "trafilatura.utils"):
        lg = logging.getLogger(name)
        if _QUIET not in lg.filters:
            lg.addFilter(_QUIET)


CANDIDATES = ("trafilatura", "readability")


def candidate_text(doc: lxml.html.HtmlElement, name: str, *, include_comments: bool = False) -> str:
    """One independent candidate's text for ``doc`` (which is not modified); comments are
    left out unless ``include_comments`` (a thread, whose posts are its content)."""
    try:
        import trafilatura
        from trafilatura.external import try_readability
    except Exception:  # the vote degrades to the own selection alone
        return ""
    _quiet_logs()
    root = doc.getroottree().getroot() if doc is not None else None
    if root is None:
        return ""
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}")
    if name == "trafilatura":
        with _code_muted(root), _unread_detached(root):
            return trafilatura.extract(root, fast=True, include_comments=include_comments, include_tables=True,
                                       deduplicate=False) or ""
    with _code_muted(root):
        art = try_readability(copy.deepcopy(root))
        return (art.text_content() or "") if art is not None and len(art) else ""


@contextlib.contextmanager
def _code_muted(root: lxml.html.HtmlElement):
    """``root`` with the source text of its scripts (JSON-LD excepted) taken out while the block
    runs, then put back. Both candidates copy the whole tree first and discard scripts unread,
    and on many pages script source is most of the document's characters: copying less makes
    the trafilatura candidate about a tenth faster, its text unchanged on all 828 pages of the
    two benchmark corpora. (Style sheets stay: trafilatura's measure of the page's text counts
    them, and muting them changed its output on one page.) The script elements and their tails
    stay where they are."""
    muted = []
    for el in root.iter("script"):
        if el.text and not (el.get("type") or "").strip().lower().startswith("application/ld+json"):
            muted.append((el, el.text))
            el.text = None
    try:
        yield
    finally:
        for el, text in muted:
            el.text = text



#: head children trafilatura's extractor never reads, and that hold no text once the script
#: sources are muted (:func:`_code_muted`): it removes ``head`` before extracting, and its
#: raw-tree readers (the forum test, the baseline rescue) look only at JSON-LD scripts and the body
_TEXTLESS_IN_HEAD = frozenset(["meta", "link", "base", "script"])


def _unread_in_head(el) -> bool:
    if el.tag not in _TEXTLESS_IN_HEAD or el.text or len(el):
        return False
    return el.tag != "script" or not (el.get("type") or "").strip().lower().startswith("application/ld+json")


@contextlib.contextmanager
def _unread_detached(root: lxml.html.HtmlElement):
    """``root`` without elements trafilatura's extractor copies but never reads, while the
    block runs, then put back: the head's metadata elements (``_TEXTLESS_IN_HEAD``; the title,
    JSON-LD scripts and style sheets stay) and the children of each outermost ``svg`` (the
    extractor deletes every ``svg`` before reading; the ``svg`` element stays). The text stays
    exactly as it was: a removed element's tail joins the text before it, and an ``svg`` takes
    the whole text of its children as its own, so every length trafilatura measures on the raw
    tree is unchanged (it does measure text there: a head's style sheets can change its output).
    The extractor copies the whole tree three times and runs its XPath prunes over it before
    its own cleaning: on news pages the head alone is about a tenth of the elements."""
    saved = []  # (parent, its children, its text, their tails or None)
    head = root.find("head")
    if head is not None and any(_unread_in_head(c) for c in head):
        kids = list(head)
        saved.append((head, kids, head.text, [c.tail for c in kids]))
        kept: list = []
        text = head.text
        for c in kids:
            if not _unread_in_head(c):
                kept.append(c)
            elif c.tail:
                if kept:
                    kept[-1].tail = (kept[-1].tail or "") + c.tail
                else:
                    text = (text or "") + c.tail
        head.text = text
        head[:] = kept
    for svg in [s for s in root.iter("svg") if len(s)]:
        if next(svg.iterancestors("svg"), None) is not None:
            continue  # (inside an svg already emptied)
        saved.append((svg, list(svg), svg.text, None))
        svg.text = svg.text_content() or None
        svg[:] = []
    try:
        yield
    finally:
        for parent, kids, text, tails in reversed(saved):
            parent[:] = kids
            parent.text = text
            if tails is not None:
                for c, t in zip(kids, tails):
                    c.tail = t
