"""What the trafilatura candidate (:mod:`gatecrawl.core.candidates`) need not read of a page,
taken out while it runs and put back after: :func:`unread_detached`.

Trafilatura's extractor copies the whole tree three or four times and runs its XPath prunes over
it. Parts it deletes before reading them (scripts, textless voids, empty inline elements, svg
content, asides and footers, the inside of navs) are taken out first, each only where the steps
it takes before deleting them would read nothing of them, so that its text stays the same. No
Scrapy imports.
"""

from __future__ import annotations

import contextlib
import functools
import re

import lxml.etree
import lxml.html

__all__ = ["is_json_ld", "unread_detached"]


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
#: the elements trafilatura's basic cleaning deletes by their tag (with the ones named for a
#: footer or a cookie banner), before its page measure and its baseline rescue read the page
_BASIC_CLEANED = frozenset(("aside", "fencedframe", "footer", "script", "style", "svg", "template"))
#: what its page measure does not read: the basic cleaning deletes them, tails kept
_UNMEASURED = frozenset(("script", "style", "svg"))
#: what its baseline rescue reads before the page's whole text (articles, paragraphs, quotes, code)
_NAV_READ = frozenset(("article", "blockquote", "code", "p", "pre", "q", "quote")) | (_BASIC_CLEANED - _UNMEASURED)
#: the id and class values of an element's descendants
_DESCENDANT_NAMES = lxml.etree.XPath("descendant::*/@id | descendant::*/@class", smart_strings=False)
#: the id and class values of an element's ancestors
_ANCESTOR_NAMES = lxml.etree.XPath("ancestor::*/@id | ancestor::*/@class", smart_strings=False)
_UNREAD_TAGS = ("script", "svg") + _VOID_UNREAD + tuple(sorted(_EMPTY_INLINE)) + _DELETED_WHOLE + ("nav",)


def is_json_ld(script) -> bool:
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


#: the trafilatura release whose steps the rules here were read from (and checked against, on
#: every page of the two benchmark corpora): with another one installed nothing is taken out
_VERIFIED_TRAFILATURA = "2.3.1"


@functools.cache
def _verified_trafilatura() -> bool:
    try:
        import trafilatura
    except ImportError:
        return False
    return getattr(trafilatura, "__version__", None) == _VERIFIED_TRAFILATURA


@contextlib.contextmanager
def unread_detached(root: lxml.html.HtmlElement):
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
    * whole ``aside`` and ``footer`` elements, with their text, where ``_PageChrome`` finds
      that nothing reads them: its cleaning, its page measure and its baseline rescue each
      delete them before reading a text;
    * the children of the ``nav`` elements whose words are all that is read of them (its
      cleaning deletes them; the ``nav`` stays, holding the words its page measure reads, see
      :meth:`_PageChrome.nav_words`).

    A taken-out element's tail joins the text before it, as trafilatura's own deletion does, so
    the cleaned tree it extracts from is the same and every text it measures is unchanged
    (style sheets stay: it does measure raw text there, and a head's style sheets can change
    its output). Of the elements it deletes while iterating over a tag, only those that cannot
    hold their own tag (voids, scripts) are taken out freely: a nested one could change which
    elements its loop reaches (it prunes the empty inline ones from a list made first; an
    ``aside``, a ``footer`` or a ``nav``'s inside goes only when none of the elements it deletes
    there is of a tag that nests in its own anywhere on the page). The extractor copies the
    whole tree three or four times and runs its XPath prunes over it; on news pages these
    elements are about a third of the tree."""
    # (element, the sibling before it or its parent, which of the two, that one's text)
    saved: list = []
    muted: list = []  # (script, its source)
    emptied: list = []  # (svg or nav, its children, its text)
    try:  # (whatever was taken out is put back, even when taking out stops half-way)
        if _verified_trafilatura():
            _take_out(root, saved, muted, emptied)
        yield
    finally:
        for el, kids, text in reversed(emptied):
            el[:] = kids
            el.text = text
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
    ``saved`` (see :func:`unread_detached`)."""
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


