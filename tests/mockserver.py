"""A programmable HTTP server for robustness and security tests (loopback only).

``MockServer(host="127.0.0.3")`` binds a free port on that loopback address and serves plain
HTTP; ``MockServer(host, tls=True)`` serves the same routes over HTTPS with a self-signed
certificate generated at runtime (``tests/tlscert.py``), and its ``url()`` starts with ``https://``:

- ``/article/<n>``: a complete article page (kept by gatecrawl);
- ``/redirect?to=URL&status=302``; ``/cookie-redirect?to=URL`` (sets a cookie, then 302);
  ``/secure-cookie-redirect?to=URL`` (sets ``sec=SECURECOOKIE`` with ``Secure`` and a plain
  ``jar=JARCOOKIE``, then 302);
  ``/meta-refresh?to=URL``;
- ``/status/<code>``; ``/flaky/<key>?fail=N`` (503 N times, then an article);
- ``/retry-after?seconds=S`` (429 with Retry-After);
- ``/echo``: records request headers in ``server.seen_headers``;
- ``/bomb/<gzip|deflate|br|zstd>``: a small body that expands to ~12 MB;
- ``/big?bytes=N``: a body of N bytes with Content-Length; ``/endless``: chunked, never ends;
- ``/download/<name>[?length=N]``: an ``application/octet-stream`` attachment
  (``Content-Disposition: attachment``) streamed in 64 KiB chunks, chunked and endless, or
  announcing ``Content-Length: N`` and sending up to N bytes (60 s at most). Body bytes written
  so far, summed over every request of the path, are in ``server.bytes_sent[path]``; each
  finished stream appends ``{"path", "sent", "end", "seconds"}`` to ``server.streams``, where
  ``end`` is ``client_gone``, ``complete``, ``deadline`` or ``stopping``;
- ``/truncated``: announces 20 bytes, sends 7, closes; ``/hang``: headers, then nothing; ``/wait``: nothing;
- ``/robots.txt``: per ``server.robots`` (``("status", body)``, ``("redirect", url)``, ``("close", None)``, ``("slow", seconds)``);
- ``/links``: an article whose links come from ``server.links``;
- any path set in ``server.pages`` (``{path: (status, content type, body)}``).

Every accepted connection is counted in ``server.connections``; every request path in ``server.hits``.
"""

from __future__ import annotations

import gzip
import ssl
import threading
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ARTICLE_WORDS = (
    "Careful crawlers keep an honest record of every fetch they make. They separate cheap requests from expensive renders, "
    "measure what they extract, and refuse to store pages that only look like content. A validation step with typed reasons "
    "turns vague failures into decisions someone can review. Evidence packets keep the timings, the selectors and the versions "
    "of every component, so that a change of scoring is never mistaken for a change of the web."
)


def article(n: int | str, links: list[str] | None = None) -> bytes:
    extra = "".join(f'<p><a href="{u}">link {i}</a></p>' for i, u in enumerate(links or []))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Article {n}</title></head><body>"
        f"<main><article><h1>Article {n}</h1><p>{ARTICLE_WORDS}</p><h2>Details {n}</h2><p>Section {n} repeats nothing and adds a few specific facts about item {n}: the fetch took time, the gate scored it, "
        f"and the converter wrote Markdown.</p>{extra}</article></main></body></html>"
    ).encode()


