"""Egress policy: which destinations a crawl may connect to.

Rules (fail closed):

- only ``http`` and ``https`` URLs are fetched (``scheme_blocked`` otherwise);
- every address a host resolves to is classified; a destination is admitted only when **all**
  its addresses are globally routable, or when it matches an entry of the allow list;
- IPv6 forms that embed an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, IPv4-translated
  ``::ffff:0:a.b.c.d`` (SIIT, RFC 2765), IPv4-compatible ``::a.b.c.d``, NAT64 ``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16``, Teredo
  ``2001::/32``) are decoded and the embedded address is classified too;
- a DNS error or an empty answer is a refusal (``dns_unresolved``).

The allow list (``GATECRAWL_EGRESS_ALLOW``) admits non-global destinations explicitly. Entries:
``host:port`` (that host or address, that port only), ``host`` (any port), or a CIDR
(``10.0.0.0/8``, ``127.0.0.1/32``), optionally with ``:port`` after it (``127.0.0.0/8:8080``).
Everything else that is not global is refused, including other ports and other loopback
addresses.

Refusals carry an address *class*, never the internal address itself, so logs of a public
run do not echo internal IPs.

Pure: no Scrapy or Twisted imports; the adapters (middleware, resolver, proxy) live next to it in
:mod:`gatecrawl.egress`.
"""

from __future__ import annotations

import importlib
import ipaddress
import os
import re
import socket
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from gatecrawl.core.reasons import Reason

__all__ = [
    "ALLOWED_SCHEMES",
    "EgressDecision",
    "EgressPolicy",
    "AllowEntry",
    "address_class",
    "parse_allow_entry",
    "resolve_host",
    "load_resolver",
    "env_allow_entries",
    "admit_hint",
    "PinTable",
    "start_url_entries",
]

ALLOWED_SCHEMES = ("http", "https")
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_6TO4 = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
_ULA = ipaddress.ip_network("fc00::/7")
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # IPv4-translated (SIIT), not IPv4-mapped


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    packed = ip.packed
    if ip in _TRANSLATED:
        return ipaddress.IPv4Address(packed[-4:])
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(packed[-4:])
    if ip in _6TO4:
        return ipaddress.IPv4Address(packed[2:6])
    if ip in _TEREDO:
        # Teredo: the client's address is stored inverted in the last 32 bits.
        return ipaddress.IPv4Address(bytes(b ^ 0xFF for b in packed[-4:]))
    if packed[:12] == b"\x00" * 12 and int(ip) > 1:  # IPv4-compatible ::a.b.c.d (deprecated)
        return ipaddress.IPv4Address(packed[-4:])
    return None


def _plain_class(ip: IPAddress) -> str:
    """The class of an address with no embedded IPv4 form: the first test that holds, in the
    same order for both versions (CGNAT for IPv4 where IPv6 has ULA; only IPv4 tests
    ``is_reserved`` before the final global check)."""
    v4 = ip.version == 4
    tests = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link_local", ip.is_link_local),
        ("cgnat", ip in _CGNAT) if v4 else ("ula", ip in _ULA),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", v4 and ip.is_reserved),
    )
    for name, holds in tests:
        if holds:
            return name
    return "global" if ip.is_global else "reserved"


