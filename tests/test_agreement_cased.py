"""The vote's lower-cased candidate made of a text's tokens and shingles as they are
(``agreement.text_candidate_cased``, from what the reference pruning read) is the one made of
the lower-cased text (``_text_candidate``); the units' votes read from their keys made once
(``_unit_keys``, ``_votes_of``) are ``_TextCandidate.keeps``; and the reference share measured
from the cased shingles is the one measured from the text."""

from __future__ import annotations

import random
import re
import sys

import lxml.html

from gatecrawl.core.agreement import (Ballot, _shingles, _text_candidate_of, _unit_keys, _votes_of,
                                      lowers_by_token, text_candidate_cased)
from gatecrawl.core.extract.dom import _TOKEN_RX, block_text
from gatecrawl.core.extract.reference import _shared_share

_TEXTS = [
    "",
    "one",
    "The Quick brown fox jumps over the lazy dog. The quick BROWN fox!",
    "Café «Größe» naïve — ÉCOLE Straße ÆSIR œuvre ǅemal Ǆ ǈ ΑΘΗΝΑ μέρα ΚΑΛΗΜΕΡΑ Привет МИР",
    "İstanbul İZMİR is a city, İİ İ",  # İ: the lower-cased text has other tokens
    "ΟΔΟΣ ΟΔΟΣ'Α ΟΔΟΣ.Β ΣΟΦΙΑ σοφός Σ",  # Σ: lower-cased by its context
    "ﬁne ﬂow ＡＢＣ ⅫⅣ ⒶⒷ Ⓐ K Å ẞ ß 𝐀𝐁 𐐀𐐁 ǰ ŉ",
    "tab\tsep\x0bvert\x1cfile__under_score 3.14 1,000 x²",
]


def test_lowering_changes_no_word_character_but_dotted_capital_i():
    """``lowers_by_token``'s premise, on every code point: lower-casing a character gives
    characters of the same kind (word character or not), except ``İ``."""
    word = re.compile(r"\w")
    odd = [c for c in map(chr, range(sys.maxunicode + 1))
           if any(bool(word.match(x)) != bool(word.match(c)) for x in c.lower())]
    assert odd == ["\u0130"]


def test_lowering_is_per_character_but_for_sigma():
    """The other premise: only ``Σ`` lower-cases by its context (a character before and after it)."""
    for c in map(chr, range(sys.maxunicode + 1)):
        if c != "\u03a3" and ("A" + c + "B").lower() != "a" + c.lower() + "b":
            raise AssertionError(hex(ord(c)))


def _check(text: str) -> None:
    toks = _TOKEN_RX.findall(text)
    sh = _shingles(toks)
    made = text_candidate_cased("trafilatura", text, toks, sh)
    read = _text_candidate_of("trafilatura", text)
    assert made == read, text
    if lowers_by_token(text):
        assert _TOKEN_RX.findall(text.lower()) == [t.lower() for t in toks]


def test_cased_candidate_is_the_lower_cased_texts():
    for text in _TEXTS:
        _check(text)
    assert not lowers_by_token(_TEXTS[4]) and not lowers_by_token(_TEXTS[5])
    rnd = random.Random(7)
    alphabet = list("aAbBzZ09_ éÉßẞǅǄΣσςİıiIﬁΑα.,'-\u0307\u00ad") + [" "] * 8
    for _ in range(3000):
        _check("".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))))


def test_unit_keys_vote_as_keeps():
    rnd = random.Random(3)
    words = ["a", "b", "c", "d", "e", "f", "g"]
    for _ in range(200):
        text = " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 80)))
        c = _text_candidate_of("trafilatura", text)
        ballots = [Ballot(i, [rnd.choice(words) for _ in range(rnd.randint(0, 9))], False, "p")
                   for i in range(30)]
        _votes_of(c, ballots, _unit_keys(ballots))
        for b in ballots:
            assert b.votes["trafilatura"] is (bool(b.tokens) and c.keeps(b.tokens))


def test_reference_share_from_cased_shingles():
    for text in _TEXTS + ["Word " * 3 + "ΣΟΦΙΑ word İzmir word word", "A b C d E f G h"]:
        root = lxml.html.fromstring(f"<div><p>{text}</p><p>Second Paragraph of the Page</p></div>")
        own = block_text(root)
        ref = "the quick brown fox second paragraph of the page café größe naïve"
        theirs = _text_candidate_of("trafilatura", ref).shingles
        assert _shared_share(root, ref, theirs=theirs, text=own,
                             cased=_shingles(_TOKEN_RX.findall(own))) == _shared_share(root, ref)
