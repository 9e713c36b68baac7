"""Second opinion and vote units: the reference extractor's text, text units,
loose-text wrapping, pruning by reference or by the candidates' vote."""

from __future__ import annotations

import copy

import lxml.etree
import lxml.html

from gatecrawl.core.extract.dom import (_ATTR_CANDIDATES, _BLOCKS, _IN_WORD, _TOKEN_RX, _attr_matcher, _attrs,
    _drop, _holding_blocks, _is_el, _rx, _squash, _words, block_text)
from gatecrawl.core.extract.unittext import _text_left, _text_parts, _unit_tokens
from gatecrawl.core.extract.patterns import _EMBED_RX
from gatecrawl.core.agreement import _shingles, lowers_by_token, text_candidate_cased
from gatecrawl.core.candidates import candidate_text


#: an element whose class/id string names an embedded post (see ``patterns._EMBED_RX``)
_embed_attrs = _attr_matcher(_EMBED_RX)
_CREDIT_ONLY_RX = _rx(r"credit")
_CAPTION_WORD_RX = _rx(r"caption")
_LEAF_UNITS = frozenset(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "pre",
                         "table", "blockquote", "figcaption", "caption", "address"])


#: atomic units of the candidates' vote (tables and cells are split: layout tables hold whole columns)
_VOTE_UNITS = frozenset(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "pre",
                         "figcaption", "caption", "address"])
#: the reference must cover at least this share of its own shingles inside our selection
REF_SUBSET_MIN = 0.9
#: with the whole page's reference text, at least this share of it must lie in our selection
REF_PAGE_SUBSET_MIN = 0.5
#: a unit is kept when this share of its shingles occurs in the reference
REF_KEEP_MIN = 0.5
#: and must cover at least this share of the selection's shingles
REF_COVER_MIN = 0.55


def _reference_text(root: lxml.etree._Element) -> str | None:
    """Text of the selection according to an independent extractor (the vote's trafilatura
    candidate, run on a copy of the selection as a page of its own), or None when it has
    nothing to say or fails."""
    html = lxml.html.Element("html")
    body = copy.deepcopy(root)
    body.tag = "body"
    body.tail = None
    html.append(body)
    try:
        return candidate_text(html, "trafilatura") or None
    except Exception:
        return None


def _leaf_units(root: lxml.etree._Element, atomic: frozenset = _LEAF_UNITS,
                holds_block: set | None = None) -> list:
    """The text units under ``root`` in document order: leaf blocks (paragraphs, list items,
    headings, tables, code, ...: the ``atomic`` tags) and elements holding no block element.
    ``holds_block``: ``_holding_blocks(root, 1)`` when the caller has it."""
    units: list = []
    if holds_block is None:
        holds_block = _holding_blocks(root, 1)
    stack = [iter(root)]  # iterative walk: a nested function calling itself makes a cycle
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if tag.__class__ is not str:  # (``_is_el``, inlined: lxml's tags are exact str)
                continue
            if tag in atomic or child not in holds_block:
                units.append(child)
            else:
                stack.append(iter(child))
                break
        else:
            stack.pop()
    return units


#: block-holding elements whose loose text is left as it is (``_wrap_loose_text``)
_NO_WRAP = frozenset(("table", "tr", "tbody", "thead", "tfoot", "ul", "ol", "dl", "pre", "select"))


def _wrap_loose_text(root: lxml.etree._Element, fired: set[str]) -> set:
    """Wrap runs of loose text (a container's own text, inline children and tails between
    its block children) in ``<p>`` elements, so that every piece of text belongs to a unit
    the candidates can vote on (``wrap_loose_text``). Text-only and inline-only elements are
    left as they are.

    Returns ``_holding_blocks(root, 1)``, which the wrapping leaves as it is: a new ``<p>``
    goes into an element holding a block already (so do all its ancestors), and holds only
    what held no block.

    The holding elements are taken in any order: wrapping one changes its own text, its
    children (inline ones move into a new ``<p>``) and their tails, and reads no more than
    those and its inline children's text, which no other's wrapping changes (an inline child
    holds no block, so nothing inside it is wrapped)."""
    holds_block = _holding_blocks(root, 1)
    for el in holds_block:
        if el.tag in _NO_WRAP or not _has_loose_text(el, holds_block):
            continue
        fired.add("wrap_loose_text")
        _wrap_runs(el, holds_block)
    return holds_block


