"""validate.markdown_structure matches a line against the fence and heading patterns only when it
can be one (the Markdown holds a fence marker, the line starts with "#") and counts a table row's
cells without the character loop when the row holds no backslash: the structure found as before."""

from __future__ import annotations

import random

from gatecrawl.core.validate import structure
from gatecrawl.core.validate.structure import _FENCE, _HEADING, markdown_structure


def _cells(line: str) -> int:
    inner = line.strip()[1:-1]
    cells, esc = 1, False
    for ch in inner:
        if esc:
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == "|":
            cells += 1
    return cells


def _reference(md: str) -> dict:
    """markdown_structure as it was written before."""
    headings, open_fence, table_rows, bad_tables = [], None, [], 0
    for line in md.split("\n"):
        m = _FENCE.match(line)
        if m:
            marker = m.group(2)
            if open_fence is None:
                open_fence = marker
            elif marker[0] == open_fence[0] and len(marker) >= len(open_fence) and not m.group(3).strip():
                open_fence = None
            continue
        if open_fence is not None:
            continue
        h = _HEADING.match(line)
        if h:
            headings.append((len(h.group(1)), line[len(h.group(1)) + 1 :].strip()))
        if line.startswith("|") and line.rstrip().endswith("|"):
            table_rows.append(_cells(line))
        else:
            if table_rows and len(set(table_rows)) > 1:
                bad_tables += 1
            table_rows = []
    if table_rows and len(set(table_rows)) > 1:
        bad_tables += 1
    skips = sum(1 for (a, _), (b, _) in zip(headings, headings[1:]) if b > a + 1)
    return {"headings": headings, "fences_balanced": open_fence is None, "bad_tables": bad_tables, "heading_level_skips": skips}


def test_structure_is_the_line_by_line_match():
    rng = random.Random(11)
    lines = ["```", "~~~", "````", " ```py", "    ```", "```x```", "# h", "## h", "#h", "####### h", "| a | b |", "| a |",
             "|a\\|b|", "|a\\\\|b|", "| x | y |  ", "|x", "text", "", " ", "\t", "x```", "~~~~ ~"]
    for _ in range(50_000):
        md = "\n".join(rng.choice(lines) for _ in range(rng.randint(0, 12)))
        assert markdown_structure(md) == _reference(md), md
    for line in lines:
        if line.startswith("|"):
            assert structure._count_cells(line) == _cells(line)


def test_first_heading_is_the_first_line_starting_with_a_hash():
    """convert_html._first_heading finds the line the split into lines gave first."""
    from gatecrawl.core.convert_html import _first_heading

    def split(md: str) -> str:
        found = [line.lstrip("#").strip() for line in md.split("\n") if line.startswith("#")]
        return found[0] if found else ""

    rng = random.Random(5)
    pieces = ["#", "# a", "\n", "##", " #", "x", "\n#", "#\n", " ", "\t#b "]
    for _ in range(50_000):
        md = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 9)))
        assert _first_heading(md) == split(md), md
