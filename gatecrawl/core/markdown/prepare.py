"""The preparation stage (lxml), on a deep copy of the root: provenance markers, non-content
removal, code capture, text clean-up, block constructs, tables, links and images, tag renames."""

from __future__ import annotations

import copy
import re

import lxml.etree

from gatecrawl.core.markdown.admonitions import _prepare_admonitions
from gatecrawl.core.markdown.blocks import _prepare_definition_lists, _prepare_details_and_figures
from gatecrawl.core.markdown.code import _code_language, _code_text
from gatecrawl.core.markdown.dom import (_BLOCK_RENAME, _BLOCK_TAGS, _CODE_CLOSE, _CODE_OPEN,
    _DROP_TAGS, _EMPHASIS, _HEADINGS, _TO_CLEAN, _TRANSPARENT_INLINE, _clean_text, _drop_keep_tail,
    _has_text, _norm_ws)
from gatecrawl.core.markdown.links import Targets
from gatecrawl.core.markdown.tables import (_is_layout_table, _rebuild_table, _unwrap_layout_table,
                                           _unwrap_root_layout_table)

#: the elements below the root with a ``hidden`` attribute
_HIDDEN = lxml.etree.XPath("descendant::*[@hidden]")
#: any character ``_clean_text`` removes or replaces but the no-break space
_CLEANED_BUT_NBSP = re.compile(_TO_CLEAN.pattern.replace("\xa0", ""))
#: the text nodes below the root (and the root's own) holding a no-break space
_NBSP_TEXTS = lxml.etree.XPath("descendant-or-self::text()[contains(., '\u00a0')]")
#: the names given to elements removed with the non-content ones, and to elements unwrapped
#: (no parsed tag has upper case)
_REMOVED = "GC-REMOVED"
_UNWRAPPED = "GC-UNWRAPPED"
#: the texts of an element and its descendants and their tails, joined (not the element's tail)
_STRING_VALUE = lxml.etree.XPath("string()", smart_strings=False)
#: texts and targets at least this long are left to the parser to judge (its limit is 10 MB)
_LONG_TEXT = 1_000_000


class _Prepared:
    def __init__(self) -> None:
        self.codes: list[tuple[str, str]] = []  # (language, code)
        #: (kind, element of the prepared root): a heading or paragraph marked for provenance
        self.prov_paths: list[tuple[str, lxml.etree._Element]] = []
        #: no text holds a carriage return or is too long for the parser, no link or image
        #: target holds a character the serialiser percent-encodes (see :mod:`.roundtrip`)
        self.plain = True


