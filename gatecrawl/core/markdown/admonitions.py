"""Admonitions (notes, warnings, callouts ...) become blockquotes opened by their label in bold."""

from __future__ import annotations

import functools
import re

import lxml.etree
import lxml.html

from gatecrawl.core.markdown.dom import _drop_keep_tail, _has_text, _norm_ws

# Admonition types and their labels. A type is read from the class tokens of the container:
# ``<prefix>-<type>`` / ``<prefix>--<type>`` (GitHub ``markdown-alert-note``, Docusaurus
# ``theme-admonition-warning``, Quarto ``callout-tip``), or a bare ``<type>`` token next to a
# container token (Sphinx and MkDocs ``admonition note``, MDN ``notecard warning``). Bootstrap
# and Infima ``alert-info`` / ``alert--danger`` name a colour, not a type: an ``alert`` is an
# admonition only with a title element (Docsy ``alert-heading``).
_ADMONITION_LABELS = {
    "abstract": "Abstract", "attention": "Attention", "bug": "Bug", "caution": "Caution",
    "danger": "Danger", "error": "Error", "example": "Example", "failure": "Failure",
    "hint": "Hint", "important": "Important", "info": "Info", "note": "Note",
    "question": "Question", "quote": "Quote", "seealso": "See also", "success": "Success",
    "tip": "Tip", "tldr": "TL;DR", "todo": "Todo", "warning": "Warning",
}
# Class tokens that make an element an admonition container on their own.
_ADMONITION_CONTAINERS = frozenset(
    ["admonition", "admonitionblock", "theme-admonition", "markdown-alert", "callout", "notecard",
     "alert"]
)
# Bare type tokens that make an element an admonition without a container token (kept short:
# words such as ``summary``, ``info`` or ``quote`` are common layout class names).
_ADMONITION_BARE = frozenset(
    ["note", "tip", "hint", "warning", "caution", "important", "danger", "attention"]
)
_ADMONITION_PREFIXED = re.compile(
    r"(?:markdown-alert|theme-admonition|admonition|callout|notecard)--?([a-z]+)"
)
_ADMONITION_TITLE_CLASSES = frozenset(
    ["admonition-title", "markdown-alert-title", "admonition-heading", "alert-heading",
     "alert-title", "callout-title", "callout-title-container"]
)
_ADMONITION_TAGS = ("div", "aside", "section", "details", "blockquote")
#: a word in every token that makes an admonition or a container (lower case)
_ADMONITION_WORD = re.compile(
    "admonition|alert|callout|note|tip|hint|warning|caution|important|danger|attention")


def _class_tokens(el: lxml.etree._Element) -> list[str]:
    return (el.get("class") or "").lower().split()


def _admonition_type(el: lxml.etree._Element) -> tuple[bool, str | None]:
    """(may be an admonition, its type or None) from the class tokens, first match wins.
    A container token without a type makes an admonition only when a title is found."""
    return _admonition_class(el.get("class") or "")


@functools.lru_cache(maxsize=4096)
def _admonition_class(cls: str) -> tuple[bool, str | None]:
    """``_admonition_type`` of a class attribute (pure, cached: pages repeat their classes)."""
    low = cls.lower()
    if _ADMONITION_WORD.search(low) is None:
        return False, None  # (most classes: no token below can match)
    tokens = low.split()
    container = any(t in _ADMONITION_CONTAINERS for t in tokens)
    for tok in tokens:
        m = _ADMONITION_PREFIXED.fullmatch(tok)
        if m and m.group(1) in _ADMONITION_LABELS:
            return True, m.group(1)
        if tok in _ADMONITION_BARE or (container and tok in _ADMONITION_LABELS):
            return True, tok
    return container, None


def _is_admonition_title(el: lxml.etree._Element) -> bool:
    return any(t in _ADMONITION_TITLE_CLASSES or t.startswith("admonitionheading")
               for t in _class_tokens(el))


def _label_of(text: str) -> str | None:
    """The canonical label when ``text`` is just a type word ("note", "WARNING:"), else None."""
    return _ADMONITION_LABELS.get(text.lower().rstrip(":").strip())


def _prepare_admonitions(work: lxml.etree._Element) -> None:
    """Admonitions become blockquotes opened by their label in bold (package rule)."""
    found: list[tuple[lxml.etree._Element, str | None]] = []
    for el in work.iter(*_ADMONITION_TAGS):
        if el is work or not el.get("class"):
            continue  # (no class: no type)
        maybe, kind = _admonition_type(el)
        if maybe and _has_text(el):
            found.append((el, kind))
    if not found:
        return
    members = {id(el) for el, _ in found}

    def owner(node: lxml.etree._Element) -> lxml.etree._Element | None:
        anc = node.getparent()
        while anc is not None and id(anc) not in members:
            anc = anc.getparent()
        return anc

    plans = []
    for el, kind in found:
        title_el = icon_td = None
        for d in el.iterdescendants():
            if not isinstance(d.tag, str):
                continue
            if _is_admonition_title(d) or (d.tag == "summary" and d.getparent() is el):
                if owner(d) is el:
                    title_el = d
                    break
            if d.tag == "td" and "icon" in _class_tokens(d) and icon_td is None and owner(d) is el:
                icon_td = d  # Asciidoctor: label cell, then the content cell
        if title_el is None and icon_td is not None:
            title_el = icon_td
        if kind or title_el is not None:
            plans.append((el, kind, title_el))
    for el, kind, title_el in plans:
        title = ""
        if title_el is not None:
            title = _norm_ws("".join(title_el.itertext()))
            content = title_el.getnext() if title_el.tag == "td" else None
            table = next(title_el.iterancestors("table"), None) if content is not None else None
            if table is not None and content.tag == "td":
                # the content cell replaces the two-cell table
                holder = lxml.html.Element("div")
                holder.text = content.text
                for child in list(content):
                    holder.append(child)
                table.addprevious(holder)
                _drop_keep_tail(table)
            else:
                _drop_keep_tail(title_el)
        if not title and kind:
            first = next((c for c in el if isinstance(c.tag, str) and _has_text(c)), None)
            lead = (el.text or "").strip()
            if not lead and first is not None and \
                    _label_of(_norm_ws("".join(first.itertext()))) == _ADMONITION_LABELS[kind]:
                title = _ADMONITION_LABELS[kind]  # a first block holding only the label
                _drop_keep_tail(first)
        if title:
            label = _label_of(title) or title
        elif kind:
            label = _ADMONITION_LABELS[kind]
            body = _norm_ws("".join(el.itertext())).lower()
            if re.match(re.escape(label.lower()) + r"\s*[:!\u2013\u2014-]", body):
                label = ""  # the body already opens with its label ("Note: ...")
        else:
            label = ""
        el.tag = "blockquote"
        el.attrib.clear()
        if label:
            para = lxml.html.Element("p")
            strong = lxml.etree.SubElement(para, "strong")
            strong.text = label
            para.tail, el.text = el.text, None
            el.insert(0, para)
