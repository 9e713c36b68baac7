"""Golden cases for the deterministic Markdown rules (gatecrawl.core.markdown).

Each ``tests/fixtures/<case>/`` holding ``input.html`` and ``expected.md`` is one rule
(the case is named after it); an optional ``meta.json`` gives ``{"base_url": ...}``.
The body of ``input.html`` is converted with ``to_markdown`` and must equal
``expected.md`` byte for byte, and a second conversion must give the same bytes.

The round-trip test parses every ``expected.md`` with markdown-it-py (CommonMark + GFM
tables, HTML *enabled* so raw HTML would show up as tokens) and checks that there is no
raw HTML (the only tag allowed is ``<br>`` inside a table cell, the documented cell line
break) and that every table row has the same number of columns as its header.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import to_markdown

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(
    p.name for p in FIXTURES.iterdir()
    if p.is_dir() and (p / "input.html").is_file() and (p / "expected.md").is_file()
)
DEFAULT_BASE = "https://example.com/page.html"


def _convert(case: str) -> str:
    d = FIXTURES / case
    meta = json.loads((d / "meta.json").read_text("utf-8")) if (d / "meta.json").exists() else {}
    doc = parse_html((d / "input.html").read_bytes())
    return to_markdown(doc.find("body"), base_url=meta.get("base_url", DEFAULT_BASE)).text


def test_enough_golden_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str):
    expected = (FIXTURES / case / "expected.md").read_bytes()
    first = _convert(case).encode("utf-8")
    assert first == expected, f"{case}: output changed:\n{first.decode()}"
    assert _convert(case).encode("utf-8") == first  # same bytes on a second conversion


@pytest.mark.parametrize("case", CASES)
def test_output_shape(case: str):
    text = (FIXTURES / case / "expected.md").read_text("utf-8")
    if not text:
        return
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "\r" not in text
    assert "\n\n\n" not in text


_MD = MarkdownIt("commonmark", {"html": True}).enable("table")


def _table_row_cells(line: str) -> int:
    body = re.sub(r"^(?:\s*>)*", "", line).strip()  # a table inside a blockquote
    body = re.sub(r"\\.", "xx", body)  # escaped characters (incl. \|) are not separators
    body = re.sub(r"`[^`]*`", lambda m: m.group(0).replace("|", "x"), body)
    return body.strip("|").count("|") + 1


@pytest.mark.parametrize("case", CASES)
def test_round_trip_no_raw_html_and_rectangular_tables(case: str):
    text = (FIXTURES / case / "expected.md").read_text("utf-8")
    tokens = _MD.parse(text)
    in_cell = False
    for tok in tokens:
        assert tok.type != "html_block", f"{case}: raw HTML block {tok.content!r}"
        if tok.type in ("th_open", "td_open"):
            in_cell = True
        elif tok.type in ("th_close", "td_close"):
            in_cell = False
        for child in tok.children or []:
            if child.type == "html_inline":
                assert in_cell and child.content == "<br>", f"{case}: raw HTML {child.content!r}"
    # every table: header, delimiter and body rows have the same column count
    for i, tok in enumerate(tokens):
        if tok.type != "table_open":
            continue
        start, end = tok.map
        rows = text.split("\n")[start:end]
        counts = {_table_row_cells(r) for r in rows}
        assert len(counts) == 1, f"{case}: ragged table {rows}"
        header_cells = 0
        j = i + 1
        while tokens[j].type != "tr_close":
            header_cells += tokens[j].type == "th_open"
            j += 1
        assert counts == {header_cells}


def test_round_trip_sees_tables():
    n = sum(
        1 for case in CASES
        for tok in _MD.parse((FIXTURES / case / "expected.md").read_text("utf-8"))
        if tok.type == "table_open"
    )
    assert n >= 8


def _shape(tokens) -> list[str]:
    """Block token types with nesting, e.g. ``blockquote>paragraph>strong``."""
    out, stack = [], []
    for tok in tokens:
        if tok.nesting == 1:
            stack.append(tok.type[:-5])
        elif tok.nesting == -1:
            stack.pop()
        else:
            path = ">".join(stack + [tok.type])
            out.append(path)
            for child in tok.children or []:
                if child.nesting == 1:
                    out.append(">".join(stack + [child.type[:-5]]))
    return out


# What markdown-it must see in the block constructs' golden cases (rendering, not bytes).
BLOCK_SHAPES = {
    "definition_list_terms_bold": ["bullet_list>list_item>paragraph>strong"],
    "definition_list_block_content": [
        "bullet_list>list_item>paragraph>strong", "bullet_list>list_item>bullet_list>list_item>paragraph>inline",
        "bullet_list>list_item>fence"],
    "definition_list_inside_list": ["ordered_list>list_item>bullet_list>list_item>paragraph>strong"],
    "details_summary_bold": ["paragraph>strong"],
    "details_code_inside": ["paragraph>strong", "fence"],
    "details_heading_summary_nested": ["heading>inline", "bullet_list>list_item>fence"],
    "admonition_sphinx_mkdocs_titles": ["blockquote>paragraph>strong"],
    "admonition_github_docusaurus": ["blockquote>paragraph>strong"],
    "admonition_table_inside": ["blockquote>paragraph>strong", "blockquote>table>thead>tr>th>inline"],
    "admonition_nested_and_in_list": ["bullet_list>list_item>blockquote>blockquote>fence"],
    "admonition_colour_alert_and_asciidoc": ["blockquote>paragraph>strong"],
    "figure_caption_after_image_italic": ["paragraph>em"],
    "figure_code_and_quote": ["fence", "blockquote>paragraph>inline", "paragraph>em"],
    "code_fence_in_quote_and_list_continuation": [
        "blockquote>bullet_list>list_item>fence", "bullet_list>list_item>blockquote>fence"],
}


@pytest.mark.parametrize("case", sorted(BLOCK_SHAPES))
def test_block_constructs_render_as_structure(case: str):
    assert case in CASES
    shape = _shape(_MD.parse((FIXTURES / case / "expected.md").read_text("utf-8")))
    for want in BLOCK_SHAPES[case]:
        assert want in shape, f"{case}: {want} not in {shape}"


def test_block_construct_cases_per_construct():
    for prefix in ("definition_list", "details", "admonition", "figure"):
        assert sum(c.startswith(prefix) for c in CASES) >= 2, prefix


def test_a_layout_table_that_is_the_root_is_unwrapped_like_a_nested_one():
    # A page laid out in one table (news.ycombinator.com) whose selection is that table: it was
    # renamed to a div but kept its rows, which came out as one pipe row per line with the
    # inner table's rows joined by <br>. Its cells are blocks, like a nested layout table's.
    doc = parse_html(b"<html><body><table id='main'><tr><td>Header bar</td></tr><tr><td>"
                     b"<div>These are jobs.</div><table><tr><td>1.</td><td><a href='/a'>Job A</a></td></tr>"
                     b"<tr><td>2.</td><td><a href='/b'>Job B</a></td></tr></table></td></tr></table></body></html>")
    md = to_markdown(doc.find(".//table"), base_url=DEFAULT_BASE).text
    assert md == ("Header bar\n\nThese are jobs.\n\n| 1\\. | [Job A](https://example.com/a) |\n"
                  "| --- | --- |\n| 2\\. | [Job B](https://example.com/b) |\n"), md
    assert "<br>" not in md
