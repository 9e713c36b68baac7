"""ExportPipeline: each page's objects to the store; the run's record through the run ledger.

Objects (keys: :mod:`gatecrawl.store.keys`, from the canonical final URL):

- kept: ``<site>/pages/<sha256>.md`` and ``<site>/pages/<sha256>.json``;
- dropped: ``<site>/quarantine/<sha256>.json``.

A page that changes outcome has its stale objects removed, so the store shows each URL's latest
state once. A page whose stored copy stands (``PageCapture.not_modified``: a 304, a sitemap
lastmod skip) gets a manifest entry and no write.

Idempotency: an object is rewritten only when its *identity* changed
(:mod:`gatecrawl.store.identity`): the bytes for Markdown, the packet without its per-run fields
(:data:`gatecrawl.core.packet.PER_RUN_FIELDS`) for packets. The identity travels as object metadata
(``identity-sha256``, with ``content-sha256``, ``schema-version``, ``recipe-digest``), so a re-crawl
of an unchanged site rewrites nothing, on a local folder or on S3.

The run's record (the run manifest ``<site>/runs/<run id>.json``, the site index, the change list,
the recrawl state, the routing model, a distributed crawl's merged manifest and the crawl report)
is written by one :class:`gatecrawl.ledger.RunLedger`, which this pipeline opens (with the store:
one store instance for the run), feeds page by page, finishes when the pipelines close and, when
the spider closes, asks for the report, then closes. The crawl id of a distributed crawl comes
from the scheduler's ``gatecrawl.signals.crawl_joined`` signal.

Nothing is lost: with an ``s3://`` store every object is spooled durably before upload
(:mod:`gatecrawl.store.s3`); the pipeline never blocks the reactor on the store (all store calls
run in threads). At the end the ledger waits for the uploads (``GATECRAWL_EXPORT_FLUSH_TIMEOUT``);
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

import json
import time
from typing import TYPE_CHECKING, Any, Callable

from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.asyncio import run_in_thread

from gatecrawl.core.packet import EvidencePacket
from gatecrawl.items import PageCapture, feed_item
from gatecrawl.ledger import LedgerOptions, RunLedger
from gatecrawl.signals import crawl_joined, page_stored
from gatecrawl.store.config import StoreConfig
from gatecrawl.store.identity import object_metadata
from gatecrawl.store.keys import page_keys

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["ExportPipeline", "front_matter", "page_ops"]


def front_matter(packet: EvidencePacket, packet_key: str) -> str:
    """YAML front matter for a kept page's ``.md`` file: url, title, fetched_at, recipe, packet key
    and the body's sha256 (``markdown_sha256``). Values are JSON strings (valid YAML, any
    character safe). ``fetched_at`` is the only per-run field and is not part of the file's
    identity (:mod:`gatecrawl.store.identity`): the file of an unchanged page is not rewritten,
    so it keeps the time of the fetch that produced its content."""
    rows = [
        ("url", packet.url_final),
        ("title", packet.title),
        ("fetched_at", packet.fetched_at),
        ("recipe", (packet.recipe or {}).get("name")),
        ("packet", packet_key),
        ("markdown_sha256", packet.markdown_sha256),
    ]
    return "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in rows) + "---\n\n"


def page_ops(packet: EvidencePacket, markdown: str | None, kept: bool, *, site: str | None = None,
             with_front_matter: bool = False) -> tuple[EvidencePacket, list[tuple], dict[str, str]]:
    """A page's store operations: ``(stored packet, ops, stored keys)``. Kept: the Markdown and
    the packet written, the quarantine removed; dropped: the quarantine written, the others
    removed. ``site``: the store folder when the packet names none."""
    keys = page_keys(packet.site or site or "", packet.url_key)
    digest = str((packet.recipe or {}).get("digest", ""))
    if kept:
        stored = packet.stored_as(markdown_key=keys["markdown"], packet_key=keys["packet"])
        md = ((front_matter(stored, keys["packet"]) if with_front_matter else "") + (markdown or "")).encode("utf-8")
        data = stored.dumps()
        ops = [
            ("put", keys["markdown"], md, "text/markdown; charset=utf-8", object_metadata(keys["markdown"], md, digest)),
            ("put", keys["packet"], data, "application/json", object_metadata(keys["packet"], data, digest)),
            ("delete", keys["quarantine"]),
        ]
        return stored, ops, {"markdown": keys["markdown"], "packet": keys["packet"]}
    stored = packet.stored_as(markdown_key=None, packet_key=keys["quarantine"])
    data = stored.dumps()
    ops = [
        ("put", keys["quarantine"], data, "application/json", object_metadata(keys["quarantine"], data, digest)),
        ("delete", keys["markdown"]),
        ("delete", keys["packet"]),
    ]
    return stored, ops, {"quarantine": keys["quarantine"]}


class ExportPipeline:
    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.store_config = StoreConfig.from_settings(settings)
        self.ledger_options = LedgerOptions.from_settings(settings)
        self.feed_dropped = settings.getbool("GATECRAWL_FEED_DROPPED")
        self.front_matter = settings.getbool("GATECRAWL_MARKDOWN_FRONT_MATTER")
        self.jobdir = bool(settings.get("JOBDIR"))
        self.ledger: RunLedger | None = None
        # Distributed mode: the shared crawl and the run ids its workers registered, announced
        # by the scheduler when it opens (before the pipelines).
        self.crawl_id: str | None = None
        self._crawl_run_ids: Callable[[], list[str]] | None = None
        # Set when the spider went idle (frontier empty, nothing in flight), cleared by every
        # request scheduled after: at close, True means the crawl ran out of URLs by itself.
        self._drained = False
        crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._on_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self._on_crawl_joined, signal=crawl_joined)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExportPipeline:
        return cls(crawler)

    def _on_idle(self) -> None:
        self._drained = True

    def _on_scheduled(self, request: Any) -> None:
        self._drained = False

    def _on_crawl_joined(self, crawl_id: str, run_ids: Callable[[], list[str]] | None = None, **kw: Any) -> None:
        self.crawl_id = str(crawl_id) if crawl_id else None
        self._crawl_run_ids = run_ids

    def _scope(self) -> str | None:
        """Why this run may not have seen the whole site as its recipe defines it (None: it did,
        as far as the crawl can tell; the ledger adds its own reasons)."""
        if self.jobdir:
            return "JOBDIR (a resumed run sees part of the site)"
        if not getattr(self.crawler.spider, "covers_recipe", False):
            return "start URLs given on the command line"
        if getattr(self.crawler.spider, "max_pages_reached", False):
            return "max_pages reached"
        if not self._drained:
            return "the crawl was stopped before its frontier was empty"
        return None

    async def open_spider(self) -> None:
        spider = self.crawler.spider
        self.ledger = RunLedger(
            self.store_config, self.stats, site=spider.name, run_id=spider.run_id, recipe=spider.recipe,
            options=self.ledger_options, crawl_id=self.crawl_id, run_ids=self._crawl_run_ids,
        )
        await run_in_thread(self.ledger.open)
        # What earlier runs stored and the routing model, for the spider and the middlewares.
        self.crawler._gatecrawl_previous = self.ledger.previous  # type: ignore[attr-defined]
        if self.ledger.routing is not None:
            self.crawler._gatecrawl_routing = self.ledger.routing  # type: ignore[attr-defined]

    async def process_item(self, item: Any) -> Any:
        """Store the page, announce it (``gatecrawl.signals.page_stored``), then hand the feeds a
        JSON-friendly page record (:func:`gatecrawl.items.feed_item`); a dropped page leaves the
        item flow here (quarantined, logged at INFO) unless ``GATECRAWL_FEED_DROPPED``."""
        assert self.ledger is not None
        if isinstance(item, PageCapture) and item.not_modified and item.previous is not None:
            self.ledger.add_unchanged(item.previous, url=item.url_final, not_modified=item.not_modified, fetch=item.fetch)
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

    async def _export(self, item: PageCapture) -> dict[str, str]:
        assert self.ledger is not None and item.packet is not None
        stored_packet, ops, stored = page_ops(item.packet, item.markdown, item.outcome == "kept", site=self.crawler.spider.name,
                                              with_front_matter=self.front_matter)
        if item.outcome != "kept":
            self.stats.inc_value("gatecrawl/export/quarantined")
        self.ledger.add_page(stored_packet, outcome=item.outcome, drop_reason=item.drop_reason, markdown=item.markdown, links=item.links, ops=ops)
        self.ledger.failed(await run_in_thread(self.ledger.apply, ops), "export failed for")
        return stored

    async def close_spider(self) -> None:
        if self.ledger is not None and self.ledger.store is not None:
            await run_in_thread(self.ledger.finish, self._scope())

    async def spider_closed(self, spider: Any, reason: str = "finished") -> None:
        """After every pipeline closed: the crawl report, then the store is closed."""
        ledger, self.ledger = self.ledger, None
        if ledger is None:
            return
        try:
            await run_in_thread(ledger.write_report, reason)
        finally:
            await run_in_thread(ledger.close)
