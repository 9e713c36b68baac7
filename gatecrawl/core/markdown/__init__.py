"""Deterministic HTML -> Markdown.

``to_markdown(root, base_url=...)`` works on a deep copy of ``root`` in two stages:

1. *Preparation* (lxml): non-content elements are removed, links and images are resolved,
   code blocks, tables and containers are normalised (rules below);
2. *Conversion*: the prepared tree is serialised and parsed again by lxml (the parser's
   repairs are part of the conversion; a tree the parser would give back unchanged, most of
   them, is read as it is: :mod:`.roundtrip`), then :class:`GatecrawlConverter` walks it
   (:mod:`.writer`: the same walk as the markdownify stage it replaced, byte for byte,
   without BeautifulSoup), followed by a text normalisation pass.

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

Layout of the package: :mod:`.dom` (shared tag sets, sentinels, text and tree helpers),
:mod:`.links` (the base URL, safe link and image targets), :mod:`.code` (code language and
verbatim text), :mod:`.tables` (layout tables, data-table grids), :mod:`.admonitions`,
:mod:`.blocks` (definition lists, details summaries, figure captions), :mod:`.prepare` (the
preparation stage), :mod:`.roundtrip` (whether the parser would change the prepared tree),
:mod:`.writer` (the tree walk: whitespace, child joining, rule lookup),
:mod:`.converter` (:class:`GatecrawlConverter`: the rule of each tag and the escaping),
:mod:`.normalise` (the text pass: code fences, hard breaks, blank lines, NFC) and
:mod:`.conversion` (:func:`to_markdown`, the title and the provenance spans).
"""

from __future__ import annotations

from gatecrawl.core.markdown.conversion import MarkdownResult, to_markdown
from gatecrawl.core.markdown.converter import GatecrawlConverter
from gatecrawl.core.markdown.dom import _norm_ws, css_path  # _norm_ws: used by tests

__all__ = ["CONVERTER_VERSION", "GatecrawlConverter", "MarkdownResult", "css_path", "to_markdown"]

CONVERTER_VERSION = "markdown/3"
