"""``to_markdown``: preparation, conversion and normalisation put together; title and provenance."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import lxml.etree
import lxml.html
from gatecrawl.core.markdown.converter import GatecrawlConverter
from gatecrawl.core.markdown.dom import CssPaths, _norm_ws
from gatecrawl.core.markdown.links import _find_base
from gatecrawl.core.markdown.normalise import _normalise
from gatecrawl.core.markdown.prepare import _prepare
from gatecrawl.core.markdown.roundtrip import NotReadBack


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


def _reparse(html: str):
    """The root of ``html`` parsed again as the writer reads it: lxml's HTML parser fed the text
    (the parser's repairs of the prepared markup are part of the conversion)."""
    parser = lxml.etree.HTMLParser()
    parser.feed(html)
    return parser.close()


def to_markdown(root: lxml.html.HtmlElement, *, base_url: str) -> MarkdownResult:
    """Convert the subtree ``root`` to Markdown (rules in the package docstring).

    Internal errors are not caught here: they propagate to :func:`gatecrawl.core.convert.convert`,
    which ends the page as ``converter_error`` (fail closed, never a kept page)."""
    if root is None or not isinstance(getattr(root, "tag", None), str):
        return MarkdownResult(text="", title=None, provenance=[])
    base = _find_base(root, base_url or "")
    work, info = _prepare(root, base)
    conv = GatecrawlConverter(info.codes)
    raw = None
    if info.plain:
        try:
            raw = conv.write(work, plain=True)  # the reparse would give this very tree
        except NotReadBack:
            conv = GatecrawlConverter(info.codes)
    if raw is None:
        raw = conv.write(_reparse(lxml.html.tostring(work, encoding="unicode", method="html")))
    text = _normalise(raw, info.codes)

    provenance: list[dict] = []
    paths = CssPaths(root)
    n_paras = 0
    start = 0  # where the line after the last one found starts
    for idx, (kind, src) in enumerate(info.prov_paths):
        span = conv.spans.get(idx)
        if not span:
            continue
        if kind == "p":
            if n_paras >= 3:
                continue
        span_n = unicodedata.normalize("NFC", span.rstrip())
        # the exact output line holding the span (list/quote prefixes included): the first
        # line from ``start`` on that holds it (a span is one line: it holds no line feed)
        at = text.find(span_n, start) if span_n else -1
        if at < 0:
            continue
        line_start = text.rfind("\n", start, at) + 1 or start
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        start = end + 1
        if kind == "p":
            n_paras += 1
        preview = _norm_ws("".join(src.itertext()))[:80]
        provenance.append({
            "markdown_span": text[line_start:end][:200],
            "dom_selector": paths.of(src),
            "text_preview": unicodedata.normalize("NFC", preview)[:80],
        })
    return MarkdownResult(text=text, title=_title(root), provenance=provenance)
