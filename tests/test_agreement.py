"""The candidates' vote (gatecrawl.core.agreement.decide) on synthetic ballots."""

from __future__ import annotations

import pytest

from gatecrawl.core.agreement import Ballot, decide, unvoted_tail


def words(tag: str, n: int = 40) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def ballots(spec):
    """spec: list of (text, own, in_region)."""
    return [Ballot(i, t.lower().split(), own, "p", in_region=reg) for i, (t, own, reg) in enumerate(spec)]


A, B, C, NAV = words("alpha"), words("beta"), words("gamma"), "home news sport contact"


@pytest.mark.parametrize("spec,texts,mode,keep", [
    # both others keep what the own selection keeps: it stands
    ([(A, True, True), (B, True, True), (NAV, False, False)],
     {"trafilatura": A + " " + B, "readability": A + " " + B}, "own_agrees", None),
    # both others keep a section outside the own region: it is added
    ([(A, True, True), (B, False, False), (NAV, False, False)],
     {"trafilatura": A + " " + B, "readability": A + " " + B}, "own_widened", {0, 1}),
    # only one other keeps the outside section: no majority, the own selection stands
    ([(A, True, True), (B, False, False)],
     {"trafilatura": A + " " + B, "readability": A}, "own_agrees", None),
    # trafilatura holds all of the own selection and a section outside it, readability is
    # elsewhere (it confirms nothing of the own selection): trafilatura's section is added
    ([(A, True, True), (B, False, False), (C, False, False)],
     {"trafilatura": A + " " + B, "readability": C}, "own_widened", {0, 1}),
    # ... but when readability also holds all of the own selection and leaves that section
    # out, one opinion against one: the own selection stands
    ([(A, True, True), (B, False, False), (C, False, False)],
     {"trafilatura": A + " " + B, "readability": A + " " + C}, "own_agrees", None),
    # the own selection is a header the others both leave out: it is outvoted
    ([(NAV + " " + C, True, True), (A, False, False), (B, False, False)],
     {"trafilatura": A + " " + B, "readability": A + " " + B}, "own_outvoted", {1, 2}),
    # the own selection is empty: it abstains, and trafilatura breaks the tie
    ([("", True, True), (A, False, False), (B, False, False)],
     {"trafilatura": A, "readability": B}, "own_abstained", {1}),
    # nobody else speaks: the own selection stands
    ([(A, True, True)], {"trafilatura": "", "readability": ""}, "own_agrees", None),
])
def test_vote(spec, texts, mode, keep):
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == mode
    assert (None if res.keep is None else set(res.keep)) == keep


def test_a_unit_inside_the_own_region_that_its_rules_removed_does_not_come_back_by_widening():
    # B is inside the own region but the own rules removed it; the others keep it
    spec = [(A, True, True), (B, False, True), (C, False, False)]
    texts = {"trafilatura": " ".join((A, B, C)), "readability": " ".join((A, B, C))}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == "own_widened" and 1 not in res.keep and {0, 2} <= res.keep


def test_the_second_candidate_is_only_asked_when_the_first_adds_something():
    asked = []

    def texts(name):
        asked.append(name)
        return A

    decide(ballots([(A, True, True), (B, False, False)]), texts)
    assert asked == ["trafilatura"]


def test_the_markup_measures_are_only_asked_past_the_first_opinion():
    """``describe`` (the units' chrome and link measures) runs only when the first opinion has
    not settled the vote, and before the measures are read: a chrome unit stays out of widening."""
    described = []

    def describe(bs):
        described.append(len(bs))
        bs[2].chrome = True

    decide(ballots([(A, True, True), (B, False, False)]), lambda name: A, describe=describe)
    assert described == []
    spec = [(A, True, True), (B, False, False), (C, False, False)]
    texts = {"trafilatura": " ".join((A, B, C)), "readability": " ".join((A, B, C))}
    res = decide(ballots(spec), lambda name: texts[name], describe=describe)
    assert described == [3]
    assert res.mode == "own_widened" and set(res.keep) == {0, 1, 2}  # (both others keep it: chrome or not)
    res = decide(ballots(spec), lambda name: texts[name] if name == "trafilatura" else "", describe=describe)
    assert res.mode == "own_widened" and set(res.keep) == {0, 1}  # the lead alone adds no chrome