def _prepare(root: lxml.etree._Element, base: str) -> tuple[lxml.etree._Element, _Prepared]:
    info = _Prepared()
    work = copy.deepcopy(root)
    work.tail = None

    # Provenance markers first, while the copy is structurally identical to ``root``: each
    # marked element's counterpart in ``root`` is kept (its path and text are read there,
    # later, and only for the markers that reach the provenance).
    n_p = 0
    originals = root.iter(*_HEADINGS, "p")
    for el in work.iter(*_HEADINGS, "p"):
        src = next(originals)
        if el.tag == "p":
            if n_p >= 12:  # enough candidates for "first 3 paragraphs with output"
                continue
            n_p += 1
        info.prov_paths.append((el.tag, src))
        el.set("data-gc-prov", str(len(info.prov_paths) - 1))

    # Non-content elements, comments and processing instructions, and elements with a
    # ``hidden`` attribute (renamed first), below ``work``: removed with their content, the text
    # that follows each kept in its place (libxml2 leaves it where it was: it joins the text
    # before the element).
    for el in _HIDDEN(work):
        el.tag = _REMOVED
    lxml.etree.strip_elements(work, _REMOVED, *_DROP_TAGS, lxml.etree.Comment,
                              lxml.etree.ProcessingInstruction, with_tail=False)

    # Whether any text or tail holds a character the clean-up below removes or replaces (one
    # search over all of them, taken before the code capture, which only takes texts away and
    # writes its markers into the texts the clean-up skips): many pages hold none. (All of
    # them: the XPath string value of ``work``, its texts and tails joined by libxml2, what
    # ``"".join(work.itertext())`` gives without a Python string per text.)
    texts = _STRING_VALUE(work)
    to_clean = _TO_CLEAN.search(texts) is not None
    # (later steps add no carriage return and no long text: this holds for the prepared tree)
    if "\r" in texts or len(texts) > _LONG_TEXT:
        info.plain = False

    # Code blocks: capture the code verbatim, then replace the content by a marker.
    for pre in list(work.iter("pre", "listing", "xmp", "plaintext")):
        if pre.getparent() is None and pre is not work:
            continue
        anc = pre.getparent()
        nested = False
        while anc is not None:
            if anc.tag in ("pre",):
                nested = True
                break
            anc = anc.getparent()
        if nested:
            continue
        lang = _code_language(pre)
        code = _code_text(pre)
        for child in list(pre):
            pre.remove(child)
        for k in list(pre.attrib):
            del pre.attrib[k]
        pre.tag = "pre"
        if code.strip():
            info.codes.append((lang, code))
            pre.text = f"{_CODE_OPEN}{len(info.codes) - 1}{_CODE_CLOSE}"
        else:
            pre.text = None

    # Text clean-up (sentinels, zero-width), outside code blocks.
    # (``_clean_text`` returns the very string it was given when there is nothing to clean:
    # only a changed text is written back)
    # (the search first: most texts hold nothing to clean)
    needs_clean = _TO_CLEAN.search
    if to_clean and _CLEANED_BUT_NBSP.search(texts) is None:
        # No-break spaces only (the common case): the elements whose text or tail holds one,
        # found by libxml2 (an element's text or tail may be more than one text node: the
        # whole is cleaned, once or more).
        for node in _NBSP_TEXTS(work):
            el = node.getparent()
            if node.is_tail:
                el.tail = _clean_text(el.tail)
            elif el.tag != "pre":
                el.text = _clean_text(el.text)
        to_clean = False
    for el in work.iter() if to_clean else ():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag != "pre":
            t = el.text
            if t and needs_clean(t) is not None:
                el.text = _clean_text(t)
        t = el.tail
        if t and needs_clean(t) is not None:
            el.tail = _clean_text(t)

    # Block constructs: admonitions (before details: a collapsible admonition is a details),
    # definition lists, details summaries and figure captions.
    _prepare_admonitions(work)
    _prepare_definition_lists(work)
    _prepare_details_and_figures(work)

    # Tables: innermost first so that nested layout is resolved bottom-up.
    tables = list(work.iter("table"))
    for table in reversed(tables):
        if table.getparent() is None and table is not work:
            continue
        if _is_layout_table(table):
            if table is work:
                _unwrap_root_layout_table(work)
                continue
            _unwrap_layout_table(table)
        else:
            _rebuild_table(table) if table is not work else None

    # Links and images.
    targets = Targets(base)
    for el in list(work.iter("a", "img")):
        attrib = el.attrib
        if el.tag == "a":
            url = targets.url(attrib.get("href"))
            prov = attrib.get("data-gc-prov")
            attrib.clear()
            if url:
                attrib["href"] = url
                if not (url.isascii() and len(url) < _LONG_TEXT):
                    info.plain = False
            if prov:
                attrib["data-gc-prov"] = prov
        else:
            src = attrib.get("src") or ""
            stripped = src.strip()
            if not stripped or stripped.lower().startswith("data:"):
                src = attrib.get("data-src") or attrib.get("data-original") or attrib.get("data-lazy-src") or src
            url = targets.url(src)
            if not url:
                _drop_keep_tail(el)
                continue
            if not (url.isascii() and len(url) < _LONG_TEXT):
                info.plain = False
            alt = _norm_ws(attrib.get("alt") or "")
            attrib.clear()
            attrib["src"] = url
            attrib["alt"] = alt

    # Tag renames and inline clean-up. (Tag names are in lower case: the HTML parser writes
    # them so and every element made here or in the extraction is named so.)
    for el in list(work.iter(*_BLOCK_RENAME)):
        el.tag = _BLOCK_RENAME[el.tag]
    # Inline markup that cannot stay is unwrapped: around a block (inline markup cannot span
    # blocks), or inside the same emphasis or a heading. (An element to unwrap is renamed, and
    # all are unwrapped at once below: a renamed ancestor no longer counts, as if it were gone
    # already, and unwrapping an element changes nothing the tests of the elements after it in
    # document order look at. A comment's tag is a function, in no set of names.)
    for el in work.iter("b", "strong", "em", "i", "a", "del", "s", "strike", "code", "kbd",
                        "samp", "q"):
        if el is work:
            continue
        if len(el) and any(True for d in el.iterdescendants() if d.tag in _BLOCK_TAGS):
            el.tag = _UNWRAPPED
            continue
        kind = _EMPHASIS.get(el.tag)
        if kind:
            for anc in el.iterancestors():
                tag = anc.tag
                if _EMPHASIS.get(tag) == kind or tag in _HEADINGS:
                    el.tag = _UNWRAPPED
                    break
    # Fewer, shallower nodes for the converter: transparent inline tags are unwrapped and
    # text-less wrappers around a single element are removed (no change in output). (libxml2
    # moves each one's children and texts into its parent, below ``work`` itself.)
    lxml.etree.strip_tags(work, _UNWRAPPED, *_TRANSPARENT_INLINE)
    # (a wrapper's test looks at its own text and children, which unwrapping the wrappers
    # before it leaves as they are: they are renamed and unwrapped at once)
    for el in work.iter("div"):
        if el is work or len(el) != 1:
            continue
        if (el.text and el.text.strip()) or (el[0].tail and el[0].tail.strip()):
            continue
        if el.get("data-gc-prov") is None:
            el.tag = _UNWRAPPED
    lxml.etree.strip_tags(work, _UNWRAPPED)
    for h in list(work.iter(*_HEADINGS)):
        if not _has_text(h):
            _drop_keep_tail(h) if h is not work else None
    return work, info
