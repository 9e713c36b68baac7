"""The store interface every backend implements."""

from __future__ import annotations

import abc
from typing import Callable, Mapping

__all__ = ["Store", "StoreError"]


class StoreError(RuntimeError):
    """A store could not be opened or written."""


class Store(abc.ABC):
    uri: str
    # Where status changes go: None keeps them in ``_status`` (answered by ``status()``).
    _status_sink: Callable[[str, str], None] | None = None

    @abc.abstractmethod
    def put(self, key: str, data: bytes, *, content_type: str, metadata: Mapping[str, str] | None = None) -> bool:
        """Write ``data`` at ``key``. Returns False (and writes nothing) when an object with the same
        identity (``gatecrawl.store.identity``) is already there. Asynchronous stores (S3) return True
        once the object is durably spooled; ``status(key)`` tells later whether it was written."""

    @abc.abstractmethod
    def get(self, key: str) -> bytes | None:
        """The bytes at ``key``, or None."""

    @abc.abstractmethod
    def list(self, prefix: str = "") -> list[str]:
        """Sorted keys under ``prefix``."""

    def delete(self, key: str) -> None:  # pragma: no cover - optional
        raise NotImplementedError

    def pending(self) -> int:
        """Objects accepted but not yet durably stored (0 for synchronous stores)."""
        return 0

    def resume(self) -> int:
        """Start completing work left over by an earlier run; returns how many objects (0: none)."""
        return 0

    def flush(self, timeout: float | None = None) -> int:
        """Wait (at most ``timeout`` seconds) until accepted objects are stored; returns ``pending()``."""
        return self.pending()

    def status(self, key: str) -> str | None:
        """What happened to ``key`` in this process: ``put``, ``unchanged``, ``deleted``, ``absent``,
        ``pending``, or None when it was not touched (or its statuses go to a sink)."""
        return None

    def set_status_sink(self, sink: Callable[[str, str], None] | None) -> None:
        """Hand every later status change to ``sink(key, status)``, in the order they happen (the
        last one for a key is what ``status()`` would answer), instead of keeping one entry per key
        in memory: a crawl of millions of pages journals them to disk (the export pipeline, with
        :mod:`gatecrawl.store.spill`). None: keep them in memory again. The sink is called with
        the store's lock held, from any thread; it must be quick and must not call the store."""
        self._status_sink = sink

    def _set_status(self, key: str, status: str) -> None:
        """Record a status change (callers hold the store's lock, so the order is the real one)."""
        sink = self._status_sink
        if sink is not None:
            sink(key, status)
        else:
            self._status[key] = status  # type: ignore[attr-defined]

    def counters(self) -> dict[str, int]:
        """Event counts (``put``, ``unchanged``, ...) for stats."""
        return {}

    def close(self) -> None:
        """Flush and release resources."""
