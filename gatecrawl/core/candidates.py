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
import functools
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


@functools.cache  # (the filters are put on once)
def _quiet_logs() -> None:
    for name in ("trafilatura.core", "trafilatura.external", "trafilatura.main_extractor",
                 "trafilatura.readability_lxml", "trafilatura.htmlprocessing", "trafilatura.utils"):
        lg = logging.getLogger(name)
        if _QUIET not in lg.filters:
            lg.addFilter(_QUIET)


CANDIDATES = ("trafilatura", "readability")


@functools.cache
def _trafilatura_options(include_comments: bool):
    """trafilatura's extractor settings, made once per comment setting: building them reads its
    configuration anew (about a fifth of a millisecond a page), and it never changes them."""
    from trafilatura.settings import Extractor

    return Extractor(fast=True, comments=include_comments, tables=True, dedup=False)


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
        with _unread_detached(root):
            options = _trafilatura_options(bool(include_comments))
            return trafilatura.extract(root, options=options) or ""
    with _code_muted(root):
        art = try_readability(copy.deepcopy(root))
        return (art.text_content() or "") if art is not None and len(art) else ""


@contextlib.contextmanager
def _code_muted(root: lxml.html.HtmlElement):
    """``root`` with the source text of its scripts (JSON-LD excepted) taken out while the block
    runs, then put back: the Readability candidate copies the whole tree first and discards
    scripts unread, and on many pages script source is most of the document's characters.
    (Style sheets stay.) The script elements and their tails stay where they are. (The
    trafilatura candidate takes whole scripts out instead: :func:`_unread_detached`.)"""
    muted = []
    for el in root.iter("script"):
        if el.text and not _is_json_ld(el):
            muted.append((el, el.text))
            el.text = None
    try:
        yield
    finally:
        for el, text in muted:
            el.text = text


#: textless elements trafilatura's extractor deletes (``MANUALLY_CLEANED``) or unwraps
#: (``MANUALLY_STRIPPED``: ``img`` while images are off, ``meta``, ``wbr``) before it reads the
#: page, that no raw-tree reader of it looks at, and that are not block boundaries for its page
#: measure (so taking one out, its tail joined to the text before it, changes no text it reads).
#: The deleted ones are void to the HTML parser, so none can hold another of its tag (``embed``,
#: ``source`` and ``track`` can: left in); ``wbr`` can, but unwrapping does not iterate.
#: ``base`` is taken out of the head only (the head is deleted whole).
_VOID_UNREAD = ("area", "base", "img", "input", "link", "meta", "param", "wbr")
#: inline elements it deletes when they are empty (``CUT_EMPTY_ELEMS``, at the end of its
#: cleaning, the tail kept; nothing before that fills a childless element or reads one). It
#: picks them all before deleting any, so a parent emptied by their deletion stays: one is
#: taken out here only when its parent keeps a child or a text without it
#: (:func:`_leaves_parent_filled`)
_EMPTY_INLINE = frozenset(["b", "em", "i", "q", "span", "strong"])
#: elements trafilatura deletes whole in every reading of the page: its cleaning deletes them
#: (``MANUALLY_CLEANED``) and so do its page measure and its baseline rescue (``basic_cleaning``)
_DELETED_WHOLE = ("aside", "footer")
_UNREAD_TAGS = ("script", "svg") + _VOID_UNREAD + tuple(sorted(_EMPTY_INLINE)) + _DELETED_WHOLE


def _is_json_ld(script) -> bool:
    return (script.get("type") or "").strip().lower().startswith("application/ld+json")


def _leaves_parent_filled(el, parent) -> bool:
    """True when ``parent`` keeps a text or a child without ``el``: a sibling before it (one
    still there is kept: the walk goes in document order), the parent's own text, or ``el``'s
    tail, which joins the text before it."""
    return el.getprevious() is not None or parent.text is not None or bool(el.tail)


def _plain_tail(tail: str | None) -> bool:
    """True when ``tail`` holds only characters trafilatura keeps in every text it measures
    (printable or white space): a tail joined to a block element's text goes through its
    control-character filter, which would drop a soft hyphen or a zero-width space."""
    return not tail or "".join(tail.split()).isprintable()


