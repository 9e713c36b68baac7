"""Quiet by default: Scrapy's start-up inventory is logged only at DEBUG.

At ``LOG_LEVEL`` INFO (gatecrawl's default) a crawl's log and console keep a short start banner
(``Scrapy ... started``), gatecrawl's own lines, the progress line and the summary. Hidden unless
a handler logs DEBUG (``-L DEBUG``): the enabled add-ons, extensions, middlewares and pipelines,
the overridden settings, Scrapy's own "Crawled N pages" line (the progress line says more),
scrapy-playwright's handler start/stop lines, and the traceback Scrapy's robots.txt middleware
logs when robots.txt cannot be fetched (gatecrawl logs one line for it:
``robots.txt unreachable for a host``). The stats dump stays in log files (Scrapyd job logs) and
leaves the console. The Python versions list is off (``LOG_VERSIONS = []``; packets record
versions).

Installed as logger filters when ``gatecrawl.settings`` is imported, so it holds from the first
record, before any extension exists.
"""

from __future__ import annotations

import logging

# (logger name, message prefix) of the records hidden at INFO.
HIDDEN = (
    ("scrapy.addons", "Enabled addons"),
    ("scrapy.middleware", "Enabled "),
    ("scrapy.crawler", "Overridden settings"),
    ("scrapy.extensions.logstats", "Crawled "),
    ("scrapy-playwright", "Starting download handler"),
    ("scrapy-playwright", "Closing download handler"),
    ("scrapy.downloadermiddlewares.robotstxt", "Error downloading"),
)
# Hidden from the console only (kept when a handler writes a file).
CONSOLE_ONLY = (("scrapy.statscollectors", "Dumping Scrapy stats"),)


def _handlers() -> list[logging.Handler]:
    return list(logging.getLogger().handlers)


def _debugging(handlers: list[logging.Handler]) -> bool:
    return any(h.level <= logging.DEBUG for h in handlers)


class _Quiet(logging.Filter):
    def __init__(self, prefixes: tuple[str, ...], console_only: tuple[str, ...]) -> None:
        super().__init__()
        self.prefixes = prefixes
        self.console_only = console_only

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.msg if isinstance(record.msg, str) else ""
        hide = any(msg.startswith(p) for p in self.prefixes)
        hide_console = any(msg.startswith(p) for p in self.console_only)
        if not (hide or hide_console):
            return True
        handlers = _handlers()
        if not handlers or _debugging(handlers):
            return True
        if hide:
            return False
        return any(isinstance(h, logging.FileHandler) for h in handlers)


def install() -> None:
    """Add the filters to the loggers concerned (once)."""
    by_logger: dict[str, tuple[list[str], list[str]]] = {}
    for name, prefix in HIDDEN:
        by_logger.setdefault(name, ([], []))[0].append(prefix)
    for name, prefix in CONSOLE_ONLY:
        by_logger.setdefault(name, ([], []))[1].append(prefix)
    for name, (hidden, console) in by_logger.items():
        log = logging.getLogger(name)
        if not any(isinstance(f, _Quiet) for f in log.filters):
            log.addFilter(_Quiet(tuple(hidden), tuple(console)))
