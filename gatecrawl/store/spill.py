"""Spill files: per-page records kept on disk, not in memory, until the run closes.

A crawl of a million pages must not hold a million records in memory until it ends. The export
pipeline (run manifest entries, the store's per-key statuses) and the report extension (per-page
facts) append each record, as it is produced, as one JSON line to a file in a private folder, and
read the files back when the crawl closes: in order (:meth:`SpillFile.read`), or sorted with
bounded memory (:func:`sorted_records`: an external merge sort, stable, so it yields exactly what
``sorted(records, key=key)`` would).

A record goes through JSON (ASCII, so any string, lone surrogates included, comes back unchanged):
records are JSON-like values (dicts with string keys, lists, strings, numbers, booleans, None);
a tuple comes back as a list, anything else as its ``str()``.

Folder: ``<base>/<prefix>-<pid>-<random>/`` (the export passes ``<GATECRAWL_SPOOL_DIR>/spill``),
holding a ``LOCK`` file locked (``flock``) for the folder's lifetime. :meth:`SpillDir.close` removes
the folder; a folder left by a crashed run (its lock is free) is removed by the next run that opens
one under the same base.

Pure: no Scrapy imports.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

try:  # POSIX; elsewhere a crashed run's folder is simply left behind
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["SORT_CHUNK", "SpillDir", "SpillFile", "open_spill", "remove_stale", "sorted_records"]

logger = logging.getLogger(__name__)

# Records sorted in memory at a time (one run of the external sort), and runs merged at a time.
SORT_CHUNK = 10_000
SORT_FAN_IN = 64
_LOCK = "LOCK"
# Folders created by this process's spills (see SpillDir.close).
_CREATED: set[Path] = set()
_CREATED_LOCK = threading.Lock()
# A folder without a lock file is one being created (or a crash in between): removed once old.
_UNLOCKED_GRACE_S = 3600.0


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str)


class SpillFile:
    """An append-only file of JSON lines. ``append`` may be called from any thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh = open(path, "w", encoding="ascii", newline="\n")  # noqa: SIM115 - open until close()
        self._lock = threading.Lock()
        self._count = 0
        self._closed = False

    def append(self, record: Any) -> None:
        line = _dumps(record) + "\n"
        with self._lock:
            if self._closed:
                return  # a late status change after the run's close: nobody reads it any more
            self._fh.write(line)
            self._count += 1

    def __len__(self) -> int:
        return self._count

    def mark(self) -> int:
        """Flush; the number of records written so far (``read(limit=...)`` reads up to there)."""
        with self._lock:
            if not self._closed:
                self._fh.flush()
            return self._count

    def read(self, limit: int | None = None) -> Iterator[Any]:
        """The records in the order they were appended (the first ``limit`` of them)."""
        n = self.mark() if limit is None else limit
        with open(self.path, "r", encoding="ascii", newline="\n") as fh:
            for line in itertools.islice(fh, n):
                yield json.loads(line)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._fh.close()


