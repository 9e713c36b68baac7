"""Structural signals for the wrong-route detectors (login walls, paywalls, bot challenges).

Everything here reads a parsed document and never mutates it. The verdicts themselves are
taken in :mod:`gatecrawl.core.validate`, against how much real content the page holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lxml.html import HtmlElement

from gatecrawl.core.page import visible_text

__all__ = ["Paywall", "find_paywall", "has_password_form"]


@dataclass(frozen=True)
class Paywall:
    """Paywall markup (schema.org ``isAccessibleForFree: false``) and what it points at."""

    selectors: tuple[str, ...]  # the cssSelector of each paywalled part (may be empty)
    paywalled_chars: int | None  # visible text inside those parts; None when no selector is given

    def to_dict(self) -> dict:
        return {"markup": "isAccessibleForFree=false", "selectors": list(self.selectors), "paywalled_chars": self.paywalled_chars}


def _is_false(value) -> bool:
    return value is False or (isinstance(value, str) and value.strip().lower() == "false")


def _jsonld_objects(doc: HtmlElement):
    for el in doc.iterfind(".//script[@type]"):
        if (el.get("type") or "").strip().lower() != "application/ld+json" or not el.text:
            continue
        try:
            data = json.loads(el.text)
        except ValueError:
            continue
        stack = [data]
        while stack:
            cur = stack.pop()
            if isinstance(cur, list):
                stack.extend(cur)
            elif isinstance(cur, dict):
                yield cur
                stack.extend(v for v in cur.values() if isinstance(v, (list, dict)))


def find_paywall(doc: HtmlElement) -> Paywall | None:
    """The page's paywall markup, or None. A JSON-LD object with ``isAccessibleForFree``
    false marks paywalled content; its ``cssSelector`` (usually on a ``hasPart`` element)
    names the paywalled part. When that part is in the HTML with its text, the content was
    served; when it is absent the body is a teaser."""
    flagged = False
    selectors: list[str] = []
    for obj in _jsonld_objects(doc):
        if _is_false(obj.get("isAccessibleForFree")):
            flagged = True
            sel = obj.get("cssSelector")
            for s in sel if isinstance(sel, list) else [sel]:
                if isinstance(s, str) and s.strip() and s.strip() not in selectors:
                    selectors.append(s.strip())
    if not flagged:
        return None
    if not selectors:
        return Paywall(selectors=(), paywalled_chars=None)
    held = 0
    for s in selectors:
        try:
            found = doc.cssselect(s)
        except Exception:  # a selector lxml cannot read counts as absent (fail closed)
            found = []
        held += sum(len(visible_text(el)) for el in found)
    return Paywall(selectors=tuple(sorted(selectors)), paywalled_chars=held)


def has_password_form(doc: HtmlElement) -> bool:
    return any((i.get("type") or "").strip().lower() == "password" for i in doc.iter("input"))
