"""The quality gate: four deterministic checks scored 0-4.

1. **length**: body text characters after boilerplate removal >= ``min_chars``;
2. **unique_words**: unique words / words >= ``min_unique_word_ratio``;
3. **boilerplate**: boilerplate share of the page's text <= ``max_boilerplate_share``;
4. **required_fields**: every field in ``required_fields`` was found.

Each passing check adds one point. A page passes when ``score >= min_score``. The same
function scores the plain fetch (in the downloader middleware, to decide whether a page is
an SPA shell that needs the browser) and the extraction (in the conversion path).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

__all__ = ["GATE_VERSION", "GateThresholds", "GateVerdict", "score", "words"]

GATE_VERSION = "gate/2"  # 2: the unique-word check reads the text without link and image targets
_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class GateThresholds:
    min_chars: int = 200
    min_unique_word_ratio: float = 0.3
    max_boilerplate_share: float = 0.6
    required_fields: tuple[str, ...] = ("title",)
    min_score: int = 3

    @classmethod
    def from_recipe(cls, recipe) -> "GateThresholds":
        return cls(
            min_chars=recipe.gate_min_chars,
            min_unique_word_ratio=recipe.gate_min_unique_word_ratio,
            max_boilerplate_share=recipe.gate_max_boilerplate_share,
            required_fields=tuple(recipe.gate_required_fields),
            min_score=recipe.gate_min_score,
        )


@dataclass(frozen=True)
class GateVerdict:
    score: int
    passed: bool
    checks: dict  # name -> {"value", "threshold", "passed"}

    @property
    def failed_checks(self) -> list[str]:
        return [name for name, c in self.checks.items() if not c["passed"]]

    def to_dict(self) -> dict:
        return {"version": GATE_VERSION, "score": self.score, "passed": self.passed, "checks": self.checks}


def score(
    text: str,
    *,
    boilerplate_share: float,
    fields: Mapping[str, object],
    thresholds: GateThresholds,
    unique_text: str | None = None,
) -> GateVerdict:
    """Score ``text`` (the page's content text) with the four checks.

    ``unique_text`` is the span the unique-word ratio is measured on (default: ``text``);
    callers pass a fixed-size window so that long articles are not penalised for length.
    """
    chars = len(text)
    toks = words(text if unique_text is None else unique_text)
    unique_ratio = round(len(set(toks)) / len(toks), 4) if toks else 0.0
    share = round(boilerplate_share, 4)
    missing = [f for f in thresholds.required_fields if not fields.get(f)]
    checks = {
        "length": {"value": chars, "threshold": thresholds.min_chars, "passed": chars >= thresholds.min_chars},
        "unique_words": {
            "value": unique_ratio,
            "threshold": thresholds.min_unique_word_ratio,
            "passed": bool(toks) and unique_ratio >= thresholds.min_unique_word_ratio,
        },
        "boilerplate": {
            "value": share,
            "threshold": thresholds.max_boilerplate_share,
            "passed": share <= thresholds.max_boilerplate_share,
        },
        "required_fields": {
            "value": sorted(f for f in thresholds.required_fields if fields.get(f)),
            "threshold": list(thresholds.required_fields),
            "missing": missing,
            "passed": not missing,
        },
    }
    points = sum(1 for c in checks.values() if c["passed"])
    return GateVerdict(score=points, passed=points >= thresholds.min_score, checks=checks)
