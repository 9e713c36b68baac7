"""A local folder store: atomic writes (temp file, rename); an object whose identity
(``gatecrawl.store.identity``: the bytes, or for page packets the packet without per-run fields)
is unchanged is never rewritten, the same rule as the S3 store. Files get the mode the process
umask gives new files (the spool, :mod:`gatecrawl.store.spool`, stays private).

Durability is paid per batch (``GATECRAWL_STORE_FSYNC_BATCH`` objects, and at close): each
written object is renamed into place at once (readers see it, and a killed process cannot take it
back: it is in the kernel's cache) and its key and sha256 are appended to a journal
(``.gatecrawl-journal-<pid>-<n>.jsonl`` in the store folder); when the batch is full, the files
and their folders are fsynced and the journal is removed. A run that opens the store replays
the journals of processes that are gone (killed before their batch): it fsyncs the objects they
name, and removes one whose bytes no longer match (a write torn by a power loss), so the crawl
rewrites it (counters ``journal_replayed``, ``journal_damaged``). A batch of 1 fsyncs every
object before ``put`` returns, with no journal.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote

from gatecrawl.store.atomic import atomic_write, file_mode, fsync_paths
from gatecrawl.store.base import Store, StoreError
from gatecrawl.store.identity import identity_sha256

__all__ = ["LocalStore", "DEFAULT_FSYNC_BATCH"]

logger = logging.getLogger(__name__)

#: objects written between two fsyncs (GATECRAWL_STORE_FSYNC_BATCH)
DEFAULT_FSYNC_BATCH = 64
JOURNAL_PREFIX = ".gatecrawl-journal-"


def _root_from_uri(uri: str) -> Path:
    # file:///abs/path, file://./relative, file://relative and plain paths are all accepted.
    if uri.startswith("file://"):
        return Path(unquote(uri[len("file://") :]) or ".")
    return Path(uri)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class LocalStore(Store):
    def __init__(self, uri: str, options: Mapping[str, Any] | None = None) -> None:
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
        self.fsync_batch = max(1, int((options or {}).get("GATECRAWL_STORE_FSYNC_BATCH") or DEFAULT_FSYNC_BATCH))
        self.replayed = 0
        self.damaged_replayed = 0
        self.batches = 0
        self._pending: list[Path] = []  # written, not yet fsynced
        self._dirty_dirs: set[Path] = set()  # folders that lost a file since the last sync
        self._journal_path: Path | None = None
        self._journal_seq = 0

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
            batched = self.fsync_batch > 1
            atomic_write(path, [data], suffix=path.suffix, mode=self.file_mode, sync=not batched)
            full: list[Path] | None = None
            with self._lock:
                if batched:
                    self._journal_append(key, data)
                    self._pending.append(path)
                    if len(self._pending) >= self.fsync_batch:
                        full = self._take_batch()
                self.writes += 1
                self._set_status(key, "put")
            if full is not None:
                self._sync(*full)
        except OSError as exc:
            raise StoreError(f"cannot write {key}: {exc}") from None
        return True

    # -- batched durability ---------------------------------------------------------------

    def _journal_append(self, key: str, data: bytes) -> None:
        """(lock held) Record a written object that is not yet fsynced."""
        if self._journal_path is None:
            self._journal_seq += 1
            self._journal_path = self.root / f"{JOURNAL_PREFIX}{os.getpid()}-{self._journal_seq}.jsonl"
        # Written through at once (no handle kept open): in the kernel's cache, a killed process
        # cannot lose it.
        with open(self._journal_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"key": key, "sha256": hashlib.sha256(data).hexdigest()}) + "\n")

    def _take_batch(self) -> tuple[list[Path], set[Path], Path | None]:
        """(lock held) The current batch and its journal; later writes start a new journal."""
        batch = (self._pending, self._dirty_dirs, self._journal_path)
        self._pending, self._dirty_dirs, self._journal_path = [], set(), None
        return batch

    def _sync(self, files: list[Path], dirs: set[Path], journal_path: Path | None) -> None:
        """Make a batch durable (files, then their folders), then drop its journal."""
        fsync_paths(files, dirs)
        if journal_path is not None:
            journal_path.unlink(missing_ok=True)
        with self._lock:
            self.batches += 1

    def unsynced(self) -> int:
        """Objects written (visible, and safe from a killed process) but not yet fsynced."""
        with self._lock:
            return len(self._pending)

    def flush(self, timeout: float | None = None) -> int:
        with self._lock:
            batch = self._take_batch()
        if batch[0] or batch[1] or batch[2] is not None:
            try:
                self._sync(*batch)
            except OSError as exc:
                raise StoreError(f"cannot sync the store folder: {exc}") from None
        return 0

    def close(self) -> None:
        self.flush()

    def resume(self) -> int:
        """Replay the journals of gone processes: fsync the objects they wrote, remove one whose
        bytes do not match (the crawl writes it again). Returns 0: nothing to upload."""
        for journal in sorted(self.root.glob(f"{JOURNAL_PREFIX}*.jsonl")):
            try:
                pid = int(journal.name[len(JOURNAL_PREFIX):].split("-", 1)[0])
            except ValueError:
                continue
            if _pid_alive(pid):
                continue  # another live process's batch (a shared folder)
            last: dict[str, str] = {}
            for line in journal.read_text("utf-8", "replace").splitlines():
                try:
                    entry = json.loads(line)
                    last[entry["key"]] = entry["sha256"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by the kill
            files = []
            for key, sha in last.items():
                try:
                    path = self._path(key)
                    data = path.read_bytes()
                except (OSError, StoreError):
                    self.damaged_replayed += 1
                    continue
                if hashlib.sha256(data).hexdigest() != sha:
                    path.unlink(missing_ok=True)
                    self.damaged_replayed += 1
                    continue
                files.append(path)
            fsync_paths(files)
            self.replayed += len(last)
            journal.unlink(missing_ok=True)
        if self.replayed:
            logger.info("store: %d objects written by an earlier run before it was stopped were synced (%d damaged, written again)",
                        self.replayed, self.damaged_replayed)
        return 0

    def status(self, key: str) -> str | None:
        with self._lock:
            return self._status.get(key)

    def counters(self) -> dict[str, int]:
        out = {"put": self.writes, "unchanged": self.skipped, "deleted": self.deleted}
        extra = {"journal_replayed": self.replayed, "journal_damaged": self.damaged_replayed, "fsync_batches": self.batches}
        out.update((k, v) for k, v in extra.items() if v)  # only what happened
        return out

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def list(self, prefix: str = "") -> list[str]:
        base = self.root
        out = []
        for p in base.rglob("*"):
            if p.is_file() and not p.name.startswith((".tmp-", JOURNAL_PREFIX)):
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
            self._dirty_dirs.add(self._path(key).parent)
            self._set_status(key, "deleted")
