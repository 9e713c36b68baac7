"""The data as a tree of classified strings (prose, HTML, short label, other); rich-text
blocks joined; the record that holds the content."""

from __future__ import annotations

import html as htmlmod
import re
from typing import Any

from gatecrawl.core.embedded.limits import DOMINANT_SHARE, MAX_DEPTH, MAX_STRING_CHARS

_HTML_TAG = re.compile(r"<(?:p|h[1-6]|ul|ol|li|blockquote|div|section|article|br|em|strong|b|i|a|pre|code|table|tr|td|figure|span)\b[^<>]{0,500}>", re.I)
_ANY_TAG = re.compile(r"<[^<>]{0,2000}>")
_WS = re.compile(r"\s+")
_SENTENCE = re.compile(r"[.!?\u2026;:]")


class _Node:
    __slots__ = ("key", "parent", "kind", "children", "text", "cls", "mass", "raw", "block")

    def __init__(self, key: str | int | None, parent: "_Node | None", kind: str) -> None:
        self.key = key
        self.parent = parent
        self.kind = kind  # "d" (object), "l" (array), "s" (string)
        self.children: list[_Node] = []
        self.text = ""  # normalised text of a string (tags stripped for HTML)
        self.raw = ""  # the string as it is
        self.cls = ""  # prose | html | short | other
        self.mass = 0  # characters of prose and HTML text under this node
        self.block = False  # a rich-text block whose spans were joined (_join_spans)

    def path(self) -> tuple[str | int, ...]:
        parts: list[str | int] = []
        n: _Node | None = self
        while n is not None and n.key is not None:
            parts.append(n.key)
            n = n.parent
        return tuple(reversed(parts))


def _classify(s: str) -> tuple[str, str]:
    """``(class, text)`` of one string."""
    raw = s[:MAX_STRING_CHARS]
    t = raw.strip()
    if not t:
        return "other", ""
    if "<" in t and _HTML_TAG.search(t[:20_000]):
        text = _WS.sub(" ", htmlmod.unescape(_ANY_TAG.sub(" ", t))).strip()
        if len(text) >= 40 and _prose_like(text, loose=True):
            return "html", text
    text = _WS.sub(" ", t)
    if " " not in text:
        return "other", text
    if _prose_like(text):
        return "prose", text
    nwords = len(text.split())
    if nwords <= 20 and len(text) <= 200 and _letter_share(text) >= 0.5:
        return "short", text
    return "other", text


def _letter_share(text: str) -> float:
    sample = text[:4000]
    return sum(1 for c in sample if c.isalpha()) / max(1, len(sample))


def _prose_like(text: str, loose: bool = False) -> bool:
    if len(text) < 60:
        return False
    sample = text[:4000]
    words = sample.split()
    if len(words) < 8:
        return False
    avg = sum(len(w) for w in words) / len(words)
    if not 2.5 <= avg <= 12:
        return False
    if _letter_share(sample) < 0.6:
        return False
    return loose or bool(_SENTENCE.search(sample))


def _tree(data: Any, budget: list[int]) -> _Node:
    """The data as classified nodes; containers are visited once (shared references and cycles)."""
    seen: set[int] = set()

    def build(value: Any, key: str | int | None, parent: _Node | None, depth: int) -> _Node | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if isinstance(value, str):
            node = _Node(key, parent, "s")
            node.raw = value[:MAX_STRING_CHARS]
            node.cls, node.text = _classify(value)
            node.mass = len(node.text) if node.cls in ("prose", "html") else 0
            return node
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH or id(value) in seen:
                return None
            seen.add(id(value))
            node = _Node(key, parent, "d" if isinstance(value, dict) else "l")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                if not isinstance(v, (str, dict, list)):
                    continue
                child = build(v, k if isinstance(k, (str, int)) else str(k), node, depth + 1)
                if child is not None:
                    node.children.append(child)
                    node.mass += child.mass
                if budget[0] < 0:
                    break
            if node.kind == "l":
                _join_spans(node)
            return node
        return None

    root = build(data, None, None, 0)
    return root if root is not None else _Node(None, None, "d")