@contextlib.contextmanager
def _unread_detached(root: lxml.html.HtmlElement):
    """``root`` without the elements trafilatura's extractor copies but never reads, while
    the block runs, then put back (the same element objects, at the same places, with the same
    text around them):

    * the scripts, JSON-LD excepted (its forum test and its baseline rescue read JSON-LD only;
      it deletes every other script before extracting, and its page measure leaves them out;
      a script that must stay for its tail's sake, see :func:`_plain_tail`, stays without its
      source);
    * the textless void elements of ``_VOID_UNREAD`` (images, inputs, the head's metadata);
    * the empty inline elements of ``_EMPTY_INLINE`` whose parent keeps a child or a text
      without them (:func:`_leaves_parent_filled`);
    * the children of each outermost ``svg`` (it deletes every ``svg`` before reading; the
      ``svg`` element stays and takes the whole text of its children as its own);
    * whole ``aside`` and ``footer`` elements, with their text, where
      :func:`_take_out_deleted_whole` finds that nothing reads them: its cleaning, its page
      measure and its baseline rescue each delete them before reading a text.

    A taken-out element's tail joins the text before it, as trafilatura's own deletion does, so
    the cleaned tree it extracts from is the same and every text it measures is unchanged
    (style sheets stay: it does measure raw text there, and a head's style sheets can change
    its output). Of the elements it deletes while iterating over a tag, only those that cannot
    hold their own tag (voids, scripts) are taken out freely: a nested one could change which
    elements its loop reaches (it prunes the empty inline ones from a list made first; an
    ``aside`` or ``footer`` goes only when no element of its tags nests in one of its own on
    the page). The extractor copies the whole tree three or four times and runs its XPath
    prunes over it; on news pages these elements are about a quarter of the tree."""
    # (element, the sibling before it or its parent, which of the two, that one's text)
    saved: list = []
    muted: list = []  # (script, its source)
    emptied: list = []  # (svg, its children, its text)
    try:  # (whatever was taken out is put back, even when taking out stops half-way)
        _take_out(root, saved, muted, emptied)
        yield
    finally:
        for svg, kids, text in reversed(emptied):
            svg[:] = kids
            svg.text = text
        for el, anchor, is_parent, text in reversed(saved):
            if is_parent:
                anchor.text = text
                anchor.insert(0, el)
            else:
                anchor.tail = text
                anchor.addnext(el)
        for el, text in muted:
            el.text = text


def _detach(el, parent, saved: list) -> None:
    """Take ``el`` out of ``parent``, its tail joined to the text before it, recorded in
    ``saved`` (see :func:`_unread_detached`)."""
    tail = el.tail
    prev = el.getprevious()
    if prev is None:
        saved.append((el, parent, True, parent.text))
        if tail:
            parent.text = (parent.text or "") + tail
    else:
        saved.append((el, prev, False, prev.tail))
        if tail:
            prev.tail = (prev.tail or "") + tail
    parent.remove(el)  # (lxml keeps the tail with the removed element)


#: id and class words (lower case) of the containers its raw-tree prunes may delete
#: (comment sections, infinite-scroll feeds, share bars): a superset of what they match
_RAW_PRUNED_WORDS = ("comment", "comol", "disqus", "dsq-", "infinite", "mvp-post-add", "elementor-share")


def _raw_pruned(el) -> bool:
    """True when one of ``el``'s id and class may be matched by a raw-tree prune."""
    for name in ("id", "class"):
        value = el.get(name)
        if value:
            low = value.lower()
            if any(w in low for w in _RAW_PRUNED_WORDS):
                return True
    return False


def _paragraph_stays(root, cleaned: frozenset) -> bool:
    """True when ``root`` holds a ``p`` that no step of trafilatura deletes before its cleaning
    has run: none of its ancestors is an element the cleaning deletes, or a container a
    raw-tree prune may delete. (Its recall-mode cleaning keeps a copy of the page, taken
    before the deletions, when no paragraph would survive them.)"""
    for p in root.iter("p"):
        if not any(a.tag in cleaned or _raw_pruned(a) for a in p.iterancestors()):
            return True
    return False


