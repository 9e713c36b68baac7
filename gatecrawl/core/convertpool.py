"""HTML conversion in worker processes, one per core.

``convert()`` is pure Python and lxml: in threads it holds the interpreter lock, so a crawl
converts on one core and its reactor thread waits for the lock too. :class:`ConvertProcessPool`
runs ``convert()`` in a ``concurrent.futures.ProcessPoolExecutor`` started with the
``forkserver`` method (``spawn`` where there is none); the fork server preloads the converter
modules, never the program's ``__main__``, so ``scrapy crawl``, Scrapyd's runner and the
installed ``gatecrawl`` command all start it the same way. A worker converts exactly what
``convert()`` in the crawl process would (same function, same arguments): the bytes do not
depend on where a page was converted.

Log records that ``convert()`` emits in a worker (``converter error on ...``) travel back with
the result and are handled by the parent's loggers. A worker that dies (a crash, the OOM
killer) breaks the executor: :meth:`ConvertProcessPool.submit` starts a new one for the next
pages, and the page whose future failed is converted in the caller's fallback.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

__all__ = ["ConvertProcessPool", "convert_job", "default_workers"]

#: modules the fork server imports once, so that each worker starts warm
PRELOAD = ("gatecrawl.core.convert", "gatecrawl.core.extract", "gatecrawl.core.markdown", "gatecrawl.core.htmlparse")


#: workers at most when GATECRAWL_CONVERT_WORKERS is 0 (each holds 60-100 MB)
MAX_DEFAULT_WORKERS = 8


def default_workers() -> int:
    """One worker per usable core, at most :data:`MAX_DEFAULT_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_WORKERS))


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg = record.getMessage()  # arguments formatted here: they may not pickle
        record.args = None
        record.exc_info = None
        record.exc_text = None
        self.records.append(record)


def _init_worker(level: int) -> None:
    # A worker hands back the records of gatecrawl's loggers at the parent's level.
    root = logging.getLogger("gatecrawl")
    root.setLevel(level)
    root.propagate = False
    from gatecrawl.core.convert import convert

    convert(b"<html><body><p>warm up</p></body></html>", "http://warm.invalid/")  # lazy imports done once


def convert_job(body: bytes, url: str, content_type: str | None, recipe: Any, fetch: Any) -> tuple[Any, list[logging.LogRecord]]:
    """``convert()`` in a worker: its result and the log records it emitted."""
    from gatecrawl.core.convert import convert

    handler = _Collect()
    log = logging.getLogger("gatecrawl")
    log.addHandler(handler)
    try:
        return convert(body, url, content_type, recipe, fetch=fetch), handler.records
    finally:
        log.removeHandler(handler)


def replay_logs(records: list[logging.LogRecord]) -> None:
    """Hand records from a worker to the parent's loggers (their levels and handlers apply)."""
    for record in records:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(PRELOAD))
        return ctx
    return multiprocessing.get_context("spawn")


class ConvertProcessPool:
    """A process pool for ``convert()`` that replaces itself when a worker dies."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._executor: ProcessPoolExecutor | None = None
        self.restarts = 0

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            level = logging.getLogger("gatecrawl").getEffectiveLevel()
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=_context(), initializer=_init_worker, initargs=(level,)
            )
        return self._executor

    def warm(self) -> list[Future]:
        """Start every worker now, not on the first pages: the executor starts a worker per
        submitted job while none is idle, and a worker takes 1.5 s or more to start (fork
        server, imports, a warm-up conversion) under load. Returns the futures of the no-op
        jobs that started them (nobody needs to wait for them)."""
        executor = self._start()
        return [executor.submit(os.getpid) for _ in range(self.workers)]

    def submit(self, body: bytes, url: str, content_type: str | None, recipe: Any, fetch: Any) -> Future:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._start().submit(convert_job, body, url, content_type, recipe, fetch)
        except BrokenProcessPool:
            self.discard_broken()
            return self._start().submit(convert_job, body, url, content_type, recipe, fetch)

    def discard_broken(self) -> None:
        """Forget an executor whose worker died; the next submit starts a new one."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            self.restarts += 1

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
