"""Deterministic HTML -> Markdown.

``to_markdown(root, base_url=...)`` works on a deep copy of ``root`` in two stages:

1. *Preparation* (lxml): non-content elements are removed, links and images are resolved,
   code blocks, tables and containers are normalised (rules below);
2. *Conversion*: :class:`GatecrawlConverter`, a markdownify ``MarkdownConverter`` subclass
   with every option pinned explicitly, followed by a text normalisation pass.

Rules (each has a golden case under ``tests/fixtures``):

* Headings are ATX (``#`` .. ``######``), level taken from the DOM (``h1`` -> ``#``);
  empty headings are dropped; emphasis inside headings is unwrapped; a trailing ``#`` run
  is escaped so it is not read as a closing sequence.
* Lists use ``-`` bullets at every depth; ordered lists are numbered from ``start``
  (default 1); nested content is indented by the width of its marker (``- `` = 2,
  ``1. `` = 3), paragraphs inside items are kept as separate paragraphs.
* Tables: a table is a *layout* table and is unwrapped (its cells become blocks, in
  row order) when it has ``role=presentation|none``, contains another table, has a cell
  holding a heading, list, ``pre``, ``blockquote`` or more than one paragraph, or has fewer
  than two columns. Every other table becomes a GFM pipe table: the **first row is always
  the header row** (promoted when it has no ``<th>``); ``colspan``/``rowspan`` are
  expanded on a grid and **the cell's text goes in the top-left slot of the span, every
  other spanned slot is left empty**; all rows are padded to the same column count;
  rows without any text are dropped; ``|`` in cells is escaped as ``\\|``; a line break
  inside a cell (``<br>`` or a block boundary) is written as ``<br>``; a ``<caption>``
  becomes a paragraph before the table.
* Code: ``<pre>`` becomes a fenced block; the language hint comes from the first class
  that matches ``language-x``, ``lang-x``, ``highlight-x``, ``highlight-source-x`` or
  ``brush: x`` looking at the ``<pre>``, then its inner ``<code>``, then the parent and
  grandparent elements; the code text is kept byte for byte (``<br>`` -> newline) except
  that leading blank lines and trailing whitespace are dropped; the fence is three
  backticks or one more than the longest backtick run in the code. Inline code uses a
  backtick run one longer than any run inside it (padded with spaces when needed). A fence
  inside quotes and lists repeats the ``>`` markers on every line and indents by the width
  of the list markers.
* Links and images: targets are resolved against ``<base href>`` (from the document the
  root belongs to, or the ``data-gc-base`` attribute :mod:`gatecrawl.core.extract` sets on
  its copy) and then ``base_url``; only ``http``, ``https`` and ``mailto`` targets are kept
  (other links keep their text, other images are dropped); ``src`` falls back to
  ``data-src``/``data-original`` for lazy images; titles are not written; space, ``(``,
  ``)``, ``<``, ``>`` in targets are percent-encoded. No raw HTML is ever written (the only
  tag-like text is ``<br>`` inside table cells, which GFM renders as a line break).
* Definition lists: a ``<dl>`` becomes a ``-`` list with one item per group of terms and
  their definitions: the terms in bold, one per line (``\\`` hard breaks) in the item's
  first paragraph, then each definition's blocks (paragraphs, lists, code, tables) as the
  item's following blocks. ``<div>`` wrappers around groups are opened; a definition without
  a term starts an item of its own, or joins the previous group after a definition; a term
  holding blocks (or only an image) is not bolded.
* Details: each ``<summary>`` of a ``<details>`` is a bold paragraph (a summary holding a
  heading keeps the heading), the body follows as ordinary blocks.
* Admonitions: a ``div``/``aside``/``section``/``details``/``blockquote`` whose class names
  an admonition type (``note``, ``tip``, ``warning``, ``caution``, ``important``, ``danger``,
  ``attention``, ``hint`` on their own; any type in ``_ADMONITION_LABELS`` after a container
  class or as ``markdown-alert-x``, ``theme-admonition-x``, ``admonition-x``, ``callout-x``,
  ``notecard-x``), or that carries a container class (``admonition``, ``admonitionblock``,
  ``callout``, ``alert``, ...) *and* a title element (``admonition-title``,
  ``markdown-alert-title``, Docusaurus ``admonitionHeading``, ``alert-heading``,
  ``alert-title``, ``callout-title``, an Asciidoctor icon cell, the ``<summary>`` of a
  details), becomes a blockquote whose first paragraph is the label in bold: the title text
  (a bare type word such as ``warning`` is written ``Warning``), else the type's label. No
  label is added when the body already opens with it (``Note: ...``); a first block holding
  only the label word becomes the label. Bootstrap colour classes (``alert-info``) name no
  type. GitHub's ``> [!NOTE]`` syntax is not used: it has five types, no custom titles and
  is plain text to other renderers.
* Figures: the ``<figcaption>`` follows the figure's content (image, code, quote, table),
  whatever its place in the HTML, as an italic paragraph (each of its paragraphs in italics;
  plain when it holds other blocks).
* Escaping: ``*``, `````, ``[``, ``]`` always; ``_`` unless both neighbours are letters or
  digits; ``\\`` before ASCII punctuation; ``<`` before a letter, ``/``, ``!`` or ``?``;
  ``&`` before an entity-like ``&name;``; ``~`` in runs of two or more; ``|`` in table
  cells; and at the start of a line only: ``#`` runs that would open a heading, ``>``,
  ``-``/``+`` followed by a space (or a ``---`` rule), ``=`` underline runs, ``~~~``
  fences and ``1.``/``1)`` list markers. Nothing else is escaped.
* Whitespace: runs of whitespace in text collapse to one space (U+00A0 counts as a space,
  zero-width characters are removed); ``<br>`` outside cells is a backslash hard break
  (two or more in a row start a new paragraph; a break at the start or end of a block is
  dropped); blocks are separated by exactly one blank line; trailing spaces are removed
  outside code; the text ends with exactly one ``\\n`` (or is empty).
* Unicode: the output outside code blocks is NFC-normalised; code is left as is.
* Determinism: no set/dict iteration order reaches the output; the same input gives the
  same bytes in any process.
* Errors: nothing is caught; an internal error propagates to ``convert()``, which drops the
  page as ``converter_error``.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import lxml.etree
import lxml.html
from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

from gatecrawl.core.page import css_path as _css_path
from gatecrawl.core.page import remove_keep_tail

__all__ = ["CONVERTER_VERSION", "GatecrawlConverter", "MarkdownResult", "css_path", "to_markdown"]

CONVERTER_VERSION = "markdown/3"

# Private-use sentinels; any occurrence in the input text is removed first.
_CELL_END = "\ue000"
_ROW_END = "\ue001"
_CODE_OPEN = "\ue002"
_CODE_CLOSE = "\ue003"
_SENTINELS = re.compile("[\ue000-\ue00f]")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")

_DROP_TAGS = (
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "iframe",
    "frame", "frameset", "object", "embed", "applet", "svg", "math", "canvas", "button",
    "input", "select", "option", "optgroup", "textarea", "datalist", "map", "area", "audio",
    "video", "source", "track", "picture_source", "dialog", "param", "base",
)
_BLOCK_RENAME = {
    "main": "div", "header": "div", "footer": "div", "nav": "div", "aside": "div",
    "figure": "div", "details": "div", "address": "div", "center": "div", "fieldset": "div",
    "hgroup": "div", "form": "div", "dd": "div", "body": "div", "html": "div",
    "article": "div", "section": "div", "legend": "p", "figcaption": "p", "summary": "p",
    "dt": "p", "caption": "p", "listing": "pre", "xmp": "pre", "plaintext": "pre",
    "dir": "ul", "menu": "ul",
}
_BLOCK_TAGS = frozenset(
    ["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "table", "tr",
     "td", "th", "thead", "tbody", "tfoot", "pre", "blockquote", "hr"]
    + list(_BLOCK_RENAME)
)
_STRUCTURE_IN_CELL = ("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "pre", "blockquote",
                      "table")
_EMPHASIS = {"b": "strong", "strong": "strong", "em": "em", "i": "em"}
_TRANSPARENT_INLINE = frozenset(
    ["span", "font", "small", "big", "abbr", "acronym", "cite", "time", "mark", "u", "ins",
     "sub", "sup", "label", "dfn", "var", "bdi", "bdo", "data", "tt", "nobr", "wbr", "output"]
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_LANG_PATTERNS = (
    re.compile(r"(?:^|\s)(?:language|lang)-([A-Za-z0-9_+#.\-]+)"),
    re.compile(r"(?:^|\s)highlight-(?:source-)?([A-Za-z0-9_+#.\-]+)"),
    re.compile(r"brush:\s*([A-Za-z0-9_+#.\-]+)"),
)
_SAFE_SCHEMES = ("http", "https", "mailto")


@dataclass(frozen=True)
class MarkdownResult:
    text: str
    title: str | None
    provenance: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def css_path(el: lxml.etree._Element, root: lxml.etree._Element) -> str:
    """CSS path of ``el`` from ``root``: ``root_tag > tag:nth-of-type(k) > ...``."""
    return _css_path(el, root)


def _norm_ws(text: str) -> str:
    return " ".join(text.split())  # whitespace runs (U+00A0 among them) to one space, ends stripped


# Characters XML cannot hold (C0 controls other than tab and newlines, U+FFFE/U+FFFF): the
# HTML parser lets them in from character references such as "&#1;", but lxml refuses to
# write them back into the tree, and they have no business in Markdown.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean_text(text: str | None) -> str | None:
    if not text:
        return text
    text = _XML_INVALID.sub("", _SENTINELS.sub("", text))
    return _ZERO_WIDTH.sub("", text).replace("\xa0", " ")


def _drop_keep_tail(el: lxml.etree._Element) -> None:
    """Remove ``el`` and its content, keeping the text that follows it."""
    remove_keep_tail(el)


def _unwrap(el: lxml.etree._Element) -> None:
    """Replace ``el`` by its children (text kept)."""
    if el.getparent() is None:
        return
    el.drop_tag() if hasattr(el, "drop_tag") else lxml.html.HtmlElement.drop_tag(el)


def _safe_url(raw: str | None, base: str) -> str | None:
    if not raw:
        return None
    raw = re.sub(r"[\x00-\x20\x7f]+", lambda m: "" if m.start() == 0 else " ", raw.strip())
    raw = raw.strip()
    if not raw:
        return None
    try:
        url = urljoin(base, raw) if base else raw
        scheme = urlsplit(url).scheme.lower()
    except (ValueError, TypeError):
        return None
    if scheme not in _SAFE_SCHEMES:
        return None
    return (
        url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
        .replace("<", "%3C").replace(">", "%3E").replace("\\", "%5C")
    )


def _code_language(pre: lxml.etree._Element) -> str:
    candidates = [pre]
    codes = [c for c in pre if c.tag == "code"]
    if codes:
        candidates.append(codes[0])
    parent = pre.getparent()
    if parent is not None:
        candidates.append(parent)
        if parent.getparent() is not None:
            candidates.append(parent.getparent())
    for node in candidates:
        cls = (node.get("class") or "") + " " + (node.get("data-lang") and
                                                  "language-" + node.get("data-lang") or "")
        for pat in _LANG_PATTERNS:
            m = pat.search(cls)
            if m:
                lang = m.group(1).strip(".-").lower()
                if lang and lang not in ("none", "plaintext", "text", "nohighlight"):
                    return lang
                return ""
    return ""


def _code_text(pre: lxml.etree._Element) -> str:
    out: list[str] = []

    def walk(node: lxml.etree._Element) -> None:
        # Iterative-equivalent depth is bounded by htmlparse.MAX_DEPTH.
        if node.text:
            out.append(node.text)
        for child in node:
            if isinstance(child.tag, str):
                if child.tag == "br":
                    out.append("\n")
                elif child.tag not in ("script", "style"):
                    walk(child)
            if child.tail:
                out.append(child.tail)

    walk(pre)
    text = _SENTINELS.sub("", "".join(out)).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\A(?:[ \t]*\n)+", "", text)
    return text.rstrip()


def _has_text(el: lxml.etree._Element) -> bool:
    for t in el.itertext():
        if t.strip():
            return True
    return False


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
    """Normalise a data table to a rectangular grid with the header first (module rule)."""
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


def _find_base(root: lxml.etree._Element, base_url: str) -> str:
    href = root.get("data-gc-base")
    if not href:
        for b in root.getroottree().getroot().iter("base"):
            if b.get("href"):
                href = b.get("href")
                break
    if href:
        try:
            return urljoin(base_url or "", href.strip())
        except ValueError:
            return base_url or ""
    return base_url or ""


# --------------------------------------------------------------------------- block constructs

# Admonition types and their labels. A type is read from the class tokens of the container:
# ``<prefix>-<type>`` / ``<prefix>--<type>`` (GitHub ``markdown-alert-note``, Docusaurus
# ``theme-admonition-warning``, Quarto ``callout-tip``), or a bare ``<type>`` token next to a
# container token (Sphinx and MkDocs ``admonition note``, MDN ``notecard warning``). Bootstrap
# and Infima ``alert-info`` / ``alert--danger`` name a colour, not a type: an ``alert`` is an
# admonition only with a title element (Docsy ``alert-heading``).
_ADMONITION_LABELS = {
    "abstract": "Abstract", "attention": "Attention", "bug": "Bug", "caution": "Caution",
    "danger": "Danger", "error": "Error", "example": "Example", "failure": "Failure",
    "hint": "Hint", "important": "Important", "info": "Info", "note": "Note",
    "question": "Question", "quote": "Quote", "seealso": "See also", "success": "Success",
    "tip": "Tip", "tldr": "TL;DR", "todo": "Todo", "warning": "Warning",
}
# Class tokens that make an element an admonition container on their own.
_ADMONITION_CONTAINERS = frozenset(
    ["admonition", "admonitionblock", "theme-admonition", "markdown-alert", "callout", "notecard",
     "alert"]
)
# Bare type tokens that make an element an admonition without a container token (kept short:
# words such as ``summary``, ``info`` or ``quote`` are common layout class names).
_ADMONITION_BARE = frozenset(
    ["note", "tip", "hint", "warning", "caution", "important", "danger", "attention"]
)
_ADMONITION_PREFIXED = re.compile(
    r"(?:markdown-alert|theme-admonition|admonition|callout|notecard)--?([a-z]+)"
)
_ADMONITION_TITLE_CLASSES = frozenset(
    ["admonition-title", "markdown-alert-title", "admonition-heading", "alert-heading",
     "alert-title", "callout-title", "callout-title-container"]
)
_ADMONITION_TAGS = ("div", "aside", "section", "details", "blockquote")


def _class_tokens(el: lxml.etree._Element) -> list[str]:
    return (el.get("class") or "").lower().split()


def _admonition_type(el: lxml.etree._Element) -> tuple[bool, str | None]:
    """(may be an admonition, its type or None) from the class tokens, first match wins.
    A container token without a type makes an admonition only when a title is found."""
    tokens = _class_tokens(el)
    container = any(t in _ADMONITION_CONTAINERS for t in tokens)
    for tok in tokens:
        m = _ADMONITION_PREFIXED.fullmatch(tok)
        if m and m.group(1) in _ADMONITION_LABELS:
            return True, m.group(1)
        if tok in _ADMONITION_BARE or (container and tok in _ADMONITION_LABELS):
            return True, tok
    return container, None


def _is_admonition_title(el: lxml.etree._Element) -> bool:
    return any(t in _ADMONITION_TITLE_CLASSES or t.startswith("admonitionheading")
               for t in _class_tokens(el))


def _has_block(el: lxml.etree._Element) -> bool:
    return any(True for d in el.iterdescendants()
               if isinstance(d.tag, str) and d.tag in _BLOCK_TAGS)


def _wrap_children(el: lxml.etree._Element, tag: str) -> None:
    """Move the content of ``el`` into a new ``<tag>`` child."""
    wrapper = lxml.html.Element(tag)
    wrapper.text, el.text = el.text, None
    for child in list(el):
        wrapper.append(child)  # the tail moves with the child
    el.append(wrapper)


def _label_paragraph(el: lxml.etree._Element, tag: str) -> None:
    """Turn ``el`` (a summary or caption) into a paragraph whose text is wrapped in ``<tag>``.
    When it holds paragraphs, each is wrapped; with other block content it becomes a plain
    ``div``."""
    if _has_block(el):
        el.tag = "div"
        kids = [c for c in el if isinstance(c.tag, str)]
        loose = (el.text or "").strip() or any((c.tail or "").strip() for c in el)
        if not loose and all(c.tag == "p" and not _has_block(c) for c in kids):
            for c in kids:
                if _has_text(c):
                    _wrap_children(c, tag)
        return
    el.tag = "p"
    if _has_text(el):
        _wrap_children(el, tag)


def _label_of(text: str) -> str | None:
    """The canonical label when ``text`` is just a type word ("note", "WARNING:"), else None."""
    return _ADMONITION_LABELS.get(text.lower().rstrip(":").strip())


def _prepare_admonitions(work: lxml.etree._Element) -> None:
    """Admonitions become blockquotes opened by their label in bold (module rule)."""
    found: list[tuple[lxml.etree._Element, str | None]] = []
    for el in work.iter(*_ADMONITION_TAGS):
        if el is work:
            continue
        maybe, kind = _admonition_type(el)
        if maybe and _has_text(el):
            found.append((el, kind))
    if not found:
        return
    members = {id(el) for el, _ in found}

    def owner(node: lxml.etree._Element) -> lxml.etree._Element | None:
        anc = node.getparent()
        while anc is not None and id(anc) not in members:
            anc = anc.getparent()
        return anc

    plans = []
    for el, kind in found:
        title_el = icon_td = None
        for d in el.iterdescendants():
            if not isinstance(d.tag, str):
                continue
            if _is_admonition_title(d) or (d.tag == "summary" and d.getparent() is el):
                if owner(d) is el:
                    title_el = d
                    break
            if d.tag == "td" and "icon" in _class_tokens(d) and icon_td is None and owner(d) is el:
                icon_td = d  # Asciidoctor: label cell, then the content cell
        if title_el is None and icon_td is not None:
            title_el = icon_td
        if kind or title_el is not None:
            plans.append((el, kind, title_el))
    for el, kind, title_el in plans:
        title = ""
        if title_el is not None:
            title = _norm_ws("".join(title_el.itertext()))
            content = title_el.getnext() if title_el.tag == "td" else None
            table = next(title_el.iterancestors("table"), None) if content is not None else None
            if table is not None and content.tag == "td":
                # the content cell replaces the two-cell table
                holder = lxml.html.Element("div")
                holder.text = content.text
                for child in list(content):
                    holder.append(child)
                table.addprevious(holder)
                _drop_keep_tail(table)
            else:
                _drop_keep_tail(title_el)
        if not title and kind:
            first = next((c for c in el if isinstance(c.tag, str) and _has_text(c)), None)
            lead = (el.text or "").strip()
            if not lead and first is not None and \
                    _label_of(_norm_ws("".join(first.itertext()))) == _ADMONITION_LABELS[kind]:
                title = _ADMONITION_LABELS[kind]  # a first block holding only the label
                _drop_keep_tail(first)
        if title:
            label = _label_of(title) or title
        elif kind:
            label = _ADMONITION_LABELS[kind]
            body = _norm_ws("".join(el.itertext())).lower()
            if re.match(re.escape(label.lower()) + r"\s*[:!\u2013\u2014-]", body):
                label = ""  # the body already opens with its label ("Note: ...")
        else:
            label = ""
        el.tag = "blockquote"
        el.attrib.clear()
        if label:
            para = lxml.html.Element("p")
            strong = lxml.etree.SubElement(para, "strong")
            strong.text = label
            para.tail, el.text = el.text, None
            el.insert(0, para)


def _prepare_definition_lists(work: lxml.etree._Element) -> None:
    for dl in list(work.iter("dl")):
        if dl.getparent() is None and dl is not work:
            continue
        # Children in order; ``div`` groups (HTML allows them around dt/dd) are opened, stray
        # text becomes a paragraph.
        items: list[lxml.etree._Element] = []

        def text_para(text: str | None) -> None:
            if text and text.strip():
                p = lxml.html.Element("p")
                p.text = text
                items.append(p)

        def holds_terms(node: lxml.etree._Element) -> bool:
            stack = list(node)
            while stack:
                d = stack.pop()
                if d.tag in ("dt", "dd"):
                    return True
                if d.tag != "dl":  # a nested list's terms are its own
                    stack.extend(d)
            return False

        def collect(node: lxml.etree._Element) -> None:
            text_para(node.text)
            for child in list(node):
                tail, child.tail = child.tail, None
                if child.tag == "div" and holds_terms(child):
                    collect(child)
                elif isinstance(child.tag, str):
                    items.append(child)
                text_para(tail)

        collect(dl)
        groups: list[tuple[list, list]] = []
        state = ""
        for item in items:
            if item.tag == "dt":
                if state != "dt":
                    groups.append(([], []))
                state = "dt"
                if _has_text(item) or any(True for _ in item.iter("img")):
                    groups[-1][0].append(item)
            else:
                if not groups:
                    groups.append(([], []))
                state = "dd"
                if _has_text(item) or any(True for _ in item.iter("img")):
                    groups[-1][1].append(item)
        for child in list(dl):
            dl.remove(child)
        dl.text = None
        for k in list(dl.attrib):
            del dl.attrib[k]
        dl.tag = "ul"
        for terms, defs in groups:
            if not terms and not defs:
                continue
            li = lxml.etree.SubElement(dl, "li")
            term_p = None
            for dt in terms:  # terms in bold, one per line, in one paragraph
                dt.attrib.clear()
                if _has_block(dt) or not _has_text(dt):
                    # a term holding blocks (or only an image) stays a block of its own
                    dt.tag = "div"
                    li.append(dt)
                    term_p = None
                    continue
                if term_p is None:
                    term_p = lxml.etree.SubElement(li, "p")
                else:
                    lxml.etree.SubElement(term_p, "br")
                dt.tag = "strong"
                term_p.append(dt)
            for dd in defs:
                if dd.tag == "dd":
                    dd.tag = "div"
                li.append(dd)
        if not len(dl):
            _drop_keep_tail(dl) if dl is not work else None


def _prepare_details_and_figures(work: lxml.etree._Element) -> None:
    for details in list(work.iter("details")):
        for summary in [c for c in details if c.tag == "summary"]:
            _label_paragraph(summary, "strong")
    for figure in list(work.iter("figure")):
        captions = [c for c in figure if c.tag == "figcaption"]
        for cap in captions:
            tail, cap.tail = cap.tail, None
            if tail and tail.strip():  # text after the caption stays where it was
                prev = cap.getprevious()
                if prev is not None:
                    prev.tail = (prev.tail or "") + tail
                else:
                    figure.text = (figure.text or "") + tail
            figure.remove(cap)
        for cap in captions:  # captions follow the figure's content
            _label_paragraph(cap, "em")
            figure.append(cap)


# --------------------------------------------------------------------------- preparation


class _Prepared:
    def __init__(self) -> None:
        self.codes: list[tuple[str, str]] = []  # (language, code)
        self.prov_paths: list[tuple[str, str, str]] = []  # (kind, dom_selector, preview)


def _prepare(root: lxml.etree._Element, base: str) -> tuple[lxml.etree._Element, _Prepared]:
    info = _Prepared()
    work = copy.deepcopy(root)
    work.tail = None

    # Provenance markers first, while the copy is structurally identical to ``root``.
    n_p = 0
    for el in work.iter(*_HEADINGS, "p"):
        if el.tag == "p":
            if n_p >= 12:  # enough candidates for "first 3 paragraphs with output"
                continue
            n_p += 1
        info.prov_paths.append(
            (el.tag, css_path(el, work), _norm_ws("".join(el.itertext()))[:80])
        )
        el.set("data-gc-prov", str(len(info.prov_paths) - 1))

    # Non-content elements.
    for el in list(work.iter(*_DROP_TAGS)):
        if el is not work:
            _drop_keep_tail(el)
    for el in list(work.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction)):
        _drop_keep_tail(el)
    for el in list(work.iter()):
        if el is not work and isinstance(el.tag, str) and (el.get("hidden") is not None):
            _drop_keep_tail(el)

    # Code blocks: capture the code verbatim, then replace the content by a marker.
    for pre in list(work.iter("pre", "listing", "xmp", "plaintext")):
        if pre.getparent() is None and pre is not work:
            continue
        anc = pre.getparent()
        nested = False
        while anc is not None:
            if anc.tag in ("pre",):
                nested = True
                break
            anc = anc.getparent()
        if nested:
            continue
        lang = _code_language(pre)
        code = _code_text(pre)
        for child in list(pre):
            pre.remove(child)
        for k in list(pre.attrib):
            del pre.attrib[k]
        pre.tag = "pre"
        if code.strip():
            info.codes.append((lang, code))
            pre.text = f"{_CODE_OPEN}{len(info.codes) - 1}{_CODE_CLOSE}"
        else:
            pre.text = None

    # Text clean-up (sentinels, zero-width), outside code blocks.
    for el in work.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag != "pre":
            el.text = _clean_text(el.text)
        el.tail = _clean_text(el.tail)

    # Block constructs: admonitions (before details: a collapsible admonition is a details),
    # definition lists, details summaries and figure captions.
    _prepare_admonitions(work)
    _prepare_definition_lists(work)
    _prepare_details_and_figures(work)

    # Tables: innermost first so that nested layout is resolved bottom-up.
    tables = list(work.iter("table"))
    for table in reversed(tables):
        if table.getparent() is None and table is not work:
            continue
        if _is_layout_table(table):
            if table is work:
                _unwrap_root_layout_table(work)
                continue
            _unwrap_layout_table(table)
        else:
            _rebuild_table(table) if table is not work else None

    # Links and images.
    for el in list(work.iter("a", "img")):
        if el.tag == "a":
            url = _safe_url(el.get("href"), base)
            keep = {"data-gc-prov": el.get("data-gc-prov")} if el.get("data-gc-prov") else {}
            el.attrib.clear()
            if url:
                el.set("href", url)
            el.attrib.update(keep)
        else:
            src = el.get("src") or ""
            if not src.strip() or src.strip().lower().startswith("data:"):
                src = el.get("data-src") or el.get("data-original") or el.get("data-lazy-src") or src
            url = _safe_url(src, base)
            alt = _norm_ws(el.get("alt") or "")
            if not url:
                _drop_keep_tail(el)
                continue
            el.attrib.clear()
            el.set("src", url)
            el.set("alt", alt)

    # Tag renames and inline clean-up.
    for el in list(work.iter()):
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        if tag in _BLOCK_RENAME:
            el.tag = _BLOCK_RENAME[tag]
    for el in list(work.iter("b", "strong", "em", "i", "a", "del", "s", "strike", "code", "kbd",
                             "samp", "q")):
        if el is work or el.getparent() is None:
            continue
        kind = _EMPHASIS.get(el.tag)
        if any(True for d in el.iterdescendants() if isinstance(d.tag, str) and d.tag in _BLOCK_TAGS):
            _unwrap(el)  # inline markup cannot span blocks
            continue
        if kind:
            anc = el.getparent()
            while anc is not None:
                if _EMPHASIS.get(anc.tag) == kind or anc.tag in _HEADINGS:
                    _unwrap(el)
                    break
                anc = anc.getparent()
    # Fewer, shallower nodes for the converter: transparent inline tags are unwrapped and
    # text-less wrappers around a single element are removed (no change in output).
    for el in list(work.iter(*_TRANSPARENT_INLINE)):
        if el is not work and el.getparent() is not None:
            _unwrap(el)
    for el in list(work.iter("div")):
        if el is work or el.getparent() is None or len(el) != 1:
            continue
        if (el.text and el.text.strip()) or (el[0].tail and el[0].tail.strip()):
            continue
        if el.get("data-gc-prov") is None:
            _unwrap(el)
    for h in list(work.iter(*_HEADINGS)):
        if not _has_text(h):
            _drop_keep_tail(h) if h is not work else None
    return work, info


# --------------------------------------------------------------------------- converter

_RE_UNDERSCORE = re.compile(r"_")
_RE_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)")
_RE_LT = re.compile(r"<(?=[A-Za-z/!?])")
_RE_AMP = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_RE_TILDES = re.compile(r"~{2,}")
_RE_LINE_START = re.compile(
    r"^(\s*)(?:(#{1,6})(?=\s|$)|(>)|([-+])(?=\s|$)|(-{3,}|={2,}|~{3,})(?=\s*$)|(\d{1,9})([.)])(?=\s|$))"
)


def _escape_line_start(text: str) -> str:
    m = _RE_LINE_START.match(text)
    if not m:
        return text
    lead = m.group(1)
    rest = text[m.end(1):]
    if m.group(6):
        digits = m.group(6)
        return lead + digits + "\\" + rest[len(digits):]
    return lead + "\\" + rest


class GatecrawlConverter(MarkdownConverter):
    """markdownify converter with pinned options and gatecrawl's rules (see module doc)."""

    class Options:
        autolinks = False
        bs4_options = "lxml"
        bullets = "-"
        code_language = ""
        code_language_callback = None
        convert = None
        default_title = False
        escape_asterisks = False  # escaping is done by ``escape`` below
        escape_underscores = False
        escape_misc = False
        heading_style = "atx"
        keep_inline_images_in = []
        newline_style = "backslash"
        strip = None
        strip_document = "strip"
        strip_pre = "strip"
        strong_em_symbol = "*"
        sub_symbol = ""
        sup_symbol = ""
        table_infer_header = True
        wrap = True
        wrap_width = None

    def __init__(self, codes: list[tuple[str, str]], **options) -> None:
        super().__init__(**options)
        self._codes = codes
        self.spans: dict[int, str] = {}

    # -- text
    def escape(self, text: str, parent_tags) -> str:
        if not text:
            return ""
        text = _RE_BACKSLASH.sub(r"\\\\", text)
        text = text.replace("*", r"\*").replace("`", r"\`")
        text = text.replace("[", r"\[").replace("]", r"\]")
        if "_" in text:
            chars = list(text)
            for i, ch in enumerate(chars):
                if ch == "_":
                    before = text[i - 1] if i > 0 else ""
                    after = text[i + 1] if i + 1 < len(text) else ""
                    if not (before.isalnum() and after.isalnum()):
                        chars[i] = r"\_"
            text = "".join(chars)
        text = _RE_LT.sub(r"\\<", text)
        text = _RE_AMP.sub(r"\\&", text)
        text = _RE_TILDES.sub(lambda m: "\\~" * len(m.group(0)), text)
        if "td" in parent_tags or "th" in parent_tags:
            text = text.replace("|", r"\|")
        return text

    def process_text(self, el, parent_tags=None):
        text = super().process_text(el, parent_tags=parent_tags)
        prev = el.previous_sibling
        if text and getattr(prev, "name", None) == "br" and "pre" not in (parent_tags or ()):
            text = text.lstrip(" ")  # a new line starts after a hard break
        if text and parent_tags is not None and "_noformat" not in parent_tags:
            if self._at_line_start(el):
                text = _escape_line_start(text)
        return text

    @staticmethod
    def _at_line_start(node) -> bool:
        while True:
            prev = node.previous_sibling
            while prev is not None and not getattr(prev, "name", None) and not str(prev).strip():
                prev = prev.previous_sibling
            if prev is not None:
                name = getattr(prev, "name", None)
                return name == "br" or (name in _BLOCK_TAGS)
            parent = node.parent
            if parent is None:
                return True
            if parent.name in _TRANSPARENT_INLINE:
                node = parent
                continue
            return parent.name in _BLOCK_TAGS or parent.name == "[document]"

    # -- blocks
    def _record(self, el, line: str) -> None:
        idx = el.get("data-gc-prov")
        if idx is not None and line:
            self.spans[int(idx)] = line

    def convert_hN(self, n, el, text, parent_tags):
        if "_inline" in parent_tags:
            return text
        text = _norm_ws(text.replace("\\\n", " "))
        if not text:
            return ""
        text = re.sub(r"(\s)(#+)$", lambda m: m.group(1) + "\\" + m.group(2), text)
        line = "#" * max(1, min(6, n)) + " " + text
        self._record(el, line)
        return "\n\n" + line + "\n\n"

    def convert_p(self, el, text, parent_tags):
        out = super().convert_p(el, text, parent_tags)
        if "_inline" not in parent_tags:
            first = out.strip().split("\n", 1)[0] if out.strip() else ""
            self._record(el, first)
        return out

    def convert_br(self, el, text, parent_tags):
        if "td" in parent_tags or "th" in parent_tags:
            return "<br>"
        if "_inline" in parent_tags:
            return " "
        return "\\\n"

    def convert_pre(self, el, text, parent_tags):
        m = re.search(_CODE_OPEN + r"(\d+)" + _CODE_CLOSE, el.get_text() or "")
        if not m:
            return ""
        idx = int(m.group(1))
        if "_inline" in parent_tags:
            return " " + _norm_ws(self._codes[idx][1]) + " "
        return "\n\n" + m.group(0) + "\n\n"

    def convert_code(self, el, text, parent_tags):
        out = super().convert_code(el, text, parent_tags)
        if "td" in parent_tags or "th" in parent_tags:
            out = out.replace("|", r"\|")
        return out

    convert_kbd = convert_code
    convert_samp = convert_code

    def convert_a(self, el, text, parent_tags):
        if "_noformat" in parent_tags:
            return text
        prefix, suffix, inner = _chomp(text)
        if not inner:
            return ""
        href = el.get("href")
        if not href or "\n" in inner:
            return text
        return f"{prefix}[{inner}]({href}){suffix}"

    def convert_img(self, el, text, parent_tags):
        alt = self.escape(el.get("alt") or "", parent_tags)
        src = el.get("src") or ""
        if "_inline" in parent_tags:
            return alt
        if not src:
            return ""
        return f"![{alt}]({src})"

    def convert_li(self, el, text, parent_tags):
        out = super().convert_li(el, text, parent_tags)
        return out

    def convert_td(self, el, text, parent_tags):
        cell = text.strip().replace("\\\n", "<br>")
        cell = re.sub(r"\s*\n\s*", "<br>", cell)
        cell = re.sub(r"(?:<br>\s*){2,}", "<br>", cell)
        cell = re.sub(r"^(?:<br>\s*)+|(?:\s*<br>)+$", "", cell)
        return _norm_cell(cell) + _CELL_END

    convert_th = convert_td

    def convert_tr(self, el, text, parent_tags):
        cells = text.split(_CELL_END)[:-1]
        if not cells:
            return ""
        return "| " + " | ".join(cells) + " |" + _ROW_END

    def convert_table(self, el, text, parent_tags):
        rows = [r.strip() for r in text.split(_ROW_END) if r.strip()]
        if not rows:
            return ""
        ncols = rows[0].count(" | ") + 1 if rows[0] != "|  |" else 1
        ncols = len(_split_row(rows[0]))
        delim = "| " + " | ".join(["---"] * ncols) + " |"
        return "\n\n" + "\n".join([rows[0], delim] + rows[1:]) + "\n\n"

    def convert_tbody(self, el, text, parent_tags):
        return text

    convert_thead = convert_tbody
    convert_tfoot = convert_tbody