#: tags whose elements this parser never gives a child (raw text, HTML 4 empty elements)
_NEVER_NESTED = frozenset(("input", "link", "script", "style"))


def _read_only_inside(el, watched: tuple, nests) -> bool:
    """True when nothing trafilatura does before it deletes ``el`` reads ``el``'s content for
    the rest of the page: no JSON-LD script (its forum test and its baseline rescue read it), no
    ``h1`` (its infinite-scroll prune keeps a container holding one), no Discourse preload
    (read by its baseline rescue), and no element the cleaning deletes (``el`` included) of a
    tag for which ``nests(tag)``: its cleaning deletes while iterating over a tag, and once it
    deletes an element holding another of the tag, the loop goes on inside the deleted one and
    ends there, so the later elements of that tag stay (taking one of them out would delete
    what trafilatura keeps). ``watched``: ``div``, ``h1`` and the tags the cleaning deletes."""
    for d in el.iter(*watched):
        tag = d.tag
        if tag == "div":
            if d.get("id") == "data-preloaded":
                return False
        elif tag == "h1":
            return False
        elif tag == "script":
            if _is_json_ld(d):
                return False
        elif tag not in _NEVER_NESTED and nests(tag):
            return False
    return True


def _deletable_whole(root):
    """The test of :func:`_take_out` for the elements of ``_DELETED_WHOLE`` it meets in ``root``:
    true for the outermost ones whose content nothing reads (:func:`_read_only_inside`), when a
    paragraph stays (:func:`_paragraph_stays`, asked at the first one)."""
    from trafilatura.settings import MANUALLY_CLEANED

    cleaned = frozenset(MANUALLY_CLEANED) - {"form"}  # (forms are judged after the deletions)
    usable = cleaned.issuperset(_DELETED_WHOLE)
    watched = ("div", "h1", *sorted(cleaned))
    known: dict = {}  # "p": whether a paragraph stays; a tag: whether one of its elements holds another

    def nests(tag: str) -> bool:
        answer = known.get(tag)
        if answer is None:
            answer = known[tag] = any(next(e.iterancestors(tag), None) is not None for e in root.iter(tag))
        return answer

    def deletable(el) -> bool:
        if not usable or el.getparent() is None or not _plain_tail(el.tail):
            return False
        stays = known.get("p")
        if stays is None:
            stays = known["p"] = _paragraph_stays(root, cleaned)
        return (stays and not any(a.tag in cleaned for a in el.iterancestors())
                and _read_only_inside(el, watched, nests))

    return deletable


def _take_out(root, saved: list, muted: list, emptied: list) -> None:
    """The taking out of :func:`_unread_detached`, recorded in its three lists."""
    svgs = []
    deletable = None  # (made at the first aside or footer)
    skip = 0  # the elements still to pass over inside one taken out whole
    for el in list(root.iter(*_UNREAD_TAGS)):
        if skip:
            skip -= 1
            continue
        tag = el.tag
        if tag in _DELETED_WHOLE:
            deletable = deletable or _deletable_whole(root)
            if deletable(el):
                skip = sum(1 for _ in el.iter(*_UNREAD_TAGS)) - 1
                _detach(el, el.getparent(), saved)
            continue
        if tag == "svg":
            if len(el):
                svgs.append(el)
            continue
        if tag == "script":
            if _is_json_ld(el):
                continue
        elif len(el) or el.text:
            continue
        tail = el.tail
        parent = el.getparent()
        if parent is None or (tag == "base" and parent.tag != "head"):
            continue
        if (not _plain_tail(tail)
                or (tag in _EMPTY_INLINE and not _leaves_parent_filled(el, parent))):
            if tag == "script" and el.text:
                muted.append((el, el.text))  # it stays, its source out
                el.text = None
            continue
        _detach(el, parent, saved)
    for svg in svgs:
        if next(svg.iterancestors("svg"), None) is not None:
            continue  # (inside an svg already emptied)
        emptied.append((svg, list(svg), svg.text))
        svg.text = svg.text_content() or None
        svg[:] = []
