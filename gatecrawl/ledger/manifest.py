"""The run manifest's bytes: its entries sorted by URL, joined with the store's last status of
each key, streamed with one page in memory at a time.

``<site>/runs/<run id>.json`` (schema ``gatecrawl.run/1``): counts, drop reasons, every key of the
run with what happened to it (``put``, ``unchanged``, ``deleted``, ``absent``, ``pending``), the
per-run facts of each page (``fetched_at``, ``latency_ms``, the render's timings) and
``crawl_id`` (the shared crawl in distributed mode, else null). The entries and the status
changes are spill files (:mod:`gatecrawl.store.spill`); the manifest is built from them with
bounded memory (external sort by URL, the statuses joined by key).
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Iterable, Iterator

from gatecrawl.core.redact import redact_obj
from gatecrawl.store.spill import SpillDir, SpillFile

__all__ = ["RUN_SUMMARY_VERSION", "format_summary", "manifest_chunks", "manifest_pages", "write_manifest"]

RUN_SUMMARY_VERSION = "gatecrawl.run/1"


def manifest_pages(spill: SpillDir, entries: SpillFile, statuses: SpillFile, n_entries: int, n_statuses: int) -> Iterator[dict[str, Any]]:
    """The manifest's ``pages``: the first ``n_entries`` entries sorted by URL (ties in export
    order), each with ``objects``, the store's last status of each of its keys among the first
    ``n_statuses`` status changes (``pending`` when none). Bounded memory: external sorts."""
    # The last status of every key, in key order.
    final = _last_per_key(spill.sorted(statuses.read(n_statuses), key=_first))
    # Every (key, entry number) reference, in key order, joined with the statuses, then back
    # in entry order.
    refs = spill.sorted(([k, i] for i, e in enumerate(entries.read(n_entries)) for k in e["keys"] + e["stale_keys"]), key=_first)
    resolved = iter(spill.sorted(_join(refs, final), key=_first))
    nxt = next(resolved, None)

    def with_objects() -> Iterator[dict[str, Any]]:
        nonlocal nxt
        for i, e in enumerate(entries.read(n_entries)):
            objects: dict[str, str] = {}
            while nxt is not None and nxt[0] == i:
                # An entry whose stored copy stands touched no object: unchanged.
                objects[nxt[1]] = nxt[2] or ("unchanged" if e.get("not_modified") else "pending")
                nxt = next(resolved, None)
            e["objects"] = objects
            yield e

    for e in spill.sorted(with_objects(), key=lambda e: e["url"] or ""):
        yield redact_obj(e)


def write_manifest(spill: SpillDir, head: dict[str, Any], pages: Iterable[dict[str, Any]]) -> bytes:
    """The run manifest's bytes, streamed through a spill file."""
    path = spill.path / "run-manifest.json"
    with open(path, "wb") as fh:
        fh.writelines(manifest_chunks(head, pages))
    try:
        return path.read_bytes()
    finally:
        path.unlink()


def _first(record: Any) -> Any:
    return record[0]


def _last_per_key(events: Iterable[list]) -> Iterator[list]:
    """``[key, status]`` events sorted by key (each key's in the order they happened): the last
    of each key."""
    prev = None
    for ev_ in events:
        if prev is not None and prev[0] != ev_[0]:
            yield prev
        prev = ev_
    if prev is not None:
        yield prev


def _join(refs: Iterable[list], final: Iterator[list]) -> Iterator[list]:
    """``[key, entry number]`` refs and ``[key, status]`` statuses, both in key order ->
    ``[entry number, key, status or None]``."""
    f = next(final, None)
    for key, i in refs:
        while f is not None and f[0] < key:
            f = next(final, None)
        yield [i, key, f[1] if f is not None and f[0] == key else None]


def manifest_chunks(head: dict[str, Any], pages: Iterable[Any]) -> Iterator[bytes]:
    """The bytes of ``json.dumps({**head, "pages": list(pages)}, sort_keys=True,
    ensure_ascii=False, indent=2, default=str) + "\n"``, with one page in memory at a time."""
    marker = f"gatecrawl-pages-{uuid.uuid4().hex}"
    text = json.dumps({**head, "pages": marker}, sort_keys=True, ensure_ascii=False, indent=2, default=str)
    before, sep, after = text.partition(json.dumps(marker))
    assert sep and json.dumps(marker) not in after
    yield before.encode("utf-8")
    first = True
    for page in pages:
        # An item of a list at depth 1 of an indent=2 document: every line 4 spaces deeper (JSON
        # strings never hold a raw newline).
        item = json.dumps(page, sort_keys=True, ensure_ascii=False, indent=2, default=str)
        yield (("[\n" if first else ",\n") + "\n".join("    " + line for line in item.split("\n"))).encode("utf-8")
        first = False
    yield ("[]" if first else "\n  ]").encode("utf-8")
    yield (after + "\n").encode("utf-8")


def format_summary(summary: dict[str, Any], key: str, pending: int = 0, crawl_key: str | None = None) -> str:
    c = summary["counts"]
    lines = [
        f"gatecrawl: site {summary['site']}, run {summary['run_id']}",
        f"  pages seen {c['seen']}, kept {c['kept']}, dropped {c['dropped']}, flagged for rendering {c['needs_render']}",
    ]
    for reason, n in c["dropped_by_reason"].items():
        lines.append(f"    dropped {reason}: {n}")
    hint = (summary.get("stats") or {}).get("gatecrawl/egress/admit_hint")
    if hint and c["dropped_by_reason"].get("egress_blocked"):
        lines.append(f"  egress_blocked: {hint}")
    lines.append(f"  store {summary['store_uri']}, run summary {key}")
    if crawl_key:
        lines.append(f"  crawl {summary.get('crawl_id')}: merged manifest {crawl_key}")
    if pending:
        lines.append(f"  NOT UPLOADED: {pending} store operations wait in the spool")
    return "\n".join(lines)

