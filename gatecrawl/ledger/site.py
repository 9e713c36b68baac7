"""The site's documents the run ledger reads at the start of a run and rewrites at its end.

- ``<site>/index.jsonl``: one line per URL the site's runs stored (its latest state: outcome,
  drop reason, title, Markdown and packet keys), sorted by URL; no per-run fields, so an
  unchanged site leaves it unchanged (single-process runs; a distributed crawl has its merged
  manifest). A complete run also removes the quarantine packets of dropped URLs it no longer
  reached, and their lines (``GATECRAWL_QUARANTINE_PRUNE``);
- ``<site>/recrawl.jsonl``: what changed-only recrawls start from (:mod:`gatecrawl.store.recrawl`);
- ``<site>/runs/changes/<run id>.json``: the run's change list;
- ``<site>/routing.json``: learned render routing (:mod:`gatecrawl.core.routing`);
- ``<site>/crawls/<crawl id>.json``: a distributed crawl's run manifests merged
  (:mod:`gatecrawl.report.crawl`; the last worker to finish leaves the complete one).

Every function runs in a thread (store calls). Pure: no Scrapy imports.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable

from gatecrawl.core.redact import redact_obj
from gatecrawl.core.routing import RoutingModel
from gatecrawl.report.crawl import write_crawl_manifest
from gatecrawl.store import Store, StoreError
from gatecrawl.store.identity import object_metadata
from gatecrawl.store.keys import index_key, routing_key, state_key
from gatecrawl.store.recrawl import CHANGE_KINDS, CHANGES_VERSION, PreviousState, state_lines
from gatecrawl.store.spill import SpillDir, SpillFile

__all__ = ["changes_doc", "load_previous", "load_routing", "merge_crawl", "routing_doc", "state_doc", "write_index"]

logger = logging.getLogger(__name__)


def load_previous(store: Store, site: str, path: Path, stats: Any) -> PreviousState:
    """The site's ``recrawl.jsonl`` (empty when unreadable: no savings, but nothing wrong is kept)."""
    try:
        state = PreviousState.load(store, site, path)
    except StoreError as exc:
        logger.warning("recrawl: %s not read (%s); every page is fetched in full", state_key(site), exc)
        stats.inc_value("gatecrawl/recrawl/state_unreadable")
        return PreviousState(path)
    if len(state):
        logger.info("recrawl: %d pages stored by earlier runs (%d kept)", len(state), state.kept)
    return state


def load_routing(store: Store, site: str, options: dict[str, Any]) -> RoutingModel:
    """The site's routing model (empty when unreadable: every page takes the plain path first,
    as without routing)."""
    key = routing_key(site)
    try:
        data = store.get(key)
    except StoreError as exc:
        logger.warning("routing: %s not read (%s); every page is fetched plain first", key, exc)
        data = None
    return RoutingModel.loads(data, **options)


def routing_doc(store: Store, site: str, routing: RoutingModel, options: dict[str, Any]) -> tuple[str, bytes, str | None]:
    """``(key, bytes, error)``: this run's observations added to the stored model, read again
    (in distributed mode another worker may have written it meanwhile)."""
    key = routing_key(site)
    try:
        stored = RoutingModel.loads(store.get(key), **options)
    except StoreError as exc:
        return key, b"", str(exc)
    stored._run = routing._run
    return key, stored.updated().dumps(), None


