"""The text pass after conversion: code fences put back, hard breaks, blank lines, NFC."""

from __future__ import annotations

import re
import unicodedata

from gatecrawl.core.markdown.dom import _CELL_END, _CODE_CLOSE, _CODE_OPEN, _ROW_END

_RE_CODE_PLACEHOLDER = re.compile("^(.*?)" + _CODE_OPEN + r"(\d+)" + _CODE_CLOSE + r"\s*$")


_RE_BLANK_LINES = re.compile(r"\n{3,}")
_RE_LIST_MARKER = re.compile(r"(?<![^\s>])(?:[-+*]|\d{1,9}[.)])(?= |$)")


def _fence_for(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _normalise(text: str, codes: list[tuple[str, str]]) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # a cell or row outside any table keeps its marker (no table consumed it): a cell becomes a
    # space-separated piece of its line, a row a line of its own
    if _CELL_END in text or _ROW_END in text:
        text = text.replace(_CELL_END, " ").replace(_ROW_END, "\n")
    # (a code marker holds _CODE_OPEN: a text without one has no line to match; a text that is
    # NFC already has every line NFC, as no character composes across a line break)
    has_code = _CODE_OPEN in text
    nfc = unicodedata.is_normalized("NFC", text)
    if not has_code and nfc:
        # Every line's trailing blanks first: a text in which no line then ends in a backslash
        # has nothing more to do.
        stripped = "\n".join([line.rstrip() for line in text.split("\n")])
        if "\\\n" not in stripped and not stripped.endswith("\\"):
            out = _RE_BLANK_LINES.sub("\n\n", stripped).strip("\n")
            return out + "\n" if out and not out.isspace() else ""
    lines_out: list[str] = []
    for line in text.split("\n"):
        m = _RE_CODE_PLACEHOLDER.match(line) if has_code and _CODE_OPEN in line else None
        if m:
            prefix = unicodedata.normalize("NFC", m.group(1))
            lang, code = codes[int(m.group(2))]
            fence = _fence_for(code)
            lines_out.append(prefix + fence + lang)
            # continuation lines: quote markers stay, list markers become spaces
            cont = _RE_LIST_MARKER.sub(lambda mm: " " * len(mm.group(0)), prefix)
            for code_line in code.split("\n"):
                lines_out.append((cont + code_line) if code_line else cont.rstrip())
            lines_out.append(cont + fence)
            continue
        line = (line if nfc else unicodedata.normalize("NFC", line)).rstrip()
        if line.endswith("\\"):
            if not line.endswith("\\\\"):
                line = line[:-1].rstrip() + "\\"  # no spaces before a hard break
            # a line holding only a hard-break backslash is an empty line
            if line.strip() == "\\":
                line = ""
        lines_out.append(line)
    # hard breaks followed by a blank line (or the end) are dropped
    for i, line in enumerate(lines_out):
        if line.endswith("\\") and not line.endswith("\\\\"):
            nxt = lines_out[i + 1] if i + 1 < len(lines_out) else ""
            if not nxt.strip():
                lines_out[i] = line[:-1].rstrip()
    out = "\n".join(lines_out)
    out = _RE_BLANK_LINES.sub("\n\n", out).strip("\n")
    return out + "\n" if out and not out.isspace() else ""
