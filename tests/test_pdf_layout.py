"""Pure layout rules of the PDF reader (no PDFium): quality gate, furniture, joins, escaping."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gatecrawl.core.pdf.layout import (  # noqa: E402
    Line, clean_text, page_quality, remove_running, render,
)
from gatecrawl.core.pdf.textmetrics import strip_markdown, token_f1  # noqa: E402


def L(text, page=1, y=700.0, size=10.0, x0=72.0, x1=540.0, bold=False, cells=None):
    return Line(clean_text(text), 0, len(text), size, bold, x0, x1, y + size, y, y, y, cells,
                page)


def test_clean_text():
    assert clean_text("  \ufb01nd the \ufb02ow\u00a0now\t ") == "find the flow now"
    assert clean_text("infor\ufffe mation") == "infor\ufffemation"


def test_page_quality():
    good = page_quality("The quick brown fox jumps over the lazy dog. " * 5, 0.0)
    assert good["needs_ocr"] is False and good["bad_char_share"] == 0.0
    bad = page_quality("\ufffd" * 50 + " abc def", 0.0)
    assert bad["needs_ocr"] and bad["bad_char_share"] > 0.8
    pua = page_quality("\ue001\ue002\ue003 " * 30, 0.0)
    assert pua["needs_ocr"]
    junk = page_quality("aaa " * 100, 0.0)
    assert junk["needs_ocr"] and junk["unique_word_ratio"] < 0.08
    blank = page_quality("", 0.0)
    assert blank["blank"] and not blank["needs_ocr"]
    scan = page_quality("Scanned by ACME", 0.95)
    assert scan["needs_ocr"] and not scan["blank"]


BODIES = {
    1: ("Alpha bravo charlie delta.", "Echo foxtrot golf."),
    2: ("Hotel india juliet kilo.", "Lima mike november."),
    3: ("Oscar papa quebec romeo.", "Sierra tango uniform."),
    4: ("Victor whiskey xray.", "Yankee zulu one."),
}


def test_remove_running_headers_footers_and_numbers():
    pages = []
    for p in range(1, 5):
        pages.append([
            L("ACME Quarterly Report 2024", p, 750, 8),
            L(BODIES[p][0], p, 700),
            L(BODIES[p][1], p, 687),
            L(f"{p} of 4", p, 40, 8),
        ])
    out = remove_running(pages)
    assert [[ln.text for ln in pg] for pg in out] == [list(BODIES[p]) for p in range(1, 5)]


def test_single_page_keeps_text_but_drops_page_number():
    out = remove_running([[L("Title line", 1, 750), L("Body.", 1, 700), L("- 1 -", 1, 40)]])
    assert [ln.text for ln in out[0]] == ["Title line", "Body."]


def test_heading_sized_repeats_are_not_furniture():
    pages = [[L(f"Part {p}", p, 720, 14), L(BODIES[p][0], p, 690)] for p in (1, 2, 3)]
    md, title, _ = render(remove_running(pages), None)
    assert "# Part 2\n" in md and title == "Part 1"


def test_paragraph_join_hyphen_and_gap():
    lines = [
        L("Heading", 1, 720, 16),
        L("The infor-", 1, 700, x1=540), L("mation flows well-", 1, 687, x1=540),
        L("Known words stay.", 1, 674, x1=300),
        L("Second paragraph here.", 1, 640, x1=400),
    ]
    md, title, prov = render([lines], None)
    assert md == (
        "# Heading\n\nThe information flows well- Known words stay.\n\n"
        "Second paragraph here.\n"
    )
    assert title == "Heading"
    assert prov[0]["markdown_span"] == "# Heading" and prov[1]["page"] == 1


def test_paragraph_continues_across_pages_and_columns():
    p1 = [L("A sentence that goes on and", 1, 100, x1=540)]
    p2 = [L("continues on the next page.", 2, 700, x1=300), L("New one.", 2, 670)]
    md, _, _ = render([p1, p2], None)
    assert md == "A sentence that goes on and continues on the next page.\n\nNew one.\n"


def test_escaping_and_lists():
    texts = ["# not a heading.", "1. not a list either.", "\u2022 a bullet item.",
             "a *star* and [link]."]
    md, _, _ = render([[L(t, p, 700)] for p, t in enumerate(texts, start=1)], None)
    assert md.split("\n\n") == [
        "\\# not a heading.", "1\\. not a list either.", "- a bullet item.",
        "a \\*star\\* and \\[link\\].\n",
    ]


def test_table_block():
    rows = [["Item", "Count"], ["apple", "3"], ["pear|x", "4"]]
    lines = [L(" ".join(r), 1, 700 - 15 * i, cells=r) for i, r in enumerate(rows)]
    md, _, _ = render([lines], None)
    assert md == "| Item | Count |\n| --- | --- |\n| apple | 3 |\n| pear\\|x | 4 |\n"


def test_metadata_title_filtering():
    lines = [L("Real Title", 1, 720, 20), L("Body text.", 1, 690)]
    assert render([lines], "Microsoft Word - draft.docx")[1] == "Real Title"
    assert render([lines], "Annual Report 2024")[1] == "Annual Report 2024"
    assert render([lines], "untitled")[1] == "Real Title"


def test_token_f1_helpers():
    assert token_f1("a b c", "a b c") == 1.0
    assert token_f1("", "a") == 0.0
    assert strip_markdown("## Head\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nx \\* y") == (
        "Head\n\na b\n1 2\n\nx * y")


_word = st.text(alphabet="abcdefghij#*-_[]|1. ", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(_word, min_size=1, max_size=8),
                          st.sampled_from([9.0, 10.0, 14.0]), st.integers(1, 3)),
                min_size=1, max_size=25))
def test_render_deterministic_and_wellformed(spec):
    pages: list[list[Line]] = [[], [], []]
    y = {1: 720.0, 2: 720.0, 3: 720.0}
    for words, size, page in spec:
        y[page] -= 14
        pages[page - 1].append(L(" ".join(words), page, y[page], size))
    a = render(remove_running(pages), None)
    b = render(remove_running(pages), None)
    assert a == b
    md = a[0]
    if md:
        assert md.endswith("\n") and not md.endswith("\n\n") and md.strip()
    for p in a[2]:
        assert set(p) == {"markdown_span", "page", "char_start", "char_end", "text_preview"}
