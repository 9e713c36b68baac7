"""JSON paths as recipes name them: ``props.pageProps.items[0]["Post:1"]``."""

from __future__ import annotations

import json
import re

_PATH_SEG = re.compile(r"""\s*(?:\.?([A-Za-z0-9_$@\-]+)|\[\s*(\d{1,9})\s*\]|\[\s*"((?:[^"\\]|\\.){1,500})"\s*\])""")


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
