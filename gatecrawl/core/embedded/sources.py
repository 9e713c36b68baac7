"""The data sources of a page: JSON scripts, ``window.X = ...`` assignments (a JSON literal or
``JSON.parse("...")``) and Nuxt 3 devalue arrays, found and parsed within the work bounds."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from gatecrawl.core.embedded.limits import MAX_DEPTH, MAX_NODES, MAX_SOURCE_CHARS, MAX_SOURCES, MAX_TOTAL_CHARS

_JSON_TYPES = ("application/json", "application/ld+json")
_ASSIGN = re.compile(r"(?:\bwindow|\bself|\bglobalThis)\s*(?:\.\s*([A-Za-z_$][\w$]{0,80})|\[\s*[\"']([A-Za-z_$][\w$]{0,80})[\"']\s*\])\s*=\s*")


@dataclass
class _Source:
    name: str  # e.g. script#__NEXT_DATA__, window.__APOLLO_STATE__, script[type=application/ld+json]#1
    data: Any
    ld: bool = False  # JSON-LD: only schema.org's content properties count (LD_CONTENT_KEYS)


def _script_type(el: Any) -> str:
    return (el.get("type") or "").split(";")[0].strip().lower()


def _inline_scripts(doc: Any) -> Iterator[tuple[Any, str]]:
    """The page's inline scripts that hold something: (element, text)."""
    for el in doc.iter("script"):
        if el.get("src"):
            continue
        text = el.text or ""
        if text.strip():
            yield el, text


def has_embedded_data(doc: Any) -> list[str]:
    """The data sources a page seems to carry (names), without parsing any of them: cheap
    enough for the downloader to decide whether a shell may be read without a browser."""
    names: list[str] = []
    for el, text in _inline_scripts(doc):
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
    for el, text in _inline_scripts(doc):
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
