"""Content presence on a plain fetch: is this page an SPA shell that needs the browser?

``assess_presence`` scores the raw document with the four-check gate and looks for named
shell signals (an empty app root, a "please enable JavaScript" notice, a script bundle
with almost no text, a bare "Loading..." body). A page needs rendering only when it fails
the gate (or its length check) *and* shows at least one shell signal: a short page without scripts is complete
as it is, and rendering it would only cost money.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lxml.html import HtmlElement

from gatecrawl.core import gate as gate_mod
from gatecrawl.core.embedded import has_embedded_data
from gatecrawl.core.page import PageMeasure, find_fields, measure_page, shell_signals
from gatecrawl.core.pageindex import PageIndex
from gatecrawl.core.validate import detect_bot_challenge

if TYPE_CHECKING:
    from gatecrawl.core.recipes import Recipe

# The bot-challenge check reads the start of the served HTML (vendor markup sits in the head).
CHALLENGE_HTML_CHARS = 200_000

__all__ = ["Presence", "assess_fetch", "assess_presence", "unique_ratio_window"]

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
) -> tuple[Presence, dict[str, Any]]:
    """The fetch verdict of a plain HTML response, the one both paths record (the presence
    middleware during a crawl, ``convert()`` when nothing assessed the page before it): the
    presence verdict, the bot-challenge finding, the recipe's render policy for ``url`` and, for a
    shell, the embedded data sources it carries (``embedded_sources``).
    ``body`` is the served bytes (the challenge check reads their start, decoded as UTF-8 with
    replacement, the same way validation does). ``index``: the document's ``PageIndex`` when the
    caller has it. Returns the :class:`Presence` and the verdict as the packet's ``fetch_gate``."""
    presence = assess_presence(doc, gate_mod.GateThresholds.from_recipe(recipe), measure=measure, fields=fields,
                               index=index)
    verdict = presence.to_dict()
    policy, origin = recipe.render_policy_for(url)
    verdict["bot_challenge"] = detect_bot_challenge(challenge_text(body), status, presence.body_chars)
    verdict["render_policy"] = policy
    verdict["render_policy_origin"] = origin
    if presence.needs_render and recipe.embedded_enabled:
        # A shell whose first response carries data (named, not parsed): the converter may read
        # the content from it before the page goes to the browser.
        sources = has_embedded_data(doc)
        if sources:
            verdict["embedded_sources"] = sources
    return presence, verdict
