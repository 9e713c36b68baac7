"""The reference pruning's one-walk texts (``extract.unittext``) stand for the walks they replaced:
each unit's span of ``_text_parts`` is its ``block_text``, the parts join to the selection's;
a unit found by ``_unit_tokens`` has the selection's windows over it for shingles; ``_text_left``
is ``block_text`` after the units are dropped. And ``_wrap_loose_text`` (holding elements in any
order, runs wrapped in place) leaves the tree the rebuilding version (kept here) left."""

from __future__ import annotations

import copy
import gzip
import random
from pathlib import Path

import lxml.html

from gatecrawl.core.agreement import _shingles
from gatecrawl.core.extract.dom import _BLOCKS, _IN_WORD, _TOKEN_RX, _drop, _holding_blocks, _is_el, block_text
from gatecrawl.core.extract.reference import _VOTE_UNITS, _leaf_units, _wrap_loose_text
from gatecrawl.core.extract.unittext import _text_left, _text_parts, _unit_tokens

CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]

_CASES = [
    "<div>lead <b>bold</b> text<p>One <i>para</i>graph</p> tail one <p>Two</p><!-- c -->after"
    "<ul><li>a <span>b</span></li><li>c</li></ul> <b>loose</b><a href='#'>link</a>end</div>",
    "<div><section><h2>Title</h2><p>x</p></section>mid<section><p>y <em>z</em></p>  </section>"
    "<span>2026</span><span>1h</span><table><tr><td>cell</td></tr></table>ΟΔΟΣ İz</div>",
    "<div><p></p><p>  </p>t<b></b><p>a</p>\n<div><p>deep</p>deeptail<i>it</i></div>last</div>",
    "<div>only text</div>",
    "<div><a>inl</a>ine<p>para</p><b>x</b>y</div>",
]


def _trees():
    """The cases above, then the first pages of each corpus (their bodies as parsed)."""
    for html in _CASES:
        yield lxml.html.fromstring(html)
    for corpus in CORPORA:
        if corpus.is_dir():
            for path in sorted(corpus.iterdir())[:15]:
                body = lxml.html.fromstring(gzip.decompress(path.read_bytes())).find("body")
                if body is not None:
                    yield body


def _windows(tokens):
    return list(map(" ".join, zip(tokens, tokens[1:], tokens[2:], tokens[3:])))


def test_parts_and_units_are_the_block_texts():
    for root in _trees():
        for atomic in (_VOTE_UNITS, None):
            units = _leaf_units(root, atomic) if atomic else _leaf_units(root)
            parts, spans = _text_parts(root, units)
            assert "".join(parts) == block_text(root)
            assert len(spans) == len(units)
            for (s, e), u in zip(spans, units):
                assert "".join(parts[s:e]) == block_text(u)
            tokens = _TOKEN_RX.findall("".join(parts))
            windows = _windows(tokens)
            for (toks, at), u in zip(_unit_tokens(parts, spans, tokens), units):
                assert toks == _TOKEN_RX.findall(block_text(u))
                if at >= 0:
                    assert tokens[at:at + len(toks)] == toks
                    if len(toks) >= 4:
                        assert set(windows[at:at + len(toks) - 3]) == _shingles(toks)


def test_text_left_is_block_text_after_the_drops():
    rnd = random.Random(5)
    for tree in _trees():
        for _ in range(4):
            root = copy.deepcopy(tree)
            units = _leaf_units(root)
            parts, spans = _text_parts(root, units)
            gone = []
            for i, u in enumerate(units):
                if rnd.random() < 0.4 and u.getparent() is not None:
                    gone.append((i, u.tag not in _IN_WORD, bool(u.tail) and not u.tail.strip()))
                    _drop(u)
            assert _text_left(parts, spans, gone) == block_text(root)


def _old_wrap_loose_text(root, fired):
    """The wrapping as it was: holding elements in document order, each one's children removed
    and appended again around the new ``<p>`` elements."""
    holds_block = _holding_blocks(root, 1)
    for el in [e for e in root.iter() if e in holds_block]:
        if el.tag in ("table", "tr", "tbody", "thead", "tfoot", "ul", "ol", "dl", "pre", "select"):
            continue
        loose = bool((el.text or "").strip())
        mixed = False
        for child in el:
            if mixed and loose:
                break
            tag = child.tag
            if tag.__class__ is not str:
                continue
            if tag in _BLOCKS or child in holds_block:
                mixed = True
                if (child.tail or "").strip():
                    loose = True
            elif not loose and (child.text_content() or "").strip():
                loose = True
        if not (mixed and loose):
            continue
        fired.add("wrap_loose_text")
        new_children: list = []
        text = el.text or ""
        inline: list = []
        for child in list(el):
            if _is_el(child) and (child.tag in _BLOCKS or child in holds_block):
                new_children.extend(_old_make_run(text, inline))
                tail = child.tail or ""
                child.tail = None
                new_children.append(child)
                text, inline = tail, []
            else:
                inline.append(child)
        new_children.extend(_old_make_run(text, inline))
        for child in list(el):
            el.remove(child)
        el.text = None
        for child in new_children:
            if isinstance(child, str):
                if len(el):
                    el[-1].tail = (el[-1].tail or "") + child
                else:
                    el.text = (el.text or "") + child
            else:
                el.append(child)
    return holds_block


def _old_make_run(text, inline):
    has_text = text.strip() or any(_is_el(c) and (c.text_content() or "").strip() for c in inline)
    if not has_text:
        out: list = [text] if text else []
        for c in inline:
            tail = c.tail
            c.tail = None
            out.append(c)
            if tail:
                out.append(tail)
        return out
    p = lxml.html.Element("p")
    p.text = text
    for c in inline:
        p.append(c)
    return [p]


def _signature(root):
    return [(e.tag if isinstance(e.tag, str) else "#", e.text, e.tail, sorted(e.attrib.items()) if _is_el(e) else [])
            for e in root.iter()]


def test_wrapping_in_place_is_the_rebuilding():
    extra = ["<div>\u00a0<p>a</p>\u2003<b> </b><p>b</p></div>", "<div><p>a</p>"
             "<b><i>x</i></b></div>", "<div>t<p>a</p></div>"]
    trees = list(_trees()) + [lxml.html.fromstring(h) for h in extra]
    # empty strings where the parser leaves none: the old wrapping read them as none
    odd = lxml.html.fromstring("<div>x<p>a</p><b>y</b><p>b</p><i>z</i></div>")
    odd.text = ""
    odd[0].tail = ""
    odd[2].tail = ""
    trees.append(odd)
    for tree in trees:
        a, b = copy.deepcopy(tree), copy.deepcopy(tree)
        fa, fb = set(), set()
        ha, hb = _old_wrap_loose_text(a, fa), _wrap_loose_text(b, fb)
        assert fa == fb
        assert _signature(a) == _signature(b)
        assert len(ha) == len(hb)