def test_an_outvote_the_page_units_cannot_realise_leaves_the_own_selection():
    # Both others agree on a long text (D) that no unit of the page holds (it sits in markup
    # the units do not cover); the units they keep hold a fraction of it. Replacing the own
    # selection by those fragments would keep a "Sign up" line: the own selection stands.
    D = words("delta", 200)
    spec = [(A, True, True), (words("sign", 6), False, False), (D[:60], False, False)]
    texts = {"trafilatura": D + " " + words("sign", 6), "readability": D + " " + words("sign", 6)}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == "own_only" and res.keep is None
    # the same vote with D present in a unit is a real outvote
    spec = [(A, True, True), (words("sign", 6), False, False), (D, False, False)]
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == "own_outvoted" and res.keep == {1, 2}


def test_a_much_louder_lead_that_keeps_none_of_the_own_selection_outvotes_it_and_the_second():
    # The own selection (a dense legal notice, L) is what readability keeps too; trafilatura
    # keeps none of it and says more than twice as much elsewhere (the listing's items):
    # trafilatura's units replace it, one opinion siding with the own selection or not.
    L = words("legal", 40)
    items = [words(f"item{k}x", 30) for k in range(4)]
    spec = [(L, True, True)] + [(t, False, False) for t in items]
    texts = {"trafilatura": " ".join(items), "readability": L}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == "own_outvoted" and res.keep == {1, 2, 3, 4}
    # a lead under twice the own selection's size does not outvote it with the second against it
    texts = {"trafilatura": " ".join(items[:2]), "readability": L}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.keep is None


def test_an_own_selection_both_others_leave_out_loses_to_a_lead_no_smaller_than_it():
    # The own selection (one dense section, S) is kept by neither trafilatura (the page's
    # opening sections, O, a little longer than S) nor readability (elsewhere, R): it
    # disagrees with both, and trafilatura's units replace it (vote_both_reject), although
    # trafilatura says less than twice as much and does not agree with readability.
    S, R = words("sect", 50), words("figs", 40)
    opening = [words(f"open{k}x", 30) for k in range(2)]
    spec = [(t, False, False) for t in opening] + [(S, True, True), (R, False, False)]
    texts = {"trafilatura": " ".join(opening), "readability": R}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.mode == "own_outvoted" and res.keep == {0, 1} and res.rule == "vote_both_reject"
    # readability keeping the own selection is one vote for it: it stands
    texts = {"trafilatura": " ".join(opening), "readability": S}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.keep is None and res.rule is None
    # a lead smaller than the own selection does not outvote it on its own
    texts = {"trafilatura": opening[0], "readability": R}
    res = decide(ballots(spec), lambda name: texts[name])
    assert res.keep is None


def test_a_disjoint_short_first_opinion_asks_the_second():
    # trafilatura keeps a short text and none of the own selection: not a confirmation, so
    # readability is asked (it agrees with trafilatura: the own selection is outvoted).
    E = words("eps", 27)
    spec = [(words("chrome", 44), True, True), (E, False, False)]
    asked = []

    def texts(name):
        asked.append(name)
        return E

    res = decide(ballots(spec), texts)
    assert asked == ["trafilatura", "readability"]
    assert res.mode == "own_outvoted" and res.keep == {1}


def test_an_own_selection_in_the_page_chrome_that_the_lead_leaves_out_is_outvoted():
    # The own selection is a footer's legal notes (chrome by markup); trafilatura keeps none
    # of it, a body elsewhere and a few footer links, and says no more than the notes;
    # readability is silent. The body replaces the notes; the footer links stay out.
    notes = words("legal", 60)
    links = words("link", 20)
    spec = [Ballot(0, A.split(), False, "p"),
            Ballot(1, links.split(), False, "li", chrome=True),
            Ballot(2, notes.split(), True, "p", in_region=True, chrome=True)]
    texts = {"trafilatura": A + " " + links, "readability": ""}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_outvoted" and set(res.keep) == {0}
    # the same notes outside the chrome: one opinion, no louder than the own selection, stands aside
    spec[2] = Ballot(2, notes.split(), True, "p", in_region=True)
    res = decide(spec, lambda name: texts[name])
    assert res.keep is None


def test_an_own_selection_in_a_header_that_holds_the_page_loses_to_the_lead_there():
    # The whole page is nested in its header (an unclosed tag): the own selection (a blurb, N)
    # and the story trafilatura keeps (A) are both in it. The story is chrome only because the
    # header holds the page (page_chrome): against the own selection in the chrome, the lead
    # alone keeps it (chrome_holds_page). A unit in the header that is not marked so (a menu)
    # still needs both others.
    N, menu = words("blurb", 60), words("menu", 20)
    spec = [Ballot(0, N.split(), True, "p", in_region=True, chrome=True, page_chrome=True),
            Ballot(1, menu.split(), False, "li", chrome=True),
            Ballot(2, A.split(), False, "p", chrome=True, page_chrome=True)]
    texts = {"trafilatura": menu + " " + A, "readability": ""}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_outvoted" and set(res.keep) == {2} and res.rule == "chrome_holds_page"
    # without the mark the story is chrome like the menu: nothing the lead keeps can replace the blurb
    spec[2] = Ballot(2, A.split(), False, "p", chrome=True)
    res = decide(spec, lambda name: texts[name])
    assert res.keep is None


