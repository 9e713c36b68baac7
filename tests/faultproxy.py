"""Fault injection for tests: a TCP proxy that drops or delays connections, and an HTTP forward
proxy that requires (and records) proxy credentials.

``FaultProxy(upstream_port, drop_every=3)`` listens on 127.0.0.1 (port 0) and relays bytes to
``127.0.0.1:upstream_port``. Every ``drop_every``-th connection is dropped, alternating between
two failures: closed at once (the request never arrives), or closed after relaying the request
upstream but before any response byte reaches the client (the request was applied, the client
does not know). ``delay`` adds latency to every relayed chunk from upstream; ``down = True``
refuses everything. Idle connections are closed after ``idle_close`` seconds so that keep-alive
clients keep opening new connections (and keep meeting faults).
"""

from __future__ import annotations

import base64
import http.client
import selectors
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

__all__ = ["FaultProxy", "HttpForwardProxy"]


class FaultProxy:
    def __init__(self, upstream_port: int, *, drop_every: int = 0, delay: float = 0.0, idle_close: float = 0.3) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.drop_every = drop_every
        self.delay = delay
        self.idle_close = idle_close
        self.down = False
        self.connections = 0
        self.dropped = 0
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accept_thread = threading.Thread(target=self._accept_loop, name="faultproxy", daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultProxy:
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._accept_thread.join(timeout=5)
        self._sock.close()
        for t in list(self._threads):
            t.join(timeout=5)

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._sock.accept()
            except (socket.timeout, OSError):
                continue
            with self._lock:
                self.connections += 1
                n = self.connections
            if self.down:
                client.close()
                continue
            mode = "relay"
            if self.drop_every and n % self.drop_every == 0:
                with self._lock:
                    self.dropped += 1
                    mode = "close" if self.dropped % 2 else "swallow"
            t = threading.Thread(target=self._handle, args=(client, mode), daemon=True)
            self._threads = [x for x in self._threads if x.is_alive()] + [t]
            t.start()

    def _handle(self, client: socket.socket, mode: str) -> None:
        if mode == "close":
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
            client.close()
            return
        try:
            upstream = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            client.close()
            return
        sel = selectors.DefaultSelector()
        sel.register(client, selectors.EVENT_READ, upstream)
        sel.register(upstream, selectors.EVENT_READ, client)
        last = time.monotonic()
        sent_request = False
        try:
            while not self._stop.is_set():
                events = sel.select(timeout=0.05)
                if not events:
                    if mode == "swallow" and sent_request and time.monotonic() - last > 0.05:
                        return  # the request reached S3; the response never reaches the client
                    if time.monotonic() - last > self.idle_close:
                        return
                    continue
                for key, _ in events:
                    src: socket.socket = key.fileobj  # type: ignore[assignment]
                    dst: socket.socket = key.data
                    try:
                        data = src.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    last = time.monotonic()
                    if src is upstream:
                        if mode == "swallow":
                            return
                        if self.delay:
                            time.sleep(self.delay)
                    else:
                        sent_request = True
                    try:
                        dst.sendall(data)
                    except OSError:
                        return
        finally:
            sel.close()
            upstream.close()
            client.close()


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        server: HttpForwardProxy = self.server  # type: ignore[assignment]
        auth = self.headers.get("Proxy-Authorization")
        server.seen_auth.append(auth)
        if auth != server.expected_auth:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        target = urlsplit(self.path)
        conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=10)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-authorization", "proxy-connection", "connection")}
            path = target.path + (f"?{target.query}" if target.query else "")
            conn.request("GET", path or "/", headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            server.forwarded += 1
        finally:
            conn.close()

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


class HttpForwardProxy(ThreadingHTTPServer):
    """A plain-HTTP forward proxy on 127.0.0.1 that demands Basic proxy credentials."""

    daemon_threads = True

    def __init__(self, user: str, password: str) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.expected_auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.seen_auth: list[str | None] = []
        self.forwarded = 0
        self.port = self.server_address[1]
        self._thread = threading.Thread(target=self.serve_forever, name="httpproxy", daemon=True)

    def start(self) -> HttpForwardProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
