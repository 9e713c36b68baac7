"""A local forward proxy that applies the egress policy to the browser's traffic.

Chromium's requests (subresources, frames, fetch/XHR, JS navigations, redirects) never pass
through Scrapy's middlewares, and Playwright's ``page.route`` does not see redirect hops. So
the browser is launched with ``--proxy-server`` pointing here (and
``--proxy-bypass-list=<-loopback>`` so that not even loopback bypasses it). For every
connection the proxy checks the destination with the same :class:`EgressPolicy` as the HTTP
path, resolves the host once per run (the crawl's pin table, shared with
:mod:`gatecrawl.egress.resolver`), and connects to the vetted address itself: DNS rebinding and
redirects to internal hosts are refused at connection level. Refusals get a ``403`` and are
recorded (``blocked``), with the address class, never the address.

Supports ``CONNECT host:port`` (HTTPS tunnels, pinned) and absolute-form plain HTTP requests
(one request per connection). It runs on the crawler's asyncio event loop.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from gatecrawl.core.reasons import Reason
from gatecrawl.egress.policy import EgressDecision, EgressPolicy, PinTable

__all__ = ["EgressProxy", "BlockedAttempt"]

logger = logging.getLogger(__name__)

_MAX_HEAD = 64 * 1024
_HOP_HEADERS = frozenset({"proxy-connection", "proxy-authorization", "connection", "keep-alive", "te", "trailer", "upgrade"})


@dataclass(frozen=True)
class BlockedAttempt:
    host: str
    port: int
    reason: str
    detail: str


@dataclass
class _Counters:
    allowed: int = 0
    blocked: list[BlockedAttempt] = field(default_factory=list)


def _where(host: str, port: int) -> str:
    """The destination as a log may name it: a host name with its port; an address literal only
    by its kind (logs never echo internal addresses)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return f"{host}:{port}"
    return f"an address literal, port {port}"