def _has_loose_text(el: lxml.etree._Element, holds_block: set) -> bool:
    """Whether the holding element ``el`` has text of its own next to its blocks: its text, a
    block child's tail, or an inline child's text (not an inline child's tail). (Every holding
    element has a block child, or a child holding one.)"""
    text = el.text
    if text and not text.isspace():
        return True
    inline = []
    for child in el:
        tag = child.tag
        if tag.__class__ is not str:  # (``_is_el``, inlined: lxml's tags are exact str)
            continue
        if tag in _BLOCKS or child in holds_block:
            tail = child.tail
            if tail and not tail.isspace():
                return True
        else:
            inline.append(child)
    for child in inline:  # (their text last: ``text_content()`` is the dear test)
        text = child.text
        if text and not text.isspace():
            return True
        if len(child):
            text = child.text_content()
            if text and not text.isspace():
                return True
    return False


def _wrap_runs(el: lxml.etree._Element, holds_block: set) -> None:
    """Wrap each run of ``el``'s loose text (its text or a block child's tail, and the inline
    children up to the next block child) that holds text (:func:`_run_has_text`) in a new
    ``<p>`` where the run was. A run without text stays, an empty string there (``el``'s
    text, a tail) read as none."""
    runs: list = []  # (the block child before the run or None, the run's inline children)
    anchor = None
    inline: list = []
    for child in el:
        if child.tag.__class__ is str and (child.tag in _BLOCKS or child in holds_block):
            runs.append((anchor, inline))
            anchor, inline = child, []
        else:
            inline.append(child)
    runs.append((anchor, inline))
    for anchor, inline in runs:
        text = (el.text if anchor is None else anchor.tail) or ""
        if _run_has_text(text, inline):
            p = lxml.html.Element("p")
            p.text = text
            if anchor is None:
                el.text = None
                el.insert(0, p)
            else:
                anchor.tail = None
                anchor.addnext(p)
            for c in inline:
                p.append(c)  # tails travel with their element
            continue
        if not text:
            if anchor is None:
                el.text = None
            else:
                anchor.tail = None
        for c in inline:
            if c.tail == "":
                c.tail = None


def _run_has_text(text: str, inline: list) -> bool:
    """Whether a run of loose text and inline elements holds any text (not blank)."""
    return bool(text.strip() or any(_is_el(c) and (c.text_content() or "").strip() for c in inline))


def _common_ancestor(els: list, stop: lxml.etree._Element) -> lxml.etree._Element:
    """The deepest element holding every element of ``els`` (``stop`` at most)."""
    chain = [els[0], *els[0].iterancestors()]
    pos = {id(e): k for k, e in enumerate(chain)}
    best = 0
    for el in els[1:]:
        k = next((pos[id(a)] for a in (el, *el.iterancestors()) if id(a) in pos), None)
        if k is None:
            return stop
        best = max(best, k)
    stop_k = pos.get(id(stop))
    if stop_k is not None and best > stop_k:
        return stop
    return chain[best]


def _shared_share(root: lxml.etree._Element, ref: str, theirs=None, text: str | None = None,
                  cased: set | None = None) -> float | None:
    """Share of ``root``'s 4-token shingles that occur in ``ref`` (``theirs``: the shingles of
    ``ref``'s lower-cased tokens, ``text``: ``block_text(root)``, ``cased``: the shingles of
    ``text``'s tokens as they are, when the caller has them).

    For a ``text`` that lowers by token (``agreement.lowers_by_token``: no ``İ``, which
    lower-cases to ``i`` and a combining dot and splits its token, and no ``Σ``, lower-cased by
    its context) the lower-cased shingles are ``cased``'s, each lower-cased."""
    if text is not None and cased is not None and lowers_by_token(text):
        ours = {s.lower() for s in cased}
    else:
        ours = _shingle_set(_TOKEN_RX.findall((block_text(root) if text is None else text).lower()))
    if not ours:
        return None
    if theirs is None:
        theirs = _shingle_set(_TOKEN_RX.findall((ref or "").lower()))
    return round(len(ours & theirs) / len(ours), 4)


def _shingle_set(tokens: list[str]) -> set:
    """The set of 4-token windows, each as its tokens joined by one space (the same form as
    ``agreement``'s shingles, which :func:`_shared_share` compares with these)."""
    return _shingles(tokens)


#: a heading right after the title with at least this many tokens can be a standfirst
STANDFIRST_MIN_TOKENS = 8
#: longest text recorded for one set-aside byline/dateline/caption
SET_ASIDE_MAX_CHARS = 300


