"""Block-level agreement between independent main-content candidates.

Three candidates are computed from one parse of the page:

* ``own``: gatecrawl's density selection after its removal rules (see ``extract``);
* ``trafilatura``: trafilatura's own extractor (fast mode: no internal fallback, comments
  off), run on the whole page;
* ``readability``: the Readability algorithm (trafilatura's port), run on the whole page.

The page's text units (paragraphs, list items, headings, table and code blocks and other
leaf blocks of the cleaned page) are the voters' ballots. A unit that two or more
candidates keep stays; a unit that only one keeps needs positive evidence (see
:func:`decide`). The kept units are then cut out of the page together with the smallest
subtree that holds them all, so the Markdown keeps their structure. Every unit of the own
selection that the vote removes is reported (``removed``), never silently lost.

This module has no Scrapy imports and no state; the same page gives the same decision.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from gatecrawl.core.candidates import CANDIDATES
from gatecrawl.core.shingles import (_TOKEN_RX, UNIT_MATCH_MIN, _shingles, _text_candidate, _text_candidate_of,  # noqa: F401
                                     _TextCandidate, _tokens, lowers_by_token, text_candidate_cased, text_shingles)

__all__ = ["Ballot", "AgreementResult", "decide", "lowers_by_token", "text_candidate_cased", "text_shingles",
           "unvoted_tail", "UNIT_ATTR"]

UNIT_ATTR = "data-gc-unit"

#: a candidate "speaks" only when it holds at least this many tokens
CANDIDATE_MIN_TOKENS = 25
#: a unit only one candidate keeps stays when it lies between units the majority keeps and
#: is no longer than this many tokens (a paragraph the others split differently)
BRIDGE_MAX_TOKENS = 60
#: the own selection is outvoted when under this share of the others' agreed text is in it
#: and under this share of its own text is kept by any other candidate
OUTVOTED_MAX_SHARE = 0.3
#: units both other candidates keep outside the own selection are added when they hold at
#: least this many tokens, and this share of the own selection's tokens
ADD_MIN_TOKENS = 30
ADD_MIN_SHARE = 0.3
#: an outvote stands only when the units the others keep hold this share of the lead's text
OUTVOTE_REALISED_MIN = 0.5
#: the own selection is also outvoted when the lead candidate holds this many times its tokens
#: (and keeps under OUTVOTED_MAX_SHARE of it, whatever the second opinion says)
LOUDER_FACTOR = 2.0
#: an own selection with this share of its tokens in the page's chrome by markup is outvoted
#: by the lead alone when the lead keeps under OUTVOTED_MAX_SHARE of it
CHROME_OWN_SHARE = 0.9
#: the lead widens the selection alone when it keeps this share of the own text and the second
#: opinion does not (silent, or elsewhere on the page)
CONFIRM_SHARE = 0.9
#: a continuation of the own selection (see :func:`_continuation`) ends where the units the
#: lead leaves out since its last kept unit (chrome included) hold more than this many tokens
CONTINUE_GAP_MAX = 50
#: ... and is added only when this share of its tokens lies in units of at least
#: CONTINUE_UNIT_MIN tokens: sections of prose, lists and item summaries (their headings
#: and labels are short), not a column of teaser titles and dates
CONTINUE_LONG_SHARE = 0.8
CONTINUE_UNIT_MIN = 15
#: ... and at least this many such units: a run of sections or items, not one block after the
#: selection (a footer's address, a "submit a correction" note)
CONTINUE_MIN_UNITS = 3
#: the lead candidate is a dump of the page when the units it keeps hold this share of all the
#: units' tokens (see :func:`_is_dump`)
DUMP_SHARE = 0.9
#: against a dump, the own selection is narrowed to the units the second opinion keeps when
#: those hold at least this share of it (see :func:`_narrowed`)
NARROW_MIN_SHARE = 0.5
#: ... but its units of at least this many tokens stay, kept or not by the second opinion
NARROW_KEEP_TOKENS = 40
#: the lead alone never adds a run of at least this many consecutive link-only units (see
#: :func:`_link_runs`; ``Ballot.linked``)
LINK_RUN_MIN = 3
#: a candidate glues words (see :func:`_glues`) when this many of its distinct tokens ...
GLUED_MIN_TOKENS = 5
#: ... and this share of them are two of the units' words joined
GLUED_MIN_SHARE = 0.02


@dataclass(slots=True)
class Ballot:
    """One text unit of the page and who keeps it."""

    index: int
    tokens: list[str]
    own: bool
    tag: str
    #: inside the own selection's region (its rules saw the unit; their removals stand)
    in_region: bool = False
    #: inside page chrome by markup (``nav``, ``header``, ``footer``, ``aside`` or their ARIA
    #: roles): one candidate alone never brings it back
    chrome: bool = False
    #: chrome only because a chrome element around it holds most of the page (the page nested in
    #: its header by an unclosed tag), and not mostly link text: when an own selection in the
    #: chrome is outvoted, the lead alone may keep such a unit (see ``decide``)
    page_chrome: bool = False
    votes: dict = field(default_factory=dict)
    #: the unit's text is (almost) all link text (80% or more): a menu entry, a headline
    linked: bool = False


@dataclass(frozen=True)
class AgreementResult:
    #: unit indexes to keep, or None when the own selection stands as it is
    keep: frozenset | None
    #: ``own_agrees`` (the other candidates add nothing outside the own selection),
    #: ``own_widened`` (units both others keep are added), ``own_outvoted`` (the own
    #: selection shares almost nothing with the others: their agreed units replace it),
    #: ``own_abstained`` (the own selection is (nearly) empty: what any other keeps stays),
    #: ``own_narrowed`` (the lead dumped the page and the second opinion read the own
    #: selection: the own units it leaves out go, see :func:`_narrowed`),
    #: ``own_only`` (no other candidate had anything to say)
    mode: str
    candidates: dict  # name -> {"tokens", "kept_own_share"}
    removed: tuple = ()  # own unit indexes the vote removed
    added: tuple = ()  # unit indexes outside the own selection the vote added
    #: the named rule (gatecrawl.core.extract.rules) behind the decision, when one beyond the
    #: mode names it
    rule: str | None = None

    def to_dict(self) -> dict:
        return {"mode": self.mode, "candidates": self.candidates,
                "units_added": len(self.added), "units_removed": len(self.removed)}


def _info(cands, ballots, own_tokens) -> dict:
    info: dict = {"own": {"tokens": own_tokens}}
    for c in cands:
        shared = sum(len(b.tokens) for b in ballots if b.own and c.name in b.votes and b.votes[c.name])
        info[c.name] = {"tokens": c.tokens,
                        "kept_own_share": round(shared / own_tokens, 4) if own_tokens else 0.0}
    return info


def _majority_or_lead(ballots: list[Ballot], others: list[int], lead: str, *,
                      page_chrome: bool = False) -> list[bool]:
    """Without the own selection: the units the lead candidate keeps (it holds what both
    others agree on, and on both development corpora the lead alone beat the others' overlap
    when they disagreed), plus any unit both others keep. A unit in the page's chrome by
    markup (navigation, header, footer, aside) needs both: the lead alone does not bring a
    menu back; with ``page_chrome``, except a unit that is chrome only because the chrome
    element holds the page (``Ballot.page_chrome``)."""
    return [bool(b.tokens) and (o >= 2 or (b.votes.get(lead, False) and (
        not b.chrome or (page_chrome and b.page_chrome))))
            for b, o in zip(ballots, others)]


def _unit_keys(ballots: list[Ballot]) -> list:
    """What :meth:`_TextCandidate.keeps` matches of each unit, made once for every candidate:
    the set of its shingles (4 tokens or more), its tokens as ``" tok tok "`` (1 to 3), or
    None (no tokens)."""
    out: list = []
    for b in ballots:
        toks = b.tokens
        if len(toks) >= 4:
            out.append(set(map(" ".join, zip(toks, toks[1:], toks[2:], toks[3:]))))
        elif toks:
            out.append(" " + " ".join(toks) + " ")
        else:
            out.append(None)
    return out


def _votes_of(c: _TextCandidate, ballots: list[Ballot], keys: list) -> None:
    """Set each ballot's vote of ``c`` (speaking): :meth:`_TextCandidate.keeps` on its tokens,
    read from the units' ``keys`` (:func:`_unit_keys`)."""
    shingles, joined, name = c.shingles, c.joined, c.name
    for b, key in zip(ballots, keys):
        if key is None:
            b.votes[name] = False
        elif key.__class__ is str:
            b.votes[name] = key in joined
        else:
            b.votes[name] = len(key & shingles) >= UNIT_MATCH_MIN * len(key)


