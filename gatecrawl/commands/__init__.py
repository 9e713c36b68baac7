"""Scrapy commands added by gatecrawl (COMMANDS_MODULE): ``convert``, ``crawl``, ``list`` and
``report``.

Errors a user can fix (a bad spider argument, an unknown spider, a broken recipe, a bad
setting) end a command with one line on stderr, ``gatecrawl: error: <what to change>``, and
exit status 2, before any crawl starts (:func:`fail`); ``--nolog`` does not hide it. When
``LOG_FILE`` is set (Scrapyd sets it for every job) the line is appended there too, so it is the
tail of the job's log.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, NoReturn

EXIT_USAGE = 2


def tell(settings: Any, line: str) -> None:
    """Print ``line`` on stderr, and append it to LOG_FILE when one is set (the Scrapyd job log),
    so that it is the log's tail too."""
    print(line, file=sys.stderr, flush=True)
    log_file = settings.get("LOG_FILE") if settings is not None else None
    if log_file:
        try:
            with open(log_file, "a", encoding=settings.get("LOG_ENCODING") or "utf-8") as fh:
                fh.write(f"{datetime.now().strftime('%Y-%m-%d %H:%M:%S')} [gatecrawl] ERROR: {line}\n")
        except OSError:
            pass  # the line is on stderr already


def fail(settings: Any, message: str) -> NoReturn:
    """``gatecrawl: error: <message>`` on stderr (and into LOG_FILE), then exit 2."""
    tell(settings, f"gatecrawl: error: {message}")
    sys.exit(EXIT_USAGE)
