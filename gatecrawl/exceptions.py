"""gatecrawl's exceptions, in one module, and the one map from a failure to its typed reason.

A request gatecrawl refuses raises a :class:`Refused` (a Scrapy ``IgnoreRequest``: no retry, the
request's errback runs) whose ``reason`` is a :class:`~gatecrawl.core.reasons.Reason`; the
spider's errback turns it into a packet with that ``drop_reason``. :func:`classify_failure` maps
any download failure (ours, Scrapy's, Twisted's, the browser's) to a reason by its type, never by
its message.

Render and browser failures (:class:`RenderTimeout`, :class:`RenderAborted`,
:class:`NewPageTimeout`, :class:`BrowserNotFound`) are raised by :mod:`gatecrawl.browser`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest, NotConfigured

from gatecrawl.core.reasons import Reason

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from gatecrawl.egress.policy import EgressDecision

__all__ = [
    "Refused",
    "EgressBlocked",
    "OffsiteBlocked",
    "RobotsBlocked",
    "RedirectDropped",
    "SizeExceeded",
    "RenderTimeout",
    "RenderAborted",
    "NewPageTimeout",
    "BrowserLaunchFailed",
    "BrowserNotFound",
    "classify_failure",
    "require_enabled",
]


class Refused(IgnoreRequest):
    """A request refused by one of gatecrawl's middlewares, with its typed ``reason``."""

    reason: Reason = Reason.FETCH_FAILED

    def __init__(self, message: str, reason: Reason | None = None) -> None:
        if reason is not None:
            self.reason = reason
        super().__init__(message)


class EgressBlocked(Refused):
    """Refused by the egress policy: ``egress_blocked`` or ``scheme_blocked``."""

    def __init__(self, decision: EgressDecision, hop: int) -> None:
        reason = Reason(decision.reason or Reason.EGRESS_BLOCKED)
        self.detail = decision.detail or ""
        self.address_class = decision.address_class
        self.hop = hop
        super().__init__(f"{reason}: {self.detail} (hop {hop})", reason)


class OffsiteBlocked(Refused):
    """A request (often a redirect hop) off the recipe's allowed domains."""

    reason = Reason.OFFSITE


class RobotsBlocked(Refused):
    """``robots_disallowed`` or ``robots_unreachable`` (RFC 9309: an unreachable robots.txt disallows)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(str(reason), reason)


class RedirectDropped(Refused):
    """A redirect to a URL already requested (``duplicate_of``) or back into its own chain
    (``redirect_loop``)."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(detail, reason)


class SizeExceeded(Refused):
    """A body over its per-type cap."""

    reason = Reason.SIZE_EXCEEDED


class RenderTimeout(Exception):
    """The page could not be read before the deadline (blocked main thread, no navigation)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RenderAborted(Exception):
    """The render was stopped on purpose (``reason`` ``too_large``: byte cap exceeded)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NewPageTimeout(RuntimeError):
    """The browser did not open a page in time, twice."""


class BrowserLaunchFailed(RuntimeError):
    """The browser could not be started (or connected to): the crawl's renders cannot run."""


class BrowserNotFound(BrowserLaunchFailed):
    """No Chromium to launch."""


def require_enabled(settings: BaseSettings, name: str, default: bool = False) -> None:
    """A component switched off by the boolean setting ``name`` is not built: NotConfigured."""
    if not settings.getbool(name, default):
        raise NotConfigured(f"{name} is off")


def _decompression_bomb(exc: BaseException) -> bool:
    """Scrapy's decompression cap: its private ``_DecompressionMaxSizeExceeded``, raised as is
    or as the cause of the ``IgnoreRequest`` its compression middleware raises."""
    try:
        from scrapy.utils._compression import _DecompressionMaxSizeExceeded
    except ImportError:  # pragma: no cover - a Scrapy without a decompression cap
        return False
    return isinstance(exc, _DecompressionMaxSizeExceeded) or isinstance(exc.__cause__, _DecompressionMaxSizeExceeded)


def classify_failure(exc: BaseException) -> tuple[Reason, str]:
    """Map a download failure to a typed reason and a short detail (no internal addresses),
    by the failure's type."""
    from scrapy import exceptions as sx
    from twisted.internet import defer, error as terr

    text = str(exc)
    detail = f"{type(exc).__name__}: {text}"[:300]
    if isinstance(exc, Refused):
        return exc.reason, text[:300]
    if isinstance(exc, RenderAborted) and exc.reason == "too_large":  # a render aborted over the byte cap
        return Reason.SIZE_EXCEEDED, "rendered page passed the byte cap (DOWNLOAD_MAXSIZE)"
    if _decompression_bomb(exc):
        return Reason.DECOMPRESSION_BOMB, text[:300] if isinstance(exc, sx.IgnoreRequest) else detail
    if isinstance(exc, sx.IgnoreRequest):
        return Reason.FETCH_FAILED, detail
    if isinstance(exc, sx.DownloadCancelledError):
        # Scrapy cancels a download only when it passes DOWNLOAD_MAXSIZE (announced or received).
        return Reason.SIZE_EXCEEDED, detail
    if isinstance(exc, (sx.DownloadTimeoutError, terr.TimeoutError, terr.TCPTimedOutError, defer.TimeoutError)):
        return Reason.TIMEOUT, detail
    if isinstance(exc, sx.ResponseDataLossError) or "dataloss" in type(exc).__name__.lower():
        return Reason.TRUNCATED, detail
    return Reason.FETCH_FAILED, detail
