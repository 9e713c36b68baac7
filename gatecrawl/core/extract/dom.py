"""Small DOM and text helpers shared by the selection modules."""

from __future__ import annotations

import re

import lxml.etree

from gatecrawl.core.memo import str_memo
from gatecrawl.core.page import css_path, remove_keep_tail


MIN_TEXT = 20


_BLOCKS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html listing main "
    "menu nav ol p pre section summary table ul".split()
)  # li, tr, td... are not blocks for scoring: a list or table is scored as one block


def _rx(words: str) -> re.Pattern:
    return re.compile(words, re.I)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern`` (split at each ``|`` outside groups and
    character classes)."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


def _group_body(alt: str) -> str | None:
    """The inside of ``alt`` when ``alt`` is one non-capturing group ``(?:...)`` as a whole, else None."""
    if not alt.startswith("(?:") or not alt.endswith(")"):
        return None
    depth, i, in_class = 0, 0, False
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return alt[3:-1] if i == len(alt) - 1 else None
        i += 1
    return None


def _flat_alternatives(pattern: str) -> list[str]:
    """The alternatives of ``pattern``, those that are a group of alternatives as a whole taken
    apart (``a|(?:b|c)`` gives ``a``, ``b``, ``c``): the same strings match one of them."""
    out: list[str] = []
    for alt in _alternatives(pattern):
        inner = _group_body(alt)
        if inner is None:
            out.append(alt)
        else:
            out.extend(_flat_alternatives(inner))
    return out


def _literal_forms(alt: str) -> list[str] | None:
    """The strings that ``alt`` (a piece of a pattern) matches when it is made of literal
    characters (escaped or not), each maybe followed by ``?``; None when it holds anything else."""
    forms = [""]
    i = 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            if i + 1 >= len(alt) or alt[i + 1].isalnum() or alt[i + 1] == "_":
                return None  # (a class, an anchor or a back reference)
            c = alt[i + 1]
            i += 2
        elif c in ".^$*+?{}[]()|":
            return None
        else:
            i += 1
        nxt = alt[i] if i < len(alt) else ""
        if nxt in ("*", "+", "{"):
            return None
        if nxt == "?":
            if alt[i + 1:i + 2] in ("?", "+"):
                return None
            forms = [f + x for f in forms for x in ("", c)]
            i += 1
        else:
            forms = [f + c for f in forms]
    return forms


def _literal_trie(words) -> str:
    """A pattern matching exactly ``words`` (literal strings), their common prefixes taken once:
    ``ad|ads|adv`` is written ``ad(?:s|v)?``. Python's regular expressions try the branches of an
    alternation one after another at each position; written as a tree, only the branches of the
    character met are followed (a search is several times faster on long lists of words)."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        if "" in node:
            return "(?:" + "|".join(alts) + ")?"
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(trie)


def _union(alternatives) -> str:
    """A pattern matching where one of ``alternatives`` (pieces of patterns) does: those made of
    literal characters (see :func:`_literal_forms`) as one :func:`_literal_trie`, the others
    as they are."""
    literal: list[str] = []
    other: list[str] = []
    for alt in alternatives:
        for a in _flat_alternatives(alt):
            forms = _literal_forms(a)
            if forms is None:
                other.append(a)
            else:
                literal.extend(forms)
    parts = ([_literal_trie(sorted(set(literal)))] if literal else []) + [f"(?:{a})" for a in other]
    return "|".join(parts)


#: the word boundaries of the class-word patterns (``patterns``): start or a blank, ``_`` or ``-`` on each side
_CLASS_WORD_START, _CLASS_WORD_END = r"(?:^|[\s_-])", r"(?:$|[\s_-])"


def _any_pattern(rules) -> tuple[re.Pattern, re.Pattern]:
    """Two patterns that between them match where any pattern of ``rules`` does (lower case, see
    :func:`_lower_rx`): the rules' bounded words (``(?:^|[\\s_-])word(?:$|[\\s_-])``) under one
    pair of boundaries, and their other alternatives, the literal words of each written as one
    tree (:func:`_union`: about three times faster than one branch per word). A text matches
    one of the alternatives of a pattern exactly when it matches the pattern, so the union is
    unchanged."""
    start, end = _CLASS_WORD_START, _CLASS_WORD_END
    bounded, loose = [], []
    for _name, rx in rules:
        for alt in _alternatives(rx.pattern):
            if alt.startswith(start) and alt.endswith(end) and len(alt) > len(start + end):
                bounded.append(alt[len(start):-len(end)])
            else:
                loose.append(alt)
    return re.compile(start + "(?:" + _union(bounded) + ")" + end), re.compile(_union(loose))


def _lower_rx(rx: re.Pattern) -> re.Pattern:
    """``rx`` without IGNORECASE, for lower-cased input (its patterns are lower case; the
    case-insensitive engine is about three times slower on these long alternations)."""
    return re.compile(rx.pattern)


def _squash(text: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped (``re.sub(r"\\s+", " ", t).strip()``:
    ``str.split`` and the ``\\s`` class agree on every code point, and this is faster)."""
    return " ".join(text.split())


