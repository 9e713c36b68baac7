"""robots.txt per RFC 9309, failing closed where Scrapy fails open.

- 2xx: the body (its first 500 KiB) is parsed and obeyed; garbage parses as "allow";
- 3xx after the redirects Scrapy follows (REDIRECT_MAX_TIMES >= 5): unavailable, allow;
- 4xx: unavailable, the crawler may access any resource;
- 5xx (after retries) or a network failure (including an egress refusal): unreachable, the
  host is treated as **completely disallowed** (``robots_unreachable``). The verdict is not
  kept for the whole run: robots.txt is fetched again once
  ``GATECRAWL_ROBOTS_UNREACHABLE_RETRY`` seconds have passed.

Concurrency (T32): every request waiting for the same pending robots.txt gets its own waiter and
the same verdict. Scrapy's middleware hands all waiters one shared Deferred, so only the first got
the parser and the others got ``None`` ("allow all"). Here "allow" is an explicit verdict
(``_ALLOW_ALL``); anything that is not a parser or that verdict (pending, ``None``, unreachable)
blocks the request.

Replaces Scrapy's RobotsTxtMiddleware (same priority, same ``ROBOTSTXT_*`` settings). robots.txt
is fetched through the :class:`~gatecrawl.engineport.EnginePort` ``from_crawler`` gives it (all
downloader middlewares, not the scheduler), never through ``crawler.engine`` directly.
Stats: ``robotstxt/*`` as Scrapy's, plus ``gatecrawl/robots/disallowed`` and
``gatecrawl/robots/unreachable``.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy import Request as _Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler
from twisted.internet.defer import Deferred

from gatecrawl.core.reasons import Reason
from gatecrawl.engineport import EnginePort
from gatecrawl.exceptions import RobotsBlocked

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

MAX_ROBOTS_BYTES = 500 * 1024
_UNREACHABLE = object()
_ALLOW_ALL = object()  # robots.txt unavailable (4xx, 3xx left over): the crawler may access any resource


class _Pending:
    """A robots.txt fetch in flight: each waiter gets its own Deferred, all get the same verdict."""

    def __init__(self) -> None:
        self.waiters: list[Deferred] = []

    def wait(self) -> Deferred:
        d: Deferred = Deferred()
        self.waiters.append(d)
        return d


class RobotsTxtMiddleware(ScrapyRobotsTxtMiddleware):
    def __init__(self, crawler: Crawler, port: EnginePort | None = None) -> None:
        super().__init__(crawler)  # Scrapy's: settings, stats and the parser class
        self.port = port if port is not None else EnginePort(crawler)
        self._unreachable_since: dict[str, float] = {}
        self._retry_after = crawler.settings.getfloat("GATECRAWL_ROBOTS_UNREACHABLE_RETRY", 60.0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsTxtMiddleware:
        return cls(crawler, EnginePort(crawler))

    async def process_request(self, request: Request) -> None:  # type: ignore[override]
        if request.meta.get("dont_obey_robotstxt") or not request.url.startswith(("http://", "https://")):
            return
        netloc = urlparse_cached(request).netloc
        since = self._unreachable_since.get(netloc)
        if since is not None and time.monotonic() - since >= self._retry_after:
            # Not cached for the whole run: ask again.
            self._parsers.pop(netloc, None)
            self._unreachable_since.pop(netloc, None)
        rp = await self.robot_parser(request)
        if rp is _ALLOW_ALL:
            return
        if rp is None or rp is _UNREACHABLE or isinstance(rp, (_Pending, Deferred)) or not hasattr(rp, "allowed"):
            # Never "allow" on a verdict that is not one: pending, failing or missing counts as unreachable.
            self._stats.inc_value("gatecrawl/robots/unreachable")
            raise RobotsBlocked(Reason.ROBOTS_UNREACHABLE)
        try:
            self.process_request_2(rp, request)
        except IgnoreRequest:
            self._stats.inc_value("gatecrawl/robots/disallowed")
            raise RobotsBlocked(Reason.ROBOTS_DISALLOWED) from None

    async def robot_parser(self, request: Request) -> Any:  # type: ignore[override]
        url = urlparse_cached(request)
        netloc = url.netloc
        state = self._parsers.get(netloc)
        if netloc not in self._parsers:
            pending = _Pending()
            self._parsers[netloc] = pending  # type: ignore[assignment]
            robotsreq = _Request(
                f"{url.scheme}://{url.netloc}/robots.txt",
                priority=self.DOWNLOAD_PRIORITY,
                meta={"dont_obey_robotstxt": True},
                callback=NO_CALLBACK,
            )
            try:
                resp = await self.port.download(robotsreq)
                await self._parse_robots(resp, netloc, request)
            except Exception as e:  # noqa: BLE001 - any failure is "unreachable", counted and logged below
                self._robots_error(e, netloc)
            self._stats.inc_value("robotstxt/request_count")
            state = self._parsers.get(netloc)
        if isinstance(state, _Pending):
            return await maybe_deferred_to_future(state.wait())
        return state

    async def _parse_robots(self, response: Response, netloc: str, request: Request) -> None:  # type: ignore[override]
        self._stats.inc_value("robotstxt/response_count")
        self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
        status = response.status
        result: Any
        if 200 <= status < 300:
            result = build_from_crawler(self._parserimpl, self.crawler, response.body[:MAX_ROBOTS_BYTES])
        elif status >= 500:
            result = _UNREACHABLE
            self._unreachable_since[netloc] = time.monotonic()
        else:  # 3xx left over after redirects, 4xx: unavailable, allow all
            result = _ALLOW_ALL
        self._settle(netloc, result)

    def _robots_error(self, exc: Exception, netloc: str) -> None:
        self._stats.inc_value(f"robotstxt/exception_count/{type(exc).__name__}")
        self._unreachable_since[netloc] = time.monotonic()
        logger.info("robots.txt unreachable for a host (%s): treating it as disallowed", type(exc).__name__)
        self._settle(netloc, _UNREACHABLE)

    def _settle(self, netloc: str, result: Any) -> None:
        pending = self._parsers.get(netloc)
        self._parsers[netloc] = result
        if isinstance(pending, _Pending):
            waiters, pending.waiters = pending.waiters, []
            for d in waiters:  # each waiter its own Deferred: a callback's return value cannot reach the next one
                d.callback(result)