def decide(ballots: list[Ballot], texts, *, thread: bool = False, describe=None, glued=None,
           known: dict | None = None) -> AgreementResult:
    """Vote on the units. ``texts(name)`` returns a candidate's text; the second candidate
    is only asked when the first keeps text the own selection does not. On a ``thread`` (a
    forum page, whose posts are its content) the lead widens the selection alone whenever
    it confirms it: the second opinion (Readability) keeps one post by design, so its
    leaving the other posts out is no vote against them.

    ``describe(ballots)``, when given, sets the ballots' markup measures (``chrome``,
    ``page_chrome``, ``linked``) before they are first read: only past the first opinion,
    which settles most pages (each measure walks the page around a unit or its links).

    ``glued(index)``, when given, returns a unit's tokens as its markup runs them: asked only
    for the units a candidate that glues words (:func:`_glues`) does not keep as read.

    ``known``: candidates built already (``name -> text_candidate_cased(name, texts(name), ...)``),
    used instead of reading their texts again."""
    own_tokens = sum(len(b.tokens) for b in ballots if b.own)
    cands = []
    keys = None  # (the units' keys, made when a candidate first speaks)
    for name in CANDIDATES:
        c = known[name] if known and name in known else _text_candidate(name, texts(name))
        cands.append(c)
        if c.tokens >= CANDIDATE_MIN_TOKENS:
            if keys is None:
                keys = _unit_keys(ballots)
            _votes_of(c, ballots, keys)
        else:
            for b in ballots:
                b.votes[c.name] = False
        if glued is not None and c.tokens >= CANDIDATE_MIN_TOKENS and _glues(c, ballots):
            for b in ballots:
                if b.tokens and not b.votes[c.name]:
                    g = glued(b.index)
                    if g != b.tokens and c.keeps(g):
                        b.votes[c.name] = True
        if len(cands) == 1:
            # the first opinion keeps nothing the own selection does not, and either confirms
            # it or has nothing to say: no need to ask the second. (A first opinion that keeps
            # a little text and none of the own selection is a disagreement: the second decides.)
            extra = sum(len(b.tokens) for b in ballots if not b.own and b.votes[c.name])
            confirmed = sum(len(b.tokens) for b in ballots if b.own and b.votes[c.name])
            if extra < max(ADD_MIN_TOKENS, ADD_MIN_SHARE * own_tokens) and (
                    c.tokens < CANDIDATE_MIN_TOKENS or confirmed >= OUTVOTED_MAX_SHARE * own_tokens):
                return AgreementResult(keep=None, mode="own_agrees", candidates=_info(cands, ballots, own_tokens))
    if describe is not None:
        describe(ballots)
    info = _info(cands, ballots, own_tokens)
    speaking = [c for c in cands if c.tokens >= CANDIDATE_MIN_TOKENS]
    if not speaking:
        return AgreementResult(keep=None, mode="own_only", candidates=info)
    n = len(ballots)
    lead = speaking[0]
    others = [sum(b.votes.values()) for b in ballots]
    own_kept = sum(len(b.tokens) for b, o in zip(ballots, others) if b.own and o >= 1)
    agreed = [bool(b.tokens) and o >= 2 for b, o in zip(ballots, others)]
    agreed_tokens = sum(len(b.tokens) for b, a in zip(ballots, agreed) if a)
    agreed_in_own = sum(len(b.tokens) for b, a in zip(ballots, agreed) if a and b.own)
    lead_in_own = sum(len(b.tokens) for b in ballots if b.own and b.votes.get(lead.name))

    def result(kept: list[bool], mode: str) -> AgreementResult:
        removed = tuple(b.index for b, k in zip(ballots, kept) if b.own and not k and b.tokens)
        added = tuple(b.index for b, k in zip(ballots, kept) if k and not b.own and b.tokens)
        if not added and not removed:
            return AgreementResult(keep=None, mode="own_agrees", candidates=info)
        return AgreementResult(keep=frozenset(b.index for b, k in zip(ballots, kept) if k),
                               mode=mode, candidates=info, removed=removed, added=added)

    if own_tokens < CANDIDATE_MIN_TOKENS:
        # the own selection has (almost) nothing: it abstains; what the others agree on
        # stays, and the first speaking candidate breaks ties
        kept = _majority_or_lead(ballots, others, lead.name)
        # what the others keep must be found in the page's units, and be more than a
        # candidate needs to speak at all: a title and a few labels outside the chrome are
        # not a body (a document page whose preview is missing)
        if sum(len(b.tokens) for b, k in zip(ballots, kept) if k) >= CANDIDATE_MIN_TOKENS:
            return result(kept, "own_abstained")
        return AgreementResult(keep=None, mode="own_only", candidates=info)
    # outvoted: the others keep (almost) none of the own selection, and either agree with
    # each other on a body of text elsewhere or the lead candidate says much more. The lead
    # saying much more and keeping (almost) none of the own selection outvotes it even when
    # the second opinion sides with it: Readability keeps one block by design, and the own
    # selection it confirms is then often the one dense block of a page whose content is
    # many short items (a legal notice chosen over a listing's teasers).
    outvoted = (own_kept < OUTVOTED_MAX_SHARE * own_tokens and (
        (agreed_tokens >= CANDIDATE_MIN_TOKENS and agreed_in_own < OUTVOTED_MAX_SHARE * agreed_tokens)
        or lead.tokens >= LOUDER_FACTOR * own_tokens)) or (
        lead_in_own < OUTVOTED_MAX_SHARE * own_tokens and lead.tokens >= LOUDER_FACTOR * own_tokens)
    # An own selection in the page's chrome by markup (a footer's legal notes, a menu) that
    # the lead leaves out is outvoted by the lead alone, whatever its size: a density score
    # won by a footer is no evidence against the one candidate that reads the page's body.
    in_chrome = sum(len(b.tokens) for b in ballots if b.own and b.chrome) >= CHROME_OWN_SHARE * own_tokens \
        and lead_in_own < OUTVOTED_MAX_SHARE * own_tokens
    outvoted = outvoted or in_chrome
    # Both others speak and each keeps under OUTVOTED_MAX_SHARE of the own selection (together
    # too), and the lead says at least as much as it: the own selection disagrees with both
    # independent candidates and loses, without the lead having to say twice as much (one
    # section of a landing page chosen by its density over the page's opening sections).
    both_reject = not outvoted and len(speaking) >= 2 and own_kept < OUTVOTED_MAX_SHARE * own_tokens and \
        lead.tokens >= own_tokens
    outvoted = outvoted or both_reject
    if outvoted:
        # against an own selection in the chrome, the page nested in a chrome element is no menu
        kept = _majority_or_lead(ballots, others, lead.name, page_chrome=in_chrome)
        # The others' text must be found in the page's units: when the units they keep hold
        # under half of the lead's text (it lives in markup the units do not cover), replacing
        # the own selection would keep fragments; the own selection stands. (Against a chrome
        # selection, the lead's chrome units stay out by design: its units, chrome or not, must
        # hold half of its text, and what is kept at least CANDIDATE_MIN_TOKENS.)
        if in_chrome:
            found = sum(len(b.tokens) for b in ballots if b.votes.get(lead.name))
            realised = found >= OUTVOTE_REALISED_MIN * lead.tokens and \
                sum(len(b.tokens) for b, k in zip(ballots, kept) if k) >= CANDIDATE_MIN_TOKENS
        else:
            realised = sum(len(b.tokens) for b, k in zip(ballots, kept) if k) >= OUTVOTE_REALISED_MIN * lead.tokens
        if not realised:
            return AgreementResult(keep=None, mode="own_only", candidates=info)
        out = result(kept, "own_outvoted")
        if both_reject and out.keep is not None:
            out = dataclasses.replace(out, rule="vote_both_reject")
        elif in_chrome and out.keep is not None and any(b.page_chrome and b.index in out.keep for b in ballots):
            out = dataclasses.replace(out, rule="chrome_holds_page")
        return out
    # widened: text outside the own region that both others keep, or that the lead keeps
    # while it confirms the own selection (holds CONFIRM_SHARE of it) and the second opinion
    # does not (it is silent, or elsewhere on the page): the own selection is then a part of
    # the lead's, and the second has no say on that region. When both confirm the own
    # selection, a unit only one of them adds is one opinion against one: it stays out
    # (except on a thread, see above).
    lead_confirms = lead_in_own >= CONFIRM_SHARE * own_tokens
    second_confirms = len(speaking) >= 2 and sum(
        len(b.tokens) for b in ballots if b.own and b.votes.get(speaking[1].name)) >= CONFIRM_SHARE * own_tokens
    # Both confirm it, and the second keeps nothing outside it: the second opinion read the
    # own selection's block and no more (Readability keeps one block by design), so its
    # silence on what follows is no vote. The lead's units that carry on from the own
    # selection are added when they are sections, not teasers (see _continuation).
    second_outside = len(speaking) >= 2 and sum(
        len(b.tokens) for b in ballots if not b.own and not b.in_region and b.votes.get(speaking[1].name))
    # The second opinion keeps a part of the own selection and nothing outside it: it read the
    # own selection's block, where the lead read more of the page, menus, headline lists and
    # footers included. One opinion against one: the lead alone does not widen, however much
    # more it says (pages whose markup names no chrome, where ``Ballot.chrome`` cannot keep the
    # menus out; bench.restyle, legacy style: article-extraction +0.006 when the lead says 1.5
    # to 2 times the selection; wcxb-dev -0.0003 to +0.001 across the styles).
    second_inside = len(speaking) >= 2 and not thread and second_outside < ADD_MIN_TOKENS and \
        sum(len(b.tokens) for b in ballots if b.own and b.votes.get(speaking[1].name)) \
        >= OUTVOTED_MAX_SHARE * own_tokens
    continued = None
    if lead_confirms and second_confirms and not thread and second_outside < ADD_MIN_TOKENS:
        cont = _continuation(ballots, lead.name)
        cont_units = [len(b.tokens) for b, c in zip(ballots, cont) if c]
        long_units = [t for t in cont_units if t >= CONTINUE_UNIT_MIN]
        if len(long_units) >= CONTINUE_MIN_UNITS and sum(long_units) >= CONTINUE_LONG_SHARE * sum(cont_units):
            continued = cont
    if continued is not None:
        fresh = continued
    elif len(speaking) >= 2 and not (lead_confirms and (thread or not second_confirms)):
        fresh = [a and not b.in_region and len(b.tokens) >= 4 for b, a in zip(ballots, agreed)]
    elif lead_confirms and not second_inside:
        # the lead alone adds no menu: a run of link-only units is chrome whatever its markup
        menus = _link_runs(ballots)
        fresh = [len(b.tokens) >= 4 and b.votes.get(lead.name, False) and not b.in_region and not b.chrome
                 and not m for b, m in zip(ballots, menus)]
    elif lead_confirms:
        # The lead confirms the selection because it kept the whole page (a dump), and the second
        # opinion read the selection's block: inside the selection, the second's reading is the
        # only one (a legacy page's share lines, related headlines and captions go).
        if len(speaking) >= 2 and _is_dump(ballots, lead.name):
            narrowed = _narrowed(ballots, speaking[1].name, own_tokens)
            if narrowed is not None:
                return result(narrowed, "own_narrowed")
        return AgreementResult(keep=None, mode="own_agrees", candidates=info)
    else:
        return AgreementResult(keep=None, mode="own_only", candidates=info)
    added_tokens = sum(len(b.tokens) for b, f in zip(ballots, fresh) if f)
    if added_tokens < max(ADD_MIN_TOKENS, ADD_MIN_SHARE * own_tokens):
        return AgreementResult(keep=None, mode="own_agrees", candidates=info)
    kept = [b.own or f for b, f in zip(ballots, fresh)]
    # bridges: a short unit between two kept units that one other candidate keeps stays
    for i, b in enumerate(ballots):
        if kept[i] or not b.tokens or len(b.tokens) > BRIDGE_MAX_TOKENS or others[i] < 1 or b.in_region:
            continue
        prev_k = next((kept[j] for j in range(i - 1, -1, -1) if ballots[j].tokens), False)
        next_k = next((kept[j] for j in range(i + 1, n) if ballots[j].tokens), False)
        if prev_k and next_k:
            kept[i] = True
    return result(kept, "own_widened")


