"""The chosen record rendered as HTML in the data's own order: labels as headings, prose as
paragraphs (Markdown headings kept), HTML fragments as they are."""

from __future__ import annotations

import html as htmlmod
import re

from gatecrawl.core.embedded.limits import FIELDS_LISTED_MAX
from gatecrawl.core.embedded.pagename import _label
from gatecrawl.core.embedded.paths import format_path
from gatecrawl.core.embedded.tree import _Node

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+)$")


class _Renderer:
    def __init__(self, root: _Node) -> None:
        self.root = root
        self.out: list[str] = []
        self.fields: list[str] = []
        self.chars = 0

    def note(self, node: _Node) -> None:
        if len(self.fields) < FIELDS_LISTED_MAX:
            self.fields.append(format_path(node.path()[len(self.root.path()):]) or ".")

    def string(self, node: _Node) -> None:
        if node.cls == "html":
            self.out.append(node.raw)
        elif node.cls == "prose":
            self.prose(node.raw)
        else:
            return
        self.chars += node.mass
        self.note(node)

    def prose(self, raw: str) -> None:
        for block in re.split(r"\n\s*\n", raw):
            lines = [ln.strip() for ln in block.strip().split("\n") if ln.strip()]
            para: list[str] = []
            for ln in lines:
                m = _MD_HEADING.match(ln)
                if m:
                    if para:
                        self.out.append("<p>" + htmlmod.escape(" ".join(para)) + "</p>")
                        para = []
                    lvl = min(6, len(m.group(1)) + 1)
                    self.out.append(f"<h{lvl}>{htmlmod.escape(m.group(2))}</h{lvl}>")
                else:
                    para.append(ln)
            if para:
                self.out.append("<p>" + htmlmod.escape(" ".join(para)) + "</p>")

    def record(self, node: _Node, level: int) -> None:
        """Render ``node``; a nested record's label is a heading of ``level``."""
        if node.kind == "s":
            self.string(node)
            return
        child_level = level
        if node.kind == "d" and node is not self.root:
            label = _label(node)
            if label is not None and any(c.mass > 0 for c in node.children[node.children.index(label) + 1:]):
                lvl = min(6, level)
                self.out.append(f"<h{lvl}>{htmlmod.escape(label.text)}</h{lvl}>")
                self.note(label)
                child_level = level + 1
        kids = node.children
        for i, c in enumerate(kids):
            if c.block and c.mass == 0 and node.kind == "l":
                # a short rich-text block followed by text: a heading
                text = next((x for x in c.children if x.kind == "s" and x.cls == "short"), None)
                if text is not None and any(k.mass > 0 for k in kids[i + 1:]):
                    lvl = min(6, child_level)
                    self.out.append(f"<h{lvl}>{htmlmod.escape(text.text)}</h{lvl}>")
                    self.note(text)
                continue
            if c.mass > 0:
                self.record(c, child_level)
