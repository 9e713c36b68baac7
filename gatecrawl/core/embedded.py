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
"""

from __future__ import annotations

import html as htmlmod
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator
from urllib.parse import urlsplit

__all__ = [
    "EMBEDDED_VERSION",
    "EmbeddedContent",
    "PathError",
    "has_embedded_data",
    "parse_path",
    "format_path",
    "read_embedded",
]

EMBEDDED_VERSION = "embedded/1"

MAX_SOURCE_CHARS = 4_000_000
MAX_TOTAL_CHARS = 8_000_000
MAX_SOURCES = 24
MAX_NODES = 200_000
MAX_DEPTH = 64
MAX_STRING_CHARS = 1_000_000
#: a record with more prose strings side by side than this is a dictionary (UI messages), not content
MAX_PROSE_FIELDS = 8
DOMINANT_SHARE = 0.6
#: a record with less prose than this is a teaser or a description, not the page's content
MIN_RECORD_CHARS = 400
FIELDS_LISTED_MAX = 40
#: JSON-LD: the schema.org properties that hold a creative work's content (a description or a
#: product's summary is not the page)
LD_CONTENT_KEYS = ("articleBody", "text")

_JSON_TYPES = ("application/json", "application/ld+json")
_ASSIGN = re.compile(r"(?:\bwindow|\bself|\bglobalThis)\s*(?:\.\s*([A-Za-z_$][\w$]{0,80})|\[\s*[\"']([A-Za-z_$][\w$]{0,80})[\"']\s*\])\s*=\s*")
_HTML_TAG = re.compile(r"<(?:p|h[1-6]|ul|ol|li|blockquote|div|section|article|br|em|strong|b|i|a|pre|code|table|tr|td|figure|span)\b[^<>]{0,500}>", re.I)
_ANY_TAG = re.compile(r"<[^<>]{0,2000}>")
_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"[.!?\u2026;:]")
_TITLE_SEP = re.compile(r"\s+[|\u2013\u2014\u00b7\u2022:-]{1,2}\s+")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+)$")
_PATH_SEG = re.compile(r"""\s*(?:\.?([A-Za-z0-9_$@\-]+)|\[\s*(\d{1,9})\s*\]|\[\s*"((?:[^"\\]|\\.){1,500})"\s*\])""")


# ---------------------------------------------------------------------------
# JSON paths: props.pageProps.items[0]["Post:1"]
# ---------------------------------------------------------------------------


class PathError(ValueError):
    """A JSON path that does not parse."""


