"""StackDump: what a stuck crawl is waiting on, written to the log on ``SIGUSR2``.

Scrapy's own ``StackTraceDump`` prints the threads' stacks; in a crawl on the asyncio reactor
the work waits in coroutines, which thread stacks do not show. This extension logs, on
``SIGUSR2`` (``kill -USR2 <pid>``): the engine status, every pending asyncio task with the
frames it is suspended in, and every thread's stack. It only installs a signal handler; it
costs nothing until the signal arrives. The test suite sends it to a crawl that does not
finish in time, before killing it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import signal
import sys
import threading
import traceback
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured

from gatecrawl.engineport import EnginePort

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_MAX_TASKS = 200


def _await_chain(coro: Any, limit: int = 40) -> list[str]:
    """Where a task is suspended: its coroutine, then what that awaits, down to the innermost
    frame (``Task.get_stack`` shows the outermost coroutine only)."""
    lines: list[str] = []
    seen = 0
    while coro is not None and seen < limit:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}\n")
        nxt = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None) or getattr(coro, "ag_await", None)
        if nxt is None and coro is not None and not lines:
            lines.append(f"  {coro!r}\n")
        if nxt is not None and not (hasattr(nxt, "cr_frame") or hasattr(nxt, "gi_frame") or hasattr(nxt, "ag_frame")):
            lines.append(f"  awaiting {nxt!r}\n"[:400])
            break
        coro = nxt
        seen += 1
    return lines


class StackDump:
    def __init__(self, crawler: Crawler) -> None:
        if not hasattr(signal, "SIGUSR2") or threading.current_thread() is not threading.main_thread():
            raise NotConfigured("no SIGUSR2 here")
        self.port = EnginePort(crawler)
        self._loop: asyncio.AbstractEventLoop | None = None
        try:
            self._loop = asyncio.get_event_loop()
        except RuntimeError:
            self._loop = None
        signal.signal(signal.SIGUSR2, self._on_signal)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StackDump:
        return cls(crawler)

    def _on_signal(self, signum: int, frame: Any) -> None:
        try:
            logger.warning("stack dump (SIGUSR2):\n%s", self.dump())
        except Exception:  # noqa: BLE001 - a diagnostic must not take the crawl down
            logger.exception("stack dump failed")

    def dump(self) -> str:
        out = io.StringIO()
        try:
            status = self.port.status()
            if status is not None:
                out.write("engine status:\n" + status + "\n")
        except Exception as exc:  # noqa: BLE001
            out.write(f"engine status unavailable: {exc!r}\n")
        loop = self._loop
        if loop is not None:
            tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
            out.write(f"asyncio tasks pending: {len(tasks)}\n")
            for task in sorted(tasks, key=lambda t: t.get_name())[:_MAX_TASKS]:
                out.write(f"-- {task.get_name()}\n")
                for line in _await_chain(task.get_coro()):
                    out.write(line)
        names = {t.ident: t.name for t in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            out.write(f"-- thread {names.get(ident, ident)}\n")
            out.write("".join(traceback.format_stack(frame, limit=15)))
        return out.getvalue()
