"""What the lead (trafilatura) may not add to the own selection alone (``agreement.decide``).

1. Against a second opinion that reads the own selection. When Readability (the second opinion)
keeps part of the own selection (30% or more) and nothing outside it, trafilatura (the lead) alone
does not widen it, however much or little more it says: on markup that names no chrome (no
``nav``/``header``/``footer``, no classes) its extra units are menus, headline lists and footers.
One opinion against one: the own selection stands.
2. A menu: a run of three or more consecutive units whose text is all link text is never
   added by the lead alone, whatever the markup names it (``Ballot.linked``, ``_link_runs``).
"""

from __future__ import annotations

import lxml.html
import pytest

from gatecrawl.core.agreement import Ballot, decide
from gatecrawl.core.extract import select_main
from gatecrawl.core.htmlparse import parse_html


def words(tag: str, n: int) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


BODY = [words(f"para{k}x", 40) for k in range(4)]  # 160 tokens of own selection
MENU = [words(f"menu{k}x", 6) for k in range(40)]  # 240 tokens of menu entries


def vote(spec, lead_text, second_text):
    """spec: list of (text, own) or (text, own, linked)."""
    ballots = [Ballot(i, t[0].split(), t[1], "p", in_region=t[1], linked=t[2] if len(t) > 2 else False)
               for i, t in enumerate(spec)]
    texts = {"trafilatura": lead_text, "readability": second_text}
    return decide(ballots, lambda name: texts[name])


def spec_with_menu(menu=MENU):
    return [(t, False) for t in menu] + [(t, True) for t in BODY]


@pytest.mark.parametrize("menu", [
    MENU,  # the lead keeps the menu and the body: 400 tokens, 2.5 times the selection
    MENU[:15],  # 250 tokens: 1.6 times the selection (a legacy page's menu column and footer)
])
def test_the_lead_does_not_add_a_menu_against_a_second_opinion_inside_the_selection(menu):
    # the second keeps three of the four paragraphs and nothing else
    res = vote(spec_with_menu(menu), " ".join(menu + BODY), " ".join(BODY[:3]))
    assert res.mode == "own_agrees"
    assert res.keep is None


@pytest.mark.parametrize("menu,second", [
    # the second opinion keeps under 30% of the selection: it does not read this block
    (MENU, BODY[0][:60]),
    # the second opinion keeps text outside the selection: it is elsewhere on the page
    (MENU, " ".join(BODY[:3] + MENU[:10])),
])
def test_near_misses_let_the_lead_widen(menu, second):
    res = vote(spec_with_menu(menu), " ".join(menu + BODY), second)
    assert res.mode == "own_widened"


def test_a_thread_still_lets_the_lead_widen():
    ballots = [Ballot(i, t.split(), own, "p", in_region=own) for i, (t, own) in enumerate(spec_with_menu())]
    texts = {"trafilatura": " ".join(MENU + BODY), "readability": " ".join(BODY[:3])}
    assert decide(ballots, lambda name: texts[name], thread=True).mode == "own_widened"


def _legacy_page() -> bytes:
    """An old-style page: no semantic elements, no classes or ids, the menu a column of links
    in a layout table."""
    menu = "".join(f"<a href='/s{k}'>Section {k} {words(f'm{k}x', 4)}</a><br>" for k in range(60))
    story = "".join(f"<p>{words(f'story{k}x', 45)} and the last words of a paragraph.</p>" for k in range(5))
    return (f"<html><head><title>Story</title></head><body><table><tr>"
            f"<td>{menu}</td><td><h1>Story</h1><div>{story}</div></td></tr></table></body></html>").encode()


def test_select_main_keeps_the_menu_out_of_a_legacy_page(monkeypatch):
    """Through select_main with the candidates' texts pinned: trafilatura reads the whole page
    (menu and story), Readability three of the story's five paragraphs."""
    import gatecrawl.core.extract.selection as selection

    page = _legacy_page()
    tree = lxml.html.fromstring(page)
    tds = tree.findall(".//td")
    story = " ".join(" ".join(p.itertext()) for p in tds[1].findall(".//p")[:3])
    texts = {"trafilatura": " ".join(tds[0].itertext()) + "\n" + " ".join(tds[1].itertext()),
             "readability": story}
    monkeypatch.setattr(selection, "candidate_text", lambda d, name, **kw: texts[name])
    sel = select_main(parse_html(page, content_type="text/html"))
    text = sel.root.text_content()
    assert "story0x0" in text and "story4x44" in text
    assert "Section 3" not in text
    assert sel.agreement["mode"] == "own_agrees"


SECTIONS = [words(f"section{k}x", 20) for k in range(4)]
LINKS = [words(f"link{k}x", 5) for k in range(6)]


def test_the_lead_alone_does_not_add_a_run_of_link_only_units():
    # the second opinion is silent; the lead confirms the selection and keeps a menu of six
    # link-only units and, after it, four sections
    spec = [(t, True) for t in BODY] + [(t, False, True) for t in LINKS] + [(t, False) for t in SECTIONS]
    res = vote(spec, " ".join(BODY + LINKS + SECTIONS), "")
    assert res.mode == "own_widened"
    added = set(res.keep) - set(range(len(BODY)))
    first_section = len(BODY) + len(LINKS)
    assert added == set(range(first_section, first_section + len(SECTIONS)))


@pytest.mark.parametrize("spec", [
    # two link-only units are no run
    [(t, True) for t in BODY] + [(t, False, True) for t in LINKS[:2]] + [(t, False) for t in SECTIONS],
    # item titles (links) alternating with their summaries: a listing, not a menu
    [(t, True) for t in BODY] + [x for k in range(4) for x in ((LINKS[k], False, True), (SECTIONS[k], False))],
])
def test_link_only_units_outside_a_run_are_added(spec):
    res = vote(spec, " ".join(t[0] for t in spec), "")
    assert res.mode == "own_widened"
    assert set(res.keep) == set(range(len(spec)))


def test_select_main_marks_link_only_units(monkeypatch):
    """Through select_main: the ballots of a menu's entries (one unit each) are link-only, a
    paragraph with a link inside is not."""
    import gatecrawl.core.extract.selection as selection

    page = ("<html><body><div>" + "".join(f"<div><a href='/s{k}'>Section {k}</a></div>" for k in range(5))
            + "</div><div><p>" + words("para", 60) + " <a href='/x'>one link</a> and more words.</p>"
            + "".join(f"<p>{words(f'p{k}x', 50)}</p>" for k in range(3)) + "</div></body></html>").encode()
    seen = {}
    real = selection.decide

    def spy(ballots, texts, **kw):
        kw["describe"](ballots)  # (the markup measures, which decide asks for past the first opinion)
        for b in ballots:
            seen[" ".join(b.tokens[:2])] = b.linked
        return real(ballots, texts, **kw)

    monkeypatch.setattr(selection, "decide", spy)
    monkeypatch.setattr(selection, "candidate_text", lambda d, name, **kw: "")
    select_main(parse_html(page, content_type="text/html"))
    assert seen, "no vote was taken"
    assert seen["section 0"] is True and seen["section 4"] is True
    assert seen["para0 para1"] is False