def _glues(c: _TextCandidate, ballots: list[Ballot]) -> bool:
    """Whether candidate ``c``'s text runs words together that the page's units hold apart:
    at least GLUED_MIN_TOKENS of its tokens (and GLUED_MIN_SHARE of them) are no word of the
    units but two of them joined (``73save``, ``gregoryparagon``: an extractor joining the
    texts of adjacent elements without a space, where the units read a boundary)."""
    need = max(GLUED_MIN_TOKENS, GLUED_MIN_SHARE * len(c.words))
    words = set().union(*(b.tokens for b in ballots))
    unknown = c.words - words
    if len(unknown) < need:
        return False
    n = 0
    for t in unknown:
        if any(t[:k] in words and t[k:] in words for k in range(1, len(t))):
            n += 1
            if n >= need:
                return True
    return False


def _is_dump(ballots: list[Ballot], lead: str) -> bool:
    """Whether the lead kept (nearly) the whole page: :data:`DUMP_SHARE` of the tokens of all
    its units. Its extractor found no structure to go by (markup without paragraphs, classes or
    sectioning) and fell back to the page's text: it confirms any selection, so its confirmation
    says nothing about what inside the selection is content."""
    total = sum(len(b.tokens) for b in ballots)
    return total > 0 and sum(len(b.tokens) for b in ballots if b.votes.get(lead)) >= DUMP_SHARE * total


