"""The store interface every backend implements."""

from __future__ import annotations

import abc
from typing import Mapping

__all__ = ["Store", "StoreError"]


class StoreError(RuntimeError):
    """A store could not be opened or written."""


class Store(abc.ABC):
    uri: str

    @abc.abstractmethod
    def put(self, key: str, data: bytes, *, content_type: str, metadata: Mapping[str, str] | None = None) -> bool:
        """Write ``data`` at ``key``. Returns False (and writes nothing) when identical bytes are already there."""

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

    def close(self) -> None:
        """Flush and release resources."""
