"""Where packets and Markdown go. ``open_store(uri)`` picks the backend by scheme:
``file://`` (or a plain path) for a local folder, the embedded default; ``s3://`` for S3.

Owns: the store backends (``local``, ``s3`` with its upload spool), the key layout
(:mod:`gatecrawl.store.keys`: every key, relative and '/'-separated), the store settings
(:class:`gatecrawl.store.config.StoreConfig`), object identity (:mod:`gatecrawl.store.identity`),
what changed-only recrawls start from (:mod:`gatecrawl.store.recrawl`) and spill files
(:mod:`gatecrawl.store.spill`). No Scrapy imports.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from gatecrawl.store.base import Store, StoreError
from gatecrawl.store.keys import page_keys
from gatecrawl.store.local import LocalStore

__all__ = ["Store", "StoreError", "LocalStore", "check_store_uri", "open_store", "page_keys"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_S3 = re.compile(r"^s3://(?:[^@/\s]+@)?[A-Za-z0-9][A-Za-z0-9._\-]{1,62}(?:/.*)?$")


def check_store_uri(uri: Any) -> None:
    """Raise :class:`StoreError` (one line naming the setting) unless ``uri`` is a plain path,
    ``file://PATH`` or ``s3://bucket[/prefix]``. A typo (``S3://``, ``s3a://``, ``s3:/``,
    ``ftp://``) would otherwise write to a local folder named after it."""
    from gatecrawl.core.redact import redact_url

    text = str(uri or "")
    shown = redact_url(text)
    if not text.strip():
        raise StoreError("GATECRAWL_STORE_URI is empty: give a path, file://PATH or s3://bucket/prefix")
    m = _SCHEME.match(text)
    if m is None:
        return  # a plain path
    scheme = m.group(1)
    if scheme == "file":
        if text.startswith("file://") and len(text) > len("file://"):
            return
        raise StoreError(f"GATECRAWL_STORE_URI={shown!r}: a local store is file://PATH or a plain path")
    if scheme == "s3":
        if _S3.match(text):
            return
        raise StoreError(f"GATECRAWL_STORE_URI={shown!r}: not an s3://bucket/prefix URI")
    hint = " (did you mean s3://?)" if "s3" in scheme.lower() else ""
    raise StoreError(f"GATECRAWL_STORE_URI={shown!r}: unsupported scheme {scheme!r}{hint}; use a path, file://PATH or s3://bucket/prefix")


def open_store(uri: str, options: Mapping[str, Any] | None = None) -> Store:
    check_store_uri(uri)
    if uri.startswith("s3://"):
        from gatecrawl.store.s3 import S3Store  # optional backend

        return S3Store(uri, options or {})
    return LocalStore(uri, options)