def _narrowed(ballots: list[Ballot], second: str, own_tokens: int) -> list[bool] | None:
    """The own units the second opinion keeps, plus those of :data:`NARROW_KEEP_TOKENS` or more
    tokens (a paragraph its one-block reading missed), when they hold from :data:`NARROW_MIN_SHARE`
    to under :data:`CONFIRM_SHARE` of the own selection (it read this block, and there is
    something to narrow); None otherwise. bench.restyle, legacy style (neither corpus changes in
    the other styles): article-extraction 0.8612 -> 0.8744, wcxb-dev 0.8094 -> 0.8098."""
    kept = [b.own and bool(b.tokens) and (b.votes.get(second, False) or len(b.tokens) >= NARROW_KEEP_TOKENS)
            for b in ballots]
    share = sum(len(b.tokens) for b, k in zip(ballots, kept) if k)
    if not NARROW_MIN_SHARE * own_tokens <= share < CONFIRM_SHARE * own_tokens:
        return None
    return kept


def _link_runs(ballots: list[Ballot]) -> list[bool]:
    """Which units lie in a run of at least :data:`LINK_RUN_MIN` consecutive units (units
    without words skipped) whose text is all link text: a menu, a column of headlines. A
    listing's item titles alternate with their summaries and make no such run."""
    out = [False] * len(ballots)
    idx = [i for i, b in enumerate(ballots) if b.tokens]
    j = 0
    while j < len(idx):
        if not ballots[idx[j]].linked:
            j += 1
            continue
        k = j
        while k < len(idx) and ballots[idx[k]].linked:
            k += 1
        if k - j >= LINK_RUN_MIN:
            for t in idx[j:k]:
                out[t] = True
        j = k
    return out


