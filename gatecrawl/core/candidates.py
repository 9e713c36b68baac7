"""The independent candidates of the agreement vote (see :mod:`gatecrawl.core.agreement`):
the text another extractor finds on the whole page, from the page's one parse.

* ``trafilatura``: trafilatura's own extractor (fast mode: no internal fallback; comments
  off unless the page is a thread);
* ``readability``: the Readability algorithm (trafilatura's port).

Both are optional at run time: when trafilatura cannot be imported the vote degrades to the
own selection alone. The page is not modified (see :func:`_code_muted` and
:mod:`gatecrawl.core.unread`: parts are taken out while a candidate runs, then put back). No
Scrapy imports.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging

import lxml.html

from gatecrawl.core.unread import is_json_ld, unread_detached

__all__ = ["CANDIDATES", "candidate_text"]


class _Quiet(logging.Filter):
    """The candidates often find nothing to say on a page: their "discarding data" and
    "readability_lxml failed" warnings are expected, not worth a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        return "discarding data" not in msg and "readability_lxml failed" not in msg


_QUIET = _Quiet()


@functools.cache  # (the filters are put on once)
def _quiet_logs() -> None:
    for name in ("trafilatura.core", "trafilatura.external", "trafilatura.main_extractor",
                 "trafilatura.readability_lxml", "trafilatura.htmlprocessing", "trafilatura.utils"):
        lg = logging.getLogger(name)
        if _QUIET not in lg.filters:
            lg.addFilter(_QUIET)


CANDIDATES = ("trafilatura", "readability")


@functools.cache
def _trafilatura_options(include_comments: bool):
    """trafilatura's extractor settings, made once per comment setting: building them reads its
    configuration anew (about a fifth of a millisecond a page), and it never changes them."""
    from trafilatura.settings import Extractor

    return Extractor(fast=True, comments=include_comments, tables=True, dedup=False)


def candidate_text(doc: lxml.html.HtmlElement, name: str, *, include_comments: bool = False) -> str:
    """One independent candidate's text for ``doc`` (which is not modified); comments are
    left out unless ``include_comments`` (a thread, whose posts are its content)."""
    try:
        import trafilatura
        from trafilatura.external import try_readability
    except Exception:  # the vote degrades to the own selection alone
        return ""
    _quiet_logs()
    root = doc.getroottree().getroot() if doc is not None else None
    if root is None:
        return ""
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}")
    if name == "trafilatura":
        with unread_detached(root):
            options = _trafilatura_options(bool(include_comments))
            return trafilatura.extract(root, options=options) or ""
    with _code_muted(root):
        art = try_readability(copy.deepcopy(root))
        return (art.text_content() or "") if art is not None and len(art) else ""


@contextlib.contextmanager
def _code_muted(root: lxml.html.HtmlElement):
    """``root`` with the source text of its scripts (JSON-LD excepted) taken out while the block
    runs, then put back: the Readability candidate copies the whole tree first and discards
    scripts unread, and on many pages script source is most of the document's characters.
    (Style sheets stay.) The script elements and their tails stay where they are. (The
    trafilatura candidate takes whole scripts out instead: :mod:`gatecrawl.core.unread`.)"""
    muted = []
    for el in root.iter("script"):
        if el.text and not is_json_ld(el):
            muted.append((el, el.text))
            el.text = None
    try:
        yield
    finally:
        for el, text in muted:
            el.text = text
