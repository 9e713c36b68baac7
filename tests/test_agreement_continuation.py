"""The lead's continuation of the own selection (``agreement._continuation``).

Both other candidates confirm the own selection, and the second opinion (Readability, one
block by design) keeps nothing outside it: its silence on what follows is no vote. The
sections the lead keeps straight after the own selection are added when they are a run of
at least three units of 15+ tokens holding 80% of the run's tokens (an index's entries after
its introduction), not a column of teaser titles and dates, nor one block after the
selection (a footer's address).
"""

from __future__ import annotations

import lxml.html
import pytest

from gatecrawl.core.agreement import Ballot, decide
from gatecrawl.core.extract import select_main
from gatecrawl.core.htmlparse import parse_html


def words(tag: str, n: int) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


INTRO = words("intro", 60)
ITEMS = [words(f"item{k}x", 20) for k in range(4)]
TEASERS = [words(f"teaser{k}x", 5) for k in range(8)]


def ballots(spec):
    """spec: list of (text, own, chrome)."""
    return [Ballot(i, t.split(), own, "p", in_region=own, chrome=chrome)
            for i, (t, own, chrome) in enumerate(spec)]


def vote(spec, lead_text, second_text):
    texts = {"trafilatura": lead_text, "readability": second_text}
    return decide(ballots(spec), lambda name: texts[name])


def test_a_run_of_sections_after_the_selection_that_only_the_lead_keeps_is_added():
    spec = [(INTRO, True, False), ("programs", False, False)] + [(t, False, False) for t in ITEMS] + \
        [(words("footer", 12), False, True)]
    res = vote(spec, " ".join([INTRO, "programs", *ITEMS]), INTRO)
    assert res.mode == "own_widened"
    assert set(res.keep) == {0, 1, 2, 3, 4, 5}  # the items and their heading, not the footer


@pytest.mark.parametrize("spec,lead,second", [
    # teasers: short titles and dates, not sections
    ([(INTRO, True, False)] + [(t, False, False) for t in TEASERS],
     " ".join([INTRO, *TEASERS]), INTRO),
    # a few summaries among many teaser titles and dates: mostly short units
    ([(INTRO, True, False)] + [(t, False, False) for t in ITEMS[:3] + TEASERS + TEASERS],
     " ".join([INTRO, *ITEMS[:3], *TEASERS]), INTRO),
    # one block after the selection (an address line), not a run
    ([(INTRO, True, False), (words("address", 30), False, False)],
     " ".join([INTRO, words("address", 30)]), INTRO),
    # the second opinion keeps a section elsewhere on the page: its leaving the items out is
    # a vote, one opinion against one
    ([(INTRO, True, False)] + [(t, False, False) for t in ITEMS] + [(words("other", 40), False, False)],
     " ".join([INTRO, *ITEMS]), " ".join([INTRO, words("other", 40)])),
    # a gap of more than 50 tokens the lead leaves out right after the selection ends the run
    ([(INTRO, True, False), (words("gap", 60), False, False)] + [(t, False, False) for t in ITEMS],
     " ".join([INTRO, *ITEMS]), INTRO),
    # the items are in the page's chrome by markup: never added by the lead alone
    ([(INTRO, True, False)] + [(t, False, True) for t in ITEMS],
     " ".join([INTRO, *ITEMS]), INTRO),
])
def test_near_misses_leave_the_own_selection(spec, lead, second):
    assert vote(spec, lead, second).mode == "own_agrees"


def _page() -> bytes:
    intro = "".join(f"<p>{words(f'intro{k}x', 45)}, and more words in a long sentence here.</p>"
                    for k in range(5))
    cards = "".join(f"<div class='card'><h3><a href='/p{k}'>Program {k}</a></h3><p>{words(f'desc{k}x', 18)}</p></div>"
                    for k in range(6))
    return (f"<html><head><title>Programs</title></head><body>"
            f"<nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
            f"<div class='wrap'><article class='intro'><h1>Programs</h1>{intro}</article>"
            f"<div class='list'><h2>All programs</h2><div class='grid'>{cards}</div></div></div>"
            f"<footer><p>Copyright 2026 Example</p></footer></body></html>").encode()


def test_select_main_adds_the_lead_s_continuation(monkeypatch):
    """Through select_main, with the candidates' texts pinned: the own selection is the
    introduction (the page's ``article``), trafilatura keeps it and the program list after it,
    Readability the introduction alone."""
    import gatecrawl.core.extract.selection as selection

    doc = parse_html(_page(), content_type="text/html")
    intro_text = lxml.html.fromstring(_page()).find(".//article").text_content()
    list_text = lxml.html.fromstring(_page()).find(".//div[@class='list']").text_content()
    texts = {"trafilatura": intro_text + "\n" + list_text, "readability": intro_text}
    monkeypatch.setattr(selection, "candidate_text", lambda d, name, **kw: texts[name])
    sel = select_main(doc)
    text = sel.root.text_content()
    assert "intro0x0" in text
    assert sel.agreement["mode"] == "own_widened"
    assert all(f"desc{k}x3" in text for k in range(6)) and "Program 5" in text
    assert "Copyright" not in text
