"""Changed-only recrawls: what the site's earlier runs stored, per URL, and each run's change list.

Per site the store keeps ``<site>/recrawl.jsonl``: one JSON line per URL the site's runs stored
(sorted by URL), with what a later run needs to skip work:

- ``url``, ``url_requested``, ``depth``: where the page is and how it was reached;
- ``outcome``, ``drop_reason``, ``title``, ``keys`` (its stored objects), ``markdown_sha256``;
- ``etag``, ``last_modified``: the validators of the response the stored objects came from, sent
  back as ``If-None-Match`` / ``If-Modified-Since``; a ``304 Not Modified`` keeps the stored
  objects as they are (nothing converted, nothing rewritten);
- ``content_fetched_at``: when the stored content was fetched (kept as it is while the content does
  not change, so an unchanged site leaves the file unchanged): a sitemap ``lastmod`` not after it,
  or not after the stored ``Last-Modified``, means the page did not change since (recipe
  ``follow.sitemap_lastmod``);
- ``links``: the followable links the page held, requested again when the page is not fetched
  (its children must still be checked).

A single-process run rewrites the file at its end from its run manifest (its pages replace their
lines); a distributed crawl's workers rewrite it from the crawl's merged manifest after each merge
(the last worker leaves the complete one). At start it is loaded into a small SQLite file in the
spool folder, so memory does not grow with the site.

Each run's change list goes to ``<site>/runs/changes/<run id>.json`` (schema
``gatecrawl.changes/1``): ``added`` (kept now, not kept before), ``changed`` (kept before and now,
an object rewritten), ``removed`` (kept before, dropped now), ``unchanged`` (kept before and now,
nothing rewritten: a 304, a sitemap ``lastmod`` skip, or the same identity), sorted URL lists, and
their counts plus ``dropped`` (pages not kept either time) and ``not_checked`` (kept before, not
reached by this run).

Pure: no Scrapy imports.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from w3lib.url import canonicalize_url

from gatecrawl.store.base import Store
from gatecrawl.store.keys import changes_key, state_key  # noqa: F401 - re-exported: keys live in store.keys

__all__ = [
    "CHANGES_VERSION",
    "CHANGE_KINDS",
    "PreviousState",
    "change_of",
    "changes_key",
    "conditional_headers",
    "lastmod_not_after",
    "parse_http_date",
    "parse_lastmod",
    "state_key",
    "state_lines",
]

CHANGES_VERSION = "gatecrawl.changes/1"
CHANGE_KINDS = ("added", "changed", "removed", "unchanged")
# The fields a state line keeps (everything else in a manifest entry is per run).
_STATE_FIELDS = (
    "url", "url_requested", "depth", "outcome", "drop_reason", "title", "keys", "markdown_sha256",
    "etag", "last_modified", "content_fetched_at", "links", "identity_sha256",
)




def canonical(url: str) -> str:
    try:
        return canonicalize_url(url)
    except ValueError:
        return url


def conditional_headers(prev: Mapping[str, Any] | None) -> dict[str, str]:
    """``If-None-Match`` / ``If-Modified-Since`` for a page stored with these validators."""
    if not prev:
        return {}
    out = {}
    if prev.get("etag"):
        out["If-None-Match"] = str(prev["etag"])
    if prev.get("last_modified"):
        out["If-Modified-Since"] = str(prev["last_modified"])
    return out


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def parse_lastmod(text: Any) -> datetime | None:
    """A sitemap ``lastmod`` (W3C datetime) as an aware UTC datetime; None when it does not parse.
    A date without a time means "some time that day": the end of the day (UTC), so that a page
    changed later the same day is never taken as unchanged."""
    s = str(text or "").strip()
    if not s:
        return None
    try:
        if len(s) == 10:  # YYYY-MM-DD
            return _utc(datetime.fromisoformat(s)) + timedelta(days=1) - timedelta(microseconds=1)
        if len(s) == 7:  # YYYY-MM
            y, m = int(s[:4]), int(s[5:7])
            nxt = datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=timezone.utc)
            return nxt - timedelta(microseconds=1)
        if len(s) == 4:
            return datetime(int(s) + 1, 1, 1, tzinfo=timezone.utc) - timedelta(microseconds=1)
        return _utc(datetime.fromisoformat(s.replace("Z", "+00:00")))
    except ValueError:
        return None


def parse_http_date(text: Any) -> datetime | None:
    from email.utils import parsedate_to_datetime

    try:
        return _utc(parsedate_to_datetime(str(text)))
    except (TypeError, ValueError, IndexError):
        return None


def lastmod_not_after(lastmod: Any, prev: Mapping[str, Any] | None) -> bool:
    """True when a sitemap ``lastmod`` says the page did not change since the stored copy was
    fetched (``content_fetched_at``, or the stored response's ``Last-Modified``). False whenever in
    doubt: no lastmod, nothing stored, no time to compare with."""
    if not prev or prev.get("outcome") != "kept":
        return False
    when = parse_lastmod(lastmod)
    if when is None:
        return False
    bounds = [parse_lastmod(prev.get("content_fetched_at")), parse_http_date(prev.get("last_modified")) if prev.get("last_modified") else None]
    return any(b is not None and when <= b for b in bounds)


def change_of(prev: Mapping[str, Any] | None, outcome: str | None, objects: Mapping[str, str], not_modified: bool) -> str:
    """The change kind of one page of a run: ``added``, ``changed``, ``removed``, ``unchanged``,
    or ``dropped`` (not kept before, not kept now)."""
    kept_before = bool(prev) and prev.get("outcome") == "kept"  # type: ignore[union-attr]
    if outcome != "kept":
        return "removed" if kept_before else "dropped"
    if not kept_before:
        return "added"
    if not_modified:
        return "unchanged"
    rewritten = any(status in ("put", "deleted", "pending") for status in objects.values())
    return "changed" if rewritten else "unchanged"


def state_line(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {k: entry.get(k) for k in _STATE_FIELDS}


def state_lines(previous: "PreviousState | None", pages: Iterable[Mapping[str, Any]], *, forget_unreached_dropped: bool = False) -> Iterator[bytes]:
    """The new ``recrawl.jsonl``: the previous lines, this run's pages replacing theirs, sorted by
    URL. ``forget_unreached_dropped``: previous lines of dropped URLs this run did not reach are
    left out (a complete run prunes their quarantine packets)."""
    # A merge of two streams sorted by URL (the run's pages, the previous lines), one line in
    # memory at a time; a URL twice among the pages keeps its last entry.
    def dump(line: Mapping[str, Any]) -> bytes:
        return (json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")

    def new_lines() -> Iterator[dict[str, Any]]:
        last: dict[str, Any] | None = None
        for p in pages:
            if not (isinstance(p, Mapping) and isinstance(p.get("url"), str)):
                continue
            if last is not None and last["url"] != p["url"]:
                yield last
            last = state_line(p)
        if last is not None:
            yield last

    old = previous.lines() if previous is not None else iter(())
    new = new_lines()
    o, n = next(old, None), next(new, None)
    while o is not None or n is not None:
        if n is not None and (o is None or n["url"] <= o["url"]):
            if o is not None and o["url"] == n["url"]:
                o = next(old, None)
            yield dump(n)
            n = next(new, None)
        else:
            assert o is not None
            if not (forget_unreached_dropped and o.get("outcome") != "kept"):
                yield dump(o)
            o = next(old, None)


class PreviousState:
    """The site's ``recrawl.jsonl`` as it was when the run started, looked up by canonical URL
    (final or requested). Backed by SQLite (a file in the spool folder, or memory)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists():
                self.path.unlink()
        self._db = sqlite3.connect(str(self.path) if self.path is not None else ":memory:", check_same_thread=False)
        # url: the canonical URL (lookups); raw: the URL as stored (the file's order).
        self._db.execute("CREATE TABLE pages (url TEXT PRIMARY KEY, raw TEXT NOT NULL, outcome TEXT, req TEXT, depth INTEGER, doc TEXT NOT NULL)")
        self._db.execute("CREATE INDEX pages_raw ON pages (raw)")
        self._db.execute("CREATE TABLE alias (url TEXT PRIMARY KEY, canon TEXT NOT NULL)")
        self._lock = threading.Lock()
        self.count = 0
        self.kept = 0

    @classmethod
    def load(cls, store: Store, site: str, path: str | Path | None = None) -> "PreviousState":
        state = cls(path)
        data = store.get(state_key(site))
        if data:
            state.add_lines(data.decode("utf-8", errors="replace").splitlines())
        return state

    def add_lines(self, lines: Iterable[str]) -> None:
        with self._lock:
            for line in lines:
                try:
                    doc = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(doc, dict) or not isinstance(doc.get("url"), str):
                    continue
                canon = canonical(doc["url"])
                depth = doc.get("depth") if isinstance(doc.get("depth"), int) else 0
                req_url = doc.get("url_requested") if isinstance(doc.get("url_requested"), str) else None
                self._db.execute(
                    "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?)",
                    (canon, doc["url"], str(doc.get("outcome")), req_url, depth, json.dumps(doc, sort_keys=True)),
                )
                req = doc.get("url_requested")
                if isinstance(req, str) and canonical(req) != canon:
                    self._db.execute("INSERT OR IGNORE INTO alias VALUES (?, ?)", (canonical(req), canon))
                self.count += 1
                self.kept += doc.get("outcome") == "kept"
            self._db.commit()

    def __len__(self) -> int:
        return self.count

    def get(self, url: str) -> dict[str, Any] | None:
        if not self.count:
            return None
        canon = canonical(url)
        with self._lock:
            row = self._db.execute("SELECT doc FROM pages WHERE url = ?", (canon,)).fetchone()
            if row is None:
                alias = self._db.execute("SELECT canon FROM alias WHERE url = ?", (canon,)).fetchone()
                if alias is not None:
                    row = self._db.execute("SELECT doc FROM pages WHERE url = ?", (alias[0],)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def _rows(self, columns: str, where: str = "1") -> Iterator[tuple]:
        """``(raw, *columns)`` rows by URL, read a batch at a time (never the whole table in
        memory; keyset pagination on the indexed ``raw``)."""
        last = None
        while True:
            with self._lock:
                if last is None:
                    batch = self._db.execute(f"SELECT raw, {columns} FROM pages WHERE {where} ORDER BY raw LIMIT 1000").fetchall()
                else:
                    batch = self._db.execute(f"SELECT raw, {columns} FROM pages WHERE raw > ? AND {where} ORDER BY raw LIMIT 1000", (last,)).fetchall()
            yield from batch
            if len(batch) < 1000:
                return
            last = batch[-1][0]

    def lines(self) -> Iterator[dict[str, Any]]:
        """Every line, in the file's order (by URL)."""
        for _, doc in self._rows("doc"):
            yield json.loads(doc)

    def kept_pages(self) -> Iterator[tuple[str, str | None, int]]:
        """``(url, url_requested, depth)`` of every kept page, by URL."""
        yield from self._rows("req, depth", "outcome = 'kept'")

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self.path is not None:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
