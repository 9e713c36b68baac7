"""A local folder store: atomic writes (temp file, fsync, rename); an object whose identity
(``gatecrawl.store.identity``: the bytes, or for page packets the packet without per-run fields)
is unchanged is never rewritten, the same rule as the S3 store. Files get the mode the process
umask gives new files (the spool, :mod:`gatecrawl.store.spool`, stays private)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Mapping
from urllib.parse import unquote

from gatecrawl.store.atomic import atomic_write, file_mode
from gatecrawl.store.base import Store, StoreError
from gatecrawl.store.identity import identity_sha256

__all__ = ["LocalStore"]


def _root_from_uri(uri: str) -> Path:
    # file:///abs/path, file://./relative, file://relative and plain paths are all accepted.
    if uri.startswith("file://"):
        return Path(unquote(uri[len("file://") :]) or ".")
    return Path(uri)


class LocalStore(Store):
    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.root = _root_from_uri(uri)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create store folder {self.root}: {exc}") from None
        self.writes = 0
        self.skipped = 0
        self.deleted = 0
        self._status: dict[str, str] = {}
        self._lock = threading.Lock()
        # Files as the user's umask makes them (0644 under the usual 022), like any tool's output.
        self.file_mode = file_mode()

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"bad key {key!r}")
        return self.root / key

    def put(self, key: str, data: bytes, *, content_type: str, metadata: Mapping[str, str] | None = None) -> bool:
        path = self._path(key)
        try:
            if path.exists():
                old = path.read_bytes()
                new_id = (metadata or {}).get("identity-sha256") or identity_sha256(key, data)
                if old == data or identity_sha256(key, old) == new_id:
                    with self._lock:
                        self.skipped += 1
                        self._set_status(key, "unchanged")
                    return False
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, [data], suffix=path.suffix, mode=self.file_mode)
        except OSError as exc:
            raise StoreError(f"cannot write {key}: {exc}") from None
        with self._lock:
            self.writes += 1
            self._set_status(key, "put")
        return True

    def status(self, key: str) -> str | None:
        with self._lock:
            return self._status.get(key)

    def counters(self) -> dict[str, int]:
        return {"put": self.writes, "unchanged": self.skipped, "deleted": self.deleted}

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def list(self, prefix: str = "") -> list[str]:
        base = self.root
        out = []
        for p in base.rglob("*"):
            if p.is_file() and not p.name.startswith(".tmp-"):
                key = p.relative_to(base).as_posix()
                if key.startswith(prefix):
                    out.append(key)
        return sorted(out)

    def delete(self, key: str) -> None:
        try:
            self._path(key).unlink()
        except FileNotFoundError:
            with self._lock:
                self._set_status(key, "absent")
            return
        except OSError as exc:
            raise StoreError(f"cannot delete {key}: {exc}") from None
        with self._lock:
            self.deleted += 1
            self._set_status(key, "deleted")