def _names_raw_pruned(value: str) -> bool:
    """True when an id or class ``value`` may be matched by a raw-tree prune."""
    low = value.lower()
    return any(w in low for w in _RAW_PRUNED_WORDS)


#: words one of which each match of trafilatura's cookie-banner pattern holds, in lower case
#: (``tests/test_agreement_candidates.py`` holds the pattern they were read from)
_COOKIE_WORDS = ("consent", "cookie", "borlabs", "cmplz", "moove", "notice", "onetrust")


def _names_cookie(search, names: str) -> bool:
    """True when trafilatura's cookie-banner pattern (``search``, case ignored) matches in
    ``names``. ASCII names holding none of ``_COOKIE_WORDS`` in any case are passed without the
    search (a slow one: many alternatives, case ignored)."""
    if names.isascii():
        low = names.lower()
        if not any(w in low for w in _COOKIE_WORDS):
            return False
    return search(names) is not None


def _names_deleted(names: str, cookie) -> bool:
    """True when one of the id and class values in ``names`` (one a line) may make trafilatura
    delete its element before reading it: a raw-tree prune's word, a footer's name (its basic
    cleaning's ``div`` test, here for any tag), or its cookie-banner pattern (``cookie``)."""
    return bool(names) and (_names_raw_pruned(names) or "footer" in names or cookie(names))


def _spaced_words(el, blocks: frozenset) -> str | None:
    """The words of ``el``'s content as trafilatura's page measure reads them (its block
    elements' texts and tails spaced, the scripts, style sheets and svgs left out, their tails
    kept), joined by single spaces; None when a text holds a character it filters (see
    :func:`_plain_tail`)."""
    parts: list[str] = []
    _spaced_parts(el, blocks, parts)
    text = "".join(parts)
    return " ".join(text.split()) if _plain_tail(text) else None


def _spaced_parts(el, blocks: frozenset, parts: list) -> None:
    """``el``'s texts and tails below it, into ``parts``, for :func:`_spaced_words` (a function
    of its own, not a nested one: a nested function calling itself is a reference cycle)."""
    if el.text:
        parts.append(el.text)
    for child in el:
        tag = child.tag
        if isinstance(tag, str) and tag not in _UNMEASURED:
            spaced = tag in blocks
            if spaced:
                parts.append(" ")
            _spaced_parts(child, blocks, parts)
            if spaced:
                parts.append(" ")
        if child.tail:
            parts.append(child.tail)


def _paragraph_stays(root, cleaned: frozenset, cookie, blocks: frozenset) -> bool:
    """True when ``root`` holds a ``p`` of more than 100 characters that no step of
    trafilatura deletes before it reads it: none of its ancestors is an element its cleaning
    deletes, a container a raw-tree prune may delete, or one its basic cleaning deletes. Its
    recall-mode cleaning then takes no copy of the page (it keeps one, taken before its
    deletions, when no paragraph would survive them), and its baseline rescue ends at the
    articles or the paragraphs, before its whole-page text."""
    deleted = cleaned | _BASIC_CLEANED
    for p in root.iter("p"):
        if len(p.text_content()) <= 100 or any(a.tag in deleted for a in p.iterancestors()):
            continue  # (a first filter, on the cheaper measures: passing over a paragraph is safe)
        if _names_deleted("\n".join(_ANCESTOR_NAMES(p)), cookie):
            continue
        words = _spaced_words(p, blocks)
        if words is not None and len(words) > 100:
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
            if is_json_ld(d):
                return False
        elif tag not in _NEVER_NESTED and nests(tag):
            return False
    return True