#: a definition list with at least this many terms, each defined, is a block of the body
DEFINITION_LIST_MIN_TERMS = 2
#: ... whose definitions hold this many tokens on average (sentences, not "Author: name" labels)
DEFINITION_MIN_TOKENS = 8


def _keep_definition_lists(units: list, keep: list, fired: set[str]) -> None:
    """``keep_definition_list``: the terms and definitions of a ``<dl>`` holding at least
    :data:`DEFINITION_LIST_MIN_TERMS` terms and as many definitions, of :data:`DEFINITION_MIN_TOKENS`
    tokens on average, stay whatever the second
    opinion keeps of them: a list of options, parameters or glossary entries is structured
    content (the documentation profile keeps definition lists), and the reference extractor
    drops such blocks by their class words (``options``, ``meta``) rather than by reading them."""
    memo: dict = {}
    for i, u in enumerate(units):
        if keep[i] or u.tag not in ("dt", "dd"):
            continue
        dl = next((a for a in u.iterancestors("dl")), None)
        if dl is None:
            continue
        if dl not in memo:
            terms = sum(1 for _ in dl.iter("dt"))
            defs = [len(_TOKEN_RX.findall(block_text(d))) for d in dl.iter("dd")]
            memo[dl] = terms >= DEFINITION_LIST_MIN_TERMS and len(defs) >= terms and \
                sum(defs) >= DEFINITION_MIN_TOKENS * len(defs)
        if memo[dl]:
            keep[i] = True
            fired.add("keep_definition_list")


