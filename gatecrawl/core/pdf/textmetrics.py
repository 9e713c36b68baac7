"""Text comparison helpers for tests and the benchmark: Markdown -> plain tokens, token F1."""

from __future__ import annotations

import re
from collections import Counter

_TOKEN_RE = re.compile(r"\w+(?:[.,%]\w+)*%?")


def strip_markdown(md: str) -> str:
    out = []
    for line in md.splitlines():
        s = line.strip()
        if re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*", s):
            continue  # table delimiter row
        s = re.sub(r"^#{1,6}\s+", "", s)
        s = re.sub(r"^[-*+]\s+", "", s)
        s = s.strip("|").strip().replace(" | ", " ")
        s = re.sub(r"\\(.)", r"\1", s)
        out.append(s)
    return "\n".join(out)


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN_RE.findall(text)]


def token_f1(got: str, want: str) -> float:
    g, w = Counter(tokens(got)), Counter(tokens(want))
    if not g and not w:
        return 1.0
    common = sum((g & w).values())
    if not common:
        return 0.0
    p, r = common / sum(g.values()), common / sum(w.values())
    return 2 * p * r / (p + r)
