"""``select_main``: the own candidate, the rules, the candidates' vote, the listing rescue."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.etree
import lxml.html

from gatecrawl.core import pagetype
from gatecrawl.core.agreement import Ballot, UNIT_ATTR, _shingles, decide, text_shingles, unvoted_tail
from gatecrawl.core.candidates import candidate_text
from gatecrawl.core.extract.dom import (MIN_TEXT, _TOKEN_RX, _drop, _is_el, _squash, _text_len, _words, block_text,
    run_text, separate_adjacent_items)
from gatecrawl.core.extract.preclean import _preclean
from gatecrawl.core.extract.patterns import (_clean_patterns, _drop_reviews, _link_share, _protected_blocks,
                                             _recipe_exclude)
from gatecrawl.core.extract.links import _clean_links
from gatecrawl.core.extract.blocks import (_drop_ad_labels, _drop_author_bios,
    _drop_calls_to_action, _drop_inline_teasers, _drop_media_and_policy, _drop_popovers,
    _drop_press_boilerplate)
from gatecrawl.core.extract.repeats import _drop_repeated_siblings
from gatecrawl.core.extract.scoring import (COVERAGE_KEEP, COVERAGE_MIN, _Scores, _selector_of,
    _semantic_ancestor)
from gatecrawl.core.extract.reference import (SET_ASIDE_MAX_CHARS, _VOTE_UNITS, _common_ancestor,
    _leaf_units, _prune_by_reference, _shared_share, _wrap_loose_text)
from gatecrawl.core.extract.listing import _listing_rescue


@dataclass(frozen=True)
class Selection:
    root: lxml.html.HtmlElement
    rule: str
    selector: str | None
    removal_rules: tuple[str, ...]
    main_text_chars: int
    page_text_chars: int
    #: bylines, datelines, standfirsts and captions taken out of the body by the second opinion, as
    #: ``(kind, text)`` in document order (kept for the evidence packet, not the Markdown)
    set_aside: tuple[tuple[str, str], ...] = ()
    #: text units of the own selection that the candidates' vote removed, as ``(rule, text)``
    removed: tuple[tuple[str, str], ...] = ()
    #: the vote: mode, each candidate's size and agreement with the own selection (or None)
    agreement: dict | None = None
    #: share of the selection's text the independent extractor (trafilatura) keeps too, or
    #: None when it was not consulted
    reference_share: float | None = None
    #: the page type that chose the extraction profile (detected, or pinned by the recipe)
    page_type: "pagetype.PageTypeGuess | None" = None


#: removal rules that cut the content of a page type (its extraction profile)
PROFILES: dict[str, frozenset] = {
    "article": frozenset(),
    "documentation": frozenset(),
    "service": frozenset(),
    "product": frozenset(),
    "forum": frozenset({"exclude_comments"}),
    "listing": frozenset({"exclude_related", "exclude_link_dense", "exclude_inline_teaser"}),
}


_CHROME_TAGS = frozenset(("nav", "header", "footer", "aside"))
_CHROME_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary"))
#: a unit whose link text holds this share of its text is a link-only unit (``Ballot.linked``)
LINKED_SHARE = 0.8


#: a chrome element holding more than this share of the page's text does not make chrome
CHROME_PAGE_MAX_SHARE = 0.5


def _in_chrome(unit, memo: dict | None = None, page_chars: int = 0) -> int:
    """1 when the unit is, or lies inside, page chrome by markup (see ``Ballot.chrome``); 2 when
    the chrome element around it holds more than :data:`CHROME_PAGE_MAX_SHARE` of the page's
    ``page_chars`` (``Ballot.page_chrome``: an unclosed ``<div>`` in the header makes the
    parser nest the whole page in it); 0 otherwise. A header inside an article (its title
    block) is not chrome. ``memo`` (one tree, not changed while it is used) keeps each
    element's answer: the units of a page share ancestors."""
    memo = {} if memo is None else memo
    path = []  # (element, chrome by markup) from the unit up, for those that do not end the walk
    top = 0
    el = unit
    while el is not None:
        if el in memo:
            top = memo[el]
            break
        tag = el.tag
        role = (el.get("role") or "").strip()
        if tag in ("article", "main") or role == "main":
            memo[el] = top = 0
            break
        chrome = tag in _CHROME_TAGS or role in _CHROME_ROLES  # page chrome by markup
        if chrome and not (page_chars and _text_len(el) > CHROME_PAGE_MAX_SHARE * page_chars):
            memo[el] = top = 1
            break
        path.append((el, chrome))
        el = el.getparent()
    state = top
    for el, chrome in reversed(path):  # from the top down: below a page-holding chrome element, 2
        if state != 1 and chrome:
            state = 2
        memo[el] = state
    return memo[unit] if path else top


