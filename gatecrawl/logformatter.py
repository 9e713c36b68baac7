"""Log lines for items that name the URL and reason, never dump the item (bodies, Markdown)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy import logformatter

from gatecrawl.core.redact import redact_url


def _url(item: Any) -> str:
    url = item.get("url") if isinstance(item, dict) else getattr(item, "url_final", "")
    return redact_url(str(url or ""))


class GatecrawlLogFormatter(logformatter.LogFormatter):
    def scraped(self, item: Any, response: Any, spider: Any) -> dict:
        return {"level": logging.DEBUG, "msg": "Kept %(url)s", "args": {"url": _url(item)}}

    def dropped(self, item: Any, exception: BaseException, response: Any, spider: Any = None) -> dict:
        level = getattr(exception, "log_level", None) or "INFO"
        if isinstance(level, str):
            level = logging.getLevelName(level.upper())
        reason = str(exception).split(":", 1)[0]
        return {"level": level, "msg": "Dropped (%(reason)s): %(url)s", "args": {"reason": reason, "url": _url(item)}}
