"""``read_embedded``: the best record over all sources, the record checks, the rebuilt page."""

from __future__ import annotations

import html as htmlmod
from dataclasses import dataclass, field
from typing import Any

from gatecrawl.core.embedded.limits import (EMBEDDED_VERSION, LD_CONTENT_KEYS, MAX_NODES,
    MAX_PROSE_FIELDS, MIN_RECORD_CHARS)
from gatecrawl.core.embedded.pagename import (_named_record, _names_page, _page_name,
    _record_label, _record_names_page)
from gatecrawl.core.embedded.paths import format_path, parse_path
from gatecrawl.core.embedded.render import _Renderer
from gatecrawl.core.embedded.sources import _sources
from gatecrawl.core.embedded.tree import _Node, _descend, _keep_mass, _resolve, _tree

@dataclass
class EmbeddedContent:
    """The result of :func:`read_embedded`: ``html`` (None when nothing usable) and the
    packet's ``embedded`` record (``info``)."""

    html: str | None
    info: dict = field(default_factory=dict)


def read_embedded(doc: Any, *, url: str = "", title: str | None = None, paths: tuple[str, ...] = ()) -> EmbeddedContent:
    """Find the page's content in its embedded data and rebuild it as an HTML page (``title``:
    the page's title, default its ``<title>``)."""
    page_name = _page_name(doc, url, title)
    if title is None:
        title = ""
        for el in doc.iter("title"):
            title = " ".join("".join(el.itertext()).split())
            break
    info: dict[str, Any] = {"version": EMBEDDED_VERSION, "sources": [], "source": None, "path": None}
    budget = [MAX_NODES]
    best: tuple[int, str, _Node] | None = None
    named = [parse_path(p) for p in paths]
    reasons: list[str] = []
    for src in _sources(doc):
        info["sources"].append(src.name)
        if budget[0] <= 0:
            break
        tree = _tree(src.data, budget)
        if src.ld:
            _keep_mass(tree, LD_CONTENT_KEYS)
        if named:
            for parts in named:
                node = _resolve(tree, parts)
                if node is not None and node.mass > 0:
                    cand = node
                    break
            else:
                continue
        else:
            if tree.mass <= 0:
                continue
            cand = _descend(tree)
            if not _record_names_page(cand, page_name):
                # no dominant record (an article next to teasers of others): the record that
                # names the page, if it holds at least half of the data's prose
                named_rec = _named_record(tree, page_name)
                if named_rec is not None:
                    cand = named_rec
        if best is None or cand.mass > best[0]:
            best = (cand.mass, src.name, cand)
    if best is None:
        info["rejected"] = "no_named_path" if named else ("no_data" if not info["sources"] else "no_prose")
        return EmbeddedContent(None, info)
    _, name, node = best
    info["source"] = name
    info["path"] = format_path(node.path()) or "."
    # a record, not a dictionary of messages
    prose_fields = sum(1 for c in node.children if c.kind == "s" and c.cls in ("prose", "html"))
    if node.kind == "d" and prose_fields > MAX_PROSE_FIELDS:
        reasons.append("not_a_record")
    label = _record_label(node)
    named_by = _names_page(label.text, page_name) if label is not None else None
    if named_by is None:
        reasons.append("does_not_name_page")
    if node.mass < MIN_RECORD_CHARS:
        reasons.append("too_short")
    info["named_by"] = named_by
    if reasons:
        info["rejected"] = reasons[0]
        return EmbeddedContent(None, info)
    r = _Renderer(node)
    r.record(node, 2)
    heading = htmlmod.escape(label.text) if label is not None else ""
    info["fields"] = r.fields
    info["chars"] = r.chars
    body = "\n".join(r.out)
    page = (f'<!doctype html><html><head><meta charset="utf-8"><title>{htmlmod.escape(title)}</title></head>'
            f"<body><main><article><h1>{heading}</h1>\n{body}\n</article></main></body></html>")
    return EmbeddedContent(page, info)
