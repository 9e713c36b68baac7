"""The visible text of a parsed HTML element: its text pieces in document order (scripts,
styles, templates, SVG and the head's elements left out), joined with whitespace collapsed.
Read by the page measurements (:mod:`gatecrawl.core.page`, which re-exports these) and the
selection; everything here reads an lxml element and never mutates it.
"""

from __future__ import annotations

from lxml.html import HtmlElement

__all__ = ["norm_space", "visible_text", "visible_text_reaches"]

_INVISIBLE = {"script", "style", "noscript", "template", "svg", "head", "title", "meta", "link"}


def norm_space(s: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped. ``str.split()`` and the regex
    class ``\\s`` agree on every code point (checked over all of Unicode), so this is
    ``re.sub(r"\\s+", " ", s).strip()``, only faster."""
    return " ".join(s.split())


def _iter_text(el: HtmlElement, skip=None, invisible=_INVISIBLE) -> list[str]:
    """The text pieces of ``el`` in document order: its text, its children's (an element whose
    tag is in ``invisible`` or for which ``skip(node)`` is true is left out with its subtree,
    never its tail), each child's tail after the child. ``el``'s own tail is not part of it.
    Iterative (a stack of child iterators): no recursion limit, and no call per element."""
    out: list[str] = []
    append = out.append
    tag = el.tag
    if isinstance(tag, str):
        if tag.lower() in invisible or (skip is not None and skip(el)):
            return out
        if el.text:
            append(el.text)
    elif skip is not None and skip(el):
        return out
    stack = [(iter(el), None)]
    while stack:
        children, tail = stack[-1]
        for child in children:
            tag = child.tag
            if isinstance(tag, str):
                if tag.lower() in invisible or (skip is not None and skip(child)):
                    if child.tail:
                        append(child.tail)
                    continue
                if child.text:
                    append(child.text)
                if len(child):
                    stack.append((iter(child), child.tail))  # descend; this level resumes after it
                    break
            # (a comment or processing instruction: no text, no children; its tail counts)
            if child.tail:
                append(child.tail)
        else:
            stack.pop()
            if tail:
                append(tail)
    return out


def visible_text(el: HtmlElement | None) -> str:
    """Visible text of ``el`` (scripts, styles, templates excluded), whitespace collapsed."""
    if el is None:
        return ""
    if not len(el):  # (no children: its own text is its one piece, unless it is left out)
        tag = el.tag
        if not isinstance(tag, str) or tag.lower() in _INVISIBLE:
            return ""
        text = el.text
        return norm_space(text) if text else ""
    return norm_space(" ".join(_iter_text(el)))


def visible_text_reaches(el: HtmlElement, chars: int) -> bool:
    """``len(visible_text(el)) >= chars``, the walk stopped as soon as it is known (an app root
    may hold the whole page). The pieces of ``_iter_text`` (in another order: only their sum
    counts), each one's words counted as it comes: the pieces are joined by spaces, so no word
    spans two, and the text's length is its words' characters and one space between each two."""
    if chars <= 0:
        return True
    tag = el.tag
    if isinstance(tag, str) and tag.lower() in _INVISIBLE:
        return False
    held = -1  # the words met, each with one space, less one
    stack = [iter((el,))]
    while stack:
        for node in stack[-1]:
            pieces = (node.tail,) if node is not el else ()
            tag = node.tag
            walked = isinstance(tag, str) and (node is el or tag.lower() not in _INVISIBLE)
            if walked:
                pieces += (node.text,)
            for piece in pieces:
                if piece:
                    words = piece.split()
                    held += len(words) + sum(map(len, words))
            if held >= chars:
                return True
            if walked and len(node):
                stack.append(iter(node))
                break
        else:
            stack.pop()
    return False
