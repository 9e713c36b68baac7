"""Atomic, durable file writes: temp file in the same folder, fsync, rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

__all__ = ["atomic_write", "current_umask", "file_mode", "fsync_paths"]


def current_umask() -> int:
    """The process umask, read without changing it (Linux: /proc/self/status); elsewhere by
    setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o077)  # briefly: never looser than a private default
    os.umask(old)
    return old


def file_mode() -> int:
    """The mode a new regular file gets from ``open()`` under the current umask."""
    return 0o666 & ~current_umask()


def atomic_write(path: Path, chunks: Iterable[bytes], *, suffix: str = "", mode: int | None = None, sync: bool = True) -> None:
    """Write ``chunks`` to ``path`` so that readers see either the old file or the whole new
    one, never a partial write; the data is on disk (fsync) before the rename unless ``sync`` is
    false (the caller then syncs the file and its folder later, :func:`fsync_paths`). The file is
    private (0600, mkstemp's mode) unless ``mode`` is given. Raises OSError."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=suffix)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def fsync_paths(files: Iterable[Path], folders: Iterable[Path] = ()) -> None:
    """fsync each file that exists, then each folder holding them (so their names are durable
    too) and each folder in ``folders``. Raises OSError."""
    dirs = set(folders)
    for f in files:
        try:
            fd = os.open(f, os.O_RDONLY)
        except FileNotFoundError:  # deleted since: its folder is synced below
            dirs.add(f.parent)
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        dirs.add(f.parent)
    for d in sorted(dirs):
        try:
            fd = os.open(d, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