def address_class(ip: IPAddress | str) -> str:
    """Classify an address: ``global`` or the reason it is not (loopback, private, link_local,
    cgnat, ula, multicast, unspecified, reserved), with embedded IPv4 forms decoded
    (e.g. ``nat64:link_local``)."""
    if isinstance(ip, str):
        ip = ipaddress.ip_address(ip.strip("[]").split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _plain_class(ip)
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        inner = _plain_class(embedded)
        if ip.ipv4_mapped is not None:
            kind = "ipv4_mapped"
        elif ip in _TRANSLATED:
            kind = "ipv4_translated"
        elif any(ip in net for net in _NAT64):
            kind = "nat64"
        elif ip in _6TO4:
            kind = "6to4"
        elif ip in _TEREDO:
            kind = "teredo"
        else:
            kind = "ipv4_compatible"
        if inner != "global":
            return f"{kind}:{inner}"
        # A transition form wrapping a public IPv4 is as public as that address.
        return "global"
    return _plain_class(ip)


@dataclass(frozen=True)
class AllowEntry:
    host: str | None  # a host name (exact, lowercase) when not a network
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None
    port: int | None

    def matches(self, host: str, ip: IPAddress, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            return ip in self.network or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None and ip.ipv4_mapped in self.network)
        return self.host == host.lower().rstrip(".")


_PORT_SUFFIX = re.compile(r"^(?P<base>.+?)(?::(?P<port>\d{1,5}))?$")


def parse_allow_entry(entry: str) -> AllowEntry:
    """Parse ``host``, ``host:port``, ``CIDR``, ``CIDR:port``, ``[v6]:port``. Raises ValueError."""
    text = entry.strip()
    if not text:
        raise ValueError("empty egress allow entry")
    port: int | None = None
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise ValueError(f"bad egress allow entry {entry!r}")
        base, rest = text[1:close], text[close + 1 :]
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise ValueError(f"bad egress allow entry {entry!r}")
            port = int(rest[1:])
    elif text.count(":") == 1 or ("/" in text and text.rsplit(":", 1)[-1].isdigit() and "." in text):
        m = _PORT_SUFFIX.match(text)
        assert m is not None
        base = m.group("base")
        port = int(m.group("port")) if m.group("port") else None
    else:
        base = text
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"bad port in egress allow entry {entry!r}")
    try:
        network = ipaddress.ip_network(base, strict=False)
        return AllowEntry(host=None, network=network, port=port)
    except ValueError:
        pass
    if not re.fullmatch(r"[A-Za-z0-9.\-]+", base):
        raise ValueError(f"bad egress allow entry {entry!r}")
    return AllowEntry(host=base.lower().rstrip("."), network=None, port=port)


@dataclass(frozen=True)
class EgressDecision:
    allowed: bool
    reason: Reason | None = None  # SCHEME_BLOCKED or EGRESS_BLOCKED
    detail: str | None = None  # e.g. "address_class=loopback", "dns_unresolved", "scheme=file"
    address_class: str | None = None
    addresses: tuple[str, ...] = ()  # the vetted addresses to pin (only when allowed)

    def describe(self) -> str:
        return f"{self.reason}: {self.detail}" if self.detail else str(self.reason)


def resolve_host(host: str, port: int) -> list[str]:
    """All addresses ``host`` resolves to (A and AAAA), in the resolver's order, de-duplicated."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = sockaddr[0].split("%", 1)[0]
        if addr not in out:
            out.append(addr)
    return out


# Address classes a user may mean to crawl (a site on this machine or the local network); a
# refusal of one of them names the setting that admits it. Never suggested for link-local,
# CGNAT or ULA destinations: cloud metadata endpoints live there.
ADMITTABLE_CLASSES = ("loopback", "private")


def admit_hint(url: str, decision: "EgressDecision") -> str | None:
    """For a refusal of a non-public destination: ``host:port`` and the setting that admits it
    (``GATECRAWL_EGRESS_ALLOW=host:port``); None for other refusals (scheme, DNS)."""
    if decision.allowed or decision.reason != Reason.EGRESS_BLOCKED or decision.address_class not in ADMITTABLE_CLASSES:
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or EgressPolicy.default_port(parts.scheme.lower())
    except ValueError:
        return None
    if not host:
        return None
    dest = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return f"{dest} is not a public address ({decision.address_class}); to crawl it, admit it with -s GATECRAWL_EGRESS_ALLOW={dest}"


def env_allow_entries(environ: Mapping[str, str] | None = None) -> list[str]:
    """Allow entries the machine's operator adds with ``GATECRAWL_EGRESS_ALLOW`` (comma-separated)."""
    env = os.environ if environ is None else environ
    return [e.strip() for e in env.get("GATECRAWL_EGRESS_ALLOW", "").split(",") if e.strip()]


def load_resolver(path: str | None) -> Callable[[str, int], list[str]]:
    """The name-resolution function: ``resolve_host`` by default, or ``module:function``
    (``GATECRAWL_EGRESS_RESOLVER``), e.g. a split-horizon resolver, or the tests' fake DNS."""
    if not path:
        return resolve_host
    module, _, name = path.partition(":")
    if not name:
        raise ValueError(f"GATECRAWL_EGRESS_RESOLVER must be 'module:function', got {path!r}")
    return getattr(importlib.import_module(module), name)


