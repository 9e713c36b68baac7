"""RetryMiddleware with exponential backoff and ``Retry-After``.

Scrapy retries at once and ignores ``Retry-After``. Here each retry waits
``GATECRAWL_RETRY_BACKOFF_BASE * 2 ** (attempt - 1)`` seconds (capped by
``GATECRAWL_RETRY_BACKOFF_MAX``), or the server's ``Retry-After`` when that is longer. A
``Retry-After`` beyond ``GATECRAWL_RETRY_AFTER_MAX`` is not waited for: the response is
passed on (the page is dropped as ``http_error`` and its packet shows the header), rather than
retried early against the server's wish. The wait is asynchronous: other requests go on.

Replaces Scrapy's RetryMiddleware (same priority and ``RETRY_*`` settings).
Stats: ``retry/*`` as Scrapy's, plus ``gatecrawl/retry/backoff_seconds``,
``gatecrawl/retry/retry_after_honoured``, ``gatecrawl/retry/retry_after_too_long``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.retry import RetryMiddleware as ScrapyRetryMiddleware
from scrapy.utils.response import response_status_message

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


def parse_retry_after(value: bytes | str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


class RetryMiddleware(ScrapyRetryMiddleware):
    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.backoff_base = settings.getfloat("GATECRAWL_RETRY_BACKOFF_BASE", 0.5)
        self.backoff_max = settings.getfloat("GATECRAWL_RETRY_BACKOFF_MAX", 30.0)
        self.retry_after_max = settings.getfloat("GATECRAWL_RETRY_AFTER_MAX", 30.0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RetryMiddleware:
        o = cls(crawler.settings)
        o.crawler = crawler
        return o

    def _delay(self, retry_request: Request, retry_after: float | None) -> float:
        attempt = int(retry_request.meta.get("retry_times", 1))
        backoff = min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1)))
        return max(backoff, retry_after or 0.0)

    async def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.crawler.stats.inc_value("gatecrawl/retry/backoff_seconds", round(seconds, 3))
            await asyncio.sleep(seconds)

    async def process_response(self, request: Request, response: Response) -> Any:  # type: ignore[override]
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return response
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is not None and retry_after > self.retry_after_max:
            self.crawler.stats.inc_value("gatecrawl/retry/retry_after_too_long")
            return response
        retry_request = self._retry(request, response_status_message(response.status))
        if retry_request is None:
            return response
        if retry_after is not None:
            self.crawler.stats.inc_value("gatecrawl/retry/retry_after_honoured")
        await self._wait(self._delay(retry_request, retry_after))
        return retry_request

    async def process_exception(self, request: Request, exception: Exception) -> Any:  # type: ignore[override]
        if not isinstance(exception, self.exceptions_to_retry) or request.meta.get("dont_retry", False):
            return None
        retry_request = self._retry(request, exception)
        if retry_request is None:
            return None
        await self._wait(self._delay(retry_request, None))
        return retry_request
