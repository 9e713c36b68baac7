"""convert_packet.reader_text tries its pattern only where a match can start (a ``[``, or the
``!`` before one): it gives what the pattern's ``sub`` over every position gave."""

from __future__ import annotations

import random

from gatecrawl.core.convert_packet import _MD_TARGET, reader_text


def _sub(md: str) -> str:
    """reader_text as it was written before (the reference)."""
    return _MD_TARGET.sub(lambda m: "" if m.group(1) else m.group(2), md)


_CASES = [
    "", "plain text", "[a](b)", "![a](b)", "x![a](b)y", "[![img](u)](link)", "![[a](b)", "!![a](b)", "[a] (b)",
    '[a](b "title")', '![a](b "t") and [c](d) then ![e](f)', "[a](b)[c](d)", "[a](b c)", "[\n](b)", "]([a](b)",
    "[" * 600 + "](x)", "[" + "a" * 501 + "](b)", "![a](b)!", "text [link](https://e.example/a_(b)) more",
]


def test_reader_text_is_the_sub_over_every_position():
    for md in _CASES:
        assert reader_text(md) == _sub(md), md
    rng = random.Random(7)
    pieces = ["[", "]", "(", ")", "!", " ", "\n", "a", '"', "x y", "![", "](", "[a](b)", "![i](u)", "[![i](u)](l)", ' "t")']
    for _ in range(50_000):
        md = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        assert reader_text(md) == _sub(md), md