def changes_doc(site: str, run_id: str, crawl_id: str | None, counts: dict[str, Any], spill: SpillDir, changes: SpillFile | None) -> bytes:
    """The run's change list: the counts and, per change kind, the URLs sorted."""
    lists: dict[str, list[str]] = {k: [] for k in CHANGE_KINDS}
    if changes is not None:
        for kind, url in spill.sorted(changes.read(changes.mark()), key=lambda r: (r[0], r[1])):
            lists.setdefault(kind, []).append(url)
    doc = redact_obj(
        {
            "schema_version": CHANGES_VERSION,
            "site": site,
            "run_id": run_id,
            "crawl_id": crawl_id,
            "counts": {k: v for k, v in counts.items() if k != "key"},
            **lists,
        }
    )
    return (json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def state_doc(site: str, previous: PreviousState | None, manifest: bytes | None, merged: dict[str, Any] | None,
              complete: bool = False) -> tuple[str, bytes] | None:
    """``<site>/recrawl.jsonl`` from the state the run started with and this run's pages
    (``manifest``), or in distributed mode the crawl's merged pages. A ``complete`` run leaves
    out the dropped URLs it did not reach (as the site index does). None: nothing to write."""
    if manifest is not None:
        doc = json.loads(manifest)
    elif merged is not None:
        doc = merged
    else:
        return None
    key = state_key(doc.get("site") or site)
    pages = doc.get("pages") or []
    if isinstance(pages, dict):  # a merged manifest: one entry per store key
        pages = sorted(pages.values(), key=lambda p: str(p.get("url") or ""))
    return key, b"".join(state_lines(previous, pages, forget_unreached_dropped=complete))


def write_index(store: Store, stats: Any, manifest: bytes, complete: bool = False) -> tuple[str, str | None]:
    """``<site>/index.jsonl`` with this run's pages (``manifest``) replacing their earlier lines;
    a ``complete`` run prunes (see the module docstring). Returns (key, error or None)."""
    doc = json.loads(manifest)
    key = index_key(doc["site"])
    try:
        old = store.get(key)
    except StoreError as exc:
        # Not lost: the pages and the manifest are stored; the next run writes the index.
        logger.warning("site index %s not updated: %s", key, exc)
        return key, None
    try:
        entries: dict[str, dict[str, Any]] = {}
        for line in (old or b"").decode("utf-8", errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e, dict) and isinstance(e.get("url"), str):
                entries[e["url"]] = e
        reached = {p["url"] for p in doc["pages"]}
        written = {k for p in doc["pages"] for k in p.get("keys") or []}
        if complete:
            for url in [u for u, e in entries.items() if u not in reached and e.get("outcome") != "kept"]:
                packet = entries[url].get("packet")
                if isinstance(packet, str) and "/quarantine/" in packet and packet not in written:
                    store.delete(packet)
                    stats.inc_value("gatecrawl/export/quarantine_pruned")
                    logger.info("export: %s left the crawl; quarantine packet %s removed", url, packet)
                del entries[url]
        for p in doc["pages"]:
            keys = p.get("keys") or []
            entries[p["url"]] = {
                "url": p["url"],
                "outcome": p.get("outcome"),
                "drop_reason": p.get("drop_reason"),
                "title": p.get("title"),
                "markdown": next((k for k in keys if k.endswith(".md")), None),
                "packet": next((k for k in keys if k.endswith(".json")), None),
            }
        data = "".join(json.dumps(entries[u], sort_keys=True, ensure_ascii=False) + "\n" for u in sorted(entries)).encode("utf-8")
        store.put(key, data, content_type="application/x-ndjson", metadata=object_metadata(key, data))
    except (StoreError, ValueError, KeyError) as exc:
        return key, str(exc)
    return key, None


def merge_crawl(store: Store, manifest: bytes, crawl_id: str, run_ids: Callable[[], list[str] | None],
                flush_timeout: float) -> tuple[str | None, dict[str, Any] | None, str | None]:
    """Merge the crawl's run manifests (this run's, ``manifest``, included) into
    ``<site>/crawls/<crawl id>.json``. Returns (key, merged manifest, error or None)."""
    try:
        own = json.loads(manifest)
        key, merged = write_crawl_manifest(store, own["site"], crawl_id, own=own, run_ids=run_ids, flush_timeout=flush_timeout)
    except Exception as exc:  # noqa: BLE001 - the merge must never break closing the export
        return None, None, f"{type(exc).__name__}: {exc}" if not isinstance(exc, StoreError) else str(exc)
    return key, merged, None
