"""The browser's side of the egress policy: one :class:`~gatecrawl.egress_proxy.EgressProxy`
per crawler process, started with the browser and closed with it.

``EgressMiddleware`` calls :func:`configure` with the crawl's policy when the crawler starts;
the browser provider calls :func:`ensure_proxy` before launching Chromium and adds
:func:`chromium_proxy_args` to its flags, so every connection the browser makes (pages,
subresources, frames, fetch/XHR, redirects, JS navigations) is checked and pinned. Without a
configured policy (egress disabled) the browser is launched without a proxy.
"""

from __future__ import annotations

import asyncio

from gatecrawl.core.egress import EgressPolicy
from gatecrawl.egress_proxy import EgressProxy

__all__ = ["configure", "ensure_proxy", "shutdown", "chromium_proxy_args", "BLOCKED_HEADER"]

BLOCKED_HEADER = "x-gatecrawl-egress"
_policy: EgressPolicy | None = None
_proxy: EgressProxy | None = None
_lock: asyncio.Lock | None = None


def configure(policy: EgressPolicy | None) -> None:
    global _policy
    _policy = policy


def configured() -> bool:
    return _policy is not None


async def ensure_proxy() -> EgressProxy | None:
    """Start the proxy on the running event loop the first time; None when egress is off."""
    global _proxy, _lock
    if _policy is None:
        return None
    if _lock is None:
        _lock = asyncio.Lock()
    async with _lock:
        if _proxy is None:
            _proxy = await EgressProxy(_policy).start()
    return _proxy


async def shutdown() -> None:
    global _proxy
    if _proxy is not None:
        await _proxy.stop()
        _proxy = None


def chromium_proxy_args(proxy: EgressProxy) -> list[str]:
    # "<-loopback>" removes Chromium's implicit bypass of localhost/127.0.0.1: loopback is
    # exactly what an SSRF wants, so it goes through the policy too.
    return [f"--proxy-server={proxy.url}", "--proxy-bypass-list=<-loopback>"]
