"""Atomic, durable file writes: temp file in the same folder, fsync, rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

__all__ = ["atomic_write"]


def atomic_write(path: Path, chunks: Iterable[bytes], *, suffix: str = "") -> None:
    """Write ``chunks`` to ``path`` so that readers see either the old file or the whole new
    one, never a partial write; the data is on disk (fsync) before the rename. Raises OSError."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
