"""ExportPipeline: Markdown and evidence packets to the store, quarantine for drops, a run summary.

Keys (deterministic, from the canonical final URL):

- kept: ``<site>/pages/<sha256>.md`` and ``<site>/pages/<sha256>.json``;
- dropped: ``<site>/quarantine/<sha256>.json``;
- per run: ``<site>/runs/<run id>.json`` (counts, drop reasons, every key written).

A page that changes outcome between runs has its stale objects removed, so the store
always shows each URL's latest state once. Identical bytes are never rewritten.

Settings: ``GATECRAWL_STORE_URI``, ``GATECRAWL_SUMMARY_PRINT``.
Stats: ``gatecrawl/export/written``, ``gatecrawl/export/unchanged``, ``gatecrawl/export/failed``,
``gatecrawl/export/quarantined``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from scrapy import signals

from gatecrawl.core import evidence as ev
from gatecrawl.items import PageCapture
from gatecrawl.store import StoreError, open_store, page_keys

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

RUN_SUMMARY_VERSION = "gatecrawl.run/1"


class ExportPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.store_uri = crawler.settings.get("GATECRAWL_STORE_URI")
        self.print_summary = crawler.settings.getbool("GATECRAWL_SUMMARY_PRINT")
        self.store = None
        self.manifest: list[dict[str, Any]] = []
        self.started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExportPipeline:
        return cls(crawler)

    def open_spider(self) -> None:
        options = {k: v for k, v in self.crawler.settings.items() if k.startswith("AWS_") or k.startswith("GATECRAWL_")}
        self.store = open_store(self.store_uri, options)

    # -- writing ----------------------------------------------------------------------

    def _put(self, key: str, data: bytes, content_type: str, packet: dict) -> None:
        assert self.store is not None
        meta = {
            "content-sha256": hashlib.sha256(data).hexdigest(),
            "schema-version": ev.SCHEMA_VERSION,
            "recipe-digest": packet.get("recipe", {}).get("digest", ""),
        }
        try:
            written = self.store.put(key, data, content_type=content_type, metadata=meta)
        except StoreError as exc:
            self.stats.inc_value("gatecrawl/export/failed")
            logger.error("export failed for %s: %s", key, exc)
            return
        self.stats.inc_value("gatecrawl/export/written" if written else "gatecrawl/export/unchanged")

    def _delete_stale(self, key: str) -> None:
        assert self.store is not None
        try:
            if self.store.get(key) is not None:
                self.store.delete(key)
                self.stats.inc_value("gatecrawl/export/stale_removed")
        except (StoreError, NotImplementedError):
            pass

    def _export(self, item: PageCapture) -> None:
        packet = dict(item.evidence or {})
        site = packet.get("site") or self.crawler.spider.name
        keys = page_keys(site, packet["url_key"])
        if item.outcome == "kept":
            packet["markdown_key"] = keys["markdown"]
            packet["packet_key"] = keys["packet"]
            self._put(keys["markdown"], (item.markdown or "").encode("utf-8"), "text/markdown; charset=utf-8", packet)
            self._put(keys["packet"], ev.dumps(packet), "application/json", packet)
            self._delete_stale(keys["quarantine"])
        else:
            packet["markdown_key"] = None
            packet["packet_key"] = keys["quarantine"]
            self._put(keys["quarantine"], ev.dumps(packet), "application/json", packet)
            self._delete_stale(keys["markdown"])
            self._delete_stale(keys["packet"])
            self.stats.inc_value("gatecrawl/export/quarantined")
        self.manifest.append(
            {
                "url": packet.get("url_final"),
                "outcome": item.outcome,
                "drop_reason": item.drop_reason,
                "keys": [k for k in (packet.get("markdown_key"), packet.get("packet_key")) if k],
                "markdown_sha256": packet.get("markdown_sha256"),
                "needs_render": packet.get("needs_render"),
                "reader": packet.get("reader"),
            }
        )

    def process_item(self, item: Any) -> Any:
        if isinstance(item, PageCapture) and item.evidence is not None:
            self._export(item)
        return item

    def item_dropped(self, item: Any, response: Any, exception: Exception, spider: Any = None) -> None:
        if isinstance(item, PageCapture) and item.evidence is not None and item.outcome == "dropped":
            self._export(item)

    # -- run summary ------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        spider = self.crawler.spider
        entries = sorted(self.manifest, key=lambda e: e["url"] or "")
        reasons: dict[str, int] = {}
        for e in entries:
            if e["outcome"] == "dropped":
                reasons[e["drop_reason"]] = reasons.get(e["drop_reason"], 0) + 1
        stats = {k: v for k, v in sorted(self.stats.get_stats().items()) if k.startswith("gatecrawl/")}
        return {
            "schema_version": RUN_SUMMARY_VERSION,
            "run_id": spider.run_id,
            "site": spider.name,
            "recipe": {"name": spider.recipe.name, "digest": spider.recipe.digest},
            "store_uri": self.store_uri,
            "started_at": self.started_at,
            "finished_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
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

    def close_spider(self) -> None:
        if self.store is None:
            return
        summary = self.summary()
        if summary["counts"]["kept"] == 0:
            # Every page failed (or none was fetched): the crawl must not look successful.
            self.stats.set_value("gatecrawl/exit/nothing_kept", summary["counts"]["seen"] or "no pages")
        key = f"{summary['site']}/runs/{summary['run_id']}.json"
        data = (json.dumps(summary, sort_keys=True, ensure_ascii=False, indent=2, default=str) + "\n").encode("utf-8")
        try:
            self.store.put(key, data, content_type="application/json")
        except StoreError as exc:
            self.stats.inc_value("gatecrawl/export/failed")
            logger.error("could not write the run summary %s: %s", key, exc)
        self.store.close()
        if self.print_summary:
            print(format_summary(summary, key), file=sys.stderr)


def format_summary(summary: dict[str, Any], key: str) -> str:
    c = summary["counts"]
    lines = [
        f"gatecrawl: site {summary['site']}, run {summary['run_id']}",
        f"  pages seen {c['seen']}, kept {c['kept']}, dropped {c['dropped']}, flagged for rendering {c['needs_render']}",
    ]
    for reason, n in c["dropped_by_reason"].items():
        lines.append(f"    dropped {reason}: {n}")
    lines.append(f"  store {summary['store_uri']}, run summary {key}")
    return "\n".join(lines)
