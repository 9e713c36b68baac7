"""One pass over a parsed document's elements: the attribute values and tags that the page
measurements look elements up by (``PageIndex``). It reads the document and never mutates it."""

from __future__ import annotations

import bisect
import functools
import itertools
import re

import lxml.etree
from lxml.html import HtmlElement

__all__ = ["PageIndex", "find_below", "jsonld_of", "main_holders", "tagged_with", "tagged_within"]

#: ids of the element an SPA mounts its app into (compared in lower case)
_APP_ROOT_IDS = {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "main-app", "application"}
_CHROME_TAG_NAMES = frozenset(("nav", "aside", "header", "footer"))
_MAIN_TAG_NAMES = frozenset(("main", "article"))
#: the tags whose elements the index lists (``tagged``), compared as written (as ``doc.iter(tag)``
#: and ``doc.find(".//tag")`` compare them)
_LISTED_TAGS = ("a", "body", "button", "embed", "frame", "h1", "iframe", "link", "meta", "noscript", "object", "pre",
                "script", "time", "title")


#: the attributes the index reads, each with its code
_ID, _CLASS, _ROLE, _APP_ROOT, _REL, _ITEMTYPE = range(6)
_ATTRIBUTE_CODES = {"id": _ID, "class": _CLASS, "role": _ROLE, "data-reactroot": _APP_ROOT, "ng-app": _APP_ROOT,
                    "rel": _REL, "itemtype": _ITEMTYPE}


@functools.lru_cache(maxsize=16)
def _literals(pattern: str) -> tuple[str, ...] | None:
    """The words of a pattern made of literal words joined by ``|``, or None when the pattern
    is not only that."""
    words = tuple(pattern.split("|"))
    return words if all(re.escape(w) == w.replace("-", "\\-") for w in words) else None


@functools.lru_cache(maxsize=16)
def _in_lower_case(words: tuple[str, ...]) -> bool:
    """Every word is ASCII in lower case: where the folded values hold it is where a pattern of
    such literal words matches them, with or without case."""
    return all(w.isascii() and w == w.lower() for w in words)


class _Values:
    """Attribute values of a document's elements, searched for words: ``named(words)`` gives
    the elements one of whose values holds one of ``words`` in any case, in document order,
    each once (the only ones a case-insensitive pattern built on those words can match in
    those values). One search over the distinct values (a page repeats its class strings: a
    third of them are distinct), case-folded so that it finds what such a pattern matches:
    lower-cased, and the four non-ASCII letters the pattern matches as ASCII ones written as
    those (U+0130 and U+0131 as ``i``, U+017F as ``s``; U+212A lower-cases to ``k``). The
    folding keeps every offset (U+0130 is the one letter whose lower case is longer, and it is
    replaced first)."""

    def __init__(self, values: list[str], owners: list) -> None:
        self.values = values
        self.owners = owners  # the element of each value; an element's values are next to each other
        at: dict[str, list[int]] = {}  # each distinct value: its positions in ``values``
        for i, value in enumerate(values):
            held = at.get(value)
            if held is None:
                at[value] = [i]
            else:
                held.append(i)
        self._distinct = list(at)
        self._at = list(at.values())
        text = "\n".join(self._distinct).replace("\u0130", "i").lower()
        self.text = text.replace("\u0131", "i").replace("\u017f", "s")
        self._seps: list[int] | None = None  # (``_separators``, once needed)

    def named(self, words: re.Pattern) -> list:
        out: list = []
        literals = _literals(words.pattern)
        if literals is not None and _in_lower_case(literals):
            # Literal words in lower case: found with ``str.find``, each from the start of the
            # value after the last one it was found in (a value holding one match is named, and
            # a word holds no line break: a match never runs into the next value), instead of
            # the alternation's scan of every character. ``finditer`` names the same values.
            named = set()
            text = self.text
            seps = None
            for w in literals:
                at = text.find(w)
                while at != -1:
                    if seps is None:
                        seps = self._separators()
                    k = bisect.bisect_left(seps, at)
                    named.add(k)
                    at = text.find(w, seps[k] + 1)
            ks = sorted(named)
        elif literals is not None and not any(w in self.text for w in literals):
            return out  # (a substring test per word is much cheaper than the alternation's scan)
        else:
            ks = []
            for m in words.finditer(self.text):
                k = bisect.bisect_left(self._separators(), m.start())
                if not ks or ks[-1] != k:
                    ks.append(k)
        held: list[int] = []  # the positions in ``values`` of the values named
        for k in ks:
            held.extend(self._at[k])
        held.sort()
        for i in held:
            el = self.owners[i]
            if not out or out[-1] is not el:
                out.append(el)
        return out

    def _separators(self) -> list[int]:
        """The offset in ``text`` of the line break after each distinct value (after the last:
        the text's length). A value may hold line breaks: offsets, not a count of lines."""
        if self._seps is None:
            self._seps = [end + i for i, end in enumerate(itertools.accumulate(map(len, self._distinct)))]
        return self._seps


