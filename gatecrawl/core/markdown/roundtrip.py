"""Whether the prepared tree reads back unchanged through lxml's HTML serialiser and parser.

The conversion used to write the prepared tree out as HTML and parse it again (libxml2's
repairs of the markup were part of the conversion), and the writer read the parsed copy. For
most trees that copy is the tree itself: :func:`reads_back` tells, without serialising, that
this is so, and the writer then reads the prepared tree directly. Anything in the tree that
libxml2's serialiser or parser would change (the rules below, each checked against the
installed libxml2 by ``tests/test_markdown_roundtrip.py``) sends the page through the reparse.

libxml2's parser (not its HTML5 mode) builds the same tree from the serialised one unless:

* a start tag closes the open element (libxml2's ``htmlStartClose`` table: ``<div>`` inside
  ``<p>``, ``<li>`` inside ``<li>``, ``<table>`` inside ``<a>``, ...; :data:`_CLOSED_BY`);
* the serialiser leaves an element open: an empty ``<li>`` is written without its end tag, so
  the text or element after it would move inside it (only another ``<li>`` or the end of the
  parent closes it); a void element (``<br>``, ``<img>``, ...) is written without its content;
* an element's content is read as text (``<script>``, ``<style>``, ``<noembed>``, ``<xmp>``,
  ...), or its tag is discarded (``<html>``, ``<head>``, ``<body>`` inside the body);
* a tag name is not written as the parser reads it (upper case, an unusual character) or the
  tree holds a comment or a processing instruction (the preparation removes them);
* the tree is deeper than the parser's limit (about 255 levels with the document's two);
* (page-level, found by the preparation) a text holds a carriage return (read back as a line
  feed), a text is longer than the parser takes, or a link or image target holds a character
  the serialiser percent-encodes (anything outside printable ASCII).

The root itself sits below the ``<html>`` and ``<body>`` the parser adds: a root the parser
would put elsewhere (a void, raw-text or document-level tag, ``<frameset>``) is not read
directly either.
"""

from __future__ import annotations

import re

import lxml.etree

# libxml2's htmlStartClose table (HTMLparser.c): the open element (key) that a start tag of each
# listed name closes. ("head" as the open element never occurs below the body.)
_CLOSED_BY: dict[str, frozenset] = {k: frozenset(v.split()) for k, v in {
    "a": "a fieldset table td th",
    "address": "dd dl dt form li ul",
    "b": "center p td th",
    "big": "p",
    "caption": "col colgroup tbody tfoot thead tr",
    "col": "col colgroup tbody tfoot thead tr",
    "colgroup": "colgroup tbody tfoot thead tr",
    "dd": "dt",
    "dir": "dd dl dt form ul",
    "dl": "form li",
    "dt": "dd dl",
    "font": "center td th",
    "form": "form",
    "h1": "fieldset form li p table",
    "h2": "fieldset form li p table",
    "h3": "fieldset form li p table",
    "h4": "fieldset form li p table",
    "h5": "fieldset form li p table",
    "h6": "fieldset form li p table",
    "hr": "form",
    "i": "center p td th",
    "legend": "fieldset",
    "li": "li",
    "link": "body frameset",
    "listing": "dd dl dt fieldset form li table ul",
    "menu": "dd dl dt form ul",
    "ol": "form",
    "option": "optgroup option",
    "p": ("address blockquote body caption center col colgroup dd dir div dl dt fieldset form "
          "frameset h1 h2 h3 h4 h5 h6 head hr li listing menu ol p pre table tbody td tfoot th "
          "title tr ul xmp"),
    "pre": "dd dl dt fieldset form li table ul",
    "s": "p",
    "script": "noscript",
    "small": "p",
    "span": "td th",
    "strike": "p",
    "style": "body frameset",
    "tbody": "tbody tfoot",
    "td": "tbody td tfoot th tr",
    "tfoot": "tbody",
    "th": "tbody td tfoot th tr",
    "thead": "tbody tfoot",
    "title": "body frameset",
    "tr": "tbody tfoot tr",
    "tt": "p",
    "u": "p td th",
    "ul": "address form menu pre",
    "xmp": "dd dl dt fieldset form li table ul",
}.items()}