def _string_node(key: str | int | None, parent: _Node, text: str) -> _Node:
    node = _Node(key, parent, "s")
    node.raw = text[:MAX_STRING_CHARS]
    node.cls, node.text = _classify(text)
    node.mass = len(node.text) if node.cls in ("prose", "html") else 0
    return node


def _join_spans(lst: _Node) -> None:
    """Rich text (Contentful, Portable Text, ProseMirror-style JSON): a list of blocks, each a
    record with no text of its own and a list of spans (flat records). Each block's spans are
    joined into one string, read from the span field that carries most of the list's text, so a
    paragraph split around a bold word stays one paragraph and a heading block stays whole."""
    blocks = lst.children
    if not blocks or any(b.kind != "d" for b in blocks):
        return
    span_lists: list[_Node] = []
    for b in blocks:
        if any(c.kind == "s" and c.cls != "other" for c in b.children):
            return  # a record with text of its own, not a block
        runs = [c for c in b.children if c.kind == "l" and c.children and all(x.kind == "d" for x in c.children)]
        if not runs:
            return
        span_lists.append(max(runs, key=lambda r: sum(len(x.raw) for sp in r.children for x in sp.children if x.kind == "s")))
    totals: dict[str | int | None, int] = {}
    for run in span_lists:
        for sp in run.children:
            if any(x.kind != "s" and x.mass > 0 for x in sp.children):
                return  # spans are flat: a span holding prose records is not a span
            for x in sp.children:
                if x.kind == "s":
                    totals[x.key] = totals.get(x.key, 0) + len(x.raw)
    if not totals:
        return
    key = max(totals, key=lambda k: totals[k])
    for b, run in zip(blocks, span_lists):
        text = "".join(x.raw for sp in run.children for x in sp.children if x.kind == "s" and x.key == key)
        joined = _string_node(run.key, b, text)
        b.children = [joined if c is run else c for c in b.children]
        b.mass = sum(c.mass for c in b.children)
        b.block = True
    lst.mass = sum(b.mass for b in blocks)


def _keep_mass(node: _Node, keys: tuple[str, ...]) -> int:
    """Count only strings under one of ``keys`` as prose (the others stay, as labels)."""
    if node.kind == "s":
        if node.key not in keys:
            node.mass = 0
        return node.mass
    stack = [(node, False)]
    while stack:  # post-order without recursion
        n, done = stack.pop()
        if n.kind == "s":
            if n.key not in keys:
                n.mass = 0
            continue
        if done:
            n.mass = sum(c.mass for c in n.children)
        else:
            stack.append((n, True))
            stack.extend((c, False) for c in n.children)
    return node.mass


def _descend(node: _Node) -> _Node:
    """The record that holds the content: follow the child holding most of the prose."""
    while True:
        containers = [c for c in node.children if c.kind != "s" and c.mass > 0]
        if not containers or node.mass <= 0:
            return node
        best = max(containers, key=lambda c: c.mass)  # first of equals: data order
        if best.mass < DOMINANT_SHARE * node.mass:
            return node
        if best.kind == "l":
            inner = [c for c in best.children if c.kind != "s" and c.mass > 0]
            top = max(inner, key=lambda c: c.mass) if inner else None
            if top is None or top.mass < DOMINANT_SHARE * best.mass:
                return node if node.kind == "d" else best
            node = top
            continue
        node = best


def _resolve(root: _Node, parts: tuple[str | int, ...]) -> _Node | None:
    node = root
    for p in parts:
        nxt = None
        for c in node.children:
            if c.key == p or (isinstance(p, int) and node.kind == "d" and c.key == str(p)):
                nxt = c
                break
        if nxt is None:
            return None
        node = nxt
    return node
