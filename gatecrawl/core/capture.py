"""Plain or rendered: which capture of an escalated page is kept.

A page escalated to the browser has two captures: the plain fetch (carried along with the
render request) and the render (or its failure). Each is converted and validated on its own;
:func:`choose_capture` then picks one, and the packet records the choice (``capture_choice``):

- both pass: the better one, by gate score then by Markdown length; a tie keeps the render
  (it was asked for) -- ``plain_better`` / ``render_better``;
- only one passes: that one -- ``plain_passed`` / ``render_passed``; so a render that failed,
  timed out or could not start never loses a page whose plain fetch passed;
- neither passes: the render's drop (its reason says why the browser did not help) --
  ``neither_passed``;
- no plain capture travelled with the render (over ``GATECRAWL_RENDER_FALLBACK_MAX_BYTES``,
  or none was available): the render -- ``no_plain_capture``.

Pure; no Scrapy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gatecrawl.core.packet import EvidencePacket

__all__ = ["CaptureOutcome", "CaptureChoice", "choose_capture", "outcome_of"]


@dataclass(frozen=True)
class CaptureOutcome:
    ok: bool
    drop_reason: str | None
    quality_score: int | float | None
    chars_out: int

    def to_dict(self) -> dict:
        return {
            "outcome": "kept" if self.ok else "dropped",
            "drop_reason": self.drop_reason,
            "quality_score": self.quality_score,
            "chars_out": self.chars_out,
        }


@dataclass(frozen=True)
class CaptureChoice:
    kept: str  # "plain" or "render"
    reason: str
    plain: CaptureOutcome | None
    render: CaptureOutcome

    def to_dict(self) -> dict:
        return {
            "kept": self.kept,
            "reason": self.reason,
            "plain": self.plain.to_dict() if self.plain else None,
            "render": self.render.to_dict(),
        }


def outcome_of(evidence: EvidencePacket | Mapping[str, Any], ok: bool, drop_reason: str | None) -> CaptureOutcome:
    """The summary of one conversion (its packet and verdict) that the choice needs."""
    if isinstance(evidence, EvidencePacket):
        evidence = {"quality_score": evidence.quality_score, "chars_out": evidence.chars_out}
    return CaptureOutcome(
        ok=bool(ok),
        drop_reason=drop_reason,
        quality_score=evidence.get("quality_score"),
        chars_out=int(evidence.get("chars_out") or 0),
    )


def _rank(o: CaptureOutcome) -> tuple[float, int]:
    return (float(o.quality_score or 0), o.chars_out)


def choose_capture(plain: CaptureOutcome | None, render: CaptureOutcome) -> CaptureChoice:
    if plain is None:
        return CaptureChoice("render", "no_plain_capture", None, render)
    if plain.ok and render.ok:
        if _rank(plain) > _rank(render):
            return CaptureChoice("plain", "plain_better", plain, render)
        return CaptureChoice("render", "render_better", plain, render)
    if plain.ok:
        return CaptureChoice("plain", "plain_passed", plain, render)
    if render.ok:
        return CaptureChoice("render", "render_passed", plain, render)
    return CaptureChoice("render", "neither_passed", plain, render)
