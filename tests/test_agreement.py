"""The candidates' vote (gatecrawl.core.agreement.decide) on synthetic ballots."""

from __future__ import annotations

import pytest

from gatecrawl.core.agreement import Ballot, decide


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
