"""Shared pieces of the conversion: private-use sentinels, tag sets, text and tree helpers."""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from gatecrawl.core.page import css_path as _css_path
from gatecrawl.core.page import remove_keep_tail

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
_EMPHASIS = {"b": "strong", "strong": "strong", "em": "em", "i": "em"}
_TRANSPARENT_INLINE = frozenset(
    ["span", "font", "small", "big", "abbr", "acronym", "cite", "time", "mark", "u", "ins",
     "sub", "sup", "label", "dfn", "var", "bdi", "bdo", "data", "tt", "nobr", "wbr", "output"]
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def css_path(el: lxml.etree._Element, root: lxml.etree._Element) -> str:
    """CSS path of ``el`` from ``root``: ``root_tag > tag:nth-of-type(k) > ...``."""
    return _css_path(el, root)


class CssPaths:
    """:func:`css_path` of elements below one root, each ancestor's path made once for all the
    elements below it (the same strings: ``tests/test_markdown_paths.py``). Lives for one
    conversion: it keeps the elements it has seen."""

    def __init__(self, root: lxml.etree._Element) -> None:
        self._root = root
        self._paths: dict = {}

    def of(self, el: lxml.etree._Element) -> str:
        path = self._paths.get(el)
        if path is None:
            tag = el.tag if isinstance(el.tag, str) else "*"
            parent = el.getparent()
            if el is self._root or parent is None:
                path = tag
            else:
                k = 1 + sum(1 for _ in el.itersiblings(el.tag, preceding=True))
                path = f"{self.of(parent)} > {tag}:nth-of-type({k})"
            self._paths[el] = path
        return path


def _norm_ws(text: str) -> str:
    return " ".join(text.split())  # whitespace runs (U+00A0 among them) to one space, ends stripped


# Characters XML cannot hold (C0 controls other than tab and newlines, U+FFFE/U+FFFF): the
# HTML parser lets them in from character references such as "&#1;", but lxml refuses to
# write them back into the tree, and they have no business in Markdown.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


#: any character ``_clean_text`` removes or replaces (most texts hold none: one search)
_TO_CLEAN = re.compile("[\ue000-\ue00f\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\u200b\u200c\u200d\u2060\ufeff\u00ad\xa0]")


def _clean_text(text: str | None) -> str | None:
    if not text or _TO_CLEAN.search(text) is None:
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


def _has_text(el: lxml.etree._Element) -> bool:
    for t in el.itertext():
        if t.strip():
            return True
    return False


def _has_block(el: lxml.etree._Element) -> bool:
    return any(True for d in el.iterdescendants()
               if isinstance(d.tag, str) and d.tag in _BLOCK_TAGS)
