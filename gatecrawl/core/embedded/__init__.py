"""Embedded data: the main content of a shell page, read from data in its first response.

Many single-page apps ship the page's content with the shell, for the client code to
hydrate: Next.js ``<script id="__NEXT_DATA__">``, Nuxt 3 ``<script id="__NUXT_DATA__">`` (a
devalue-encoded array), ``window.__INITIAL_STATE__ = {...}`` / ``__APOLLO_STATE__`` style
assignments (a JSON literal or ``JSON.parse("...")``), other ``application/json`` scripts and
JSON-LD (only its ``articleBody`` and ``text`` properties count as content). This module finds that data, parses it as JSON (never as
JavaScript: nothing is evaluated) and rebuilds the content as HTML. ``convert()`` then runs the
rebuilt page through the same extraction, Markdown converter, gate and validation as any page;
only when it passes is the render skipped. A ``<noscript>`` crawler view is read by
:func:`gatecrawl.core.page.noscript_view` before a page is ever called a shell.

The content is chosen by structure, never by phrase lists:

- every string in the data is classed as prose (sentences), an HTML fragment (tags around
  text), a short label, or other (ids, URLs, numbers-as-text, code);
- the *record* holding the content is found by descending from the root into the child that
  holds most (>= 60%) of the prose, through a list only when one element dominates it; when
  no record dominates (an article next to teasers of other pages), the record that names the
  page (below) is taken if it holds at least half of the data's prose;
- a record must be a record, not a dictionary of UI messages (at most ``MAX_PROSE_FIELDS``
  prose strings side by side), hold at least ``MIN_RECORD_CHARS`` of prose (a title with a
  teaser or a description is not the page), and must name the page: its first short label matches a
  segment of the page's ``<title>`` that is not the site's name (``og:site_name``,
  ``application-name``, or the host name's letters; when the site's name is not known, only the
  first segment), or the words of the URL's last path segment;
- the record is rendered in the data's own order: its label as the ``h1``, a nested
  record's first short label as its heading when prose follows it, prose as paragraphs
  (blank-line breaks and Markdown ``#`` headings inside a string are kept), HTML fragments
  as they are; rich-text blocks (a list of records whose text is in a list of spans) are
  joined block by block (:func:`_join_spans`), a short block before text being a heading.

Work is bounded: at most ``MAX_SOURCE_CHARS`` characters per source and ``MAX_TOTAL_CHARS`` per
page are parsed, at most ``MAX_NODES`` JSON values are visited (``MAX_DEPTH`` levels), and JSON
nested too deeply for the parser is skipped. Nothing here raises on bad input.

A recipe can switch the reader off (``embedded.enabled = false``) or name where the content is
(``embedded.paths``, e.g. ``"props.pageProps.post"`` or ``'ROOT_QUERY["post:1"].body'``): a
named path is used instead of the structural choice (the page-name check still applies).

Layout of the package: :mod:`.limits` (the version, work bounds and record thresholds),
:mod:`.paths` (recipe JSON paths), :mod:`.sources` (finding and parsing the data: JSON scripts,
``window.X =`` assignments, Nuxt's devalue arrays), :mod:`.tree` (the data as classified
strings, rich-text joining, the dominant record), :mod:`.pagename` (does a record name the
page), :mod:`.render` (the record as HTML) and :mod:`.reader` (:func:`read_embedded`).
"""

from __future__ import annotations

from gatecrawl.core.embedded.limits import EMBEDDED_VERSION
from gatecrawl.core.embedded.paths import PathError, format_path, parse_path
from gatecrawl.core.embedded.reader import EmbeddedContent, read_embedded
from gatecrawl.core.embedded.sources import has_embedded_data

__all__ = [
    "EMBEDDED_VERSION",
    "EmbeddedContent",
    "PathError",
    "has_embedded_data",
    "parse_path",
    "format_path",
    "read_embedded",
]