class _PageChrome:
    """What :func:`_take_out` asks about one page's asides, footers and navs, answered from
    trafilatura's own settings (none is taken out when they cannot be read)."""

    def __init__(self, root) -> None:
        self.root = root
        try:
            from trafilatura.baseline import _BLOCK_ELEMS
            from trafilatura.settings import _COOKIE_CONSENT_RE, MANUALLY_CLEANED
        except ImportError:
            self.usable = False
            return
        self.cleaned = frozenset(MANUALLY_CLEANED) - {"form"}  # (forms are judged after the deletions)
        self.usable = self.cleaned.issuperset(_DELETED_WHOLE + ("nav",))
        self.watched = ("div", "h1", *sorted(self.cleaned))
        self.blocks = frozenset(_BLOCK_ELEMS)
        self.cookie = functools.partial(_names_cookie, re.compile(_COOKIE_CONSENT_RE, re.IGNORECASE).search)
        self.nesting: dict = {}  # tag: whether one of its elements holds another
        self.stays: bool | None = None  # (asked at the first aside, footer or nav)

    def nests(self, tag: str) -> bool:
        answer = self.nesting.get(tag)
        if answer is None:
            answer = self.nesting[tag] = any(next(e.iterancestors(tag), None) is not None
                                             for e in self.root.iter(tag))
        return answer

    def deletable(self, el) -> bool:
        """An aside or a footer that can be taken out whole (and a nav that can be emptied, if
        :meth:`nav_words` finds it holds nothing more that is read): ``el`` is in no element the
        cleaning deletes, nothing reads its content for the rest of the page
        (:func:`_read_only_inside`), and a paragraph stays (:func:`_paragraph_stays`)."""
        if not self.usable or el.getparent() is None or not _plain_tail(el.tail):
            return False
        if self.stays is None:
            self.stays = _paragraph_stays(self.root, self.cleaned, self.cookie, self.blocks)
        return (self.stays and not any(a.tag in self.cleaned for a in el.iterancestors())
                and _read_only_inside(el, self.watched, self.nests))

    def nav_words(self, el) -> str | None:
        """The words a nav can be emptied to (:func:`_spaced_words`), or None when it must stay
        as it is. Its cleaning deletes a nav, but its page measure and its baseline rescue read
        one: a nav goes on standing there, holding the words that measure reads, when it holds
        nothing the rescue reads before its whole-page text (articles, paragraphs, quotes,
        code) and nothing either deletes inside it (a footer-, cookie- or comment-named
        element, an aside, a footer, a template)."""
        if not self.deletable(el) or next(el.iter(*_NAV_READ), None) is not None:
            return None
        if _names_deleted("\n".join(_DESCENDANT_NAMES(el)), self.cookie):  # (no pattern matches across a line)
            return None
        return _spaced_words(el, self.blocks)


def _take_out(root, saved: list, muted: list, emptied: list) -> None:
    """The taking out of :func:`unread_detached`, recorded in its three lists."""
    svgs = []
    chrome = None  # (made at the first aside, footer or nav)
    skip = 0  # the elements still to pass over inside one taken out or emptied
    for el in list(root.iter(*_UNREAD_TAGS)):
        if skip:
            skip -= 1
            continue
        tag = el.tag
        if tag in _DELETED_WHOLE:
            chrome = chrome or _PageChrome(root)
            if chrome.deletable(el):
                skip = sum(1 for _ in el.iter(*_UNREAD_TAGS)) - 1  # (this walk's elements inside it)
                _detach(el, el.getparent(), saved)
            continue
        if tag == "nav":
            chrome = chrome or _PageChrome(root)
            words = chrome.nav_words(el)
            if words is not None:
                skip = sum(1 for _ in el.iter(*_UNREAD_TAGS)) - 1
                emptied.append((el, list(el), el.text))
                el[:] = []
                el.text = words or None
            continue
        if tag == "svg":
            if len(el):
                svgs.append(el)
            continue
        if tag == "script":
            if is_json_ld(el):
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
