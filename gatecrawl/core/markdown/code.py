"""Code blocks: the language hint from class names, the code text kept byte for byte."""

from __future__ import annotations

import re

import lxml.etree

from gatecrawl.core.markdown.dom import _SENTINELS

_LANG_PATTERNS = (
    re.compile(r"(?:^|\s)(?:language|lang)-([A-Za-z0-9_+#.\-]+)"),
    re.compile(r"(?:^|\s)highlight-(?:source-)?([A-Za-z0-9_+#.\-]+)"),
    re.compile(r"brush:\s*([A-Za-z0-9_+#.\-]+)"),
)


def _code_language(pre: lxml.etree._Element) -> str:
    candidates = [pre]
    codes = [c for c in pre if c.tag == "code"]
    if codes:
        candidates.append(codes[0])
    parent = pre.getparent()
    if parent is not None:
        candidates.append(parent)
        if parent.getparent() is not None:
            candidates.append(parent.getparent())
    for node in candidates:
        cls = (node.get("class") or "") + " " + (node.get("data-lang") and
                                                  "language-" + node.get("data-lang") or "")
        for pat in _LANG_PATTERNS:
            m = pat.search(cls)
            if m:
                lang = m.group(1).strip(".-").lower()
                if lang and lang not in ("none", "plaintext", "text", "nohighlight"):
                    return lang
                return ""
    return ""


def _collect_code(node: lxml.etree._Element, out: list[str]) -> None:
    # Recursion depth is bounded by htmlparse.MAX_DEPTH. (A module function: a nested function
    # that calls itself would make a reference cycle on every call.)
    if node.text:
        out.append(node.text)
    for child in node:
        if isinstance(child.tag, str):
            if child.tag == "br":
                out.append("\n")
            elif child.tag not in ("script", "style"):
                _collect_code(child, out)
        if child.tail:
            out.append(child.tail)


def _code_text(pre: lxml.etree._Element) -> str:
    out: list[str] = []
    _collect_code(pre, out)
    text = _SENTINELS.sub("", "".join(out)).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\A(?:[ \t]*\n)+", "", text)
    return text.rstrip()
