"""Markdown structure: headings, code-fence balance and table shapes."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6}) \S")


def markdown_structure(md: str) -> dict:
    """Headings, fence balance and table shapes of a Markdown text."""
    headings: list[tuple[int, str]] = []
    open_fence: str | None = None
    fences_balanced = True
    table_rows: list[int] = []
    bad_tables = 0
    # (a fence line holds three backticks or tildes in a row, a heading line starts with "#":
    # a line that cannot be one is not matched against its pattern)
    fenced = "```" in md or "~~~" in md
    for line in md.split("\n"):
        if fenced:
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
        if line.startswith("#"):
            h = _HEADING.match(line)
            if h:
                headings.append((len(h.group(1)), line[len(h.group(1)) + 1 :].strip()))
        if line.startswith("|") and line.rstrip().endswith("|"):
            table_rows.append(_count_cells(line))
        elif table_rows:
            if len(set(table_rows)) > 1:
                bad_tables += 1
            table_rows = []
    if table_rows and len(set(table_rows)) > 1:
        bad_tables += 1
    if open_fence is not None:
        fences_balanced = False
    skips = sum(1 for (a, _), (b, _) in zip(headings, headings[1:]) if b > a + 1)
    return {"headings": headings, "fences_balanced": fences_balanced, "bad_tables": bad_tables, "heading_level_skips": skips}


def _count_cells(line: str) -> int:
    inner = line.strip()[1:-1]
    if "\\" not in inner:
        return 1 + inner.count("|")  # (no escape: every bar separates two cells)
    cells, esc = 1, False
    for ch in inner:
        if esc:
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == "|":
            cells += 1
    return cells
