"""The lead (trafilatura) as a dump of the page (``agreement._is_dump``, ``_narrowed``).

On markup with no structure to go by (no paragraphs, classes or sectioning), trafilatura's
extractor falls back to the page's text: it keeps 90% or more of the page, so it confirms any
selection and its confirmation says nothing about what inside the selection is content. When
Readability (the second opinion) then reads the own selection's block (keeps half of it or
more, nothing outside it), the units it leaves out go, except units of 40+ tokens (a paragraph
Readability's one-block reading missed): ``own_narrowed``.
"""

from __future__ import annotations

import pytest

from gatecrawl.core.agreement import NARROW_KEEP_TOKENS, Ballot, decide


def words(tag: str, n: int) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


BODY = [words(f"para{k}x", 30) for k in range(5)]  # 150 tokens of short paragraphs
JUNK = [words(f"junk{k}x", 8) for k in range(3)]  # a share bar, a related line, a caption: 24
MENU = [words(f"menu{k}x", 6) for k in range(20)]  # 120 tokens outside the selection


def ballots(body=BODY, junk=JUNK):
    spec = [(t, False) for t in MENU] + [(t, True) for t in body[:2]] + [(t, True) for t in junk] + \
        [(t, True) for t in body[2:]]
    return [Ballot(i, t.split(), own, "p", in_region=own) for i, (t, own) in enumerate(spec)]


def vote(bs, lead_text, second_text):
    texts = {"trafilatura": lead_text, "readability": second_text}
    return decide(bs, lambda name: texts[name])


def test_a_dump_lets_the_second_opinion_narrow_the_selection():
    bs = ballots()
    res = vote(bs, " ".join(MENU + BODY + JUNK), " ".join(BODY))
    assert res.mode == "own_narrowed"
    junk_idx = {b.index for b in bs if b.tokens[0].startswith("junk")}
    body_idx = {b.index for b in bs if b.tokens[0].startswith("para")}
    assert set(res.removed) == junk_idx
    assert res.keep == frozenset(body_idx)
    assert not res.added


def test_a_long_unit_the_second_leaves_out_stays():
    long_para = words("longx", NARROW_KEEP_TOKENS)
    bs = ballots(junk=JUNK + [long_para])
    res = vote(bs, " ".join(MENU + BODY + JUNK + [long_para]), " ".join(BODY))
    assert res.mode == "own_narrowed"
    kept_text = {" ".join(b.tokens) for b in bs if b.index in res.keep}
    assert long_para in kept_text
    assert not any(t in kept_text for t in JUNK)


@pytest.mark.parametrize("lead,second", [
    # the lead keeps under 90% of the page (the menu left out): a reading, not a dump
    (" ".join(BODY + JUNK), " ".join(BODY)),
    # the second opinion keeps under half of the selection: it read another block
    (" ".join(MENU + BODY + JUNK), " ".join(BODY[:1])),
    # the second opinion keeps text outside the selection: it is elsewhere on the page
    (" ".join(MENU + BODY + JUNK), " ".join(BODY + MENU[:6])),
])
def test_no_narrowing_without_a_dump_and_a_second_opinion_on_the_selection(lead, second):
    res = vote(ballots(), lead, second)
    assert res.mode != "own_narrowed"
    assert not res.removed