class EgressPolicy:
    def __init__(self, allow: Iterable[str] = (), *, include_env: bool = False, resolver: Callable[[str, int], list[str]] | None = None) -> None:
        entries = list(allow) + (env_allow_entries() if include_env else [])
        self.allow: tuple[AllowEntry, ...] = tuple(parse_allow_entry(e) for e in entries)
        self.resolver = resolver or resolve_host

    @staticmethod
    def default_port(scheme: str) -> int:
        return 443 if scheme == "https" else 80

    def check_scheme(self, url: str) -> EgressDecision:
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme not in ALLOWED_SCHEMES:
            return EgressDecision(False, Reason.SCHEME_BLOCKED, f"scheme={scheme or 'none'}")
        return EgressDecision(True)

    def check_addresses(self, host: str, port: int, addresses: Sequence[str]) -> EgressDecision:
        """Admit ``host:port`` only if every address is global or allow-listed."""
        if not addresses:
            return EgressDecision(False, Reason.EGRESS_BLOCKED, "dns_unresolved", "unresolved")
        for addr in addresses:
            try:
                ip = ipaddress.ip_address(addr)
            except ValueError:
                return EgressDecision(False, Reason.EGRESS_BLOCKED, "unparseable_address", "invalid")
            cls = address_class(ip)
            if cls == "global":
                continue
            if any(entry.matches(host, ip, port) for entry in self.allow):
                continue
            return EgressDecision(False, Reason.EGRESS_BLOCKED, f"address_class={cls}", cls)
        return EgressDecision(True, addresses=tuple(addresses))

    def check_url(self, url: str, resolver: Callable[[str, int], list[str]] | None = None) -> EgressDecision:
        """Full check of one URL: scheme, then every resolved address. Blocking (DNS)."""
        decision = self.check_scheme(url)
        if not decision.allowed:
            return decision
        try:
            parts = urlsplit(url)
            host = parts.hostname
            port = parts.port or self.default_port(parts.scheme.lower())
        except ValueError:
            return EgressDecision(False, Reason.EGRESS_BLOCKED, "bad_url", "invalid")
        if not host:
            return EgressDecision(False, Reason.EGRESS_BLOCKED, "no_host", "invalid")
        try:
            addresses = [str(ipaddress.ip_address(host))]
        except ValueError:
            try:
                addresses = list((resolver or self.resolver)(host, port))
            except (OSError, UnicodeError):
                return EgressDecision(False, Reason.EGRESS_BLOCKED, "dns_unresolved", "unresolved")
        return self.check_addresses(host, port, addresses)


class PinTable:
    """(host, port) -> the addresses the policy vetted for it, for one crawl (thread-safe).

    Written where a destination is vetted (the middleware, the resolver for a connection made
    outside the middleware chain, the browser's proxy) and read where connections are made (the
    resolver, the proxy), so a connection goes to exactly the address that was checked."""

    def __init__(self) -> None:
        self._pins: dict[tuple[str, int], tuple[str, ...]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(host: str, port: int) -> tuple[str, int]:
        return host.lower().rstrip("."), port

    def pin(self, host: str, port: int, addresses: Sequence[str]) -> None:
        with self._lock:
            self._pins[self._key(host, port)] = tuple(addresses)

    def pinned(self, host: str, port: int) -> tuple[str, ...] | None:
        with self._lock:
            return self._pins.get(self._key(host, port))


def _admittable_start_host(host: str) -> bool:
    """A start URL's host that ``GATECRAWL_EGRESS_ADMIT_START_URLS`` may admit: ``localhost`` or
    a loopback or private address literal. Never a name (it could resolve anywhere), never a
    link-local, CGNAT, ULA or other special address (cloud metadata endpoints live there)."""
    if host.lower() == "localhost":
        return True
    try:
        return address_class(host) in ADMITTABLE_CLASSES
    except ValueError:
        return False


def start_url_entries(recipe: object) -> list[str]:
    """``host:port`` of each start URL and sitemap of ``recipe`` (spider arguments applied) whose
    host is ``localhost`` or a loopback or private address literal; other start URLs are left
    to the egress policy like any other URL."""
    out = []
    for url in tuple(getattr(recipe, "start_urls", ())) + tuple(getattr(recipe, "sitemaps", ())):
        parts = urlsplit(url)
        if parts.hostname and _admittable_start_host(parts.hostname):
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            out.append(f"{host}:{parts.port or EgressPolicy.default_port(parts.scheme.lower())}")
    return out
