"""The reference pruning's texts in one walk: the selection's ``block_text`` as the parts it
joins, with where each unit's text lies in them (:func:`_text_parts`); the units' tokens and
where they lie in the selection's (:func:`_unit_tokens`: a unit's shingles are then the
selection's windows over them); the selection's text once units are removed
(:func:`_text_left`)."""

from __future__ import annotations

import lxml.etree

from gatecrawl.core.extract.dom import _IN_WORD, _words


def _text_parts(root: lxml.etree._Element, units: list) -> tuple[list, list]:
    """``block_text(root)`` as the list of strings it joins, and where the text of each of
    ``units`` (elements below ``root``, none inside another, in document order: ``_leaf_units``)
    lies in that list: ``spans[k] = (start, end)`` with ``"".join(parts[start:end]) ==
    block_text(units[k])``. The same walk as ``block_text``'s, once for the selection and its
    units. A unit that is not inline formatting (``_IN_WORD``) has a ``" "`` part on each side;
    its tail, when it has one, is the part after the second."""
    parts: list[str] = []
    append = parts.append
    spans: list = []
    if not len(root):
        if root.text:
            append(root.text)
        return parts, spans
    if root.text:
        append(root.text)
    in_word = _IN_WORD
    nxt = units[0] if units else None
    k = 0
    # (children left, a break after the subtree, its tail, the span's start when it is a unit's)
    stack = [(iter(root), False, None, -1)]
    while stack:
        children, brk, tail, start = stack[-1]
        for c in children:
            tag = c.tag
            if tag.__class__ is str:
                b = tag not in in_word
                if b:
                    append(" ")
                at = -1
                if c is nxt:
                    at = len(parts)
                    k += 1
                    nxt = units[k] if k < len(units) else None
                text = c.text
                if text:
                    append(text)
                if len(c):
                    stack.append((iter(c), b, c.tail, at))
                    break
                if at >= 0:
                    spans.append((at, len(parts)))
                if b:
                    append(" ")
            text = c.tail
            if text:
                append(text)
        else:
            stack.pop()
            if start >= 0:
                spans.append((start, len(parts)))
            if brk:
                append(" ")
            if tail:
                append(tail)
    return parts, spans


def _unit_tokens(parts: list, spans: list, tokens: list) -> list:
    """Each unit's tokens (``_TOKEN_RX.findall(block_text(unit))``, from :func:`_text_parts`'s
    ``parts`` and ``spans``) and where they lie in ``tokens`` (the selection's): ``(toks, at)``
    with ``tokens[at:at + len(toks)] == toks``, or ``at`` -1 when they were not found there
    (where the text between the units was looked for: an inline unit can share a token with
    its neighbour). Then the windows of ``tokens`` from ``at`` are the unit's shingles."""
    out: list = []
    cursor = 0
    prev = 0
    for s, e in spans:
        toks = _words(parts[s] if e - s == 1 else "".join(parts[s:e]))
        gap = "".join(parts[prev:s])
        at = cursor + (len(_words(gap)) if gap and not gap.isspace() else 0)
        n = len(toks)
        if tokens[at:at + n] == toks:
            out.append((toks, at))
        else:
            out.append((toks, -1))
        cursor = at + n
        prev = e
    return out


def _text_left(parts: list, spans: list, gone: list) -> str:
    """``block_text`` of the selection once the units of ``gone`` (``(index, not inline, blank
    tail)``, in document order) are removed (``dom._drop``), from :func:`_text_parts`'s
    ``parts`` and ``spans`` taken before: each unit's parts go, with the spaces around it
    (not inline) and its tail when blank (``_drop`` leaves a blank tail out). A tail that stays
    joins the previous sibling's tail or the parent's text, which come just before it."""
    out: list = []
    pos = 0
    for i, spaced, blank in gone:
        s, e = spans[i]
        if spaced:
            s, e = s - 1, e + 1
        out.append("".join(parts[pos:s]))
        pos = e + 1 if blank else e
    out.append("".join(parts[pos:]))
    return "".join(out)