#: the elements of a subtree (its root included) that carry a vote unit's number, in document order
_UNIT_ELEMENTS = lxml.etree.XPath(f"descendant-or-self::*[@{UNIT_ATTR}]")
#: the non-empty unit numbers of a subtree, in document order
_UNIT_NUMBERS = lxml.etree.XPath(f"descendant-or-self::*/@{UNIT_ATTR}[. != '']", smart_strings=False)


def _unit_indexes(root) -> frozenset:
    """The vote units' numbers under ``root`` (itself included): one XPath call, where a walk
    of the subtree tested every element."""
    return frozenset(map(int, _UNIT_NUMBERS(root)))


def _unit_values(root) -> list[str]:
    """The vote-unit attribute values under ``root`` (itself included), in document order."""
    return [el.get(UNIT_ATTR) for el in _UNIT_ELEMENTS(root)]


def _copied_units(copy_root, n: int) -> list:
    """The vote units of a deep copy of the working copy, whose ``n`` units were numbered
    0 .. n-1 in document order before it was copied: the copy's numbered elements, which are
    ``_leaf_units(copy_root, _VOTE_UNITS)`` (the same structure gives the same units) unless the
    page itself carried the attribute on another element; then the units are taken again."""
    found = _UNIT_ELEMENTS(copy_root)
    if len(found) == n and all(el.get(UNIT_ATTR) == str(i) for i, el in enumerate(found)):
        return found
    return _leaf_units(copy_root, _VOTE_UNITS)


def _drop_unvoted_tail(root, units, tail: frozenset, fired: set[str], removed: list) -> None:
    """``exclude_unvoted_tail``: the units of ``tail`` (see ``agreement.unvoted_tail``) leave
    the own selection ``root``; each is listed in ``removed``."""
    if not tail:
        return
    for el in [e for e in root.iter() if _is_el(e) and e.get(UNIT_ATTR) is not None]:
        if int(el.get(UNIT_ATTR)) in tail and el.getparent() is not None:
            text = _squash(units[int(el.get(UNIT_ATTR))].text_content())
            if text:
                removed.append(("exclude_unvoted_tail", text[:SET_ASIDE_MAX_CHARS]))
            _drop(el)
            fired.add("exclude_unvoted_tail")


#: a block a pattern rule names but its size guarded (see ``patterns._clean_patterns``) goes
#: when the second opinion keeps at most this share of its shingles ...
GUARDED_REF_MAX = 0.2
#: ... while keeping at least this share of the rest of the selection (GUARDED_REST_MIN_TOKENS+ tokens)
GUARDED_REST_MIN = 0.5
GUARDED_REST_MIN_TOKENS = 40
#: the pattern rules whose guarded blocks the second opinion may remove: not ``exclude_footer``
#: (a footer holding much of a page's prose is its fine print: plans, terms and footnotes of a
#: service or product page, which the second opinion, reading prose, leaves out; on wcxb-dev
#: four such footers are content) nor the cookie rule (its blocks are never guarded)
GUARDED_RULES = frozenset(("exclude_comments", "exclude_related", "exclude_sidebar", "exclude_ads",
                           "exclude_newsletter", "exclude_share_bar", "exclude_author_bio", "exclude_tags",
                           "exclude_nav"))


def _drop_unconfirmed_guarded(root, guarded: list, ref: str, fired: set[str], removed: list,
                              gone: set) -> None:
    """``exclude_unconfirmed_guarded``: a block inside the selection whose class words name
    boilerplate (comments, related posts, a sidebar ...) but which a size guard kept (it holds
    much of the page's prose: a blog post's long comment thread) goes when the second opinion
    (trafilatura, comments off) leaves it out and confirms the rest of the selection: the two
    independent signals agree. Its text is listed in ``removed``, its vote units in ``gone``."""
    if not guarded or not ref:
        return
    theirs = text_shingles("trafilatura", ref)
    for el, rule in guarded:
        if rule not in GUARDED_RULES:
            continue
        if el is root or el.getparent() is None or not any(a is root for a in el.iterancestors()):
            continue
        mine = _shingles(_TOKEN_RX.findall(block_text(el).lower()))
        if not mine or len(mine & theirs) > GUARDED_REF_MAX * len(mine):
            continue
        rest_toks = _TOKEN_RX.findall(block_text(root).lower())
        rest = _shingles(rest_toks) - mine
        if len(rest_toks) - len(mine) < GUARDED_REST_MIN_TOKENS or \
                len(rest & theirs) < GUARDED_REST_MIN * len(rest):
            continue
        text = _squash(el.text_content())
        if text:
            removed.append(("exclude_unconfirmed_guarded", text[:SET_ASIDE_MAX_CHARS]))
        gone.update(_unit_values(el))
        _drop(el)
        fired.add("exclude_unconfirmed_guarded")
        fired.add(rule)


