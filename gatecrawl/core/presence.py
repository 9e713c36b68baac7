"""Content presence on a plain fetch: is this page an SPA shell that needs the browser?

``assess_presence`` scores the raw document with the four-check gate and looks for named
shell signals (an empty app root, a "please enable JavaScript" notice, a script bundle
with almost no text, a bare "Loading..." body). A page needs rendering only when it fails
the gate (or its length check) *and* shows at least one shell signal: a short page without scripts is complete
as it is, and rendering it would only cost money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lxml.html import HtmlElement

from gatecrawl.core import gate as gate_mod
from gatecrawl.core.embedded import has_embedded_data
from gatecrawl.core.page import _JS_HINT, PageMeasure, find_fields, measure_page, shell_signals
from gatecrawl.core.pageindex import _APP_ROOT_IDS, PageIndex
from gatecrawl.core.validate import detect_bot_challenge

if TYPE_CHECKING:
    from gatecrawl.core.recipes import Recipe

# The bot-challenge check reads the start of the served HTML (vendor markup sits in the head).
CHALLENGE_HTML_CHARS = 200_000

__all__ = ["PLAINLY_COMPLETE_CHARS", "Presence", "assess_fetch", "assess_presence", "plainly_complete", "unique_ratio_window"]

UNIQUE_RATIO_WINDOW = 300  # words: the unique-word ratio is taken over the first N words, so long texts are not penalised


def unique_ratio_window(text: str) -> str:
    """The text span the unique-word check reads (its first UNIQUE_RATIO_WINDOW words)."""
    parts = text.split(maxsplit=UNIQUE_RATIO_WINDOW)  # (the words past the window stay unsplit)
    return " ".join(parts[:UNIQUE_RATIO_WINDOW]) if len(parts) > UNIQUE_RATIO_WINDOW else text


@dataclass(frozen=True)
class Presence:
    verdict: gate_mod.GateVerdict
    signals: tuple[str, ...]
    needs_render: bool
    body_chars: int
    measure: PageMeasure | None = None
    fields: dict | None = None

    @property
    def presence_score(self) -> float:
        """The gate score scaled to 0..1 (``fetch_presence_score`` in packets)."""
        return round(self.verdict.score / 4, 2)

    def to_dict(self) -> dict:
        return {
            "gate": self.verdict.to_dict(),
            "shell_signals": list(self.signals),
            "needs_render": self.needs_render,
            "fetch_presence_score": self.presence_score,
        }


def assess_presence(
    doc: HtmlElement, thresholds: gate_mod.GateThresholds, *, measure: PageMeasure | None = None, fields: dict | None = None,
    index: PageIndex | None = None,
) -> Presence:
    index = index or PageIndex(doc)
    m = measure or measure_page(doc, index=index)
    fields = fields if fields is not None else find_fields(doc)
    verdict = gate_mod.score(
        m.body_text,
        boilerplate_share=m.boilerplate_share,
        fields=fields,
        thresholds=thresholds,
        unique_text=unique_ratio_window(m.body_text),
    )
    # A measure taken here is of this document as it is; one handed in is the caller's promise
    # that it still is (convert() measures, then assesses; a <noscript> view has no plain_text).
    signals = tuple(shell_signals(doc, len(m.body_text), body_visible_text=m.plain_text, index=index))
    # Length is the presence check that matters most: a shell with a title and a "Loading..."
    # line can score 3 of 4 and still have no content.
    lacking = (not verdict.passed) or (not verdict.checks["length"]["passed"])
    return Presence(verdict=verdict, signals=signals, needs_render=lacking and bool(signals), body_chars=len(m.body_text), measure=m, fields=fields)


def challenge_text(body: bytes) -> str:
    """The part of the served HTML the bot-challenge checks read."""
    return body[:CHALLENGE_HTML_CHARS].decode("utf-8", "replace")


def assess_fetch(
    doc: HtmlElement,
    recipe: Recipe,
    url: str,
    *,
    status: int | None,
    body: bytes,
    measure: PageMeasure | None = None,
    fields: dict | None = None,
    index: PageIndex | None = None,
    served_head: str | None = None,
) -> tuple[Presence, dict[str, Any]]:
    """The fetch verdict of a plain HTML response, the one both paths record (the presence
    middleware during a crawl, ``convert()`` when nothing assessed the page before it): the
    presence verdict, the bot-challenge finding, the recipe's render policy for ``url`` and, for a
    shell, the embedded data sources it carries (``embedded_sources``).
    ``body`` is the served bytes (the challenge check reads their start, decoded as UTF-8 with
    replacement, the same way validation does). ``index``: the document's ``PageIndex``,
    ``served_head``: ``challenge_text(body)``, when the caller has them. Returns the
    :class:`Presence` and the verdict as the packet's ``fetch_gate``."""
    presence = assess_presence(doc, gate_mod.GateThresholds.from_recipe(recipe), measure=measure, fields=fields,
                               index=index)
    verdict = presence.to_dict()
    policy, origin = recipe.render_policy_for(url)
    head = challenge_text(body) if served_head is None else served_head
    verdict["bot_challenge"] = detect_bot_challenge(head, status, presence.body_chars)
    verdict["render_policy"] = policy
    verdict["render_policy_origin"] = origin
    if presence.needs_render and recipe.embedded_enabled:
        # A shell whose first response carries data (named, not parsed): the converter may read
        # the content from it before the page goes to the browser.
        sources = has_embedded_data(doc)
        if sources:
            verdict["embedded_sources"] = sources
    return presence, verdict


