"""Does a record name the page: its label against the page's title segments (not the site's
name) and the URL's last path segment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gatecrawl.core.embedded.tree import _Node

_WORD = re.compile(r"\w+", re.UNICODE)
_TITLE_SEP = re.compile(r"\s+[|\u2013\u2014\u00b7\u2022:-]{1,2}\s+")


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _label(node: _Node) -> _Node | None:
    """A record's label: its first short string."""
    for c in node.children:
        if c.kind == "s" and c.cls == "short":
            return c
    return None


@dataclass(frozen=True)
class _PageName:
    """What names the page: title segments (token lists) that are not the site's name, and the
    words of the URL's last path segment."""

    segments: tuple[tuple[str, ...], ...]
    slug: tuple[str, ...]


def _page_name(doc: Any, url: str, title: str | None) -> _PageName:
    if title is None:
        title = ""
        for el in doc.iter("title"):
            title = " ".join("".join(el.itertext()).split())
            break
    site: set[tuple[str, ...]] = set()
    for el in doc.iter("meta"):
        if (el.get("property") or el.get("name") or "").lower() in ("og:site_name", "application-name", "apple-mobile-web-app-title"):
            site.add(tuple(_tokens(el.get("content") or "")))
    parts = urlsplit(url)
    host = re.sub(r"[^a-z0-9]", "", (parts.hostname or "").lower())

    def is_site(seg: tuple[str, ...]) -> bool:
        joined = "".join(seg)
        return seg in site or (len(joined) >= 4 and joined in host)

    segs = [tuple(_tokens(x)) for x in _TITLE_SEP.split(title.strip()) if x.strip()]
    named = [x for x in segs if not is_site(x)]
    if len(segs) > 1 and len(named) == len(segs):
        # the site's name is not known: only the first segment (the common "Page | Site" order)
        named = named[:1]
    slug = parts.path.rstrip("/").rsplit("/", 1)[-1]
    slug_words = tuple(w for w in re.split(r"[-_.+]+|%20", slug.lower()) if w.isalpha())
    return _PageName(segments=tuple(x for x in named if len(x) >= 2), slug=slug_words if len(slug_words) >= 2 else ())


def _names_page(label: str, name: _PageName) -> str | None:
    """How the record's label names the page ("title" or "url"), or None."""
    lab = _tokens(label)
    if not lab:
        return None
    for seg in name.segments:
        if _covers(lab, list(seg)) and _covers(list(seg), lab):
            return "title"
    if name.slug and _covers(lab, list(name.slug)):
        return "url"
    return None


def _covers(have: list[str], need: list[str], share: float = 0.8) -> bool:
    s = set(have)
    return sum(1 for w in need if w in s) >= share * len(need)


def _record_label(node: _Node) -> _Node | None:
    holder = node if node.kind == "d" else node.parent
    return _label(holder) if holder is not None and holder.kind == "d" else None


def _record_names_page(node: _Node, name: _PageName) -> bool:
    label = _record_label(node)
    return label is not None and _names_page(label.text, name) is not None


def _named_record(tree: _Node, name: _PageName) -> _Node | None:
    """The largest record whose label names the page and that holds at least half of the
    data's prose (a hero or teaser named like the page, next to the body, does not)."""
    best: _Node | None = None
    stack = [tree]
    while stack:
        n = stack.pop()
        if n.kind == "s" or n.mass <= 0:
            continue
        if n.kind == "d" and 2 * n.mass >= tree.mass and (best is None or n.mass > best.mass) and _record_names_page(n, name):
            best = n
        stack.extend(n.children)
    return best
