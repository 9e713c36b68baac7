"""StoreConfig: where the run's objects go, read once from the settings.

Every component that opens a store (the run ledger, ``scrapy report``, the pre-crawl checks)
reads it through :meth:`StoreConfig.from_settings`, so the defaults live here and in
``gatecrawl/settings.py`` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from gatecrawl.store.base import Store

__all__ = ["DEFAULT_FLUSH_TIMEOUT", "DEFAULT_SPOOL_DIR", "StoreConfig"]

DEFAULT_SPOOL_DIR = ".gatecrawl-spool"
DEFAULT_FLUSH_TIMEOUT = 300.0


@dataclass(frozen=True, kw_only=True)
class StoreConfig:
    uri: str
    """``GATECRAWL_STORE_URI``: a path, ``file://PATH`` or ``s3://bucket[/prefix]``."""
    spool_dir: str = DEFAULT_SPOOL_DIR
    """``GATECRAWL_SPOOL_DIR``: the S3 upload spool and the spill files of the run ledger."""
    flush_timeout: float = DEFAULT_FLUSH_TIMEOUT
    """``GATECRAWL_EXPORT_FLUSH_TIMEOUT``: how long the end of a run waits for uploads."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Every ``AWS_*`` and ``GATECRAWL_*`` setting, for the backend (S3 credentials, threads, ...)."""

    @classmethod
    def from_settings(cls, settings: Any, *, uri: str | None = None) -> StoreConfig:
        """From Scrapy settings (or any mapping with ``get``/``items``); ``uri`` overrides the setting."""
        options = {k: v for k, v in settings.items() if k.startswith("AWS_") or k.startswith("GATECRAWL_")}
        timeout = settings.get("GATECRAWL_EXPORT_FLUSH_TIMEOUT")
        return cls(
            uri=str(uri or settings.get("GATECRAWL_STORE_URI") or ""),
            spool_dir=str(settings.get("GATECRAWL_SPOOL_DIR") or DEFAULT_SPOOL_DIR),
            flush_timeout=float(timeout) if timeout not in (None, "") else DEFAULT_FLUSH_TIMEOUT,
            options=options,
        )

    def with_uri(self, uri: str) -> StoreConfig:
        return replace(self, uri=uri)

    def open(self) -> Store:
        """The store (may raise :class:`gatecrawl.store.base.StoreError`)."""
        from gatecrawl.store import open_store

        return open_store(self.uri, self.options)
