"""A candidate that runs the words of adjacent elements together (``agreement._glues``).

Trafilatura joins the texts of sibling elements without a space when the markup has none
between them: ``<span>Gregory</span><span>Paragon 68 Pack</span><span>$158.73</span><span>Save
45%</span>`` reads ``GregoryParagon 68 Pack$158.73Save 45%``. The units read a boundary at every
element (``block_text``), so a product card's shingles (``gregory paragon 68 pack``) are not in
the candidate's (``gregoryparagon 68 pack 158``) and the card counts as left out although the
candidate kept it. When the candidate glues words (enough of its tokens are two of the units'
words joined), a unit it does not keep as read is tried again as its markup runs it together
(``text_content()``, the ``glued`` callback of ``decide``).
"""

from __future__ import annotations

import pytest

from gatecrawl.core.agreement import GLUED_MIN_TOKENS, Ballot, _glues, _text_candidate, decide

BRANDS = ["gregory", "osprey", "deuter", "exped", "hyperlite", "kelty", "mystery", "granite"]


def card(k: int) -> tuple[list[str], list[str]]:
    """A product card's tokens as the units read it (brand, name, price, label apart), and as
    its markup runs it (brand glued to the name, the price's cents to the label)."""
    brand = BRANDS[k % len(BRANDS)]
    apart = [brand, f"model{k}", "pack", "158", f"{70 + k}", "save", "45", "compared", "to", "289",
             "95", "trip", "length", "multiday", "gear", "capacity", f"{60 + k}", "liters"]
    glued = [brand + f"model{k}", "pack", "158", f"{70 + k}save", "45", "compared", "to", "289",
             f"95trip", "length", "multiday", "gear", "capacity", f"{60 + k}", "liters"]
    return apart, glued


CARDS = [card(k) for k in range(12)]
OWN = [f"menu{k} entry{k} account{k} sign{k} in{k} rewards{k}".split() for k in range(5)]  # 30 tokens


def ballots_and_lead():
    ballots = [Ballot(i, list(t), True, "p", in_region=True) for i, t in enumerate(OWN)]
    glued_of = {}
    for apart, glued in CARDS:
        i = len(ballots)
        ballots.append(Ballot(i, list(apart), False, "li"))
        glued_of[i] = glued
    lead = " ".join(" ".join(g) for _, g in CARDS)  # the lead keeps every card, glued
    return ballots, glued_of, lead


def test_glued_cards_are_found_and_outvote_the_menu():
    ballots, glued_of, lead = ballots_and_lead()
    texts = {"trafilatura": lead, "readability": ""}
    res = decide(ballots, lambda name: texts[name], glued=lambda i: glued_of.get(i, ballots[i].tokens))
    assert res.mode == "own_outvoted"
    assert res.keep == frozenset(glued_of)  # every card, none of the own menu


def test_without_the_glued_reading_the_cards_are_not_found():
    ballots, glued_of, lead = ballots_and_lead()
    texts = {"trafilatura": lead, "readability": ""}
    res = decide(ballots, lambda name: texts[name])
    # the lead says far more than the selection but its text is found in no unit: the own
    # selection stands (the outvote is not realised)
    assert res.keep is None
    assert res.mode == "own_only"


def test_glues_counts_joined_words_only():
    ballots, glued_of, lead = ballots_and_lead()
    assert _glues(_text_candidate("trafilatura", lead), ballots)
    # a candidate holding words the units do not hold (text outside the units' markup) is not
    # gluing: none of its unknown tokens is two unit words joined
    other = " ".join(" ".join(a) for a, _ in CARDS) + " " + " ".join(f"elsewhere{k}" for k in range(40))
    assert not _glues(_text_candidate("trafilatura", other), ballots)


def test_a_few_glued_tokens_are_not_enough():
    ballots, _, _ = ballots_and_lead()
    apart = " ".join(" ".join(a) for a, _ in CARDS)
    # GLUED_MIN_TOKENS - 1 distinct joined words in an otherwise separate text
    extra = " ".join(f"{BRANDS[k]}model{k}" for k in range(GLUED_MIN_TOKENS - 1))
    assert not _glues(_text_candidate("trafilatura", apart + " " + extra), ballots)
    extra = " ".join(f"{BRANDS[k % 8]}model{k}" for k in range(GLUED_MIN_TOKENS))
    assert _glues(_text_candidate("trafilatura", apart + " " + extra), ballots)


@pytest.mark.parametrize("lead_glues", [False, True])
def test_the_glued_reading_is_asked_only_when_the_candidate_glues(lead_glues):
    ballots, glued_of, lead = ballots_and_lead()
    if not lead_glues:
        lead = " ".join(" ".join(a) for a, _ in CARDS)
    asked = []

    def glued(i):
        asked.append(i)
        return glued_of.get(i, ballots[i].tokens)

    res = decide(ballots, lambda name: {"trafilatura": lead, "readability": ""}[name], glued=glued)
    assert res.mode == "own_outvoted"
    assert bool(asked) is lead_glues


def test_select_main_hands_the_units_as_their_markup_runs_them(monkeypatch):
    import gatecrawl.core.extract.selection as selection
    from gatecrawl.core.htmlparse import parse_html

    seen = {}
    real = selection.decide

    def spy(ballots, texts, **kw):
        seen["ballots"], seen["glued"] = ballots, kw["glued"]
        return real(ballots, texts, **kw)

    monkeypatch.setattr(selection, "decide", spy)
    prose = " ".join(f"word{k}" for k in range(60))
    html = (f"<html><body><article><h1>Packs</h1><p>{prose}</p>"
            "<ul><li><div><span>Gregory</span><span>Paragon 68 Pack</span></div>"
            "<div><span>$158.73</span><span>Save 45%</span></div></li></ul></article></body></html>")
    selection.select_main(parse_html(html))
    card = next(b for b in seen["ballots"] if "gregory" in b.tokens)
    assert card.tokens == ["gregory", "paragon", "68", "pack", "158", "73", "save", "45"]
    assert seen["glued"](card.index) == ["gregoryparagon", "68", "pack", "158", "73save", "45"]


def test_run_text_glues_elements_but_not_lines():
    import lxml.html

    from gatecrawl.core.extract.dom import run_text

    li = lxml.html.fromstring("<li><div><span>Gregory</span><span>Paragon</span></div>x<!-- note -->y"
                              "<a>Section 0</a><br>Section 1<br/>z</li>")
    li.tail = "after"
    # spans and links run together as the markup has them; a line break separates; a comment's
    # text and the element's own tail are not its text
    assert run_text(li) == "GregoryParagonxySection 0 Section 1 z"
    assert li.text_content() == "GregoryParagonxySection 0Section 1z"
