"""RedactionExtension: no secret reaches the logs or the stats.

- Installs :class:`RedactingFilter` on every handler of the root logger (Scrapy's log handler,
  ``LOG_FILE``, anything added by ``logging.basicConfig``) when the crawler is built: that is
  before Scrapy logs "Overridden settings", which would otherwise print ``AWS_SECRET_ACCESS_KEY``
  or ``DEFAULT_REQUEST_HEADERS`` with an ``Authorization`` value. Each record's message (and
  formatted traceback) goes through :func:`gatecrawl.core.redact.redact_text`.
- On ``spider_closed`` (before Scrapy dumps the stats) rewrites every stats key and value that
  carries a secret.

Settings: ``GATECRAWL_REDACTION_ENABLED``.
"""

from __future__ import annotations

import ast
import logging
import pprint
from typing import TYPE_CHECKING, Any

from scrapy import signals

from gatecrawl.core.redact import REDACTED, is_secret_name, redact_obj, redact_text
from gatecrawl.exceptions import require_enabled

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["RedactingFilter", "RedactionExtension", "install_log_redaction", "redact_stats"]

_SETTINGS_DUMP = "Overridden settings:"


def _redact_settings_dump(text: str) -> str:
    """Scrapy pretty-prints overridden settings; pprint may split a long value across lines, so
    parse the dict back and redact by setting name and value instead of by regex alone."""
    head, sep, body = text.partition("\n")
    try:
        settings = ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return redact_text(text)
    if not isinstance(settings, dict):
        return redact_text(text)
    clean = {k: (REDACTED if is_secret_name(str(k)) else redact_obj(v)) for k, v in settings.items()}
    return head + sep + pprint.pformat(clean)


class RedactingFilter(logging.Filter):
    """Redacts the formatted message and traceback of every record; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken record is left for the handler to report
            return True
        clean = _redact_settings_dump(message) if message.startswith(_SETTINGS_DUMP) else redact_text(message)
        if clean != message:
            record.msg = clean
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


def install_log_redaction() -> int:
    """Add one RedactingFilter to every root handler that lacks one; returns how many were added."""
    added = 0
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
            added += 1
    return added


def redact_stats(stats: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in stats.items():
        k = redact_text(key) if isinstance(key, str) else key
        out[k] = redact_obj(value) if isinstance(value, (str, list, tuple, dict)) else value
    return out


class RedactionExtension:
    def __init__(self, crawler: Crawler) -> None:
        require_enabled(crawler.settings, "GATECRAWL_REDACTION_ENABLED", True)
        self.crawler = crawler
        install_log_redaction()
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedactionExtension:
        return cls(crawler)

    def engine_started(self) -> None:
        install_log_redaction()  # handlers added after the crawler was built

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        stats = self.crawler.stats
        if stats is None:
            return
        current = stats.get_stats()
        clean = redact_stats(current)
        if clean != current:
            stats.set_stats(clean)
