"""The content router: is a response HTML, a PDF, Markdown, or something gatecrawl does not read?

One function, :func:`page_type`, answers for every component that needs to know (the
conversion path, the render middleware, the size caps, the conversion pipeline), so none can
treat a response as a PDF while another treats it as HTML. The order of evidence:

1. a PDF media type (``application/pdf`` and its aliases) decides: ``pdf``;
2. a Markdown media type (``text/markdown``: a site that answered the ``Accept`` header's
   first choice) is ``markdown``, unless the body starts with ``%PDF-``;
3. the body itself *starting* with ``%PDF-`` (after a BOM, whitespace or NULs) is a PDF whatever
   its label; with a generic or missing type, ``%PDF-`` anywhere in the first 1024 bytes is;
4. a generic type (``application/octet-stream`` and the like) or none: a body that sniffs as
   HTML is ``html``; else a ``.pdf`` URL path is ``pdf`` (an empty or broken download of a PDF
   goes to the PDF reader, which says why it cannot read it); else ``html`` when there is no type
   at all (what browsers do) and ``other`` for a generic binary type;
5. an HTML-ish media type (``text/html``, XHTML, ``text/plain``) is ``html``;
6. anything else is ``other``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["GENERIC_TYPES", "MARKDOWN_TYPES", "PDF_TYPES", "media_type", "page_type", "url_says_pdf"]

PDF_TYPES = frozenset({"application/pdf", "application/x-pdf", "application/acrobat",
                       "applications/vnd.pdf", "text/pdf", "text/x-pdf"})
GENERIC_TYPES = frozenset({"application/octet-stream", "binary/octet-stream", "application/binary",
                           "application/x-download", "application/force-download", "application/download",
                           "application/unknown"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
MAGIC = b"%PDF-"
_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<div", b"<p", b"<!--")
_SNIFF_STRIP = b"\xef\xbb\xbf \t\r\n\x00"


def media_type(content_type: str | bytes | None) -> str:
    """``text/html; charset=utf-8`` -> ``text/html`` (lower case; ``""`` when missing)."""
    if content_type is None:
        return ""
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    return content_type.split(";", 1)[0].strip().lower()


def url_says_pdf(url: str) -> bool:
    try:
        return urlsplit(url or "").path.lower().endswith(".pdf")
    except ValueError:
        return False


def page_type(body: bytes, content_type: str | bytes | None, url: str) -> str:
    """``html``, ``pdf``, ``markdown`` or ``other`` for a response (see the module docstring)."""
    ctype = media_type(content_type)
    if ctype in PDF_TYPES:
        return "pdf"
    head = bytes(body[:1024]) if body else b""
    stripped = head.lstrip(_SNIFF_STRIP)
    if ctype in MARKDOWN_TYPES and not stripped.startswith(MAGIC):
        return "markdown"
    generic = ctype in GENERIC_TYPES or not ctype
    if stripped.startswith(MAGIC) or (generic and MAGIC in head):
        return "pdf"
    if generic:
        if stripped[:512].lower().startswith(_HTML_STARTS):
            return "html"
        if url_says_pdf(url):
            return "pdf"
        # No type at all: read as HTML (what browsers do); a generic binary type is not HTML.
        return "other" if ctype else "html"
    if ctype in HTML_TYPES or (ctype.endswith("+xml") and "html" in ctype):
        return "html"
    return "other"