class SpillDir:
    """A private folder of spill files, removed on :meth:`close` (or by a later run after a crash)."""

    def __init__(self, base: str | os.PathLike[str], prefix: str = "run") -> None:
        self.base = Path(base).absolute()
        # Folders above ``base`` created here are removed again once empty (a local-store crawl
        # leaves no empty spool folder behind), by whichever spill of this process closes last.
        with _CREATED_LOCK:
            _CREATED.update(p for p in self.base.parents if not p.exists())
        self.base.mkdir(parents=True, exist_ok=True)
        remove_stale(self.base)
        self.path = Path(tempfile.mkdtemp(dir=self.base, prefix=f"{prefix}-{os.getpid()}-"))
        # Locked before it gets its name, so another run never finds it unlocked.
        self._lock_fh: Any = open(self.path / f"{_LOCK}.new", "w")  # noqa: SIM115 - held (locked) until close()
        if fcntl is not None:
            fcntl.flock(self._lock_fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(self.path / f"{_LOCK}.new", self.path / _LOCK)
        self._files: list[SpillFile] = []
        self._sorts = itertools.count()

    def file(self, name: str) -> SpillFile:
        f = SpillFile(self.path / f"{name}.jsonl")
        self._files.append(f)
        return f

    def sorted(self, records: Iterable[Any], key: Callable[[Any], Any], chunk: int | None = None) -> Iterator[Any]:
        """``sorted(records, key=key)`` with at most ``chunk`` (default :data:`SORT_CHUNK`) records
        in memory (see :func:`sorted_records`)."""
        work = self.path / f"sort-{next(self._sorts)}"
        work.mkdir()
        return sorted_records(records, key, workdir=work, chunk=chunk or SORT_CHUNK)

    def close(self) -> None:
        for f in self._files:
            f.close()
        self._files.clear()
        try:
            self._lock_fh.close()
        except OSError:
            pass
        shutil.rmtree(self.path, ignore_errors=True)
        with _CREATED_LOCK:
            for folder in (self.base, *self.base.parents):
                if folder != self.base and folder not in _CREATED:
                    break
                try:
                    folder.rmdir()  # only when empty: no other spill is there
                except OSError:
                    break
                _CREATED.discard(folder)


def remove_stale(base: Path) -> int:
    """Remove the spill folders under ``base`` whose run is gone (lock free); returns how many."""
    if fcntl is None:
        return 0
    removed = 0
    try:
        entries = list(base.iterdir())
    except OSError:
        return 0
    for d in entries:
        if d.is_dir() and _is_stale(d):
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def _is_stale(folder: Path) -> bool:
    """True when no live run holds ``folder``'s lock (or it has none and is old)."""
    try:
        with open(folder / _LOCK, "r+") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # a live run holds it
            return True
    except FileNotFoundError:
        try:
            return time.time() - folder.stat().st_mtime > _UNLOCKED_GRACE_S
        except OSError:
            return False
    except OSError:
        return False


def _write_run(records: Iterable[Any], path: Path) -> Path:
    with open(path, "w", encoding="ascii", newline="\n") as fh:
        fh.writelines(_dumps(r) + "\n" for r in records)
    return path


def _read_run(path: Path) -> Iterator[Any]:
    with open(path, "r", encoding="ascii", newline="\n") as fh:
        for line in fh:
            yield json.loads(line)


def sorted_records(
    records: Iterable[Any],
    key: Callable[[Any], Any],
    *,
    workdir: Path,
    chunk: int = SORT_CHUNK,
    fan_in: int = SORT_FAN_IN,
) -> Iterator[Any]:
    """Yield ``records`` sorted by ``key``, stable: the order of ``sorted(records, key=key)``.

    At most ``chunk`` records are held in memory at once: runs of ``chunk`` records are sorted
    and written to ``workdir``, then merged (``fan_in`` runs at a time; ``heapq.merge`` puts equal
    keys in run order, and the runs hold consecutive slices of the input, so ties keep their
    input order). Records that go to disk come back through JSON (see the module docstring);
    ``key`` must give the same answer for a record and for its JSON round trip. The run files
    are removed when the iteration ends or the generator is closed; ``workdir`` is not."""
    chunk = max(1, chunk)
    it = iter(records)
    first = list(itertools.islice(it, chunk))
    runs: list[Path] = []
    try:
        buf = first
        while buf:
            if len(buf) < chunk and not runs:
                # Everything fits in one chunk: no disk at all.
                yield from sorted(buf, key=key)
                return
            buf.sort(key=key)
            runs.append(_write_run(buf, workdir / f"run-{len(runs)}.jsonl"))
            buf = list(itertools.islice(it, chunk))
        level = 0
        while len(runs) > fan_in:
            level += 1
            merged = []
            for i in range(0, len(runs), fan_in):
                group = runs[i : i + fan_in]
                if len(group) == 1:
                    merged.append(group[0])
                    continue
                out = _write_run(heapq.merge(*(_read_run(p) for p in group), key=key), workdir / f"merge-{level}-{i}.jsonl")
                for p in group:
                    p.unlink()
                merged.append(out)
            runs = merged
        readers = [_read_run(p) for p in runs]
        try:
            yield from heapq.merge(*readers, key=key)
        finally:
            for r in readers:
                r.close()
    finally:
        for p in runs:
            try:
                p.unlink()
            except OSError:
                pass


def open_spill(spool_dir: str | os.PathLike[str] | None, prefix: str) -> SpillDir:
    """A :class:`SpillDir` under ``<spool_dir>/spill`` (``GATECRAWL_SPOOL_DIR``), or under the
    system temporary folder when that one cannot be created."""
    from gatecrawl.store.config import DEFAULT_SPOOL_DIR

    base = Path(spool_dir or DEFAULT_SPOOL_DIR) / "spill"
    try:
        return SpillDir(base, prefix)
    except OSError as exc:
        fallback = Path(tempfile.gettempdir()) / "gatecrawl-spill"
        logger.warning("cannot spill per-page records to %s (%s); using %s", base, exc, fallback)
        return SpillDir(fallback, prefix)