def _mostly_gone(el, gone: set) -> bool:
    """Half or more of the vote units under ``el`` are in ``gone``."""
    idx = _unit_values(el)
    return bool(idx) and sum(1 for i in idx if i in gone) >= 0.5 * len(idx)


def select_main(doc: lxml.html.HtmlElement, *, main_selectors: Sequence[str] = (),
                exclude_selectors: Sequence[str] = (), keep_comments: bool = False,
                keep_bylines: bool = False, keep_captions: bool = False,
                agreement: bool = True, page_type: str | None = None, url: str = "", index=None) -> Selection:
    """Select the main content of ``doc`` (see the module docstring).

    An internal error propagates: ``convert()`` turns it into a ``converter_error`` drop.
    Falling back to the whole body here would keep navigation and footers as a success."""
    return _select_main(doc, main_selectors=main_selectors,
                        exclude_selectors=exclude_selectors, keep_comments=keep_comments,
                        keep_bylines=keep_bylines, keep_captions=keep_captions,
                        agreement=agreement, page_type=page_type, url=url, index=index)


def _select_main(doc, *, main_selectors, exclude_selectors, keep_comments,
                 keep_bylines=False, keep_captions=False, agreement=True, page_type=None,
                 url="", index=None) -> Selection:
    fired: set[str] = set()
    if page_type is None:
        guess = pagetype.detect_page_type(doc, url, index=index)
    else:
        guess = pagetype.PageTypeGuess(page_type, ("recipe",), pinned=True)
    skip = PROFILES.get(guess.type, frozenset())
    comments_are_content = "exclude_comments" in skip
    src_body = None
    if doc is not None and _is_el(doc):
        if doc.tag == "body":
            src_body = doc
        else:
            src_body = doc.find("body")
            if src_body is None:
                src_body = doc.find(".//body")
    if src_body is None:
        src_body = lxml.html.Element("body")
        if doc is not None and _is_el(doc):
            src_body.append(copy.deepcopy(doc))
    body = copy.deepcopy(src_body)
    body.tail = None
    base_href = None
    try:
        for b in doc.getroottree().getroot().iter("base"):
            if b.get("href"):
                base_href = b.get("href").strip()
                break
    except Exception:
        base_href = None
    vote = agreement and not keep_comments
    aria_hidden = _preclean(body, fired, defer_aria=vote)
    held = list(body.iter())  # noqa: F841 (held: lxml reuses these objects in the rules' walks)
    # The candidates' vote sees the page before the own pattern rules (and with the blocks hidden
    # from screen readers only): a unit those rules removed can come back when both others keep it.
    unit_words: list = []  # each vote unit's lower-cased tokens and tag
    vote_body = body
    hidden_dropped = False  # (then the vote's copy holds more text than the working copy)
    if vote:
        holds_block = _wrap_loose_text(body, fired)
        body_units = _leaf_units(body, _VOTE_UNITS, holds_block)
        for i, u in enumerate(body_units):
            u.set(UNIT_ATTR, str(i))
        vote_body = copy.deepcopy(body)
        # the units' words, read here: nothing has changed the working copy since the vote's
        # copy was made, so they are the copy's units' words too (whose elements are only
        # looked for when the vote needs them, see ``vote_units``)
        unit_words = [(_words(block_text(u).lower()), u.tag) for u in body_units]
        for el in aria_hidden:
            if el.getparent() is not None:
                _drop(el)
                fired.add("exclude_hidden")
                hidden_dropped = True
    page_chars = _text_len(body)

    chosen = None
    rule = "body_fallback"
    selector: str | None = "body"

    for sel in main_selectors or ():
        try:
            matches = body.cssselect(sel)
        except Exception:
            continue
        for el in matches:
            if _text_len(el) >= MIN_TEXT:
                chosen, rule, selector = el, "recipe_selector", sel
                break
        if chosen is not None:
            break

    guarded: list = []
    kinds: list = []  # the keep rules' class-word matches (read again by ``_protected_blocks``)
    if chosen is None:
        _recipe_exclude(body, exclude_selectors, fired)
        _clean_patterns(body, keep_comments=keep_comments, fired=fired, skip=skip,
                        text_chars=None if exclude_selectors else page_chars, guarded=guarded, kinds=kinds)
        if guess.type == "product":
            _drop_reviews(body, fired)
        scores = _Scores(body)
        best = scores.best(body)
        if best is not None:
            chosen, rule = best, "density_score"
            # Several <article> elements inside the candidate (the post plus "more posts"
            # cards): the one holding the page's first <h1> is the main one, unless another
            # article without articles inside scores more (a recipe's title card above its
            # instructions: the candidate holding both stands).
            arts = [a for a in best.iter("article") if a is not best]
            if len(arts) >= 2:
                h1 = next(iter(body.iter("h1")), None)
                if h1 is not None:
                    top = max(scores.score.get(id(a), 0) for a in arts
                              if not any(True for _ in a.iterdescendants("article")))
                    for a in arts:
                        if any(h is h1 for h in a.iter("h1")) and _text_len(a) >= MIN_TEXT and \
                                scores.score.get(id(a), 0) >= top:
                            best = a
                            break
            sem, sem_rule = _semantic_ancestor(best, body)
            if sem is not None and sem is not body:
                if scores.score.get(id(sem), 0) >= 0.6 * scores.score.get(id(best), 0):
                    chosen, rule = sem, sem_rule
            # coverage guard
            total = scores.positive_total
            if total > 0 and rule not in ("semantic_article", "semantic_article_body"):
                node = chosen
                while (node is not None and node is not body
                       and scores.score.get(id(node), 0) < COVERAGE_MIN * total):
                    node = node.getparent()
                if node is not None and node is not chosen:
                    # only widen when the wider node is not dominated by junk
                    n_art = sum(1 for _ in chosen.iter("article"))
                    if scores.score.get(id(node), 0) >= COVERAGE_KEEP * scores.score.get(id(chosen), 0) and \
                            sum(1 for _ in node.iter("article")) == n_art:
                        chosen, rule = node, "coverage_guard"
            selector = _selector_of(chosen, rule)
            if scores.long_cells and any(c is chosen or c in chosen.iterancestors() for c in scores.long_cells):
                fired.add("layout_cell_block")

    if chosen is None:
        chosen = body
        rule, selector = "body_fallback", "body"

    voting = bool(unit_words) and rule != "recipe_selector"
    copied: list = []

    def vote_units() -> list:
        """The vote units in the vote's copy (found once, when first asked)."""
        if not copied:
            copied.extend(_copied_units(vote_body, len(unit_words)))
        return copied

    # the vote units the own candidate's region holds, before its block rules run
    region = _unit_indexes(chosen) if voting else frozenset()
    # The working copy is not read again: the chosen element is taken out of it (no copy).
    # Detached, it has no ancestors and nothing before or after it, as a copy would.
    root = chosen
    if root.getparent() is not None:
        root.getparent().remove(root)
    root.tail = None
    if rule == "recipe_selector":
        _recipe_exclude(root, exclude_selectors, fired)
        _clean_patterns(root, keep_comments=keep_comments, fired=fired, skip=skip, kinds=kinds)
        if guess.type == "product":
            _drop_reviews(root, fired)
    # (both read the class words the pattern rules' walk read: the tree has only lost elements
    # since; the keep rules that apply are recorded)
    _clean_links(root, fired, skip, kinds=kinds)
    protected = _protected_blocks(root, fired, known=kinds)
    _drop_popovers(root, fired)
    _drop_author_bios(root, protected, fired)
    if "exclude_inline_teaser" not in skip:
        _drop_inline_teasers(root, protected, fired)
    texts = _drop_calls_to_action(root, protected, fired)  # (root's text nodes when it removed nothing)
    _drop_ad_labels(root, protected, fired, texts)
    _drop_press_boilerplate(root, protected, fired)
    _drop_media_and_policy(root, protected, fired)
    set_aside: list[tuple[str, str]] = []
    removed: list[tuple[str, str]] = []
    agreement_info = None
    ref_cache: dict = {}

    def page_text(name: str) -> str:
        if name not in ref_cache:
            ref_cache[name] = candidate_text(doc, name, include_comments=comments_are_content)
        return ref_cache[name]

    shared = voting
    gone: set = set()  # vote units of the guarded blocks removed
    if shared and guarded:
        _drop_unconfirmed_guarded(root, guarded, page_text("trafilatura"), fired, removed, gone)
    # block_text of the own selection as the reference pruning left it (and its shingles when it removed
    # nothing): read again for the reference share when the selection has not changed since (same root);
    # and the vote's trafilatura candidate, made of what the pruning read of its text
    root_text: dict = {}
    if not keep_comments:  # the reference extractor leaves comments out
        _prune_by_reference(root, protected, fired, keep_bylines=keep_bylines,
                            keep_captions=keep_captions, set_aside=set_aside, removed=removed,
                            page_ref=(lambda: page_text("trafilatura")) if shared else None,
                            text_memo=root_text)
    if voting:
        own_idx = _unit_indexes(root)
        ballots = [Ballot(i, toks, i in own_idx, tag, in_region=i in region)
                   for i, (toks, tag) in enumerate(unit_words)]

        def describe(ballots: list) -> None:
            """The units' markup measures, asked by the vote once the first opinion has not
            settled it (see ``decide``)."""
            chrome: dict = {}
            for b, u in zip(ballots, vote_units()):
                st = _in_chrome(u, chrome, page_chars)
                ls = _link_share(u)
                b.chrome = st != 0
                # inside a page-holding chrome element, a unit that is mostly link text is never
                # taken for the page (the menu the page was nested in)
                b.page_chrome = st == 2 and ls < 0.5
                b.linked = ls >= LINKED_SHARE

        def glued(i: int) -> list:
            """The unit's tokens as its markup runs them (see :func:`run_text`)."""
            return _TOKEN_RX.findall(run_text(vote_units()[i]).lower())

        lead = root_text.get("ref")  # (the pruning's page_ref is page_text("trafilatura"))
        res = decide(ballots, page_text, thread=comments_are_content, describe=describe, glued=glued,
                     known={"trafilatura": lead} if lead is not None else None)
        agreement_info = res.to_dict()
        if res.rule is not None:  # a named rule of the vote (``rules.py``)
            fired.add(res.rule)
        if res.keep is None and guess.type == "product":
            root_text.clear()
            tail = unvoted_tail(ballots)
            if tail:
                _drop_unvoted_tail(root, vote_units(), tail, fired, removed)
        if res.keep is not None:
            units = vote_units()
            kept_units = [units[i] for i in sorted(res.keep)]
            # (never empty: every mode that returns units to keep keeps 25+ tokens of them)
            container = _common_ancestor(kept_units, vote_body)
            rule = "agreement"
            selector = _selector_of(container, rule)
            root = copy.deepcopy(container)
            root.tail = None
            protected = _protected_blocks(root, fired)
            keep_set = res.keep

            def votes(el) -> bool:
                idx = el.get(UNIT_ATTR)
                if idx is not None:
                    return int(idx) in keep_set
                inner = [int(d.get(UNIT_ATTR)) for d in el.iter() if _is_el(d) and d.get(UNIT_ATTR)]
                return not inner or any(i in keep_set for i in inner)

            set_aside = []
            removed = [("exclude_no_agreement", _squash(units[i].text_content())[:SET_ASIDE_MAX_CHARS])
                       for i in res.removed]
            _prune_by_reference(root, protected, fired, keep_bylines=keep_bylines,
                                keep_captions=keep_captions, set_aside=set_aside, votes=votes)
            fired.add("agreement")
        for e in _UNIT_ELEMENTS(root):
            del e.attrib[UNIT_ATTR]
    if vote and rule != "recipe_selector":
        rescued = _listing_rescue(vote_body, _text_len(root), None if hidden_dropped else page_chars)
        if rescued is not None and gone and _mostly_gone(rescued, gone):
            rescued = None  # the repeated items are the block the two signals removed (comments)
        if rescued is not None:
            root = copy.deepcopy(rescued)
            root.tail = None
            for e in _UNIT_ELEMENTS(root):
                del e.attrib[UNIT_ATTR]
            _clean_links(root, fired, skip)
            _drop_popovers(root, fired)
            rule, selector = "listing_items", _selector_of(rescued, "listing_items")
            fired.add("listing_items")
            set_aside, removed = [], []
    reference_share = None
    if "trafilatura" in ref_cache:
        ref = ref_cache["trafilatura"]
        measured = root_text.get("text")
        if not measured or measured[0] is not root:
            measured = (None, None, None)
        lead = root_text.get("ref") if voting else None
        reference_share = _shared_share(root, ref, theirs=lead.shingles if lead else text_shingles("trafilatura", ref),
                                        text=measured[1], cased=measured[2])
    _drop_repeated_siblings(root, fired, removed)
    if separate_adjacent_items(root):
        fired.add("separate_items")
    if base_href:
        root.set("data-gc-base", base_href)
    return Selection(
        root=root,
        rule=rule,
        selector=selector,
        removal_rules=tuple(sorted(fired)),
        main_text_chars=_text_len(root),
        page_text_chars=page_chars,
        set_aside=tuple(set_aside),
        removed=tuple(removed),
        agreement=agreement_info,
        reference_share=reference_share,
        page_type=guess,
    )
