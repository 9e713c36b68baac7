"""A Twisted name resolver that enforces the egress policy and pins vetted addresses.

``EgressMiddleware`` vets each (host, port) once per run and records the vetted addresses in
the resolver's pin table (:attr:`EgressResolver.pins`, which the crawl's
:class:`~gatecrawl.egress.runtime.Egress` runtime joins through :func:`installed_pins`). Every
connection Scrapy's HTTP handlers make asks this resolver, which answers with exactly those
addresses: the connection goes to the address that was checked, with no
second lookup, so DNS rebinding cannot swap it. A host that was not vetted (a connection made
outside the middleware chain) is resolved and checked here, fail closed: a refusal is an
empty answer, which Twisted turns into a DNS lookup error.

Enabled with ``TWISTED_DNS_RESOLVER = "gatecrawl.egress.resolver.EgressResolver"``. Scrapy
builds it once per process and installs it on the reactor, so its pin table serves every crawl
of the process.
"""

from __future__ import annotations

import ipaddress
import logging
import sys
from typing import TYPE_CHECKING, Any, Sequence

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.interfaces import IHostnameResolver, IHostResolution, IResolutionReceiver
from twisted.internet.threads import deferToThreadPool
from zope.interface import implementer

from gatecrawl.egress.policy import EgressPolicy, PinTable, load_resolver
from gatecrawl.envsettings import setting_list

if TYPE_CHECKING:
    from twisted.internet.base import ReactorBase

logger = logging.getLogger(__name__)

def installed_pins() -> PinTable | None:
    """The pin table of the :class:`EgressResolver` installed on the reactor, or None (no
    reactor yet, or another resolver)."""
    reactor = sys.modules.get("twisted.internet.reactor")
    resolver = getattr(reactor, "nameResolver", None) if reactor is not None else None
    return resolver.pins if isinstance(resolver, EgressResolver) else None


@implementer(IHostResolution)
class _Resolution:
    def __init__(self, name: str) -> None:
        self.name = name

    def cancel(self) -> None:  # pragma: no cover - Twisted API
        pass


def _address(addr: str, port: int, semantics: str) -> Any:
    ip = ipaddress.ip_address(addr)
    kind = "TCP" if semantics == "TCP" else "UDP"
    return IPv6Address(kind, addr, port) if ip.version == 6 else IPv4Address(kind, addr, port)


@implementer(IHostnameResolver)
class EgressResolver:
    def __init__(self, reactor: ReactorBase, allow: Sequence[str], resolver_path: str | None = None) -> None:
        self.reactor = reactor
        self.policy = EgressPolicy(allow, include_env=True, resolver=load_resolver(resolver_path))
        self.pins = PinTable()

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: ReactorBase) -> "EgressResolver":
        s = crawler.settings
        return cls(reactor, setting_list(s, "GATECRAWL_EGRESS_ALLOW"), s.get("GATECRAWL_EGRESS_RESOLVER"))

    def install_on_reactor(self) -> None:
        self.reactor.installNameResolver(self)

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Sequence[type] | None = None,
        transportSemantics: str = "TCP",
    ) -> IHostResolution:
        resolution = _Resolution(hostName)
        resolutionReceiver.resolutionBegan(resolution)
        addresses = self.pins.pinned(hostName, portNumber)
        if addresses is not None:
            self._deliver(resolutionReceiver, addresses, portNumber, transportSemantics)
            return resolution

        def vet() -> tuple[str, ...]:
            scheme = "https" if portNumber == 443 else "http"
            host = f"[{hostName}]" if ":" in hostName else hostName
            decision = self.policy.check_url(f"{scheme}://{host}:{portNumber or 80}/")
            if not decision.allowed:
                logger.warning("egress refused for an unvetted connection (%s)", decision.describe())
                return ()
            self.pins.pin(hostName, portNumber, decision.addresses)
            return decision.addresses

        d = deferToThreadPool(self.reactor, self.reactor.getThreadPool(), vet)
        d.addCallback(lambda addrs: self._deliver(resolutionReceiver, addrs, portNumber, transportSemantics))
        d.addErrback(lambda _f: resolutionReceiver.resolutionComplete())
        return resolution

    @staticmethod
    def _deliver(receiver: IResolutionReceiver, addresses: Sequence[str], port: int, semantics: str) -> None:
        for addr in addresses:
            receiver.addressResolved(_address(addr, port, semantics))
        receiver.resolutionComplete()