def _prune_by_reference(root: lxml.etree._Element, protected: dict, fired: set[str], *,
                        keep_bylines: bool = False, keep_captions: bool = False,
                        set_aside: list | None = None, votes=None,
                        removed: list | None = None, page_ref=None, text_memo: dict | None = None) -> None:
    """``exclude_reference_disagree``: when an independent extractor's text (see
    :func:`_reference_text`) is (nearly) a subset of our selection and covers most of it,
    text units (paragraphs, list items, leaf blocks) it leaves out are removed. Never
    removed: the first heading, ``h1``, quotes, embedded posts, or units holding them;
    bylines and ``time`` datelines only with ``keep_bylines``, captions only with
    ``keep_captions``; a list keeps all its items when the reference keeps any of them; a
    heading stays when anything of its section stays, except a standfirst (see the module
    docstring). Removed bylines, datelines, standfirsts and captions are appended to
    ``set_aside`` as ``(kind, text)``. ``text_memo``: a dict that receives ``block_text(root)``
    as the pruning leaves it, with the shingles of its tokens, not lower-cased, when nothing was
    removed (as ``"text": (root, text, shingles)``; shingles None when units were removed) when
    they were measured, and with ``page_ref`` (the page's trafilatura text) the vote's candidate
    of that text, made of its tokens and shingles read here (``"ref"``, see
    ``agreement.text_candidate_cased``) when they were read."""
    if votes is None:
        ref = page_ref() if page_ref is not None else _reference_text(root)
        if not ref:
            return
        ref_tokens = _TOKEN_RX.findall(ref)
        if len(ref_tokens) < 40:
            return
        ref_sh = _shingle_set(ref_tokens)
        if text_memo is not None and page_ref is not None:
            text_memo["ref"] = text_candidate_cased("trafilatura", ref, ref_tokens, ref_sh)
        # the selection's text and its units' (read again below), in one walk; the units'
        # shingles are the selection's windows over their tokens (see _unit_tokens)
        units = _leaf_units(root)
        parts, spans = _text_parts(root, units)
        own_text = "".join(parts)
        own_tokens = _words(own_text)
        windows = list(map(" ".join, zip(own_tokens, own_tokens[1:], own_tokens[2:], own_tokens[3:])))
        ours_sh = set(windows)
        if text_memo is not None:
            text_memo["text"] = (root, own_text, ours_sh)  # (the text left, below, if a unit goes)
        common = len(ref_sh & ours_sh)
        subset_min = REF_SUBSET_MIN if page_ref is None else REF_PAGE_SUBSET_MIN
        if not ref_sh or common < subset_min * len(ref_sh) or common < REF_COVER_MIN * len(ours_sh):
            return
        ref_joined = " " + " ".join(ref_tokens) + " "
    rule_name = "exclude_reference_disagree" if votes is None else "exclude_no_agreement"
    first_heading = next(iter(root.iter("h1")), None)
    if first_heading is None:
        first_heading = next(iter(root.iter("h2", "h3")), None)
    keep_kind = {"byline": keep_bylines, "caption": keep_captions}
    shield = []
    meta_kind: dict = {}  # element inside / holding an unshielded byline/caption -> kind

    def mark(el, kind: str) -> None:
        for x in (*el.iter(), *el.iterancestors()):
            meta_kind.setdefault(x, kind)

    for el, kind in protected.items():
        if el.getparent() is None:
            continue
        credit_only = el.tag not in ("figcaption", "caption") and _CREDIT_ONLY_RX.search(
            _attrs(el)) and not _CAPTION_WORD_RX.search(_attrs(el))
        if keep_kind[kind] and not credit_only:  # image credits alone are never shielded
            shield.append(el)
        else:
            mark(el, kind)
    for el in root.iter("time"):
        if keep_bylines:
            shield.append(el)
        else:
            mark(el, "dateline")
    if first_heading is not None:
        shield.append(first_heading)
    shield.extend(root.iter("h1", "blockquote"))
    shield.extend(el for el in _ATTR_CANDIDATES(root) if _embed_attrs(_attrs(el)))
    covered: set = set()  # inside a shielded element
    holds: set = set()  # holds a shielded element
    for el in shield:
        if el in covered:
            continue
        covered.update(el.iter())
        holds.update(el.iterancestors())

    if votes is not None:
        units = _leaf_units(root)
    else:
        unit_toks = _unit_tokens(parts, spans, own_tokens)

    def in_ref(k: int, el) -> bool:
        if votes is not None:
            return votes(el)
        toks, at = unit_toks[k]
        if not toks:
            return True
        n = len(toks)
        if n >= 4:
            sh = set(windows[at:at + n - 3]) if at >= 0 else _shingle_set(toks)
            return len(sh & ref_sh) >= REF_KEEP_MIN * len(sh)
        return (" " + " ".join(toks) + " ") in ref_joined

    keep = [u in covered or u in holds or in_ref(k, u) for k, u in enumerate(units)]
    if votes is None:
        _keep_definition_lists(units, keep, fired)
    # lists: all items stay when the reference keeps any of them
    # (with votes, each item was voted on: no expansion)
    kept_lists = set() if votes is not None else {u.getparent() for u, k in zip(units, keep) if k and u.tag == "li"}
    for i, u in enumerate(units):
        if not keep[i] and u.tag == "li" and u.getparent() in kept_lists:
            keep[i] = True
    # A standfirst: a sentence-long h2-h6 straight after the title (nothing kept between
    # them) that the reference leaves out is a summary line of the header, not a section
    # heading; it is set aside like a byline (with keep_bylines it stays).
    standfirst = set()
    if first_heading is not None and not keep_bylines:
        seen_title = False
        title_units = {first_heading, *first_heading.iterancestors()}
        for i, u in enumerate(units):
            if u in title_units:
                seen_title = True
                continue
            if not seen_title:
                continue
            if u.tag in ("h2", "h3", "h4", "h5", "h6") and not keep[i] and \
                    len(_TOKEN_RX.findall(u.text_content())) >= STANDFIRST_MIN_TOKENS:
                standfirst.add(u)
                meta_kind.setdefault(u, "standfirst")
                continue
            if keep[i] and _TOKEN_RX.search(u.text_content() or ""):
                break
    # headings: stay when anything up to the next heading stays
    for i, u in enumerate(units):
        if not keep[i] and u.tag in ("h2", "h3", "h4", "h5", "h6") and u not in standfirst:
            for j in range(i + 1, len(units)):
                if units[j].tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                    break
                if keep[j] and _TOKEN_RX.search(units[j].text_content() or ""):
                    keep[i] = True
                    break
    gone: list = []  # the spans of the units removed, and whether each left a blank tail
    for i, (u, k) in enumerate(zip(units, keep)):
        if not k and u.getparent() is not None:
            if votes is None:
                gone.append((i, u.tag not in _IN_WORD, bool(u.tail) and not u.tail.strip()))
            kind = meta_kind.get(u)
            if kind is not None and set_aside is not None:
                text = _squash(u.text_content())
                if text:
                    set_aside.append((kind, text[:SET_ASIDE_MAX_CHARS]))
            elif removed is not None:
                text = _squash(u.text_content())
                if text:
                    removed.append((rule_name, text[:SET_ASIDE_MAX_CHARS]))
            _drop(u)
            fired.add(rule_name)
    if gone and text_memo is not None:
        text_memo["text"] = (root, _text_left(parts, spans, gone), None)

