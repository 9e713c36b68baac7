"""Does an HTML page merely show a PDF in a viewer? (Whether a response *is* a PDF is the
content router's answer: :mod:`gatecrawl.core.route`.)"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

from gatecrawl.core.pageindex import PageIndex
from gatecrawl.core.route import page_type, url_says_pdf


def is_pdf(body: bytes, content_type: str | bytes | None, url: str) -> bool:
    """True when the content router (:func:`gatecrawl.core.route.page_type`) says ``pdf``."""
    return page_type(body, content_type, url) == "pdf"


_VIEWER_PARAMS = ("file", "url", "src", "pdf", "doc")
_VIEWER_HINT = re.compile(r"viewer|pdfjs|pdf\.js|/web/|gview|docs\.google\.com/viewer", re.I)


def _inner_from_viewer(u: str) -> str | None:
    """``.../viewer.html?file=<url-encoded pdf url>`` (query or fragment) -> the inner URL."""
    try:
        parts = urlsplit(u)
    except ValueError:
        return None
    for raw in (parts.query, parts.fragment):
        if not raw:
            continue
        q = parse_qs(raw, keep_blank_values=False)
        for key in _VIEWER_PARAMS:
            vals = q.get(key)
            if vals:
                inner = vals[0].strip()
                if inner and (url_says_pdf(inner) or _VIEWER_HINT.search(u)):
                    return inner
    return None


def _http(u: str) -> str | None:
    try:
        scheme = urlsplit(u).scheme.lower()
    except ValueError:
        return None
    return u if scheme in ("http", "https") else None


#: the elements that can show a PDF, with the attributes that can name it
_VIEWER_ATTRS = {"embed": ("src",), "object": ("data",), "iframe": ("src", "data-src"), "frame": ("src",)}


def find_pdf_viewer_source(doc, base_url: str, *, index: PageIndex | None = None) -> str | None:
    """The absolute http(s) URL of a PDF shown by this HTML page, or None.

    Looks, in document order, at ``<embed src>``, ``<object data>``, ``<iframe src>`` and
    ``<frame src>``: a pdf.js-style viewer URL (``viewer.html?file=...`` or ``#file=...``) yields
    its inner file URL (resolved against the viewer URL); otherwise a ``.pdf`` path or
    ``type="application/pdf"`` makes the element's own URL the answer. ``<base href>`` is honoured.
    ``index``: the document's ``PageIndex`` when the caller has it (a page without any of those
    elements is answered without a scan).
    """
    if index is not None and not any(index.tagged[tag] for tag in _VIEWER_ATTRS):
        return None
    base = base_url
    for b in doc.iter("base"):
        href = (b.get("href") or "").strip()
        if href:
            base = urljoin(base_url, href)
            break
    for el in doc.iter(*_VIEWER_ATTRS):
        tag = el.tag if isinstance(el.tag, str) else ""
        typ = (el.get("type") or "").split(";")[0].strip().lower()
        for attr in _VIEWER_ATTRS.get(tag.lower(), ()):
            raw = (el.get(attr) or "").strip()
            if not raw or raw.lower().startswith(("javascript:", "data:", "about:")):
                continue
            url = urljoin(base, raw)
            inner = _inner_from_viewer(url)
            if inner is not None:
                got = _http(urljoin(url, unquote(inner) if "%3a" in inner.lower()[:12] else inner))
                if got:
                    return got
            path_pdf = url_says_pdf(url)
            if path_pdf or typ in ("application/pdf", "application/x-pdf"):
                got = _http(url)
                if got:
                    return got
    return None