class PageIndex:
    """One pass over a document's elements, taken once and read by every measurement that looks
    for elements by their attributes or tag (the chrome candidates of ``page.measure_page``,
    the app root of ``page.shell_signals``, the consent and paywall containers of
    ``gatecrawl.core.walls``), instead of one XPath scan or one test per element each.

    ``idents``: the id and class values (``_Values``); ``roles``: the role values; ``chrome_tags``:
    the nav, aside, header and footer elements; ``mains``: the main and article elements (tags
    compared in lower case, like the chrome tags); ``app_roots``: the elements whose id (in lower
    case) is an app root's or that carry ``data-reactroot`` or ``ng-app``; ``form_fields``: the
    input and select elements (what ``doc.iter("input", "select")`` gives); ``authors``: the
    elements whose rel is ``author`` (``doc`` itself among them when it is one); all in document
    order; ``itemtypes``: the itemtype values (empty ones too), in document order; ``tagged``:
    for each tag of ``_LISTED_TAGS``, its elements (what ``doc.iter(tag)`` gives: ``tagged_with``
    and ``find_below`` read it), so that a lookup of the body, the title or the metas is not a
    scan of the whole document each (``doc.find(".//body")`` walks on past the body: lxml's
    iterator looks one match ahead).
    It reads attributes and those tags only: renaming other elements (the <noscript> view's
    ``div``) leaves it true, but for ``tagged["noscript"]``, which still lists them."""

    def __init__(self, doc: HtmlElement) -> None:
        values: list[str] = []
        owners: list = []
        roles: list[str] = []
        role_owners: list = []
        chrome_tags: list = []
        mains: list = []
        app_roots: list = []
        form_fields: list = []
        authors: list = []
        itemtypes: list[str] = []
        tagged: dict[str, list] = {tag: [] for tag in _LISTED_TAGS}
        # each tag met: the list its elements go to (None: none), decided once per tag
        lists: dict[str, list | None] = {}
        code_of = _ATTRIBUTE_CODES.get
        for el in doc.iter(lxml.etree.Element):
            tag = el.tag
            dest = lists.get(tag, lists)
            if dest is lists:
                low = tag.lower()
                if low in _CHROME_TAG_NAMES:
                    dest = chrome_tags
                elif low in _MAIN_TAG_NAMES:
                    dest = mains
                elif tag == "input" or tag == "select":
                    dest = form_fields
                else:
                    dest = tagged.get(tag)
                lists[tag] = dest
            if dest is not None:
                dest.append(el)
            # The attribute names, read in one call (an element holds each name once), and the
            # values of the ones looked for only (most are not: their values are never read).
            names = el.keys()
            if not names:
                continue
            ident = cls = None
            app_root = False
            for name in names:
                code = code_of(name)
                if code is None:
                    continue
                if code == _ID:
                    ident = el.get(name)
                elif code == _CLASS:
                    cls = el.get(name)
                elif code == _ROLE:
                    roles.append(el.get(name))
                    role_owners.append(el)
                elif code == _APP_ROOT:
                    app_root = True
                elif code == _REL:
                    if el.get(name) == "author":
                        authors.append(el)
                else:
                    itemtypes.append(el.get(name))
            if ident is not None:
                values.append(ident)
                owners.append(el)
                app_root = app_root or ident.lower() in _APP_ROOT_IDS
            if cls is not None:
                values.append(cls)
                owners.append(el)
            if app_root:
                app_roots.append(el)
        self.idents = _Values(values, owners)
        self.roles = _Values(roles, role_owners)
        self.chrome_tags = chrome_tags
        self.mains = mains
        self.app_roots = app_roots
        self.form_fields = form_fields
        self.authors = authors
        self.itemtypes = itemtypes
        self.tagged = tagged
        #: the document's JSON-LD documents, once parsed (``jsonld_of``)
        self.jsonld: list | None = None
        #: the chrome candidates, once taken (``gatecrawl.core.page.chrome_candidates``)
        self.chrome: frozenset | None = None
        #: the elements that hold a main or article element or an element of role main, once
        #: taken (``main_holders``)
        self.main_holders: frozenset | None = None


def main_holders(index: PageIndex) -> frozenset:
    """The elements of ``index``'s document that hold a main or article element or an element of
    role main (what ``gatecrawl.core.page._holds_main`` answers): the ancestors of those, taken
    once per document and kept on the index, instead of a walk of each candidate's descendants."""
    if index.main_holders is None:
        roles = index.roles
        mains = itertools.chain(index.mains, (el for value, el in zip(roles.values, roles.owners) if value.lower() == "main"))
        held: set = set()
        for el in mains:
            for a in el.iterancestors():
                if a in held:
                    break  # (and so are its ancestors)
                held.add(a)
        index.main_holders = frozenset(held)
    return index.main_holders


def jsonld_of(index: PageIndex, doc: HtmlElement) -> list:
    """``list(page.jsonld_documents(doc))`` for ``index``'s document ``doc``, parsed once and kept
    on the index: the fields, the paywall markup and the page type all read it (none changes
    it), and the <noscript> view's renaming leaves every script where it was."""
    if index.jsonld is None:
        from gatecrawl.core.page import jsonld_documents  # (page imports this module)

        index.jsonld = list(jsonld_documents(doc, index))
    return index.jsonld


def tagged_with(doc: HtmlElement, tag: str, index: PageIndex | None = None):
    """``doc.iter(tag)`` for a tag of ``_LISTED_TAGS``: the list ``index`` (``doc``'s
    ``PageIndex``, when the caller has it) holds, or the scan."""
    return doc.iter(tag) if index is None else index.tagged[tag]


def find_below(doc: HtmlElement, tag: str, index: PageIndex | None = None) -> HtmlElement | None:
    """``doc.find(".//" + tag)`` (the first ``tag`` element below ``doc``) for a tag of
    ``_LISTED_TAGS``, read from ``index`` (``doc``'s ``PageIndex``) when the caller has it."""
    if index is None:
        return doc.find(".//" + tag)
    return next((el for el in index.tagged[tag] if el is not doc), None)


def tagged_within(index: PageIndex, el: HtmlElement, tag: str) -> list:
    """``list(el.iter(tag))`` for a tag of ``_LISTED_TAGS`` and an element ``el`` of ``index``'s
    document: the listed elements that are ``el`` or lie below it (the ancestors of each looked
    at: for the tags a page holds few of)."""
    return [t for t in index.tagged[tag] if t is el or any(a is el for a in t.iterancestors())]
