"""Tables: layout tables are unwrapped into blocks, data tables rebuilt as a rectangular grid."""

from __future__ import annotations

import lxml.etree
import lxml.html

from gatecrawl.core.markdown.dom import _drop_keep_tail, _has_text

_STRUCTURE_IN_CELL = ("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "pre", "blockquote",
                      "table")


def _is_layout_table(table: lxml.etree._Element) -> bool:
    if (table.get("role") or "").strip().lower() in ("presentation", "none"):
        return True
    rows = _table_rows(table)
    if not rows:
        return True
    max_cols = 0
    for tr in rows:
        n = 0
        for cell in tr:
            if cell.tag in ("td", "th"):
                try:
                    n += max(1, min(50, int(cell.get("colspan") or 1)))
                except ValueError:
                    n += 1
                if not len(cell):
                    continue  # (no child element: no structure, no paragraph)
                if any(True for _ in cell.iter(*_STRUCTURE_IN_CELL)):
                    return True
                paras = sum(1 for _ in cell.iter("p"))
                if paras > 1:
                    return True
        max_cols = max(max_cols, n)
    return max_cols < 2


def _table_rows(table: lxml.etree._Element) -> list:
    rows = []
    for child in table:
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(c for c in child if c.tag == "tr")
    return rows


def _span(cell: lxml.etree._Element, name: str, cap: int) -> int:
    try:
        v = int((cell.get(name) or "1").strip())
    except ValueError:
        return 1
    return max(1, min(cap, v))


def _rebuild_table(table: lxml.etree._Element) -> None:
    """Normalise a data table to a rectangular grid with the header first (package rule)."""
    rows = _table_rows(table)
    grid: list[list] = []
    for r, tr in enumerate(rows):
        while len(grid) <= r:
            grid.append([])
        c = 0
        for cell in [x for x in tr if x.tag in ("td", "th")]:
            while c < len(grid[r]) and grid[r][c] is not None:
                c += 1
            cs = _span(cell, "colspan", 50)
            rs = min(_span(cell, "rowspan", 100), len(rows) - r)
            for dr in range(rs):
                while len(grid) <= r + dr:
                    grid.append([])
                row = grid[r + dr]
                for dc in range(cs):
                    while len(row) <= c + dc:
                        row.append(None)
                    row[c + dc] = cell if (dr == 0 and dc == 0) else ""
            c += cs
    ncols = max((len(r) for r in grid), default=0)
    caption = None
    for child in table:
        if child.tag == "caption":
            caption = child
    new_rows = []
    for row in grid:
        cells = []
        has = False
        for i in range(ncols):
            slot = row[i] if i < len(row) else None
            if isinstance(slot, lxml.etree._Element):
                for a in ("colspan", "rowspan"):
                    slot.attrib.pop(a, None)
                slot.tag = "td"
                if _has_text(slot) or any(True for _ in slot.iter("img")):
                    has = True
                cells.append(slot)
            else:
                cells.append(lxml.html.Element("td"))
        if has:
            new_rows.append(cells)
    for child in list(table):
        table.remove(child)
    table.text = None
    for k in list(table.attrib):
        del table.attrib[k]
    for cells in new_rows:
        tr = lxml.html.Element("tr")
        for cell in cells:
            cell.tail = None
            tr.append(cell)
        table.append(tr)
    if caption is not None and _has_text(caption):
        caption.tag = "p"
        caption.tail = None
        table.addprevious(caption)
    if not new_rows:
        _drop_keep_tail(table)


def _layout_cells(table: lxml.etree._Element) -> list:
    """A layout table's caption (as a paragraph) and cells (as ``div``), in row order."""
    out = []
    for child in list(table):
        if child.tag == "caption":
            child.tag = "p"
            out.append(child)
    for tr in _table_rows(table):
        for cell in [x for x in tr if x.tag in ("td", "th")]:
            cell.tag = "div"
            for a in ("colspan", "rowspan"):
                cell.attrib.pop(a, None)
            cell.tail = None
            out.append(cell)
    return out


def _unwrap_layout_table(table: lxml.etree._Element) -> None:
    container = lxml.html.Element("div")
    for cell in _layout_cells(table):
        container.append(cell)
    container.tail = table.tail
    parent = table.getparent()
    if parent is not None:
        parent.replace(table, container)


def _unwrap_root_layout_table(table: lxml.etree._Element) -> None:
    """The root itself is a layout table (a whole page laid out in one table): it becomes a
    ``div`` holding its cells, as a nested layout table does (its attributes stay)."""
    cells = _layout_cells(table)
    for child in list(table):
        table.remove(child)
    table.tag = "div"
    for cell in cells:
        table.append(cell)