def _norm_cell(cell: str) -> str:
    return re.sub(r"[ \t]+", " ", cell).strip()


def _split_row(row: str) -> list[str]:
    # Split a rendered row on unescaped " | " separators.
    inner = row[2:-2] if row.startswith("| ") and row.endswith(" |") else row.strip("|")
    return re.split(r"(?<!\\) \| ", inner)


def _chomp(text: str) -> tuple[str, str, str]:
    prefix = " " if text and text[0] in " \n" else ""
    suffix = " " if text and text[-1] in " \n" else ""
    return prefix, suffix, text.strip()


# --------------------------------------------------------------------------- normalisation

_RE_CODE_PLACEHOLDER = re.compile("^(.*?)" + _CODE_OPEN + r"(\d+)" + _CODE_CLOSE + r"\s*$")


_RE_LIST_MARKER = re.compile(r"(?<![^\s>])(?:[-+*]|\d{1,9}[.)])(?= |$)")


def _fence_for(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _normalise(text: str, codes: list[tuple[str, str]]) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines_out: list[str] = []
    for line in text.split("\n"):
        m = _RE_CODE_PLACEHOLDER.match(line)
        if m:
            prefix = unicodedata.normalize("NFC", m.group(1))
            lang, code = codes[int(m.group(2))]
            fence = _fence_for(code)
            lines_out.append(prefix + fence + lang)
            # continuation lines: quote markers stay, list markers become spaces
            cont = _RE_LIST_MARKER.sub(lambda mm: " " * len(mm.group(0)), prefix)
            for code_line in code.split("\n"):
                lines_out.append((cont + code_line) if code_line else cont.rstrip())
            lines_out.append(cont + fence)
            continue
        line = unicodedata.normalize("NFC", line).rstrip()
        if line.endswith("\\") and not line.endswith("\\\\"):
            line = line[:-1].rstrip() + "\\"  # no spaces before a hard break
        # a line holding only a hard-break backslash is an empty line
        if line.strip() == "\\":
            line = ""
        lines_out.append(line)
    # hard breaks followed by a blank line (or the end) are dropped
    for i, line in enumerate(lines_out):
        if line.endswith("\\") and not line.endswith("\\\\"):
            nxt = lines_out[i + 1] if i + 1 < len(lines_out) else ""
            if not nxt.strip():
                lines_out[i] = line[:-1].rstrip()
    out = "\n".join(lines_out)
    out = re.sub(r"\n{3,}", "\n\n", out).strip("\n")
    return out + "\n" if out.strip() else ""


# --------------------------------------------------------------------------- entry point


def _title(root: lxml.etree._Element) -> str | None:
    for h in root.iter("h1"):
        t = _norm_ws("".join(h.itertext()))
        if t:
            return unicodedata.normalize("NFC", t)
    return None


class _Tag(Tag):
    """bs4 ``Tag`` with a fast path for ``find_parent(name)``: markdownify asks every tag
    whether it sits inside a ``<pre>``, and bs4's generic matcher is slow for that.
    Same answer: the nearest ancestor with that tag name, else None."""

    def find_parent(self, name=None, attrs=None, **kwargs):
        if isinstance(name, str) and not attrs and not kwargs:
            node = self.parent
            while node is not None:
                if node.name == name:
                    return node
                node = node.parent
            return None
        return super().find_parent(name, attrs, **kwargs)


def to_markdown(root: lxml.html.HtmlElement, *, base_url: str) -> MarkdownResult:
    """Convert the subtree ``root`` to Markdown (rules in the module docstring).

    Internal errors are not caught here: they propagate to :func:`gatecrawl.core.convert.convert`,
    which ends the page as ``converter_error`` (fail closed, never a kept page)."""
    if root is None or not isinstance(getattr(root, "tag", None), str):
        return MarkdownResult(text="", title=None, provenance=[])
    base = _find_base(root, base_url or "")
    work, info = _prepare(root, base)
    html = lxml.html.tostring(work, encoding="unicode", method="html")
    soup = BeautifulSoup(html, "lxml", element_classes={Tag: _Tag})
    conv = GatecrawlConverter(info.codes)
    raw = conv.convert_soup(soup)
    text = _normalise(raw, info.codes)

    provenance: list[dict] = []
    lines = text.split("\n")
    n_paras = 0
    pos = 0
    for idx, (kind, path, preview) in enumerate(info.prov_paths):
        span = conv.spans.get(idx)
        if not span:
            continue
        if kind == "p":
            if n_paras >= 3:
                continue
        span_n = unicodedata.normalize("NFC", span.rstrip())
        # the exact output line holding the span (list/quote prefixes included)
        found = None
        for j in range(pos, len(lines)):
            if span_n and span_n in lines[j]:
                found = j
                break
        if found is None:
            continue
        pos = found + 1
        if kind == "p":
            n_paras += 1
        provenance.append({
            "markdown_span": lines[found][:200],
            "dom_selector": path,
            "text_preview": unicodedata.normalize("NFC", preview)[:80],
        })
    return MarkdownResult(text=text, title=_title(root), provenance=provenance)
