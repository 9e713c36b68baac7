"""The embedded demo site and its server (``python -m gatecrawl.demo --port N``)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from gatecrawl.demo import drift
from gatecrawl.demo.site import EXPECTED, render

__all__ = ["DemoServer", "EXPECTED", "serve"]


class _Handler(BaseHTTPRequestHandler):
    server_version = "gatecrawl-demo/1"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        path = urlsplit(self.path).path or "/"
        status, ctype, body = render(path, self.server.base_url)  # type: ignore[attr-defined]
        status, ctype, body = drift.apply(self.server, path, status, ctype, body)
        self.server.hits[path] = self.server.hits.get(path, 0) + 1  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Set-Cookie", "demo_session=s3cr3t-session-value; Path=/; HttpOnly")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


class DemoServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), _Handler)
        self.hits: dict[str, int] = {}
        # Paths served as SPA shells (gatecrawl.demo.drift; also GATECRAWL_DEMO_SHELLS).
        self.shells: set[str] = set()
        self.base_url = f"http://{host}:{self.server_address[1]}"

    def start_in_thread(self) -> "DemoServer":
        t = threading.Thread(target=self.serve_forever, name="gatecrawl-demo", daemon=True)
        t.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def serve(port: int = 8750, host: str = "127.0.0.1") -> DemoServer:
    return DemoServer(host, port)
