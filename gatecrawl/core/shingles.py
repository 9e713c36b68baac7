"""A text as the candidates' vote reads it: its lower-cased tokens, their 4-token shingles
(``_shingles``), and a candidate made of them (``_TextCandidate``: does it keep a unit?),
built from the text (``_text_candidate``) or from its tokens and shingles as they are
(``text_candidate_cased``, when the text lowers by token). Pure functions; see ``agreement``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_TOKEN_RX = re.compile(r"\w+", re.UNICODE)

#: a unit counts as kept by a text candidate when this share of its 4-token shingles occurs in it
UNIT_MATCH_MIN = 0.5


def _tokens(text: str) -> list[str]:
    return _TOKEN_RX.findall(text.lower())


def _shingles(tokens: list[str]) -> set:
    """The set of 4-token windows, each as its tokens joined by one space (``" ".join(tokens[i:i + 4])``
    for every i; a token never holds a space, so two windows give the same string only when
    they are the same window). Strings rather than tuples: built and compared faster, and not
    tracked by the garbage collector (a page's shingles are tens of thousands of objects)."""
    return set(map(" ".join, zip(tokens, tokens[1:], tokens[2:], tokens[3:])))


@dataclass(frozen=True)
class _TextCandidate:
    name: str
    tokens: int
    shingles: frozenset
    joined: str  # " tok tok tok " for short-unit matching
    words: frozenset = frozenset()  # its distinct tokens

    def keeps(self, toks: list[str]) -> bool:
        if not self.tokens:
            return False
        if len(toks) >= 4:
            sh = _shingles(toks)
            return len(sh & self.shingles) >= UNIT_MATCH_MIN * len(sh)
        return (" " + " ".join(toks) + " ") in self.joined


def _text_candidate(name: str, text: str | None) -> _TextCandidate:
    return _text_candidate_of(name, text or "")


@functools.lru_cache(maxsize=8)
def _text_candidate_of(name: str, text: str) -> _TextCandidate:
    """Cached by value (pure): the selection reads the trafilatura candidate's shingles again
    for its reference share (``text_shingles``) after the vote built them."""
    toks = _tokens(text)
    return _TextCandidate(name, len(toks), frozenset(map(" ".join, zip(toks, toks[1:], toks[2:], toks[3:]))),
                          " " + " ".join(toks) + " ", frozenset(toks))


def lowers_by_token(text: str) -> bool:
    """Whether lower-casing ``text`` lower-cases each of its tokens alone: then the tokens of
    ``text.lower()`` are ``text``'s tokens, each lower-cased, and their shingles ``text``'s
    shingles, each lower-cased. True unless ``text`` holds ``İ`` (lower-cased to ``i`` and a
    combining dot, which is no word character: the token splits) or ``Σ`` (lower-cased by its
    context, which a token taken alone does not have: a final sigma at a word's end). No other
    character changes whether it is a word character when lower-cased
    (tests/test_agreement_cased.py checks every code point)."""
    return "\u0130" not in text and "\u03a3" not in text


def text_candidate_cased(name: str, text: str, tokens: list[str], shingles: set) -> _TextCandidate:
    """The candidate of :func:`_text_candidate` for ``text``, built from what a caller read of
    it as it is, not lower-cased: its ``tokens`` (``_TOKEN_RX.findall(text)``) and their
    ``shingles`` (:func:`_shingles`). When
    the text lowers by token (:func:`lowers_by_token`), the lower-cased ones are these, each
    lower-cased (fewer strings to make than tokenising and shingling the text again);
    otherwise the text is read again."""
    if not lowers_by_token(text):
        return _text_candidate(name, text)
    low = (" " + " ".join(tokens) + " ").lower()
    return _TextCandidate(name, len(tokens), frozenset(map(str.lower, shingles)), low, frozenset(low.split()))


def text_shingles(name: str, text: str | None) -> frozenset:
    """The set of 4-token shingles of a candidate's lower-cased text (the vote's, shared)."""
    return _text_candidate(name, text).shingles
