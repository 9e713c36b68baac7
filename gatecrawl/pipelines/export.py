"""ExportPipeline: Markdown and evidence packets to the store, quarantine for drops, a run manifest.

Keys (deterministic, from the canonical final URL; an ``s3://bucket/prefix`` store puts them under
``prefix/``):

- kept: ``<site>/pages/<sha256>.md`` and ``<site>/pages/<sha256>.json``;
- dropped: ``<site>/quarantine/<sha256>.json``;
- per run: ``<site>/runs/<run id>.json``, the run manifest: counts, drop reasons, every key of the
  run with what happened to it (``put``, ``unchanged``, ``deleted``, ``absent``, ``pending``), and
  the per-run facts of each page (``fetched_at``, ``latency_ms``), and ``crawl_id`` (the shared
  crawl in distributed mode, else null);
- per distributed crawl: ``<site>/crawls/<crawl id>.json``, the crawl's run manifests merged
  (:mod:`gatecrawl.report.crawl`). Every worker rewrites it after its own run manifest, so the
  last worker to finish leaves the complete one.

Idempotency: an object is rewritten only when its *identity* changed
(:mod:`gatecrawl.store.identity`): the bytes for Markdown, the packet without its per-run fields
(``run_id``, ``fetched_at``, timings) for packets. The identity travels as object metadata
(``identity-sha256``, with ``content-sha256``, ``schema-version``, ``recipe-digest``), so a re-crawl
of an unchanged site rewrites nothing, on a local folder or on S3. A page that changes outcome has
its stale objects removed, so the store shows each URL's latest state once.

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
``gatecrawl/export/pending``, ``gatecrawl/export/crawl_merge_failed``; exit reasons ``gatecrawl/exit/export_pending``,
``gatecrawl/exit/export_failed``, ``gatecrawl/exit/nothing_kept``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core import evidence as ev
from gatecrawl.core.redact import redact_obj, redact_url
from gatecrawl.items import PageCapture
from gatecrawl.report.crawl import run_manifest_key, write_crawl_manifest
from gatecrawl.store import StoreError, open_store, page_keys
from gatecrawl.store.identity import identity_sha256

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
        self.store: Store | None = None
        self.manifest: list[dict[str, Any]] = []
        self.failed_keys: list[str] = []
        self.started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        # Distributed mode: the shared crawl and the run ids its workers registered, from the
        # scheduler (gatecrawl.distributed.scheduler); None otherwise.
        self.crawl_id: str | None = None
        self._crawl_run_ids: Any = None
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)

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
        recovered = await run_in_thread(self.store.resume)
        if recovered:
            logger.info("export: %d objects from an earlier run are being uploaded first", recovered)

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

    async def _export(self, item: PageCapture) -> None:
        packet = dict(item.evidence or {})
        site = packet.get("site") or self.crawler.spider.name
        keys = page_keys(site, packet["url_key"])
        ops: list[tuple] = []
        if item.outcome == "kept":
            packet["markdown_key"] = keys["markdown"]
            packet["packet_key"] = keys["packet"]
            md = (item.markdown or "").encode("utf-8")
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
        self.manifest.append(
            {
                "url": packet.get("url_final"),
                "outcome": item.outcome,
                "drop_reason": item.drop_reason,
                "keys": written,
                "stale_keys": [op[1] for op in ops if op[0] == "delete"],
                "identity_sha256": {op[1]: op[4]["identity-sha256"] for op in ops if op[0] == "put"},
                "markdown_sha256": packet.get("markdown_sha256"),
                "needs_render": packet.get("needs_render"),
                "reader": packet.get("reader"),
                # Per-run facts: they are not part of the stored packet's identity.
                "fetched_at": packet.get("fetched_at"),
                "latency_ms": packet.get("latency_ms"),
            }
        )
        for key, error in await run_in_thread(self._apply, ops):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(key)
                logger.error("export failed for %s: %s", key, error)

    async def process_item(self, item: Any) -> Any:
        if isinstance(item, PageCapture) and item.evidence is not None:
            await self._export(item)
        return item

    async def item_dropped(self, item: Any, response: Any, exception: Exception, spider: Any = None) -> None:
        if isinstance(item, PageCapture) and item.evidence is not None and item.outcome == "dropped":
            await self._export(item)

    # -- run manifest -----------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        spider = self.crawler.spider
        store = self.store
        entries = sorted(self.manifest, key=lambda e: e["url"] or "")
        for e in entries:
            e["objects"] = {k: (store.status(k) if store else None) or "pending" for k in e["keys"] + e["stale_keys"]}
        reasons: dict[str, int] = {}
        for e in entries:
            if e["outcome"] == "dropped":
                reasons[e["drop_reason"]] = reasons.get(e["drop_reason"], 0) + 1
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
                "counts": {
                    "seen": len(entries),
                    "kept": sum(1 for e in entries if e["outcome"] == "kept"),
                    "dropped": sum(1 for e in entries if e["outcome"] == "dropped"),
                    "needs_render": sum(1 for e in entries if e["needs_render"]),
                    "dropped_by_reason": dict(sorted(reasons.items())),
                },
                "pages": entries,
                "stats": stats,
            }
        )

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
        await run_in_thread(store.flush, self.flush_timeout)
        self._publish_counters()
        summary = self.summary()
        distributed_idle = bool(self.crawler.settings.get("GATECRAWL_REDIS_URL")) and summary["counts"]["seen"] == 0
        if summary["counts"]["kept"] == 0 and not distributed_idle:
            # Every page failed (or none was fetched): the crawl must not look successful. A
            # distributed worker that found the shared frontier empty did not fail.
            self.stats.set_value("gatecrawl/exit/nothing_kept", summary["counts"]["seen"] or "no pages")
        key = run_manifest_key(summary["site"], str(summary["run_id"]))
        data = (json.dumps(summary, sort_keys=True, ensure_ascii=False, indent=2, default=str) + "\n").encode("utf-8")
        for k, error in await run_in_thread(self._apply, [("put", key, data, "application/json", self._metadata(key, data, {}))]):
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(k)
                logger.error("could not write the run manifest %s: %s", k, error)
        pending = await run_in_thread(store.flush, self.flush_timeout)
        crawl_key = None
        if self.crawl_id:
            crawl_key, error = await run_in_thread(self._merge_crawl, summary)
            if error is not None:
                crawl_key = None
                self.stats.inc_value("gatecrawl/export/crawl_merge_failed")
                logger.error("could not write the merged manifest of crawl %s: %s", self.crawl_id, error)
            else:
                logger.info("crawl %s: merged manifest %s", self.crawl_id, crawl_key)
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

    def _registered_runs(self) -> list[str] | None:
        try:
            return self._crawl_run_ids() if self._crawl_run_ids else None
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: read every run manifest of the site instead
            logger.warning("could not read the run ids of crawl %s from Redis: %s", self.crawl_id, exc)
            return None

    def _merge_crawl(self, own: dict[str, Any]) -> tuple[str | None, str | None]:
        """Runs in a thread: merge the crawl's run manifests (this run's included) into
        ``<site>/crawls/<crawl id>.json``. Returns (key, error or None)."""
        assert self.store is not None and self.crawl_id
        try:
            key, _ = write_crawl_manifest(
                self.store, own["site"], self.crawl_id, own=own, run_ids=self._registered_runs, flush_timeout=self.flush_timeout
            )
        except Exception as exc:  # noqa: BLE001 - the merge must never break closing the export
            return None, f"{type(exc).__name__}: {exc}" if not isinstance(exc, StoreError) else str(exc)
        return key, None


def format_summary(summary: dict[str, Any], key: str, pending: int = 0, crawl_key: str | None = None) -> str:
    c = summary["counts"]
    lines = [
        f"gatecrawl: site {summary['site']}, run {summary['run_id']}",
        f"  pages seen {c['seen']}, kept {c['kept']}, dropped {c['dropped']}, flagged for rendering {c['needs_render']}",
    ]
    for reason, n in c["dropped_by_reason"].items():
        lines.append(f"    dropped {reason}: {n}")
    lines.append(f"  store {summary['store_uri']}, run summary {key}")
    if crawl_key:
        lines.append(f"  crawl {summary.get('crawl_id')}: merged manifest {crawl_key}")
    if pending:
        lines.append(f"  NOT UPLOADED: {pending} store operations wait in the spool")
    return "\n".join(lines)
