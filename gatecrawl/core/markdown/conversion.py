"""``to_markdown``: preparation, conversion and normalisation put together; title and provenance."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import lxml.etree
import lxml.html
from bs4 import BeautifulSoup, Tag

from gatecrawl.core.markdown.converter import GatecrawlConverter
from gatecrawl.core.markdown.dom import _norm_ws
from gatecrawl.core.markdown.links import _find_base
from gatecrawl.core.markdown.normalise import _normalise
from gatecrawl.core.markdown.prepare import _prepare


@dataclass(frozen=True)
class MarkdownResult:
    text: str
    title: str | None
    provenance: list[dict] = field(default_factory=list)


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
    """Convert the subtree ``root`` to Markdown (rules in the package docstring).

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
