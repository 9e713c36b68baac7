"""A durable local spool: what a remote store has accepted but not yet confirmed.

One file per object key, ``<sha256(key)>.entry``: a one-line JSON header (key, operation,
content type, metadata, sha256 and size of the body, a unique entry id) followed by the
body bytes. Files are written to a temporary name, fsynced, renamed into place and the
folder is fsynced, so an entry is either complete or absent, even after SIGKILL or a power
cut. A newer write of the same key replaces the older entry (the spool holds the desired
state of each key, latest wins); a delete is an entry too, so stale-object removals are not
lost either. An entry is removed only after its upload succeeded, and only if it was not
replaced in the meantime (compared by entry id).

Leftovers from a crashed run are found by :meth:`Spool.entries` on the next start.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gatecrawl.store.atomic import atomic_write

__all__ = ["Spool", "SpoolEntry", "SpoolError"]

_SUFFIX = ".entry"
_FORMAT = "gatecrawl.spool/1"


class SpoolError(OSError):
    """The spool could not be written or read."""


@dataclass(frozen=True)
class SpoolEntry:
    name: str
    """File name in the spool folder (``<sha256(key)>.entry``)."""
    id: str
    key: str
    op: str
    """``put`` or ``delete``."""
    content_type: str = "application/octet-stream"
    metadata: dict[str, str] = field(default_factory=dict)
    sha256: str = ""
    size: int = 0
    data: bytes = b""


def entry_name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest() + _SUFFIX


class Spool:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SpoolError(f"cannot create spool folder {self.root}: {exc}") from None
        self._clean_temp()

    def _clean_temp(self) -> None:
        # A temporary file is an entry that never got renamed into place: its write was not
        # acknowledged, so the pipeline never counted it as spooled. Safe to remove.
        for p in self.root.glob(".tmp-*"):
            try:
                p.unlink()
            except OSError:
                pass

    def _fsync_dir(self) -> None:
        try:
            fd = os.open(self.root, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    def add(self, key: str, data: bytes = b"", *, op: str = "put", content_type: str = "application/octet-stream", metadata: Mapping[str, str] | None = None) -> SpoolEntry:
        """Durably record ``op`` on ``key``; returns the entry (replacing any older one for the key)."""
        if op not in ("put", "delete"):
            raise ValueError(f"unknown spool operation {op!r}")
        header = {
            "format": _FORMAT,
            "id": uuid.uuid4().hex,
            "key": key,
            "op": op,
            "content_type": content_type,
            "metadata": dict(metadata or {}),
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
        line = json.dumps(header, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"
        name = entry_name(key)
        try:
            with self._lock:
                atomic_write(self.root / name, [line, data], suffix=_SUFFIX)
            self._fsync_dir()
        except OSError as exc:
            raise SpoolError(f"cannot spool {key}: {exc}") from None
        return SpoolEntry(name=name, id=header["id"], key=key, op=op, content_type=content_type, metadata=header["metadata"], sha256=header["sha256"], size=len(data), data=data)

    def load(self, name: str) -> SpoolEntry | None:
        """The entry in file ``name``, or None when it is gone. A damaged file raises SpoolError."""
        try:
            raw = (self.root / name).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SpoolError(f"cannot read spool entry {name}: {exc}") from None
        head, sep, data = raw.partition(b"\n")
        try:
            h: dict[str, Any] = json.loads(head) if sep else {}
        except ValueError:
            h = {}
        if h.get("format") != _FORMAT or hashlib.sha256(data).hexdigest() != h.get("sha256") or len(data) != h.get("size"):
            raise SpoolError(f"damaged spool entry {self.root / name}")
        return SpoolEntry(
            name=name,
            id=h["id"],
            key=h["key"],
            op=h["op"],
            content_type=h.get("content_type") or "application/octet-stream",
            metadata=dict(h.get("metadata") or {}),
            sha256=h["sha256"],
            size=h["size"],
            data=data,
        )

    def remove(self, entry: SpoolEntry) -> bool:
        """Remove ``entry`` if the file still holds it (not replaced by a newer write)."""
        with self._lock:
            try:
                current = self._read_id(entry.name)
            except OSError:
                return False
            if current != entry.id:
                return False
            try:
                os.unlink(self.root / entry.name)
            except FileNotFoundError:
                return False
        self._fsync_dir()
        return True

    def _read_id(self, name: str) -> str | None:
        with open(self.root / name, "rb") as fh:
            head = fh.readline()
        try:
            return json.loads(head).get("id")
        except ValueError:
            return None

    def names(self) -> list[str]:
        """Entry file names, oldest first."""
        out = []
        for p in self.root.glob("*" + _SUFFIX):
            try:
                out.append((p.stat().st_mtime_ns, p.name))
            except FileNotFoundError:
                continue
        return [n for _, n in sorted(out)]

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("*" + _SUFFIX))

    def quarantine(self, name: str) -> None:
        """Set a damaged entry aside (``.damaged``) so it is not retried forever."""
        try:
            os.replace(self.root / name, self.root / (name + ".damaged"))
        except OSError:
            pass