def _continuation(ballots: list[Ballot], lead: str) -> list[bool]:
    """The units after the own selection's last unit that the lead keeps, in document order,
    up to the first gap of more than :data:`CONTINUE_GAP_MAX` tokens it leaves out: the
    sections that carry on from the own selection (an index's entries after its
    introduction). Units in the page's chrome by markup, or in the own region (its rules
    removed them), are never added; they count in the gap."""
    out = [False] * len(ballots)
    last = max((i for i, b in enumerate(ballots) if b.own and b.tokens), default=None)
    if last is None:
        return out
    gap = 0
    for i in range(last + 1, len(ballots)):
        b = ballots[i]
        if not b.tokens:
            continue
        if b.votes.get(lead, False) and not b.chrome and not b.in_region:
            out[i] = True
            gap = 0
            continue
        gap += len(b.tokens)
        if gap > CONTINUE_GAP_MAX:
            break
    return out


_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))


def unvoted_tail(ballots: list[Ballot]) -> frozenset:
    """The indexes of the own selection's units from the first heading after the last unit
    another candidate keeps: the sections that follow the part of the page the candidates
    confirm. Empty when they confirm under :data:`CANDIDATE_MIN_TOKENS` tokens of it, or
    when the tail holds under :data:`ADD_MIN_TOKENS`. On a product page this tail is
    related products, purchase terms, footnotes and legal notes: no candidate reads it as
    the product."""
    own = [b for b in ballots if b.own and b.tokens]
    voted = [i for i, b in enumerate(own) if any(b.votes.values())]
    if not voted or sum(len(own[i].tokens) for i in voted) < CANDIDATE_MIN_TOKENS:
        return frozenset()
    # the cut falls on a section boundary: the last kept unit's section (up to the next
    # heading) stays with it, as a heading stays with the units of its section
    start = next((i for i in range(voted[-1] + 1, len(own)) if own[i].tag in _HEADINGS), len(own))
    tail = own[start:]
    if sum(len(b.tokens) for b in tail) < ADD_MIN_TOKENS:
        return frozenset()  # as for adding: a few words are not enough to act on
    return frozenset(b.index for b in tail)
