"""ExportPipeline: Markdown and evidence packets to the store, quarantine for drops, a run manifest.

Keys (deterministic, from the canonical final URL; an ``s3://bucket/prefix`` store puts them under
``prefix/``):

- kept: ``<site>/pages/<sha256>.md`` and ``<site>/pages/<sha256>.json``;
- dropped: ``<site>/quarantine/<sha256>.json``;
- per site: ``<site>/index.jsonl``, every URL stored for the site with its latest outcome, title
  and keys (single-process runs; a distributed crawl has its merged manifest);
- per run: ``<site>/runs/<run id>.json``, the run manifest: counts, drop reasons, every key of the
  run with what happened to it (``put``, ``unchanged``, ``deleted``, ``absent``, ``pending``), and
  the per-run facts of each page (``fetched_at``, ``latency_ms``), and ``crawl_id`` (the shared
  crawl in distributed mode, else null);
- per distributed crawl: ``<site>/crawls/<crawl id>.json``, the crawl's run manifests merged
  (:mod:`gatecrawl.report.crawl`). Every worker rewrites it after its own run manifest, so the
  last worker to finish leaves the complete one;
- changed-only recrawls (:mod:`gatecrawl.store.recrawl`): ``<site>/recrawl.jsonl`` (loaded at
  start for the conditional requests, rewritten at the end from the run's pages, or in distributed
  mode from the merged crawl) and the run's change list ``<site>/runs/changes/<run id>.json``; a
  page whose stored copy stands (``PageCapture.not_modified``: a 304, a sitemap lastmod skip) gets
  a manifest entry and no write;
- learned render routing (:mod:`gatecrawl.core.routing`): ``<site>/routing.json``, loaded at start,
  this run's observations (kept pages) added at the end.

Idempotency: an object is rewritten only when its *identity* changed
(:mod:`gatecrawl.store.identity`): the bytes for Markdown, the packet without its per-run fields
(``run_id``, ``fetched_at``, timings) for packets. The identity travels as object metadata
(``identity-sha256``, with ``content-sha256``, ``schema-version``, ``recipe-digest``), so a re-crawl
of an unchanged site rewrites nothing, on a local folder or on S3. A page that changes outcome has
its stale objects removed, so the store shows each URL's latest state once.

Memory stays flat however long the crawl: each page's manifest entry, and every status change of
the store's objects, is appended as one JSON line to a spill file (:mod:`gatecrawl.store.spill`,
under ``<GATECRAWL_SPOOL_DIR>/spill/``) instead of being kept; only counters stay in memory. At
the end the manifest is built from those files with bounded memory (external sort by URL, the
statuses joined by key) and the files are removed.

Nothing is lost: with an ``s3://`` store every object is spooled durably before upload
(:mod:`gatecrawl.store.s3`); the pipeline never blocks the reactor on the store (all store calls
run in threads). At the end the pipeline waits for the uploads (``GATECRAWL_EXPORT_FLUSH_TIMEOUT``);
whatever is still in the spool is reported as ``gatecrawl/export/pending`` and the crawl exits
non-zero (``gatecrawl/exit/export_pending``). The next run uploads the leftovers first.

Settings: ``GATECRAWL_STORE_URI``, ``GATECRAWL_SPOOL_DIR``, ``GATECRAWL_EXPORT_FLUSH_TIMEOUT``,
``GATECRAWL_EXPORT_THREADS``, ``GATECRAWL_S3_*``, ``AWS_*``, ``GATECRAWL_SUMMARY_PRINT``.
Stats: ``gatecrawl/export/put``, ``gatecrawl/export/unchanged``, ``gatecrawl/export/stale_removed``,
``gatecrawl/export/quarantined``, ``gatecrawl/export/failed``, ``gatecrawl/export/spooled``,
``gatecrawl/export/recovered``, ``gatecrawl/export/upload_failed``, ``gatecrawl/export/deferred``,
``gatecrawl/export/breaker_opened``, ``gatecrawl/export/damaged``, ``gatecrawl/export/checksum_mismatch``,
``gatecrawl/export/pending``, ``gatecrawl/export/crawl_merge_failed``, ``gatecrawl/stage_ms/export``; exit reasons ``gatecrawl/exit/export_pending``,
``gatecrawl/exit/export_failed``, ``gatecrawl/exit/nothing_kept``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core import evidence as ev
from gatecrawl.core.routing import RoutingModel, observation, routing_key
from gatecrawl.core.redact import redact_obj, redact_url
from gatecrawl.items import PageCapture, feed_item
from gatecrawl.signals import page_stored
from gatecrawl.report.crawl import run_manifest_key, write_crawl_manifest
from gatecrawl.store import StoreError, open_store, page_keys
from gatecrawl.store.identity import identity_sha256, run_facts
from gatecrawl.store.recrawl import CHANGE_KINDS, CHANGES_VERSION, PreviousState, change_of, changes_key, state_key, state_lines
from gatecrawl.store.spill import SpillDir, SpillFile, open_spill

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from gatecrawl.store import Store

logger = logging.getLogger(__name__)

RUN_SUMMARY_VERSION = "gatecrawl.run/1"
# Store counters published as gatecrawl/export/<name>; "deleted" is published as stale_removed.
_COUNTER_STATS = {"deleted": "stale_removed"}
_PUBLISHED_COUNTERS = (
    "put",
    "unchanged",
    "deleted",
    "spooled",
    "recovered",
    "upload_failed",
    "deferred",
    "breaker_opened",
    "damaged",
    "checksum_mismatch",
    "journal_replayed",
    "journal_damaged",
    "fsync_batches",
)


class ExportPipeline:
    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.store_uri: str = settings.get("GATECRAWL_STORE_URI")
        self.print_summary = settings.getbool("GATECRAWL_SUMMARY_PRINT")
        self.flush_timeout = settings.getfloat("GATECRAWL_EXPORT_FLUSH_TIMEOUT", 300.0)
        self.options = {k: v for k, v in settings.items() if k.startswith("AWS_") or k.startswith("GATECRAWL_")}
        self.spool_dir: str = settings.get("GATECRAWL_SPOOL_DIR") or ".gatecrawl-spool"
        self.store: Store | None = None
        # The run manifest's entries and the store's status changes go to spill files, in the
        # order they happen; only the counts stay in memory.
        self._spill: SpillDir | None = None
        self._entries: SpillFile | None = None
        self._statuses: SpillFile | None = None
        self.counts: dict[str, int] = {"seen": 0, "kept": 0, "dropped": 0, "needs_render": 0}
        self.dropped_by_reason: dict[Any, int] = {}
        self.failed_keys: list[str] = []
        self.started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        # Distributed mode: the shared crawl and the run ids its workers registered, from the
        # scheduler (gatecrawl.distributed.scheduler); None otherwise.
        self.crawl_id: str | None = None
        self._crawl_run_ids: Any = None
        self.feed_dropped = settings.getbool("GATECRAWL_FEED_DROPPED")
        self.write_index = settings.getbool("GATECRAWL_INDEX_ENABLED")
        self.front_matter = settings.getbool("GATECRAWL_MARKDOWN_FRONT_MATTER")
        # Changed-only recrawls: what the site's earlier runs stored (<site>/recrawl.jsonl), this
        # run's change kinds (counts in memory, the URLs in a spill file).
        self.previous: PreviousState | None = None
        self._changes: SpillFile | None = None
        self.change_counts: dict[str, int] = {k: 0 for k in (*CHANGE_KINDS, "dropped")}
        self._merged: dict[str, Any] | None = None
        # Render routing learned per URL template (gatecrawl.core.routing), as the run started;
        # this run's observations are added to it.
        self.routing_enabled = settings.getbool("GATECRAWL_ROUTING_ENABLED") and settings.getbool("GATECRAWL_RENDER_ENABLED")
        self.routing_options = {
            "min_observations": settings.getint("GATECRAWL_ROUTING_MIN_OBSERVATIONS", 5),
            "recheck_share": settings.getfloat("GATECRAWL_ROUTING_RECHECK_SHARE", 0.1),
        }
        self.routing: RoutingModel | None = None
        self.prune = settings.getbool("GATECRAWL_QUARANTINE_PRUNE")
        # Set when the spider went idle (frontier empty, nothing in flight), cleared by every
        # request scheduled after: at close, True means the crawl ran out of URLs by itself.
        self._drained = False
        crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._on_scheduled, signal=signals.request_scheduled)

    def _on_idle(self) -> None:
        self._drained = True

    def _on_scheduled(self, request: Any) -> None:
        self._drained = False

    def _why_not_complete(self, summary: dict[str, Any]) -> str | None:
        """None when this run saw the whole site as its recipe defines it, so a URL stored before
        and not reached now has left the crawl; otherwise why that cannot be told."""
        stats = self.stats
        spider = self.crawler.spider
        if not self.prune:
            return "GATECRAWL_QUARANTINE_PRUNE is off"
        if self.crawl_id:
            return "distributed crawl"
        if self.crawler.settings.get("JOBDIR"):
            return "JOBDIR (a resumed run sees part of the site)"
        if not getattr(spider, "covers_recipe", False):
            return "start URLs given on the command line"
        if stats.get_value("gatecrawl/follow/max_pages_reached"):
            return "max_pages reached"
        if not self._drained:
            return "the crawl was stopped before its frontier was empty"
        if summary["counts"]["kept"] == 0 or self.failed_keys:
            return "nothing kept or an export failed"
        return None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExportPipeline:
        return cls(crawler)

    async def open_spider(self) -> None:
        # The scheduler is open before the pipelines (its crawl id is validated there).
        scheduler = getattr(getattr(self.crawler, "engine", None), "scheduler", None)
        crawl_id = getattr(scheduler, "crawl_id", None)
        self.crawl_id = str(crawl_id) if crawl_id else None
        self._crawl_run_ids = getattr(scheduler, "crawl_run_ids", None) if self.crawl_id else None
        self.store = await run_in_thread(open_store, self.store_uri, self.options)
        self._open_spill()
        self.previous = await run_in_thread(self._load_previous)
        self.crawler._gatecrawl_previous = self.previous  # type: ignore[attr-defined]
        if self.routing_enabled:
            self.routing = await run_in_thread(self._load_routing)
            self.crawler._gatecrawl_routing = self.routing  # type: ignore[attr-defined]
        recovered = await run_in_thread(self.store.resume)
        if recovered:
            logger.info("export: %d objects from an earlier run are being uploaded first", recovered)

    def _open_spill(self) -> None:
        if self._spill is not None:
            return
        self._spill = open_spill(self.spool_dir, "export")
        self._entries = self._spill.file("manifest")
        self._changes = self._spill.file("changes")
        statuses = self._statuses = self._spill.file("statuses")
        if self.store is not None:
            # Before resume(): uploads of an earlier run's leftovers change statuses too.
            self.store.set_status_sink(lambda key, status: statuses.append([key, status]))

    def _load_previous(self) -> PreviousState:
        """Runs in a thread: the site's ``recrawl.jsonl`` (empty when unreadable: no savings, but
        nothing wrong is kept)."""
        assert self.store is not None and self._spill is not None
        site = self.crawler.spider.name
        try:
            state = PreviousState.load(self.store, site, self._spill.path / "previous.sqlite")
        except StoreError as exc:
            logger.warning("recrawl: %s not read (%s); every page is fetched in full", state_key(site), exc)
            self.stats.inc_value("gatecrawl/recrawl/state_unreadable")
            return PreviousState(self._spill.path / "previous.sqlite")
        if len(state):
            logger.info("recrawl: %d pages stored by earlier runs (%d kept)", len(state), state.kept)
        return state

    def _load_routing(self) -> RoutingModel:
        """Runs in a thread: the site's routing model (empty when unreadable: every page takes the
        plain path first, as without routing)."""
        assert self.store is not None
        key = routing_key(self.crawler.spider.name)
        try:
            data = self.store.get(key)
        except StoreError as exc:
            logger.warning("routing: %s not read (%s); every page is fetched plain first", key, exc)
            data = None
        return RoutingModel.loads(data, **self.routing_options)

    def _write_routing(self) -> list[tuple[str, str | None]]:
        """Runs in a thread: this run's observations added to the stored model (read again: in
        distributed mode another worker may have written it meanwhile)."""
        assert self.store is not None
        if self.routing is None:
            return []
        key = routing_key(self.crawler.spider.name)
        try:
            stored = RoutingModel.loads(self.store.get(key), **self.routing_options)
        except StoreError as exc:
            return [(key, str(exc))]
        stored._run = self.routing._run
        data = stored.updated().dumps()
        return self._apply([("put", key, data, "application/json", self._metadata(key, data, {}))])

    def _close_spill(self) -> None:
        if self.previous is not None:
            self.previous.close()
            self.previous = None
        if self.store is not None:
            self.store.set_status_sink(None)
        if self._spill is not None:
            self._spill.close()
        self._spill = self._entries = self._statuses = self._changes = None

    # -- writing ----------------------------------------------------------------------

    @staticmethod
    def _metadata(key: str, data: bytes, packet: dict) -> dict[str, str]:
        return {
            "content-sha256": hashlib.sha256(data).hexdigest(),
            "identity-sha256": identity_sha256(key, data),
            "schema-version": ev.SCHEMA_VERSION,
            "recipe-digest": str(packet.get("recipe", {}).get("digest", "")),
        }

    def _apply(self, ops: list[tuple]) -> list[tuple[str, str | None]]:
        """Runs in a thread: hand every operation to the store; returns (key, error or None)."""
        assert self.store is not None
        out: list[tuple[str, str | None]] = []
        for op in ops:
            try:
                if op[0] == "put":
                    _, key, data, content_type, meta = op
                    self.store.put(key, data, content_type=content_type, metadata=meta)
                else:
                    key = op[1]
                    self.store.delete(key)
                out.append((key, None))
            except (StoreError, NotImplementedError) as exc:
                out.append((op[1], str(exc)))
        return out

    async def _export(self, item: PageCapture) -> dict[str, str]:
        packet = item.packet.to_dict() if item.packet is not None else {}
        site = packet.get("site") or self.crawler.spider.name
        keys = page_keys(site, packet["url_key"])
        ops: list[tuple] = []
        if item.outcome == "kept":
            packet["markdown_key"] = keys["markdown"]
            packet["packet_key"] = keys["packet"]
            md = ((front_matter(packet, keys["packet"]) if self.front_matter else "") + (item.markdown or "")).encode("utf-8")
            data = ev.dumps(packet)
            ops.append(("put", keys["markdown"], md, "text/markdown; charset=utf-8", self._metadata(keys["markdown"], md, packet)))
            ops.append(("put", keys["packet"], data, "application/json", self._metadata(keys["packet"], data, packet)))
            ops.append(("delete", keys["quarantine"]))
        else:
            packet["markdown_key"] = None
            packet["packet_key"] = keys["quarantine"]
            data = ev.dumps(packet)
            ops.append(("put", keys["quarantine"], data, "application/json", self._metadata(keys["quarantine"], data, packet)))
            ops.append(("delete", keys["markdown"]))
            ops.append(("delete", keys["packet"]))
            self.stats.inc_value("gatecrawl/export/quarantined")
        written = [op[1] for op in ops if op[0] == "put"]
        stored = {"markdown": keys["markdown"], "packet": keys["packet"]} if item.outcome == "kept" else {"quarantine": keys["quarantine"]}
        identities = {op[1]: op[4]["identity-sha256"] for op in ops if op[0] == "put"}
        prev = self._previous_of(packet.get("url_final"), packet.get("url_requested"))
        headers = packet.get("response_headers") or {}
        if self.routing is not None and isinstance(packet.get("url_final"), str):
            seen = observation({**packet, "outcome": item.outcome})
            if (seen == "plain" and self.routing.render_only(packet["url_final"])) or (seen == "browser" and self.routing.plain_only(packet["url_final"])):
                # Its template was render-only and this page (a re-check) read fine without the
                # browser, or it never needed the browser and this page did.
                self.stats.inc_value("gatecrawl/routing/mispredicted")
            self.routing.observe(packet["url_final"], seen)
        change = self._change(prev, item.outcome, identities, packet.get("markdown_sha256"), packet.get("url_final"))
        # When the stored content was fetched: kept while it does not change (the stored
        # objects are not rewritten either), so an unchanged site leaves recrawl.jsonl unchanged.
        content_fetched_at = packet.get("fetched_at")
        same = change == "unchanged" or (change == "dropped" and prev is not None and prev.get("identity_sha256") == identities)
        if prev is not None and same and prev.get("content_fetched_at"):
            content_fetched_at = prev["content_fetched_at"]
        self._add_entry(
            {
                "url": packet.get("url_final"),
                "url_requested": packet.get("url_requested"),
                "depth": packet.get("depth"),
                "change": change,
                "not_modified": None,
                "etag": headers.get("etag"),
                "last_modified": headers.get("last-modified"),
                "content_fetched_at": content_fetched_at,
                "links": item.links,
                "outcome": item.outcome,
                "drop_reason": item.drop_reason,
                "keys": written,
                "stale_keys": [op[1] for op in ops if op[0] == "delete"],
                "identity_sha256": identities,
                "markdown_sha256": packet.get("markdown_sha256"),
                "needs_render": packet.get("needs_render"),
                "reader": packet.get("reader"),
                "title": (packet.get("fields") or {}).get("title"),
                # Per-run facts: they are not part of the stored packet's identity.
                "fetched_at": packet.get("fetched_at"),
                "latency_ms": packet.get("latency_ms"),
                "render": run_facts(packet),
            }
        )
        for key, error in await run_in_thread(self._apply, ops):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(key)
                logger.error("export failed for %s: %s", key, error)
        return stored

    def _previous_of(self, *urls: Any) -> dict[str, Any] | None:
        if self.previous is None or not len(self.previous):
            return None
        for url in urls:
            if isinstance(url, str):
                prev = self.previous.get(url)
                if prev is not None:
                    return prev
        return None

    def _change(self, prev: dict[str, Any] | None, outcome: Any, identities: dict[str, str], markdown_sha256: Any, url: Any, not_modified: bool = False) -> str:
        """This page's change kind (:func:`gatecrawl.store.recrawl.change_of`); counted, and its
        URL noted for the run's change list."""
        if prev is not None and not not_modified and prev.get("outcome") == outcome == "kept":
            old = prev.get("identity_sha256")
            same = old == identities if isinstance(old, dict) and old else prev.get("markdown_sha256") == markdown_sha256
            kind = "unchanged" if same else "changed"
        else:
            kind = change_of(prev, outcome, {}, not_modified)
        self.change_counts[kind] = self.change_counts.get(kind, 0) + 1
        self.stats.inc_value(f"gatecrawl/recrawl/{kind}")
        self._open_spill()
        assert self._changes is not None
        if kind != "dropped":
            self._changes.append([kind, str(url or "")])
        return kind

    def _export_unchanged(self, item: PageCapture) -> None:
        """A page whose stored copy stands (a 304, or a sitemap lastmod skip): no object is
        written or removed; its manifest entry repeats what is stored and says why."""
        prev = item.previous or {}
        outcome = prev.get("outcome")
        self._add_entry(
            {
                "url": prev.get("url") or item.url_final,
                "url_requested": prev.get("url_requested") or item.url_requested,
                "depth": item.depth,
                "change": self._change(prev, outcome, {}, prev.get("markdown_sha256"), prev.get("url") or item.url_final, not_modified=True),
                "not_modified": item.not_modified,
                "etag": prev.get("etag"),
                "last_modified": prev.get("last_modified"),
                "content_fetched_at": prev.get("content_fetched_at"),
                "links": prev.get("links"),
                "outcome": outcome,
                "drop_reason": prev.get("drop_reason"),
                "keys": list(prev.get("keys") or []),
                "stale_keys": [],
                "identity_sha256": dict(prev.get("identity_sha256") or {}),
                "markdown_sha256": prev.get("markdown_sha256"),
                "needs_render": None,
                "reader": None,
                "title": prev.get("title"),
                "fetched_at": item.fetched_at,
                "latency_ms": item.latency_ms,
                "render": None,
            }
        )

    def _add_entry(self, entry: dict[str, Any]) -> None:
        self._open_spill()
        assert self._entries is not None
        self._entries.append(entry)
        c = self.counts
        c["seen"] += 1
        if entry["outcome"] == "kept":
            c["kept"] += 1
        elif entry["outcome"] == "dropped":
            c["dropped"] += 1
            reason = entry["drop_reason"]
            self.dropped_by_reason[reason] = self.dropped_by_reason.get(reason, 0) + 1
        if entry["needs_render"]:
            c["needs_render"] += 1

    async def process_item(self, item: Any) -> Any:
        """Store the page, announce it (``gatecrawl.signals.page_stored``), then hand the feeds a
        JSON-friendly page record (:func:`gatecrawl.items.feed_item`); a dropped page leaves the
        item flow here (quarantined, logged at INFO) unless ``GATECRAWL_FEED_DROPPED``."""
        if isinstance(item, PageCapture) and item.not_modified and item.previous is not None:
            self._export_unchanged(item)
            keys = list((item.previous or {}).get("keys") or [])
            stored = {"markdown": keys[0], "packet": keys[1]} if item.outcome == "kept" and len(keys) == 2 else {"quarantine": keys[0] if keys else None}
            self.crawler.signals.send_catch_log(signal=page_stored, item=item, keys=stored)
            # Not in the feeds: nothing about the page changed (its stored record stands).
            raise DropItem(f"unchanged ({item.not_modified}): {item.url_final}", log_level="DEBUG")
        if not isinstance(item, PageCapture) or item.packet is None:
            return item
        t0 = time.perf_counter()
        keys = await self._export(item)
        self.stats.inc_value("gatecrawl/stage_ms/export", int((time.perf_counter() - t0) * 1000))
        self.crawler.signals.send_catch_log(signal=page_stored, item=item, keys=keys)
        if item.outcome != "kept" and not self.feed_dropped:
            raise DropItem(f"{item.drop_reason}: {item.url_final}", log_level="INFO")
        return feed_item(item, keys)

    # -- run manifest -----------------------------------------------------------------

    def _summary_head(self) -> dict[str, Any]:
        """The run manifest without its ``pages`` (counts, stats, ...), redacted."""
        spider = self.crawler.spider
        stats = {k: v for k, v in sorted(self.stats.get_stats().items()) if k.startswith("gatecrawl/")}
        return redact_obj(
            {
                "schema_version": RUN_SUMMARY_VERSION,
                "run_id": spider.run_id,
                "crawl_id": self.crawl_id,
                "site": spider.name,
                "recipe": {"name": spider.recipe.name, "digest": spider.recipe.digest},
                "store_uri": redact_url(self.store_uri),
                "started_at": self.started_at,
                "finished_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "counts": {**self.counts, "dropped_by_reason": dict(sorted(self.dropped_by_reason.items()))},
                "changes": {**self._change_counts(), "key": changes_key(spider.name, str(spider.run_id))},
                "stats": stats,
            }
        )

    def _manifest_pages(self, n_entries: int, n_statuses: int) -> Iterator[dict[str, Any]]:
        """The manifest's ``pages``: the first ``n_entries`` entries sorted by URL (ties in export
        order), each with ``objects``, the store's last status of each of its keys among the first
        ``n_statuses`` status changes (``pending`` when none). Bounded memory: external sorts."""
        spill, entries, statuses = self._spill, self._entries, self._statuses
        assert spill is not None and entries is not None and statuses is not None
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

    def _write_manifest(self, head: dict[str, Any], n_entries: int, n_statuses: int) -> bytes:
        """Runs in a thread: the run manifest's bytes, streamed through a spill file."""
        assert self._spill is not None
        path = self._spill.path / "run-manifest.json"
        with open(path, "wb") as fh:
            fh.writelines(manifest_chunks(head, self._manifest_pages(n_entries, n_statuses)))
        try:
            return path.read_bytes()
        finally:
            path.unlink()

    def _publish_counters(self) -> None:
        assert self.store is not None
        counters = self.store.counters()
        for name in _PUBLISHED_COUNTERS:
            if counters.get(name):
                self.stats.set_value(f"gatecrawl/export/{_COUNTER_STATS.get(name, name)}", counters[name])

    async def close_spider(self) -> None:
        store = self.store
        if store is None:
            return
        try:
            await self._close(store)
        finally:
            self._close_spill()

    async def _close(self, store: Store) -> None:
        await run_in_thread(store.flush, self.flush_timeout)
        self._publish_counters()
        self._open_spill()
        assert self._entries is not None and self._statuses is not None
        # What is known now (later status changes, such as the manifest's own, are not part of it).
        n_entries, n_statuses = self._entries.mark(), self._statuses.mark()
        summary = self._summary_head()
        data = await run_in_thread(self._write_manifest, summary, n_entries, n_statuses)
        distributed_idle = bool(self.crawler.settings.get("GATECRAWL_REDIS_URL")) and summary["counts"]["seen"] == 0
        if summary["counts"]["kept"] == 0 and not distributed_idle:
            # Every page failed (or none was fetched): the crawl must not look successful. A
            # distributed worker that found the shared frontier empty did not fail.
            self.stats.set_value("gatecrawl/exit/nothing_kept", summary["counts"]["seen"] or "no pages")
        key = run_manifest_key(summary["site"], str(summary["run_id"]))
        for k, error in await run_in_thread(self._apply, [("put", key, data, "application/json", self._metadata(key, data, {}))]):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(k)
                logger.error("could not write the run manifest %s: %s", k, error)
        if self.write_index and not self.crawl_id:
            why_not = self._why_not_complete(summary)
            if why_not and self.prune:
                logger.info("export: quarantine not pruned: %s", why_not)
            index_key, error = await run_in_thread(self._write_index, data, why_not is None)
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(index_key)
                logger.error("could not write the site index %s: %s", index_key, error)
        for k, error in await run_in_thread(self._write_routing):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(k)
                logger.error("could not write the routing model %s: %s", k, error)
        for k, error in await run_in_thread(self._write_changes, summary):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(k)
                logger.error("could not write the change list %s: %s", k, error)
        if not self.crawl_id:
            # A complete run forgets the dropped URLs it no longer reached (their quarantine
            # packets are pruned with their index lines, above).
            complete = self.write_index and self._why_not_complete(summary) is None
            for k, error in await run_in_thread(self._write_recrawl_state, data, complete):
                if error is not None:
                    self.stats.inc_value("gatecrawl/export/failed")
                    self.failed_keys.append(k)
                    logger.error("could not write the recrawl state %s: %s", k, error)
        pending = await run_in_thread(store.flush, self.flush_timeout)
        crawl_key = None
        if self.crawl_id:
            crawl_key, error = await run_in_thread(self._merge_crawl, data)
            if error is not None:
                crawl_key = None
                self.stats.inc_value("gatecrawl/export/crawl_merge_failed")
                logger.error("could not write the merged manifest of crawl %s: %s", self.crawl_id, error)
            else:
                logger.info("crawl %s: merged manifest %s", self.crawl_id, crawl_key)
                # The crawl's merged pages are the state the next crawl starts from (the last
                # worker to finish leaves the complete one).
                for k, error in await run_in_thread(self._write_recrawl_state, None):
                    if error is not None:
                        self.stats.inc_value("gatecrawl/export/failed")
                        self.failed_keys.append(k)
                        logger.error("could not write the recrawl state %s: %s", k, error)
            pending = await run_in_thread(store.pending)
        self._publish_counters()
        if pending:
            where = getattr(store, "spool_root", None)
            self.stats.set_value("gatecrawl/export/pending", pending)
            detail = f"{pending} store operations (uploads, stale-object removals) not completed" + (f"; spool {where}" if where else "")
            last = getattr(store, "last_error", None)
            self.stats.set_value("gatecrawl/exit/export_pending", detail)
            logger.error("export: %s; the next run uploads them first%s", detail, f" (last error: {last})" if last else "")
        if self.failed_keys:
            self.stats.set_value("gatecrawl/exit/export_failed", f"{len(self.failed_keys)} objects could not be stored or spooled")
        await run_in_thread(store.close)
        if self.print_summary:
            print(format_summary(summary, key, pending, crawl_key), file=sys.stderr)

    def _change_counts(self) -> dict[str, int]:
        """This run's change counts, with ``not_checked``: pages kept before that this run did
        not reach (not requested: no longer linked, or past max_pages)."""
        c = dict(self.change_counts)
        reached_kept = c["changed"] + c["unchanged"] + c["removed"]
        c["not_checked"] = max(0, (self.previous.kept if self.previous is not None else 0) - reached_kept)
        return c

    def _write_changes(self, summary: dict[str, Any]) -> list[tuple[str, str | None]]:
        """Runs in a thread: the run's change list, ``<site>/runs/changes/<run id>.json``."""
        assert self.store is not None and self._spill is not None and self._changes is not None
        key = changes_key(summary["site"], str(summary["run_id"]))
        lists: dict[str, list[str]] = {k: [] for k in CHANGE_KINDS}
        for kind, url in self._spill.sorted(self._changes.read(self._changes.mark()), key=lambda r: (r[0], r[1])):
            lists.setdefault(kind, []).append(url)
        doc = redact_obj(
            {
                "schema_version": CHANGES_VERSION,
                "site": summary["site"],
                "run_id": summary["run_id"],
                "crawl_id": self.crawl_id,
                "counts": {k: v for k, v in summary["changes"].items() if k != "key"},
                **lists,
            }
        )
        data = (json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        return self._apply([("put", key, data, "application/json", self._metadata(key, data, {}))])

    def _write_recrawl_state(self, manifest: bytes | None, complete: bool = False) -> list[tuple[str, str | None]]:
        """Runs in a thread: ``<site>/recrawl.jsonl`` from the state the run started with and this
        run's pages (``manifest``), or in distributed mode the crawl's merged pages. A ``complete``
        run leaves out the dropped URLs it did not reach (as the site index does)."""
        assert self.store is not None
        if manifest is not None:
            doc = json.loads(manifest)
        elif self._merged is not None:
            doc = self._merged
        else:
            return []
        key = state_key(doc.get("site") or self.crawler.spider.name)
        pages = doc.get("pages") or []
        if isinstance(pages, dict):  # a merged manifest: one entry per store key
            pages = sorted(pages.values(), key=lambda p: str(p.get("url") or ""))
        data = b"".join(state_lines(self.previous, pages, forget_unreached_dropped=complete))
        return self._apply([("put", key, data, "application/x-ndjson", self._metadata(key, data, {}))])

    def _write_index(self, manifest: bytes, complete: bool = False) -> tuple[str, str | None]:
        """Runs in a thread: ``<site>/index.jsonl``, one line per URL the site's runs stored (its
        latest state: outcome, drop reason, title, Markdown and packet keys), sorted by URL; this
        run's pages replace their earlier lines. No per-run fields: an unchanged site leaves it
        unchanged. A ``complete`` run (see :meth:`_why_not_complete`) also removes the quarantine
        packets of dropped URLs it did not reach, and their lines: they left the crawl (kept pages
        stay). Returns (key, error or None)."""
        assert self.store is not None
        doc = json.loads(manifest)
        key = index_key(doc["site"])
        try:
            old = self.store.get(key)
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
                        self.store.delete(packet)
                        self.stats.inc_value("gatecrawl/export/quarantine_pruned")
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
            self.store.put(key, data, content_type="application/x-ndjson", metadata=self._metadata(key, data, {}))
        except (StoreError, ValueError, KeyError) as exc:
            return key, str(exc)
        return key, None

    def _registered_runs(self) -> list[str] | None:
        try:
            return self._crawl_run_ids() if self._crawl_run_ids else None
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: read every run manifest of the site instead
            logger.warning("could not read the run ids of crawl %s from Redis: %s", self.crawl_id, exc)
            return None

    def _merge_crawl(self, manifest: bytes) -> tuple[str | None, str | None]:
        """Runs in a thread: merge the crawl's run manifests (this run's, ``manifest``, included)
        into ``<site>/crawls/<crawl id>.json``. Returns (key, error or None)."""
        assert self.store is not None and self.crawl_id
        try:
            own = json.loads(manifest)
            key, self._merged = write_crawl_manifest(
                self.store, own["site"], self.crawl_id, own=own, run_ids=self._registered_runs, flush_timeout=self.flush_timeout
            )
        except Exception as exc:  # noqa: BLE001 - the merge must never break closing the export
            return None, f"{type(exc).__name__}: {exc}" if not isinstance(exc, StoreError) else str(exc)
        return key, None


def front_matter(packet: dict[str, Any], packet_key: str) -> str:
    """YAML front matter for a kept page's ``.md`` file: url, title, fetched_at, recipe, packet key
    and the body's sha256 (``markdown_sha256``). Values are JSON strings (valid YAML, any
    character safe). ``fetched_at`` is the only per-run field and is not part of the file's
    identity (:mod:`gatecrawl.store.identity`): the file of an unchanged page is not rewritten,
    so it keeps the time of the fetch that produced its content."""
    fields = packet.get("fields") or {}
    recipe = packet.get("recipe") or {}
    rows = [
        ("url", packet.get("url_final")),
        ("title", fields.get("title")),
        ("fetched_at", packet.get("fetched_at")),
        ("recipe", recipe.get("name")),
        ("packet", packet_key),
        ("markdown_sha256", packet.get("markdown_sha256")),
    ]
    return "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in rows) + "---\n\n"


def index_key(site: str) -> str:
    return f"{site}/index.jsonl"


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
