"""The browser's egress proxy applies the same policy as the HTTP path (T07's mechanism)."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading

import pytest

from gatecrawl.egress.policy import EgressPolicy
from gatecrawl.egress.proxy import EgressProxy


@pytest.fixture
def proxy(origin):
    loop = asyncio.new_event_loop()
    t = threading.Thread(target=loop.run_forever, daemon=True)
    t.start()
    policy = EgressPolicy([f"127.0.0.3:{origin.port}"])
    p = asyncio.run_coroutine_threadsafe(EgressProxy(policy).start(), loop).result(10)
    yield p
    asyncio.run_coroutine_threadsafe(p.stop(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    t.join(5)
    loop.close()


def _get(proxy, url):
    conn = http.client.HTTPConnection(proxy.host, proxy.port, timeout=10)
    conn.request("GET", url)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


def test_plain_http_through_the_proxy(proxy, origin, canary):
    status, body = _get(proxy, origin.url("/article/1"))
    assert status == 200 and b"Article 1" in body
    status, body = _get(proxy, canary.url("/secret"))
    assert status == 403 and b"egress_blocked" in body
    status, _ = _get(proxy, "http://169.254.169.254/latest/meta-data/")
    assert status == 403
    assert canary.connections == 0
    assert {b.detail for b in proxy.blocked} == {"address_class=loopback", "address_class=link_local"}


def test_connect_tunnels_are_checked_and_pinned(proxy, origin, canary):
    s = socket.create_connection((proxy.host, proxy.port), timeout=10)
    s.sendall(f"CONNECT 127.0.0.2:{canary.port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert s.recv(100).startswith(b"HTTP/1.1 403")
    s.close()
    s = socket.create_connection((proxy.host, proxy.port), timeout=10)
    s.sendall(f"CONNECT 127.0.0.3:{origin.port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert s.recv(100).startswith(b"HTTP/1.1 200")
    s.sendall(b"GET /article/7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    s.close()
    assert b"Article 7" in data
    assert canary.connections == 0


def test_non_http_schemes_are_refused(proxy):
    status, body = _get(proxy, "ftp://127.0.0.3/x")
    assert status == 403 and b"scheme_blocked" in body


def test_refusals_are_logged_once_per_destination_naming_host_names_only(proxy, caplog):
    """A refused host name is named (Chromium's own background calls showed as refusals with no
    host), once per destination; an address literal is never echoed, only its kind."""
    import logging

    with caplog.at_level(logging.INFO, logger="gatecrawl.egress.proxy"):
        for _ in range(3):
            # (a name from /etc/hosts: no DNS query leaves the machine)
            assert _get(proxy, "http://localhost/service/update2")[0] == 403
        assert _get(proxy, "http://169.254.169.254/latest/meta-data/")[0] == 403
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert lines == [
        "browser egress refused: localhost:80 (egress_blocked: address_class=loopback)",
        "browser egress refused: an address literal, port 80 (egress_blocked: address_class=link_local)",
    ]


def test_stop_ends_the_connections_still_served(origin):
    """A client that connected and sent nothing (its handler waits for a request head) or holds
    a tunnel open: ``stop`` cancels their handlers and closes their sockets before it returns,
    so no task is left pending and no socket open when the event loop closes."""

    async def scenario():
        policy = EgressPolicy([f"127.0.0.3:{origin.port}"])
        p = await EgressProxy(policy).start()
        idle_r, idle_w = await asyncio.open_connection(p.host, p.port)
        tun_r, tun_w = await asyncio.open_connection(p.host, p.port)
        tun_w.write(f"CONNECT 127.0.0.3:{origin.port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await tun_w.drain()
        assert (await tun_r.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        for _ in range(100):  # both handlers registered (the idle one may still be starting)
            if len(p._live) == 2:
                break
            await asyncio.sleep(0.01)
        assert len(p._live) == 2
        handlers = list(p._live)
        await p.stop()
        assert not p._live and all(t.done() for t in handlers)
        # the proxy closed both clients' connections: each reads end of stream
        assert await asyncio.wait_for(idle_r.read(), 5) == b""
        assert await asyncio.wait_for(tun_r.read(), 5) == b""
        idle_w.close()
        tun_w.close()
        await asyncio.gather(idle_w.wait_closed(), tun_w.wait_closed(), return_exceptions=True)
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert pending == []

    asyncio.run(scenario())
