"""Routing: is_pdf (Content-Type, magic, extension) and PDF-in-a-viewer detection."""

from __future__ import annotations

import sys
from pathlib import Path

import lxml.html
import pytest

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # tests/ (pdfgen) and the repo (gatecrawl)
import pdfgen  # noqa: E402

from gatecrawl.core.pdf import find_pdf_viewer_source, is_pdf  # noqa: E402

PDF = pdfgen.born_digital(1, sections=1).data
HTML = b"<!doctype html><html><body><p>Hello</p></body></html>"


@pytest.mark.parametrize(
    "body,ctype,url,want",
    [
        (PDF, "application/pdf", "https://x.test/a", True),
        (b"", "application/pdf; qs=0.9", "https://x.test/a", True),
        (HTML, "application/x-pdf", "https://x.test/a", True),  # the header decides first
        (PDF, "application/octet-stream", "https://x.test/download?id=3", True),
        (PDF, "binary/octet-stream", "https://x.test/file", True),
        (b"\x00junk" * 10 + PDF, "application/octet-stream", "https://x.test/f", True),
        (HTML, "application/octet-stream", "https://x.test/f.pdf", False),  # magic decides
        (b"", "application/octet-stream", "https://x.test/f.pdf", True),  # nothing to sniff yet
        (PDF, None, "https://x.test/f", True),
        (b"", None, "https://x.test/report.PDF?x=1", True),
        (b"", None, "https://x.test/report.html", False),
        (HTML, "text/html; charset=utf-8", "https://x.test/a.pdf", False),
        (b"<p>The header is %PDF-1.7</p>", "text/html", "https://x.test/a", False),
        (PDF, "text/html", "https://x.test/a", True),  # mislabelled PDF: magic at the start
        (b"\xef\xbb\xbf" + PDF, "text/plain", "https://x.test/a", True),
        (PDF, b"application/pdf", "https://x.test/a", True),
    ],
)
def test_is_pdf(body, ctype, url, want):
    assert is_pdf(body, ctype, url) is want


def _doc(html: str):
    return lxml.html.fromstring(html)


BASE = "https://example.org/docs/page.html"


@pytest.mark.parametrize(
    "html,want",
    [
        ('<embed src="files/a.pdf" type="application/pdf">', "https://example.org/docs/files/a.pdf"),
        ('<object data="/b.pdf"></object>', "https://example.org/b.pdf"),
        ('<iframe src="https://cdn.test/c.PDF#page=2"></iframe>', "https://cdn.test/c.PDF#page=2"),
        ('<iframe src="/pdfjs/web/viewer.html?file=%2Fstore%2Fd.pdf"></iframe>',
         "https://example.org/store/d.pdf"),
        ('<iframe src="/viewer.html?file=https%3A%2F%2Fother.test%2Fx%2Fe.pdf&zoom=1"></iframe>',
         "https://other.test/x/e.pdf"),
        ('<iframe src="/web/viewer.html#file=/f/report.pdf"></iframe>',
         "https://example.org/f/report.pdf"),
        ('<iframe src="/lib/viewer.html?file=get%3Fid%3D9"></iframe>',  # viewer, no .pdf ext
         "https://example.org/lib/get?id=9"),
        ('<object data="/download?id=7" type="application/pdf"></object>',
         "https://example.org/download?id=7"),
        ('<embed src="/movie.swf"><iframe src="/x.html"></iframe>', None),
        ('<iframe src="javascript:void(0)"></iframe>', None),
        ('<embed src="ftp://example.org/a.pdf">', None),
        ('<a href="/a.pdf">link only</a>', None),
        ('<html><head><base href="https://base.test/sub/"></head><body>'
         '<embed src="g.pdf"></body></html>', "https://base.test/sub/g.pdf"),
        ('<p>text</p><iframe src="/first.html"></iframe><embed src="second.pdf">',
         "https://example.org/docs/second.pdf"),
    ],
)
def test_find_pdf_viewer_source(html, want):
    assert find_pdf_viewer_source(_doc(html), BASE) == want


def test_viewer_page_document():
    page = """<!doctype html><html><head><title>Annual report</title></head><body>
    <header>Site</header><main><h1>Annual report</h1>
    <div class="viewer"><iframe width="100%" height="800"
      src="/static/pdfjs/web/viewer.html?file=%2Fmedia%2Freports%2F2024-annual.pdf#page=1">
    </iframe></div></main></body></html>"""
    got = find_pdf_viewer_source(lxml.html.fromstring(page), "https://corp.test/reports/2024/")
    assert got == "https://corp.test/media/reports/2024-annual.pdf"
