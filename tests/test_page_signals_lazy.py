"""walls.page_signals takes each signal when it is first read (walls.PageSignals): it gives what the
signal functions give, and validation reads the costly ones only where its detectors decide on
them, with the same report as from all the signals taken at once."""

from __future__ import annotations

import gzip
from itertools import product
from pathlib import Path

from gatecrawl.core import walls
from gatecrawl.core.convert import default_recipe
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.page import find_fields, measure_page, norm_space
from gatecrawl.core.pageindex import PageIndex, find_below
from gatecrawl.core.validate import (ValidationInput, detect_age_gate, detect_login_wall, detect_no_results,
                                      lead_paragraph, validate)

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path("/work/shared/bench/wcxb-dev/html")
_BUTTON = "<button>Accept</button>"
_CASES = [
    f'<html><head><title>Cookies</title></head><body><div class="cookie-consent">We use cookies {_BUTTON}</div></body></html>',
    '<html><body><h1>Are you 18?</h1><a href="/y">Yes</a><a href="/n">No</a>'
    '<select name="dob-day">' + "<option>1</option>" * 31 + '</select><select name="year"><option>1</option></select></body></html>',
    '<html><body><form><input type="search" name="q" value="shoes"></form><div class="paywall">Subscribe</div></body></html>',
]


def _eager(doc, index, body_text) -> dict:
    """page_signals as it was: every signal taken at once."""
    t = find_below(doc, "title", index)
    return {
        "document_title": norm_space(t.text_content()) if t is not None else "",
        "consent": walls.consent_dialog(doc, index=index, body_text=body_text),
        "paywall_container": walls.paywall_container(doc, index=index),
        "search_query_shown": walls.search_query_shown(doc, index=index),
        "choice_controls": walls.choice_controls(doc, index=index),
        "birth_date_form": walls.birth_date_form(doc, index=index),
    }


def _docs():
    bodies = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    if CORPUS.is_dir():
        bodies += [gzip.decompress(p.read_bytes()) for p in sorted(CORPUS.glob("*.html.gz"))[:40]]
    bodies += [c.encode("utf-8") for c in _CASES]
    return [parse_html(b, content_type="text/html; charset=utf-8") for b in bodies]


class _Reads(dict):
    """A signals mapping that records the names read."""

    def __init__(self, *a) -> None:
        super().__init__(*a)
        self.read: set = set()

    def get(self, name, default=None):
        self.read.add(name)
        return super().get(name, default)


def test_lazy_signals_are_the_signals_taken_at_once():
    found = set()
    for doc in _docs():
        index = PageIndex(doc)
        text = measure_page(doc, index=index).plain_text
        eager = _eager(doc, index, text)
        lazy = walls.page_signals(doc, index=index, body_text=text)
        assert list(lazy) == list(eager) and len(lazy) == len(eager)
        for name in reversed(list(eager)):  # (any order of reading)
            assert lazy[name] == eager[name]
            assert lazy.get(name) is lazy[name]  # taken once, then kept
        assert dict(lazy) == eager and lazy == walls.page_signals(doc)
        assert lazy.get("no such signal") is None
        found.update(name for name, value in eager.items() if value)
    assert found >= {"consent", "paywall_container", "search_query_shown", "choice_controls", "birth_date_form"}


def test_validation_reads_the_costly_signals_only_where_they_decide():
    recipe = default_recipe()
    doc = parse_html(_CASES[1].encode("utf-8"))
    index = PageIndex(doc)
    signals = _eager(doc, index, None)
    signals["paywall_container"] = {"container": "div.paywall", "container_chars": 9}
    signals["search_query_shown"] = True
    fields = find_fields(doc, index=index)
    found = set()
    for held, content, heading, md in product((0, 150, 599, 600, 601, 999, 1000, 2999, 3000, 3001, 50_000),
                                              (0, 150, 600, 3000, 3001, 9000), ("Are you 18?", "No results found", ""),
                                              ("No results were found for your search.\n", "# Title\n\nSome text.\n")):
        v = dict(markdown=md, url_final="https://shop.example/search?q=x", http_status=200, page_text="You must be 18 to enter.",
                 title="Search", first_heading=heading, page_visible_chars=held, content_chars=content, page_content_chars=held,
                 fields=fields)
        eager = validate(ValidationInput(**v, signals=signals), recipe)
        reads = _Reads(signals)
        lazy = validate(ValidationInput(**v, signals=reads), recipe)
        assert lazy == eager
        # each detector, given every signal (as validation gave them before), finds what the report holds
        age = detect_age_gate(heading, v["page_text"], held, signals["choice_controls"], signals["birth_date_form"])
        none = detect_no_results("Search", heading, content, v["url_final"], True, lead_paragraph(md))
        wall = detect_login_wall(False, "Search\nYou must be 18 to enter.", held, markdown_chars=len(md.strip()),
                                 paywall_container=signals["paywall_container"])
        assert eager.detail.get("age_gate") == age and ("age_gate" in eager.reasons) == bool(age)
        assert eager.detail.get("no_results") == none and ("no_results" in eager.reasons) == bool(none)
        assert eager.detail.get("login_wall") == wall and ("login_wall" in eager.reasons) == bool(wall)
        found.update(name for name, hit in (("age", age), ("none", none), ("wall", wall)) if hit)
        if held > 600:
            assert not reads.read & {"choice_controls", "birth_date_form"}
        if held >= 1000:
            assert "paywall_container" not in reads.read
        if content > 3000:
            assert "search_query_shown" not in reads.read
    assert found == {"age", "none", "wall"}