def test_chrome_needs_both_others_when_the_own_selection_abstains_or_is_widened_by_one():
    # the own selection abstains; trafilatura alone keeps a body and a menu in <nav>
    spec = [Ballot(0, [], True, "p", in_region=True),
            Ballot(1, A.split(), False, "p"),
            Ballot(2, words("menu", 30).split(), False, "li", chrome=True)]
    texts = {"trafilatura": A + " " + words("menu", 30), "readability": ""}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_abstained" and set(res.keep) == {1}
    # trafilatura confirms the own selection and adds a section and a footer; readability is
    # elsewhere: the section comes in, the footer does not
    spec = [Ballot(0, A.split(), True, "p", in_region=True),
            Ballot(1, B.split(), False, "p"),
            Ballot(2, words("legal", 30).split(), False, "p", chrome=True),
            Ballot(3, C.split(), False, "p")]
    texts = {"trafilatura": " ".join((A, B, words("legal", 30))), "readability": C}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_widened" and set(res.keep) == {0, 1}
    # both others keep the chrome unit: a majority brings it back
    spec = [Ballot(0, [], True, "p", in_region=True),
            Ballot(1, words("menu", 30).split(), False, "li", chrome=True)]
    texts = {"trafilatura": words("menu", 30), "readability": words("menu", 30)}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_abstained" and set(res.keep) == {1}


def test_an_abstaining_selection_is_not_replaced_by_a_few_labels():
    # trafilatura speaks (the menu it keeps makes it long enough) but what it keeps outside
    # the chrome is a title and two labels: under CANDIDATE_MIN_TOKENS, the own selection stands
    spec = [Ballot(0, [], True, "p", in_region=True),
            Ballot(1, "preview not available".split(), False, "p"),
            Ballot(2, "download pdf 4 2 mb".split(), False, "p"),
            Ballot(3, words("menu", 30).split(), False, "li", chrome=True)]
    texts = {"trafilatura": "preview not available download pdf 4 2 mb " + words("menu", 30),
             "readability": ""}
    res = decide(spec, lambda name: texts[name])
    assert res.mode == "own_only" and res.keep is None


def _voted(spec):
    """spec: list of (text, tag, own, kept by trafilatura)."""
    out = []
    for i, (text, tag, own, kept) in enumerate(spec):
        b = Ballot(i, text.lower().split(), own, tag)
        b.votes = {"trafilatura": kept}
        out.append(b)
    return out


@pytest.mark.parametrize("spec,tail", [
    # the sections after the last kept unit go, from the next heading on
    ([(A, "p", True, True), ("Legal notes", "h2", True, False), (B, "li", True, False)], {1, 2}),
    # the last kept unit's section (up to the next heading) stays with it
    ([(A, "p", True, True), (B, "p", True, False), ("More", "h2", True, False), (C, "li", True, False)],
     {2, 3}),
    # no heading after the last kept unit: nothing to cut on a section boundary
    ([(A, "p", True, True), (B, "p", True, False)], set()),
    # a tail of a few words is not acted on
    ([(A, "p", True, True), ("More", "h2", True, False), ("see all", "li", True, False)], set()),
    # the candidates confirm under 25 tokens of the own selection: no cut
    ([("a few kept words", "p", True, True), ("More", "h2", True, False), (B, "li", True, False)], set()),
    # units outside the own selection are not the own selection's tail
    ([(A, "p", True, True), ("More", "h2", False, False), (B, "li", False, False)], set()),
])
def test_unvoted_tail(spec, tail):
    assert set(unvoted_tail(_voted(spec))) == tail


def test_on_a_thread_the_lead_adds_the_posts_the_second_opinion_leaves_out():
    # both others hold the own selection (the first post); trafilatura also keeps the replies,
    # Readability (one post by design) does not: one opinion against one, except on a thread
    spec = [(A, True, True), (B, False, False), (C, False, False)]
    texts = {"trafilatura": " ".join((A, B, C)), "readability": A}
    assert decide(ballots(spec), lambda name: texts[name]).mode == "own_agrees"
    res = decide(ballots(spec), lambda name: texts[name], thread=True)
    assert res.mode == "own_widened" and set(res.keep) == {0, 1, 2}