#: Default of ``GATECRAWL_PRESENCE_DEFER_CHARS``: a page with at least this much text outside
#: scripts (see :func:`plainly_complete`) leaves its fetch verdict to conversion.
PLAINLY_COMPLETE_CHARS = 3000
#: An app root holding this much text (outside scripts) is filled already: twice the
#: ``empty_app_root`` signal's threshold of visible text, for the text this count cannot tell
#: hidden.
_FILLED_APP_ROOT_CHARS = 400
_NOT_TEXT = ("script", "style", "noscript", "template")
#: Where the served bytes (in lower case) may hold an app root: an id of ``PageIndex``'s list,
#: ``data-reactroot`` or ``ng-app`` (a superset of what the parsed document shows, found without
#: walking it; the attribute names are looked for with ``in``, much faster than a pattern).
_APP_ROOT_ID_MARKUP = re.compile(
    rb"id\s*=\s*[\"']?\s*(?:" + b"|".join(re.escape(i.encode()) for i in sorted(_APP_ROOT_IDS)) + rb")\b")
_APP_ROOT_ATTRIBUTES = (b"data-reactroot", b"ng-app")


def _may_hold_app_root(body: bytes) -> bool:
    lower = body.lower()
    return any(a in lower for a in _APP_ROOT_ATTRIBUTES) or _APP_ROOT_ID_MARKUP.search(lower) is not None


def _text_chars(el: HtmlElement) -> int:
    """Characters of text under ``el`` outside scripts, styles, templates and noscript views
    (whitespace and hidden elements included: an upper bound of its visible text)."""
    n = len(el.text_content())
    for inner in el.iter(_NOT_TEXT):
        if inner is not el:
            n -= len(inner.text_content())  # (one inside another is taken off twice: fewer, never more)
    return n


def plainly_complete(doc: HtmlElement, body: bytes, min_chars: int) -> bool:
    """Whether a page shows none of what makes a shell, at a fraction of the cost of
    :func:`assess_presence`: its body holds at least ``min_chars`` characters of text outside
    scripts, every app root holds text, and no ``<noscript>`` asks for JavaScript. ``body``: the
    served bytes ``doc`` was parsed from. Such a page leaves its fetch verdict to conversion (the
    presence middleware does not measure it; the converter takes the same verdict). A shell that
    passes this screen regardless (text that is there but hidden) is still found there and sent
    to the browser, only later."""
    if min_chars <= 0:
        return False
    root = doc.find("body")
    if root is None or _text_chars(root) < min_chars:
        return False
    for el in doc.iter("noscript"):
        if _JS_HINT.search(el.text_content() or ""):
            return False
    if not _may_hold_app_root(body):
        return True
    # (the index is taken only for a page whose bytes name an app root: the shell signal's own
    # list of them, never a second definition)
    return all(_text_chars(el) >= _FILLED_APP_ROOT_CHARS for el in PageIndex(doc).app_roots)
