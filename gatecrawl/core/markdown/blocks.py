"""Block constructs: definition lists, details summaries and figure captions."""

from __future__ import annotations

import lxml.etree
import lxml.html

from gatecrawl.core.markdown.dom import _drop_keep_tail, _has_block, _has_text
from gatecrawl.core.page import remove_keep_tail

def _wrap_children(el: lxml.etree._Element, tag: str) -> None:
    """Move the content of ``el`` into a new ``<tag>`` child."""
    wrapper = lxml.html.Element(tag)
    wrapper.text, el.text = el.text, None
    for child in list(el):
        wrapper.append(child)  # the tail moves with the child
    el.append(wrapper)


def _label_paragraph(el: lxml.etree._Element, tag: str) -> None:
    """Turn ``el`` (a summary or caption) into a paragraph whose text is wrapped in ``<tag>``.
    When it holds paragraphs, each is wrapped; with other block content it becomes a plain
    ``div``."""
    if _has_block(el):
        el.tag = "div"
        kids = [c for c in el if isinstance(c.tag, str)]
        loose = (el.text or "").strip() or any((c.tail or "").strip() for c in el)
        if not loose and all(c.tag == "p" and not _has_block(c) for c in kids):
            for c in kids:
                if _has_text(c):
                    _wrap_children(c, tag)
        return
    el.tag = "p"
    if _has_text(el):
        _wrap_children(el, tag)


def _text_para(text: str | None, items: list) -> None:
    if text and text.strip():
        p = lxml.html.Element("p")
        p.text = text
        items.append(p)


def _holds_terms(node: lxml.etree._Element) -> bool:
    stack = list(node)
    while stack:
        d = stack.pop()
        if d.tag in ("dt", "dd"):
            return True
        if d.tag != "dl":  # a nested list's terms are its own
            stack.extend(d)
    return False


def _dl_items(node: lxml.etree._Element, items: list) -> None:
    """Append the items of a ``<dl>`` (or of a ``div`` group inside it) to ``items``: children
    in order, ``div`` groups opened, stray text as paragraphs. (Module functions, not nested
    ones: a nested function calling itself would keep the tree alive in a reference cycle.)"""
    _text_para(node.text, items)
    for child in list(node):
        tail, child.tail = child.tail, None
        if child.tag == "div" and _holds_terms(child):
            _dl_items(child, items)
        elif isinstance(child.tag, str):
            items.append(child)
        _text_para(tail, items)


def _prepare_definition_lists(work: lxml.etree._Element) -> None:
    for dl in list(work.iter("dl")):
        if dl.getparent() is None and dl is not work:
            continue
        # Children in order; ``div`` groups (HTML allows them around dt/dd) are opened, stray
        # text becomes a paragraph.
        items: list[lxml.etree._Element] = []
        _dl_items(dl, items)
        groups: list[tuple[list, list]] = []
        state = ""
        for item in items:
            if item.tag == "dt":
                if state != "dt":
                    groups.append(([], []))
                state = "dt"
                if _has_text(item) or any(True for _ in item.iter("img")):
                    groups[-1][0].append(item)
            else:
                if not groups:
                    groups.append(([], []))
                state = "dd"
                if _has_text(item) or any(True for _ in item.iter("img")):
                    groups[-1][1].append(item)
        for child in list(dl):
            dl.remove(child)
        dl.text = None
        for k in list(dl.attrib):
            del dl.attrib[k]
        dl.tag = "ul"
        for terms, defs in groups:
            if not terms and not defs:
                continue
            li = lxml.etree.SubElement(dl, "li")
            term_p = None
            for dt in terms:  # terms in bold, one per line, in one paragraph
                dt.attrib.clear()
                if _has_block(dt) or not _has_text(dt):
                    # a term holding blocks (or only an image) stays a block of its own
                    dt.tag = "div"
                    li.append(dt)
                    term_p = None
                    continue
                if term_p is None:
                    term_p = lxml.etree.SubElement(li, "p")
                else:
                    lxml.etree.SubElement(term_p, "br")
                dt.tag = "strong"
                term_p.append(dt)
            for dd in defs:
                if dd.tag == "dd":
                    dd.tag = "div"
                li.append(dd)
        if not len(dl):
            _drop_keep_tail(dl) if dl is not work else None


def _prepare_details_and_figures(work: lxml.etree._Element) -> None:
    for details in list(work.iter("details")):
        for summary in [c for c in details if c.tag == "summary"]:
            _label_paragraph(summary, "strong")
    for figure in list(work.iter("figure")):
        captions = [c for c in figure if c.tag == "figcaption"]
        for cap in captions:
            # Text after the caption stays where it was (a blank tail is dropped); the caption
            # itself moves to the end below, without it.
            remove_keep_tail(cap, keep_blank_tail=False)
            cap.tail = None
        for cap in captions:  # captions follow the figure's content
            _label_paragraph(cap, "em")
            figure.append(cap)