def _bomb(encoding: str) -> bytes:
    raw = b"\0" * (12 * 1024 * 1024)
    if encoding == "gzip":
        return gzip.compress(raw, 9)
    if encoding == "deflate":
        return zlib.compress(raw, 9)
    if encoding == "br":
        import brotli  # type: ignore[import-not-found]

        return brotli.compress(raw)
    if encoding == "zstd":
        import zstandard  # type: ignore[import-not-found]

        return zstandard.ZstdCompressor().compress(raw)
    raise ValueError(encoding)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "MockServer"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8", headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802, C901 - a router
        parts = urlsplit(self.path)
        path, q = parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self.server.lock:
            self.server.hits[path] += 1
            self.server.seen_headers.append({k.lower(): v for k, v in self.headers.items()} | {":path": self.path})
        if path in self.server.redirects:
            return self._send(302, b"", headers={"Location": self.server.redirects[path]})
        if path in self.server.pages:
            status, ctype, body = self.server.pages[path]
            return self._send(status, body, ctype=ctype)
        if path.startswith("/article/"):
            return self._send(200, article(path.rsplit("/", 1)[1]))
        if path == "/links":
            return self._send(200, article("links", self.server.links))
        if path == "/redirect":
            return self._send(int(q.get("status", "302")), b"", headers={"Location": q["to"]})
        if path == "/cookie-redirect":
            return self._send(302, b"", headers={"Location": q["to"], "Set-Cookie": "jar=JARCOOKIE; Path=/"})
        if path == "/secure-cookie-redirect":
            self.send_response(302)
            self.send_header("Location", q["to"])
            self.send_header("Set-Cookie", "sec=SECURECOOKIE; Path=/; Secure")
            self.send_header("Set-Cookie", "jar=JARCOOKIE; Path=/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if path == "/meta-refresh":
            body = f'<html><head><meta http-equiv="refresh" content="0; url={q["to"]}"><title>Moved</title></head><body>Moved</body></html>'
            return self._send(200, body.encode())
        if path.startswith("/status/"):
            return self._send(int(path.rsplit("/", 1)[1]), b"<html><body><h1>status</h1></body></html>")
        if path.startswith("/flaky/"):
            fails = int(q.get("fail", "2"))
            with self.server.lock:
                seen = self.server.hits[path]
            if seen <= fails:
                return self._send(503, b"<html><body>busy</body></html>")
            return self._send(200, article(path.rsplit("/", 1)[1]))
        if path == "/retry-after":
            return self._send(429, b"slow down", headers={"Retry-After": q.get("seconds", "120")})
        if path == "/echo":
            return self._send(200, article("echo"))
        if path.startswith("/bomb/"):
            enc = path.rsplit("/", 1)[1]
            return self._send(200, _bomb(enc), headers={"Content-Encoding": enc})
        if path == "/big":
            n = int(q.get("bytes", "100"))
            body = (b"<html><body><p>" + b"a" * max(0, n - 30) + b"</p></body></html>")[:n]
            return self._send(200, body)
        if path == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"<p>" + b"x" * 65536 + b"</p>"
            deadline = time.monotonic() + 60
            try:
                while time.monotonic() < deadline and not self.server.stopping:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                pass
            return None
        if path.startswith("/download/"):
            return self._download(path, int(q["length"]) if "length" in q else None)
        if path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "20")
            self.end_headers()
            self.wfile.write(b"<html>x")
            self.wfile.flush()
            self.close_connection = True
            return None
        if path == "/hang":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            self._sleep(60)
            return None
        if path == "/wait":
            self._sleep(60)
            return None
        if path == "/robots.txt":
            kind, value = self.server.robots
            if kind == "status":
                status, body = value
                return self._send(status, body.encode(), ctype="text/plain")
            if kind == "redirect":
                return self._send(302, b"", headers={"Location": value})
            if kind == "close":
                self.close_connection = True
                self.connection.close()
                return None
            if kind == "slow":
                self._sleep(float(value))
                return self._send(200, b"User-agent: *\nAllow: /\n", ctype="text/plain")
        return self._send(404, b"<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>")

    def _download(self, path: str, length: int | None) -> None:
        """Stream an attachment until the client goes away (or ``length`` bytes, or 60 s)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Disposition", 'attachment; filename="huge.bin"')
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        chunk = b"\0" * 65536
        sent, end = 0, "deadline"
        t0 = time.monotonic()
        try:
            while time.monotonic() - t0 < 60:
                if self.server.stopping:
                    end = "stopping"
                    break
                if length is not None and sent >= length:
                    end = "complete"
                    break
                data = chunk if length is None else chunk[: length - sent]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if length is None else data)
                sent += len(data)
                with self.server.lock:
                    self.server.bytes_sent[path] += len(data)
        except OSError:
            end = "client_gone"
        with self.server.lock:
            self.server.streams.append({"path": path, "sent": sent, "end": end, "seconds": round(time.monotonic() - t0, 2)})
        self.close_connection = True

    def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.server.stopping:
            time.sleep(0.05)


class MockServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tls: bool = False) -> None:
        super().__init__((host, port), _Handler)
        self.tls = tls
        self.ssl_context: ssl.SSLContext | None = None
        if tls:
            from tlscert import server_context

            self.ssl_context = server_context()
        self.lock = threading.Lock()
        self.hits: Counter[str] = Counter()
        self.connections = 0
        self.seen_headers: list[dict] = []
        self.bytes_sent: Counter[str] = Counter()  # /download/<name>: body bytes written, all requests
        self.streams: list[dict] = []  # /download/<name>: one entry per finished stream
        self.links: list[str] = []
        self.pages: dict[str, tuple[int, str, bytes]] = {}  # path -> (status, content type, body)
        self.redirects: dict[str, str] = {}  # path -> Location of a 302
        self.robots: tuple = ("status", (200, "User-agent: *\nAllow: /\n"))
        self.stopping = False
        self.host = host
        self.port = self.server_address[1]
        self.base_url = f"{'https' if tls else 'http'}://{host}:{self.port}"
        self._thread: threading.Thread | None = None

    def get_request(self):  # count every accepted connection
        conn = super().get_request()
        with self.lock:
            self.connections += 1
        return conn

    def process_request_thread(self, request, client_address):  # TLS handshake in the worker thread, not in accept()
        if self.ssl_context is not None:
            try:
                request.settimeout(30)
                request = self.ssl_context.wrap_socket(request, server_side=True)
                request.settimeout(None)
            except (ssl.SSLError, OSError):
                self.shutdown_request(request)
                return
        super().process_request_thread(request, client_address)

    def start(self) -> "MockServer":
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping = True
        self.shutdown()
        self.server_close()

    def url(self, path: str) -> str:
        return self.base_url + path


__all__ = ["MockServer", "article"]
