"""Where packets and Markdown go. ``open_store(uri)`` picks the backend by scheme:
``file://`` (or a plain path) for a local folder, the embedded default; ``s3://`` for S3.

Keys are relative, '/'-separated: ``<site>/pages/<sha256>.md``, ``<site>/pages/<sha256>.json``,
``<site>/quarantine/<sha256>.json``, ``<site>/runs/<run id>.json``, and for a distributed crawl
``<site>/crawls/<crawl id>.json`` (its run manifests merged, :mod:`gatecrawl.report.crawl`).
"""

from __future__ import annotations

from typing import Any, Mapping

from gatecrawl.store.base import Store, StoreError
from gatecrawl.store.local import LocalStore

__all__ = ["Store", "StoreError", "LocalStore", "open_store", "page_keys"]


def page_keys(site: str, url_key: str) -> dict[str, str]:
    return {
        "markdown": f"{site}/pages/{url_key}.md",
        "packet": f"{site}/pages/{url_key}.json",
        "quarantine": f"{site}/quarantine/{url_key}.json",
    }


def open_store(uri: str, options: Mapping[str, Any] | None = None) -> Store:
    if uri.startswith("s3://"):
        from gatecrawl.store.s3 import S3Store  # optional backend

        return S3Store(uri, options or {})
    return LocalStore(uri)