class EgressProxy:
    def __init__(self, policy: EgressPolicy, host: str = "127.0.0.1", port: int = 0, connect_timeout: float = 10.0, pins: PinTable | None = None) -> None:
        self.policy = policy
        self.pins = pins if pins is not None else PinTable()
        self.host = host
        self.port = port
        self.connect_timeout = connect_timeout
        self.counters = _Counters()
        self._server: asyncio.base_events.Server | None = None
        self._decisions: dict[tuple[str, int], EgressDecision] = {}
        self._reported: set[str] = set()
        #: the connections being served: their handler tasks and client writers (``stop`` ends them)
        self._live: dict[asyncio.Task, asyncio.StreamWriter] = {}

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def blocked(self) -> list[BlockedAttempt]:
        return list(self.counters.blocked)

    async def start(self) -> "EgressProxy":
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Stop listening and end the connections still being served: their handlers are
        cancelled and their client sockets closed before this returns (Python 3.11's
        ``Server.wait_closed`` does not wait for them, and a handler left pending when its event
        loop closes leaves its socket open)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        live = list(self._live.items())
        self._live.clear()
        for task, _writer in live:
            task.cancel()
        if live:
            await asyncio.gather(*(task for task, _ in live), return_exceptions=True)
        for _task, writer in live:
            writer.close()

    async def _decide(self, host: str, port: int) -> EgressDecision:
        key = (host.lower().rstrip("."), port)
        decision = self._decisions.get(key)
        if decision is None:
            addrs = self.pins.pinned(*key)
            if addrs is not None:
                decision = self.policy.check_addresses(key[0], port, addrs)
            else:
                hostpart = f"[{host}]" if ":" in host else host
                loop = asyncio.get_running_loop()
                decision = await loop.run_in_executor(None, self.policy.check_url, f"http://{hostpart}:{port}/")
                if decision.allowed:
                    self.pins.pin(key[0], port, decision.addresses)
            self._decisions[key] = decision
        return decision

    def _refuse(self, host: str, port: int, decision: EgressDecision) -> bytes:
        self.counters.blocked.append(BlockedAttempt(host, port, decision.reason or Reason.EGRESS_BLOCKED, decision.detail or ""))
        where = _where(host, port)
        # Once per destination at INFO (a page's trackers, Chromium's own update and sign-in
        # calls repeat on every page); the repeats at DEBUG.
        level = logging.DEBUG if where in self._reported else logging.INFO
        self._reported.add(where)
        logger.log(level, "browser egress refused: %s (%s)", where, decision.describe())
        body = f"gatecrawl egress policy: {decision.reason}\n".encode()
        marker = f"{decision.reason}; {decision.detail or ''}".encode()
        return (
            b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            b"X-Gatecrawl-Egress: %s\r\nContent-Length: %d\r\n\r\n%s" % (marker, len(body), body)
        )

    async def _open(self, decision: EgressDecision, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        last: Exception | None = None
        for addr in decision.addresses:
            try:
                return await asyncio.wait_for(asyncio.open_connection(addr, port), self.connect_timeout)
            except (OSError, asyncio.TimeoutError) as exc:
                last = exc
        raise ConnectionError(f"upstream unreachable: {type(last).__name__}")

    async def _upstream(self, host: str, port: int, writer: asyncio.StreamWriter):
        """Check ``host:port`` and connect to its vetted address; on refusal or failure answer
        the client (403 / 502), close it and return None."""
        decision = await self._decide(host, port)
        if not decision.allowed:
            writer.write(self._refuse(host, port, decision))
            await self._close(writer)
            return None
        try:
            upstream = await self._open(decision, port)
        except ConnectionError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            await self._close(writer)
            return None
        self.counters.allowed += 1
        return upstream

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._live[task] = writer
        try:
            await self._serve(reader, writer)
        finally:
            if task is not None:
                self._live.pop(task, None)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
            writer.close()
            return
        try:
            if len(head) > _MAX_HEAD:
                raise ValueError("head too large")
            lines = head.decode("latin-1").split("\r\n")
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            await self._close(writer)
            return
        if method.upper() == "CONNECT":
            await self._connect(target, reader, writer)
        else:
            await self._forward(method, target, version, lines[1:], reader, writer)

    async def _connect(self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, _, port_s = target.rpartition(":")
        host = host.strip("[]")
        try:
            port = int(port_s)
        except ValueError:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            await self._close(writer)
            return
        upstream = await self._upstream(host, port, writer)
        if upstream is None:
            return
        up_r, up_w = upstream
        try:
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await writer.drain()
        except BaseException:  # (a client gone, or ``stop``: the upstream socket is closed too)
            up_w.close()
            raise
        await self._pipe_both(reader, writer, up_r, up_w)

    async def _forward(self, method: str, target: str, version: str, header_lines: list[str], reader, writer) -> None:
        parts = urlsplit(target)
        decision = self.policy.check_scheme(target)
        if parts.scheme.lower() != "http" or not parts.hostname:
            if decision.allowed:  # https in absolute form is not how browsers talk to proxies
                decision = EgressDecision(False, Reason.SCHEME_BLOCKED, f"scheme={parts.scheme or 'none'}")
            writer.write(self._refuse(parts.hostname or "", 0, decision))
            await self._close(writer)
            return
        upstream = await self._upstream(parts.hostname, parts.port or 80, writer)
        if upstream is None:
            return
        up_r, up_w = upstream
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        out = [f"{method} {path} {version}"]
        for line in header_lines:
            if not line:
                continue
            name = line.split(":", 1)[0].strip().lower()
            if name not in _HOP_HEADERS:
                out.append(line)
        out.append("Connection: close")
        try:
            up_w.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
            await up_w.drain()
        except BaseException:  # (the upstream gone, or ``stop``: its socket is closed)
            up_w.close()
            raise
        await self._pipe_both(reader, writer, up_r, up_w)

    async def _pipe_both(self, cr, cw, ur, uw) -> None:
        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while True:
                    chunk = await src.read(65536)
                    if not chunk:
                        break
                    dst.write(chunk)
                    await dst.drain()
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                pass
            finally:
                try:
                    if dst.can_write_eof():
                        dst.write_eof()
                except (OSError, RuntimeError):
                    pass

        try:
            await asyncio.gather(pipe(cr, uw), pipe(ur, cw), return_exceptions=True)
        except asyncio.CancelledError:  # ``stop``: both sockets closed, without waiting
            uw.close()
            cw.close()
            raise
        await self._close(uw)
        await self._close(cw)

    @staticmethod
    async def _close(writer: asyncio.StreamWriter) -> None:
        try:
            writer.close()
            await writer.wait_closed()
        except (OSError, RuntimeError, ConnectionError):
            pass