def parse_path(path: str) -> tuple[str | int, ...]:
    """``a.b[0]["c.d"]`` -> ``("a", "b", 0, "c.d")``; raises :class:`PathError`."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("an empty path")
    if len(path) > 2000:
        raise PathError("longer than 2,000 characters")
    out: list[str | int] = []
    pos = 0
    text = path.strip()
    while pos < len(text):
        m = _PATH_SEG.match(text, pos)
        if m is None or m.end() == pos or (m.group(1) is not None and pos > 0 and text[pos] != "."):
            raise PathError(f"cannot read the path at character {pos + 1}: {text[pos:pos + 20]!r}")
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(int(m.group(2)))
        else:
            out.append(json.loads(f'"{m.group(3)}"'))
        pos = m.end()
    if not out or text.startswith("."):
        raise PathError("a path starts with a key")
    return tuple(out)


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_$@\-]+$")


def format_path(parts: tuple[str | int, ...] | list[str | int]) -> str:
    out = []
    for p in parts:
        if isinstance(p, int):
            out.append(f"[{p}]")
        elif _PLAIN_KEY.match(p):
            out.append(("." if out else "") + p)
        else:
            out.append("[" + json.dumps(p, ensure_ascii=False) + "]")
    return "".join(out)


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------


@dataclass
class _Source:
    name: str  # e.g. script#__NEXT_DATA__, window.__APOLLO_STATE__, script[type=application/ld+json]#1
    data: Any
    ld: bool = False  # JSON-LD: only schema.org's content properties count (LD_CONTENT_KEYS)


def _script_type(el: Any) -> str:
    return (el.get("type") or "").split(";")[0].strip().lower()


def has_embedded_data(doc: Any) -> list[str]:
    """The data sources a page seems to carry (names), without parsing any of them: cheap
    enough for the downloader to decide whether a shell may be read without a browser."""
    names: list[str] = []
    for el in doc.iter("script"):
        if el.get("src"):
            continue
        text = el.text or ""
        if not text.strip():
            continue
        stype = _script_type(el)
        if stype in _JSON_TYPES:
            names.append(_json_script_name(el, stype, len(names)))
        elif stype in ("", "text/javascript", "application/javascript", "module"):
            for m in _ASSIGN.finditer(text[:MAX_SOURCE_CHARS]):
                rest = text[m.end():m.end() + 12].lstrip()
                if rest[:1] in ("{", "[") or rest.startswith("JSON.parse("):
                    names.append(f"window.{m.group(1) or m.group(2)}")
        if len(names) >= MAX_SOURCES:
            break
    return names


def _json_script_name(el: Any, stype: str, index: int) -> str:
    ident = el.get("id")
    if ident:
        return f"script#{ident[:80]}"
    return f"script[type={stype}]#{index}"


def _js_string(text: str, pos: int) -> tuple[str, int] | None:
    """Decode the JavaScript string literal starting at ``text[pos]`` (a quote); None when malformed."""
    quote = text[pos]
    out: list[str] = []
    i = pos + 1
    n = len(text)
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
    while i < n:
        c = text[i]
        if c == quote:
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= n:
                return None
            e = text[i + 1]
            if e in simple:
                out.append(simple[e])
                i += 2
            elif e == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
                out.append(chr(int(text[i + 2:i + 4], 16)))
                i += 4
            elif e == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
            elif e == "\n":
                i += 2
            else:
                out.append(e)
                i += 2
            continue
        if c == "\n":
            return None
        out.append(c)
        i += 1
    return None


def _parse_assignment(text: str, pos: int) -> Any:
    decoder = json.JSONDecoder()
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if text.startswith("JSON.parse(", pos):
        pos += len("JSON.parse(")
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text) or text[pos] not in "\"'`":
            return None
        if text[pos] == "`":
            return None  # a template literal may interpolate: not data
        lit = _js_string(text, pos)
        if lit is None:
            return None
        return json.loads(lit[0])
    if pos < len(text) and text[pos] in "{[":
        return decoder.raw_decode(text, pos)[0]
    return None


def _sources(doc: Any) -> Iterator[_Source]:
    total = 0
    count = 0
    for el in doc.iter("script"):
        if el.get("src"):
            continue
        text = el.text or ""
        if not text.strip():
            continue
        if len(text) > MAX_SOURCE_CHARS or total + len(text) > MAX_TOTAL_CHARS:
            continue
        stype = _script_type(el)
        if stype not in _JSON_TYPES and not _ASSIGN.search(text):
            continue
        total += len(text)  # counted when read, parsed or not: invalid data costs its share too
        parsed: list[_Source] = []
        try:
            if stype in _JSON_TYPES:
                data = json.loads(text)
                name = _json_script_name(el, stype, count)
                if el.get("id") == "__NUXT_DATA__":
                    data = _devalue(data)
                parsed.append(_Source(name, data, ld=stype == "application/ld+json"))
            elif stype in ("", "text/javascript", "application/javascript", "module"):
                for m in _ASSIGN.finditer(text):
                    try:
                        data = _parse_assignment(text, m.end())
                    except (ValueError, RecursionError):
                        continue
                    if isinstance(data, (dict, list)):
                        parsed.append(_Source(f"window.{m.group(1) or m.group(2)}", data))
                    if len(parsed) >= MAX_SOURCES:
                        break
        except (ValueError, RecursionError, MemoryError):
            continue
        for s in parsed:
            count += 1
            yield s
            if count >= MAX_SOURCES:
                return


_DEVALUE_WRAPPERS = {"Reactive", "ShallowReactive", "Ref", "ShallowRef", "EmptyRef", "EmptyShallowRef"}


def _devalue(arr: Any) -> Any:
    """Revive a devalue-encoded array (Nuxt 3 ``__NUXT_DATA__``): values refer to each other
    by index. Bounded: each index is revived once (shared and cyclic references are shared),
    at most ``MAX_NODES`` values, ``MAX_DEPTH`` levels."""
    if not isinstance(arr, list) or not arr:
        return arr
    memo: dict[int, Any] = {}
    budget = [MAX_NODES]

    def revive(idx: Any, depth: int) -> Any:
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0 or idx >= len(arr):
            return None
        if idx in memo:
            return memo[idx]
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return None
        v = arr[idx]
        if isinstance(v, dict):
            out: dict = {}
            memo[idx] = out
            for k, ref in v.items():
                out[k] = revive(ref, depth + 1)
            return out
        if isinstance(v, list):
            if v and isinstance(v[0], str):  # a typed value: ["Reactive", ref], ["Date", iso], ...
                tag = v[0]
                if tag in _DEVALUE_WRAPPERS and len(v) > 1:
                    memo[idx] = None
                    memo[idx] = revive(v[1], depth + 1)
                    return memo[idx]
                memo[idx] = None
                return None
            out_l: list = []
            memo[idx] = out_l
            for ref in v:
                out_l.append(revive(ref, depth + 1))
            return out_l
        memo[idx] = v
        return v

    return revive(0, 0)


# ---------------------------------------------------------------------------
# The data as a tree of classified strings
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Page-name check and rendering
# ---------------------------------------------------------------------------


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
