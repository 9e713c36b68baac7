"""One content router (issue 17): every component that asks "HTML, PDF or other?" gets the answer
of gatecrawl.core.route.page_type, so none reads a response as a PDF while another reads it as
HTML."""

from __future__ import annotations

import pytest
from scrapy.http import Response

from gatecrawl.core.convert import convert
from gatecrawl.core.pdf import is_pdf
from gatecrawl.core.route import page_type
from gatecrawl.middlewares.sizecap import SizeCapMiddleware

HTML = b"<!doctype html><html><body><h1>Report</h1><p>Text.</p></body></html>"
PDF_HEAD = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"

CASES = [
    # (body, content type, url, expected)
    (HTML, "application/octet-stream", "https://x.test/report.pdf", "html"),  # the body says HTML
    (HTML, "text/html", "https://x.test/report.pdf", "html"),
    (HTML, "application/pdf", "https://x.test/a", "pdf"),  # the header decides first
    (PDF_HEAD, "text/html", "https://x.test/a", "pdf"),  # mislabelled: magic at the start
    (b"junk" + PDF_HEAD, "application/octet-stream", "https://x.test/a", "pdf"),
    (b"<p>mentions %PDF-1.7</p>", "text/html", "https://x.test/a", "html"),
    (b"\x01\x02binary", "application/octet-stream", "https://x.test/file.pdf", "pdf"),  # broken PDF download
    (b"\x01\x02binary", "application/octet-stream", "https://x.test/file.bin", "other"),
    (b"", None, "https://x.test/doc.PDF?x=1", "pdf"),
    (b"plain words", None, "https://x.test/a", "html"),
    (b"GIF89a...", "image/gif", "https://x.test/a.gif", "other"),
]


@pytest.mark.parametrize("body,ctype,url,want", CASES)
def test_every_component_gets_the_same_answer(body, ctype, url, want):
    assert page_type(body, ctype, url) == want
    assert is_pdf(body, ctype, url) is (want == "pdf")
    headers = {"Content-Type": ctype} if ctype else {}
    assert SizeCapMiddleware.kind(Response(url, body=body, headers=headers)) == want
    if body:
        assert convert(body, url, ctype).evidence["page_type"] == want


def test_a_markdown_answer_is_markdown_and_takes_the_html_size_cap():
    r = Response("https://x.test/a", body=b"# Title\n\nText.\n", headers={"Content-Type": "text/markdown; charset=utf-8"})
    assert page_type(r.body, "text/markdown; charset=utf-8", r.url) == "markdown" and not is_pdf(r.body, "text/markdown", r.url)
    assert SizeCapMiddleware.kind(r) == "html"
    assert page_type(PDF_HEAD, "text/markdown", "https://x.test/a") == "pdf"


def test_xml_takes_the_html_size_cap():
    r = Response("https://x.test/sitemap.xml", body=b"<?xml version='1.0'?><urlset/>", headers={"Content-Type": "application/xml"})
    assert page_type(r.body, "application/xml", r.url) == "other" and SizeCapMiddleware.kind(r) == "html"