#: void elements (libxml2's element table): written without content or end tag
VOID = frozenset("area base basefont br col frame hr img input isindex link meta param".split())
#: elements whose content libxml2 reads as text, and the tags it discards below the body
_NOT_READ_BACK = frozenset(
    "iframe noembed noframes plaintext script style textarea title xmp html head body".split())
#: tag names the parser gives back as they are written (lower-case ASCII name characters; the
#: parser keeps at most 100 bytes of a name)
_PLAIN_NAME = re.compile(r"[a-z][a-z0-9:._-]{0,60}\Z")
#: levels below the root a tree read directly may have (the parser's limit is some 50 deeper)
MAX_DEPTH = 200
#: elements MAX_DEPTH levels below the root
_TOO_DEEP = lxml.etree.XPath("/".join(["*"] * MAX_DEPTH))

# tag names known to be plain: any other is checked against _PLAIN_NAME
_PLAIN_TAGS = frozenset(
    "a abbr address article aside b bdi blockquote caption center cite code dd del details dfn "
    "div dl dt em figcaption figure footer form h1 h2 h3 h4 h5 h6 header i ins kbd label legend "
    "li main mark nav ol p pre q s samp section small span strike strong sub summary sup table "
    "tbody td tfoot th thead time tr u ul var".split())


def _plain_tag(tag) -> bool:
    if tag in _PLAIN_TAGS:
        return True
    return (tag.__class__ is str and tag not in VOID and tag not in _NOT_READ_BACK
            and _PLAIN_NAME.match(tag) is not None)


class NotReadBack(Exception):
    """The tree being written directly holds something the parser would not give back as it
    is: the caller writes the reparsed tree instead."""


def root_reads_back(root: lxml.etree._Element) -> bool:
    """The parser puts ``root`` (its start tag first in the document) below the body it opens."""
    # (the parser puts a <frameset> start tag beside the body it would otherwise open)
    return _plain_tag(root.tag) and root.tag != "frameset"


def safe_below(parent: str) -> frozenset:
    """Tags of children that read back below ``parent`` whatever their content and neighbours
    (any other child is judged by :func:`child_reads_back`)."""
    return _PLAIN_TAGS - _CLOSED_BY.get(parent, frozenset()) - {"li"}


def child_reads_back(child: lxml.etree._Element, tag, parent: str) -> bool:
    """Whether ``child`` (tag ``tag``), a child of an element named ``parent``, reads back as
    it is (its own children are judged in turn)."""
    if tag.__class__ is not str:
        return False  # a comment or processing instruction
    closers = _CLOSED_BY.get(parent)
    if closers is not None and tag in closers:
        return False
    if tag in VOID:
        return not child.text and not len(child)
    if tag == "li" and not child.text and not len(child):
        # written "<li>" without its end tag: the next thing must close it
        if child.tail:
            return False
        nxt = child.getnext()
        return nxt is None or nxt.tag == "li"
    return _plain_tag(tag)


def reads_back(root: lxml.etree._Element) -> bool:
    """Whether serialising ``root`` as HTML and parsing it again gives the same tree (tags,
    texts, tails and attribute values other than targets: the page-level conditions in the
    module docstring are the caller's). The writer makes the same checks as it walks
    (:meth:`~gatecrawl.core.markdown.writer.MarkdownWriter.write` with ``plain=True``)."""
    return root_reads_back(root) and not _TOO_DEEP(root) and _children_read_back(root)


def _children_read_back(el: lxml.etree._Element) -> bool:
    # (a module function calling itself, not a nested one: no reference cycle)
    safe = safe_below(el.tag)
    for child in el:
        tag = child.tag
        if tag not in safe and not child_reads_back(child, tag, el.tag):
            return False
        if len(child) and not _children_read_back(child):
            return False
    return True