_SENTENCE = re.compile(r"[.!?。！？][\"'”’)]?(?:\s|$)")


#: inline formatting elements: their boundaries can fall inside a word (``<b>H</b>ello``); the
#: boundaries of every other element (blocks, list items, cells, ``span``s laid out as
#: separate items) separate words even when the markup has no whitespace there
_IN_WORD = frozenset("a abbr b bdi bdo del em font i ins kbd mark q s small strong sub sup tt u var wbr".split())


def block_text(el: lxml.etree._Element) -> str:
    """``el``'s text with a space at the boundaries of every element that is not inline
    formatting (see ``_IN_WORD``): the words a reader sees. ``text_content()`` glues
    ``<span>2026</span><span>1h</span>`` into one token, which no other extractor's text
    (split into lines) can match.

    Iterative (a stack of child iterators, as ``page._iter_text``): a recursive inner
    function refers to itself through its closure, a reference cycle that only the cyclic
    garbage collector frees, and this runs for every vote unit of every page."""
    tag = el.tag
    if not len(el):  # (half the vote units: no children, no walk)
        return (el.text or "") if isinstance(tag, str) else ""
    parts: list[str] = []
    append = parts.append
    if el.text and isinstance(tag, str):
        append(el.text)
    in_word = _IN_WORD
    stack = [(iter(el), False, None)]  # (children left, a break after the subtree, its tail)
    while stack:
        children, brk, tail = stack[-1]
        for c in children:
            tag = c.tag
            if tag.__class__ is str:  # (an element: lxml's tags are exact str, never a subclass)
                b = tag not in in_word
                if b:
                    append(" ")
                text = c.text
                if text:
                    append(text)
                if len(c):
                    stack.append((iter(c), b, c.tail))  # descend; this level resumes after it
                    break
                if b:
                    append(" ")
            text = c.tail
            if text:
                append(text)
        else:
            stack.pop()
            if brk:
                append(" ")
            if tail:
                append(tail)
    return "".join(parts)


def separate_adjacent_items(root: lxml.etree._Element) -> bool:
    """Put a space between two sibling elements that are laid out as separate items but meet
    with no whitespace in the markup (``<span>2026</span><span>1h 43m</span>``, shown apart
    by the page's CSS): without it the Markdown glues their words ("20261h"). Only elements
    that are neither blocks (the Markdown separates those) nor inline formatting (whose
    boundaries can fall inside a word, see ``_IN_WORD``) are separated, and only where a
    word character meets a word character. Returns whether anything changed."""
    changed = False
    for el in root.iter():
        if not _is_el(el) or el.tag in _IN_WORD or el.tag in _BLOCKS or el is root:
            continue
        if el.tail:
            continue
        nxt = el.getnext()
        if nxt is None or not _is_el(nxt) or nxt.tag in _IN_WORD or nxt.tag in _BLOCKS:
            continue
        left = el.text_content()
        if not left or not _WORD_END.search(left):
            continue  # (the next element's text is not read)
        right = nxt.text_content()
        if right and _WORD_START.search(right):
            el.tail = " "
            changed = True
    return changed


