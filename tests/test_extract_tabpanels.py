"""Hidden tab panels (the tabs not open when the page loads) are the page's content: the
candidates' vote sees them, and what it brings back is written, not left out as hidden."""

from __future__ import annotations

from gatecrawl.core.extract.preclean import _preclean
from gatecrawl.core.convert import convert
from gatecrawl.core.htmlparse import parse_html


def _sentences(tag: str, n: int) -> str:
    return " ".join(f"The {tag} answer number {i} explains how the claim {tag} is filed and paid in time."
                    for i in range(n))


PAGE = f"""<html><head><title>Driver insurance</title></head><body>
<nav><a href="/">Home</a> <a href="/ride">Ride</a> <a href="/drive">Drive</a></nav>
<main><h1>Driver insurance</h1>
<p>{_sentences("intro", 6)}</p>
<div role="tablist"><button role="tab" aria-selected="true">Drivers</button>
<button role="tab" aria-selected="false">Riders</button></div>
<div role="tabpanel" id="p1"><ul>
<li><h3>What do I do after an accident?</h3><p>{_sentences("accident", 8)}</p></li>
<li><h3>Who covers the repairs?</h3><p>{_sentences("repair", 8)}</p></li></ul></div>
<div role="tabpanel" id="p2" hidden><ul>
<li><h3>What covers an injured rider?</h3><p>{_sentences("rider", 8)}</p></li>
<li><h3>How does a rider report a loss?</h3><p>{_sentences("report", 8)}</p></li></ul></div>
</main><footer><p>Copyright 2026 Example Inc.</p></footer></body></html>"""


def test_a_hidden_tab_panel_is_left_to_the_vote_and_shown():
    doc = parse_html(PAGE.encode())
    body = doc.find("body")
    fired: set[str] = set()
    deferred = _preclean(body, fired, defer_aria=True)
    assert [el.get("id") for el in deferred] == ["p2"]
    assert deferred[0].get("hidden") is None
    # without the vote (a recipe that turns it off), hidden stays hidden
    doc = parse_html(PAGE.encode())
    assert _preclean(doc.find("body"), set(), defer_aria=False) == []
    assert "rider answer" not in doc.find("body").text_content()


def test_the_hidden_tab_panel_trafilatura_keeps_reaches_the_markdown():
    res = convert(PAGE.encode(), "https://example.org/insurance", content_type="text/html")
    assert res.ok
    assert "The accident answer number 3" in res.markdown
    assert "The rider answer number 3" in res.markdown
    assert "How does a rider report a loss?" in res.markdown
