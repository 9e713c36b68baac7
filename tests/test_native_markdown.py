"""Negotiated Markdown (issue 18 item 3): requests say ``Accept: text/markdown, text/html;q=0.9``;
a site that answers ``Content-Type: text/markdown`` has its Markdown used as it is (normalised
deterministically), still gated and validated, with ``reader: native_markdown``."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from crawlutil import run_crawl
from gatecrawl.core.convert import convert, normalise_markdown, page_type
from gatecrawl.demo.dynamic import _PARAS

BODY = "\n\n".join(_PARAS[:4])
MD = f"# Notes on routing\n\n{BODY}\n\n```\nkeep  \n\n\n\nthis\n```\n\n## Links\n\n- [Home](/)\n"


def test_markdown_answer_is_used_as_it_is(packet_validator):
    res = convert(MD.encode(), "http://127.0.0.1/notes", "text/markdown; charset=utf-8")
    assert (res.ok, res.evidence["reader"], res.evidence["page_type"]) == (True, "native_markdown", "markdown")
    assert res.markdown == MD
    assert res.title == "Notes on routing" and res.evidence["selection_rule"] == "native_markdown"
    packet_validator.validate(res.evidence)


def test_normalisation_is_deterministic():
    crlf = "\ufeff---\r\ntitle: 'Front title'\r\ndate: 2026-01-02\r\n---\r\n" + MD.replace("\n", "\r\n").replace("routing\r\n", "routing   \r\n\r\n\r\n")
    got, meta = normalise_markdown(crlf)
    assert got == MD  # the same bytes as the LF original: blank runs outside code collapsed, code kept
    assert "keep  \n\n\n\nthis" in got
    assert meta == {"title": "Front title", "date": "2026-01-02"}
    res = convert(crlf.encode("utf-8"), "http://127.0.0.1/notes", "text/markdown")
    assert res.evidence["fields"]["title"] == "Front title" and res.markdown == got
    assert convert(crlf.encode("utf-8"), "http://127.0.0.1/notes", "text/markdown").evidence["markdown_sha256"] == res.evidence["markdown_sha256"]


@pytest.mark.parametrize("text, reason", [
    ("# Page not found\n\nSorry, the page you are looking for does not exist or has moved.", "soft_404"),
    ("# Short\n\nOne line.", "too_short"),
    ("", "extraction_empty"),
])
def test_markdown_answers_are_still_validated(text, reason):
    res = convert(text.encode(), "http://127.0.0.1/x", "text/markdown")
    assert not res.ok and res.evidence["reader"] == "native_markdown"
    assert reason in res.evidence["validation_report"]["reasons"], res.evidence["validation_report"]


def test_routing():
    assert page_type(b"# x", "text/markdown; charset=utf-8", "http://h/x") == "markdown"
    assert page_type(b"# x", "text/x-markdown", "http://h/x") == "markdown"
    assert page_type(b"%PDF-1.4", "text/markdown", "http://h/x") == "pdf"
    assert page_type(b"<p>x</p>", "text/plain", "http://h/x") == "html"  # unchanged


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        accept = self.headers.get("Accept", "")
        self.server.accepts[path] = accept  # type: ignore[attr-defined]
        if path == "/notes" and "text/markdown" in accept:
            body, ctype = MD.encode(), "text/markdown; charset=utf-8"
        elif path in ("/notes", "/page"):
            paras = "".join(f"<p>{p}</p>" for p in _PARAS[:4])
            body, ctype = f"<html><head><title>Page</title></head><body><main><h1>A page</h1>{paras}</main></body></html>".encode(), "text/html; charset=utf-8"
        elif path == "/robots.txt":
            body, ctype = b"User-agent: *\nAllow: /\n", "text/plain"
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.slow
def test_crawl_negotiates_markdown(tmp_path):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.accepts = {}  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        run = run_crawl("demo", tmp_path / "store", "-a", f"start_url={base}/notes {base}/page", "-a", "max_pages=2",
                        settings={"GATECRAWL_SUMMARY_PRINT": "False"}, timeout=120)
    finally:
        srv.shutdown()
        srv.server_close()
    assert srv.accepts["/notes"].startswith("text/markdown, text/html;q=0.9")  # type: ignore[attr-defined]
    packets = {urlsplit(p["url_final"]).path: p for p in run.packets()}
    notes, page = packets["/notes"], packets["/page"]
    assert (notes["outcome"], notes["reader"], notes["page_type"]) == ("kept", "native_markdown", "markdown")
    assert (notes["content_type"] or "").startswith("text/markdown")
    md = (run.store / "demo" / "pages" / f"{notes['url_key']}.md").read_text("utf-8")
    assert md == MD
    assert (page["outcome"], page["reader"]) == ("kept", "http")
    assert run.summary()["stats"]["gatecrawl/reader/native_markdown"] == 1