_WORD_END = re.compile(r"\w$")
_WORD_START = re.compile(r"^\w")


def _attrs(el: lxml.etree._Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def _is_el(el) -> bool:
    return isinstance(el.tag, str)


def _drop(el: lxml.etree._Element) -> None:
    remove_keep_tail(el, keep_blank_tail=False)


_STRLEN = lxml.etree.XPath("string-length(normalize-space(.))")


#: the ASCII characters ``str.split`` takes for whitespace and ``normalize-space`` does not
_SPLIT_ONLY_WS = re.compile("[\x0b\x0c\x1c-\x1f]")


def visible_text_chars(el: lxml.etree._Element) -> int:
    """Characters of visible text: the element's text with runs of ASCII whitespace counted
    as one space and the ends trimmed (XPath ``normalize-space``). Callers pass cleaned
    trees (no scripts/styles/templates)."""
    if not len(el) and el.tag.__class__ is str:
        # An element without children holds its text only: in ASCII (without the controls
        # above) ``str.split`` splits on exactly normalize-space's blanks. A third of the
        # calls, each without the XPath call.
        text = el.text
        if not text:
            return 0
        if text.isascii() and _SPLIT_ONLY_WS.search(text) is None:
            return len(" ".join(text.split()))
    try:
        return int(_STRLEN(el))
    except Exception:
        return 0


def _text_len(el: lxml.etree._Element) -> int:
    return visible_text_chars(el)


def collapsed_menu_chars(root: lxml.etree._Element) -> int:
    """Characters held by collapsed menus: closed ``<details>`` (no ``open``) whose content
    besides the summary is mostly links (a language or date picker of hundreds of entries).
    The page does not show them until asked, so they are left out of the page-size measures
    that decide whether a block is "most of the page"; their text still goes through every
    rule as before. (A closed FAQ answer is prose, not links, and stays counted.)"""
    n = 0
    for d in root.iter("details"):
        if d.get("open") is not None or any(a.tag == "details" and a.get("open") is None for a in d.iterancestors()):
            continue
        inner = _text_len(d) - sum(_text_len(s) for s in d.iter("summary"))
        if inner >= 200 and sum(_text_len(a) for a in d.iter("a")) >= 0.8 * inner:
            n += inner
    return n


def _fold(text: str) -> str:
    """``text`` case-folded the way case-blind patterns match it, one character for one (so a
    part of a text folds to a part of the folded text): lower-cased, with the non-ASCII letters
    such patterns take for ASCII ones written as those (U+0130 and U+0131 as ``i``, U+017F as
    ``s``; U+212A lower-cases to ``k``)."""
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")


def _attr_matcher(rx: re.Pattern, words: tuple[str, ...] = ()):
    """``a -> rx.search(a) is not None``, cached per string ``a`` (class/id strings repeat many
    times on a page). One cache per pattern: a cache keyed by ``(rx, a)`` hashed the pattern
    at every call, and a pattern's hash covers its whole compiled code. ``words``: lower-case
    words one of which every match of the case-blind ``rx`` holds in the text folded by
    :func:`_fold`: a string holding none is not searched (a substring test is much cheaper than
    the scan of a case-blind pattern)."""
    @str_memo(16384)
    def match(a: str) -> bool:
        if words:
            folded = _fold(a)
            if not any(w in folded for w in words):
                return False
        return rx.search(a) is not None
    return match


def _css_path(el: lxml.etree._Element) -> str:
    return css_path(el, stop_at_id=True)


def _attr_candidates(root: lxml.etree._Element) -> list:
    """The elements below ``root`` with a ``class`` or an ``id`` attribute, in document order
    (the XPath ``.//*[@class or @id]``: this loop gives the same list in about half the time,
    an XPath node set being sorted and deduplicated before it is returned)."""
    out = []
    append = out.append
    for el in root.iterdescendants(lxml.etree.Element):
        get = el.get
        if get("class") is not None or get("id") is not None:
            append(el)
    return out


#: (the name other modules import)
_ATTR_CANDIDATES = _attr_candidates


_TOKEN_RX = re.compile(r"\w+", re.UNICODE)
#: the ASCII characters ``\w`` does not match, each written as a space
_ASCII_NON_WORD = str.maketrans({chr(c): " " for c in range(128) if not re.match(r"\w", chr(c))})


def _words(text: str) -> list[str]:
    """``_TOKEN_RX.findall(text)``: the runs of word characters. An ASCII text with its other
    characters written as spaces, split at whitespace, gives the same words in under half the
    time (a non-ASCII text is left to the pattern: which of its characters are word characters
    is Unicode's to say)."""
    if text.isascii():
        return text.translate(_ASCII_NON_WORD).split()
    return _TOKEN_RX.findall(text)


def _short_lengths(els: list, limit: int) -> dict:
    """``{element: visible characters}`` for the elements of ``els`` (one tree, document
    order) that hold fewer than ``limit``; an element left out holds ``limit`` or more.
    Measured from the last to the first: an element holds at least as many characters as
    any element inside it, so one around an element found too long is not measured."""
    long_: set = set()  # elements known to hold ``limit`` or more, with all their ancestors
    out: dict = {}
    for el in reversed(els):
        if el in long_:
            continue
        n = _text_len(el)
        if n < limit:
            out[el] = n
            continue
        x = el
        while x is not None and x not in long_:
            long_.add(x)
            x = x.getparent()
    return out


def _holding_blocks(root: lxml.etree._Element, k: int) -> set:
    """The elements of ``root`` (itself included) holding at least ``k`` block elements
    (``_BLOCKS``) below them, ``k`` >= 1: each block counted for its ancestors, bottom-up,
    an ancestor's count only until it reaches ``k`` (all of its own ancestors have reached
    it too then)."""
    counts: dict = {}
    full: set = set()
    for b in root.iter(*_BLOCKS):
        if b is root:
            continue
        # (getparent() up to the first ancestor already full: most blocks' parent is, and no
        # ancestor iterator is made for them)
        anc = b.getparent()
        while anc is not None and anc not in full:
            n = counts.get(anc, 0) + 1
            if n >= k:
                full.add(anc)
            else:
                counts[anc] = n
            if anc is root:
                break
            anc = anc.getparent()
    return full


def _ancestors_of(els) -> set:
    """The ancestors of the elements of ``els``, as a set: each element's ancestors taken up to
    the first one held already (the ancestors above it are held with it)."""
    held: set = set()
    for el in els:
        a = el.getparent()
        while a is not None and a not in held:
            held.add(a)
            a = a.getparent()
    return held


class _RemovedBlocks:
    """The blocks removed from ``root`` so far (``add``), and whether one holds an element
    (``holds``): met on the way up from it. For elements asked about and removed in document
    order (an element may be asked about, then removed): the elements passed on a way up that
    meets no removed block lie inside none, and never will (one removed later comes after them,
    so it is neither around nor before them); they end the later ways up through them.
    (What a set of the removed blocks' descendants tells, without the set.)"""

    def __init__(self, root: lxml.etree._Element) -> None:
        self.root = root
        self.removed: set = set()
        self.clear: set = set()  # elements known to lie inside no removed block

    def add(self, el: lxml.etree._Element) -> None:
        self.removed.add(el)

    def holds(self, el: lxml.etree._Element) -> bool:
        if not self.removed:
            return False
        path = []
        a = el.getparent()
        while a is not None and a is not self.root and a not in self.clear:
            if a in self.removed:
                return True
            path.append(a)
            a = a.getparent()
        self.clear.update(path)
        return False


#: the texts below an element and the line breaks between them, in document order
_TEXTS_AND_BREAKS = lxml.etree.XPath(".//text() | .//br", smart_strings=False)


def run_text(el: lxml.etree._Element) -> str:
    """``el``'s text as its markup runs it: the texts and tails below it joined with nothing
    between them (as ``text_content()`` and the extractors that read it join them), except a
    line break (``<br>``), which separates the lines on each side. The counterpart of
    :func:`block_text` for a candidate that glues the words of adjacent elements
    (``agreement._glues``)."""
    return "".join(x if isinstance(x, str) else " " for x in _TEXTS_AND_BREAKS(el))
