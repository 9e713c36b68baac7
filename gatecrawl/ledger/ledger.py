"""RunLedger: the one component that writes a run's record, through the run's one store.

The export pipeline writes each page's objects (Markdown, packet, quarantine) through
:meth:`RunLedger.apply` and hands the ledger the page (:meth:`RunLedger.add_page`,
:meth:`RunLedger.add_unchanged`); the ledger keeps each page's manifest entry and report entry
(:mod:`gatecrawl.ledger.entries`) in spill files, and at the end writes:

- when the pipelines close (:meth:`RunLedger.finish`): the run manifest
  (:mod:`gatecrawl.ledger.manifest`), the site index, the change list, the recrawl state, the
  routing model (:mod:`gatecrawl.ledger.site`) and, in distributed mode, the crawl's merged
  manifest (:mod:`gatecrawl.report.crawl`); then it waits for the uploads and says what is
  pending;
- when the spider closes (:meth:`RunLedger.write_report`): the crawl report
  (:mod:`gatecrawl.ledger.report`); then :meth:`RunLedger.close` closes the store.

Every method that touches the store or the disk runs in a thread (the pipeline calls them
through ``run_in_thread``); :meth:`add_page` and :meth:`add_unchanged` append one line to a spill
file. No Scrapy imports: what the crawl knows (site, run id, crawl id, whether the crawl covered
the whole site) is passed in.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.packet import EvidencePacket
from gatecrawl.core.redact import redact_obj, redact_url
from gatecrawl.core.routing import RoutingModel, observation
from gatecrawl.ledger import entries, site as site_docs
from gatecrawl.ledger.manifest import RUN_SUMMARY_VERSION, format_summary, manifest_pages, write_manifest
from gatecrawl.ledger.report import ReportSettings, write_report
from gatecrawl.store import Store, StoreError
from gatecrawl.store.config import StoreConfig
from gatecrawl.store.identity import object_metadata
from gatecrawl.store.keys import changes_key, run_manifest_key
from gatecrawl.store.recrawl import CHANGE_KINDS, PreviousState, change_of
from gatecrawl.store.spill import SpillDir, SpillFile, open_spill

__all__ = ["LedgerOptions", "RunLedger"]

logger = logging.getLogger(__name__)

# Store counters published as gatecrawl/export/<name>; "deleted" is published as stale_removed.
_COUNTER_STATS = {"deleted": "stale_removed"}
_PUBLISHED_COUNTERS = (
    "put", "unchanged", "deleted", "spooled", "recovered", "upload_failed", "deferred", "breaker_opened",
    "damaged", "checksum_mismatch", "journal_replayed", "journal_damaged", "fsync_batches",
)

#: (key, error or None) for every store operation
Results = list[tuple[str, "str | None"]]


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, kw_only=True)
class LedgerOptions:
    """What the ledger writes besides the run manifest (from the settings)."""

    write_index: bool = True
    """``GATECRAWL_INDEX_ENABLED``: the site index ``<site>/index.jsonl``."""
    prune: bool = False
    """``GATECRAWL_QUARANTINE_PRUNE``: a complete run removes the quarantine of URLs that left the crawl."""
    routing: bool = False
    """``GATECRAWL_ROUTING_ENABLED`` and ``GATECRAWL_RENDER_ENABLED``: learn render routing."""
    routing_options: dict[str, Any] = field(default_factory=dict)
    print_summary: bool = False
    """``GATECRAWL_SUMMARY_PRINT``."""
    distributed: bool = False
    """``GATECRAWL_REDIS_URL`` set: a worker that found the shared frontier empty did not fail."""
    report: ReportSettings = field(default_factory=ReportSettings)

    @classmethod
    def from_settings(cls, settings: Any) -> LedgerOptions:
        return cls(
            write_index=settings.getbool("GATECRAWL_INDEX_ENABLED"),
            prune=settings.getbool("GATECRAWL_QUARANTINE_PRUNE"),
            routing=settings.getbool("GATECRAWL_ROUTING_ENABLED") and settings.getbool("GATECRAWL_RENDER_ENABLED"),
            routing_options={
                "min_observations": settings.getint("GATECRAWL_ROUTING_MIN_OBSERVATIONS", 5),
                "recheck_share": settings.getfloat("GATECRAWL_ROUTING_RECHECK_SHARE", 0.1),
            },
            print_summary=settings.getbool("GATECRAWL_SUMMARY_PRINT"),
            distributed=bool(settings.get("GATECRAWL_REDIS_URL")),
            report=ReportSettings.from_settings(settings),
        )


class RunLedger:
    def __init__(self, config: StoreConfig, stats: Any, *, site: str, run_id: str, recipe: Any = None,
                 options: LedgerOptions | None = None, crawl_id: str | None = None,
                 run_ids: Callable[[], list[str]] | None = None, store: Store | None = None) -> None:
        self.config = config
        self.stats = stats
        self.site = site
        self.run_id = str(run_id)
        self.recipe = recipe
        self.options = options or LedgerOptions()
        # Distributed mode: the shared crawl and the run ids its workers registered (None otherwise).
        self.crawl_id = str(crawl_id) if crawl_id else None
        self.run_ids = run_ids if self.crawl_id else None
        self.store: Store | None = store
        self.started_at = now()
        self.counts: dict[str, int] = {"seen": 0, "kept": 0, "dropped": 0, "needs_render": 0}
        self.dropped_by_reason: dict[Any, int] = {}
        self.failed_keys: list[str] = []
        self.change_counts: dict[str, int] = {k: 0 for k in (*CHANGE_KINDS, "dropped")}
        self.previous: PreviousState | None = None
        self.routing: RoutingModel | None = None
        self.merged: dict[str, Any] | None = None
        # Spill files: manifest entries, the store's status changes, change kinds, report entries.
        self._spill: SpillDir | None = None
        self._entries: SpillFile | None = None
        self._statuses: SpillFile | None = None
        self._changes: SpillFile | None = None
        self._report: SpillFile | None = None

    # -- opening ----------------------------------------------------------------------

    def open(self) -> int:
        """Runs in a thread: the store, the spill files, what earlier runs stored, the routing
        model; then an earlier run's leftovers are uploaded first. Returns how many."""
        if self.store is None:
            self.store = self.config.open()
        self._open_spill()
        self.previous = site_docs.load_previous(self.store, self.site, self._spill_dir().path / "previous.sqlite", self.stats)
        if self.options.routing:
            self.routing = site_docs.load_routing(self.store, self.site, self.options.routing_options)
        recovered = self.store.resume()
        if recovered:
            logger.info("export: %d objects from an earlier run are being uploaded first", recovered)
        return recovered

    def _spill_dir(self) -> SpillDir:
        self._open_spill()
        assert self._spill is not None
        return self._spill

    def _open_spill(self) -> None:
        if self._spill is not None:
            return
        self._spill = open_spill(self.config.spool_dir, "ledger")
        self._entries = self._spill.file("manifest")
        self._changes = self._spill.file("changes")
        self._report = self._spill.file("report")
        statuses = self._statuses = self._spill.file("statuses")
        if self.store is not None:
            # Before resume(): uploads of an earlier run's leftovers change statuses too.
            self.store.set_status_sink(lambda key, status: statuses.append([key, status]))

    # -- the store --------------------------------------------------------------------

    def apply(self, ops: list[tuple]) -> Results:
        """Runs in a thread: hand every operation (``("put", key, data, content_type, metadata)``
        or ``("delete", key)``) to the store; returns (key, error or None)."""
        assert self.store is not None
        out: Results = []
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

    def put_doc(self, key: str, data: bytes, content_type: str = "application/json") -> Results:
        return self.apply([("put", key, data, content_type, object_metadata(key, data))])

    def failed(self, results: Results, what: str) -> None:
        """Count and log the operations that failed (the run exits non-zero)."""
        for key, error in results:
            if error is not None:
                self.stats.inc_value("gatecrawl/export/failed")
                self.failed_keys.append(key)
                logger.error("%s %s: %s", what, key, error)

    # -- pages ------------------------------------------------------------------------

    def previous_of(self, *urls: Any) -> dict[str, Any] | None:
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

    def add_page(self, packet: EvidencePacket, *, outcome: str | None, drop_reason: str | None, markdown: str | None,
                 links: list[str] | None, ops: list[tuple]) -> None:
        """A page the export writes with ``ops``: its manifest entry and report entry."""
        written = [op[1] for op in ops if op[0] == "put"]
        identities = {op[1]: op[4]["identity-sha256"] for op in ops if op[0] == "put"}
        prev = self.previous_of(packet.url_final, packet.url_requested)
        if self.routing is not None and isinstance(packet.url_final, str):
            seen = observation({**packet.to_dict(), "outcome": outcome})
            if (seen == "plain" and self.routing.render_only(packet.url_final)) or (seen == "browser" and self.routing.plain_only(packet.url_final)):
                # Its template was render-only and this page (a re-check) read fine without the
                # browser, or it never needed the browser and this page did.
                self.stats.inc_value("gatecrawl/routing/mispredicted")
            self.routing.observe(packet.url_final, seen)
        change = self._change(prev, outcome, identities, packet.markdown_sha256, packet.url_final)
        # When the stored content was fetched: kept while it does not change (the stored
        # objects are not rewritten either), so an unchanged site leaves recrawl.jsonl unchanged.
        content_fetched_at = packet.fetched_at
        same = change == "unchanged" or (change == "dropped" and prev is not None and prev.get("identity_sha256") == identities)
        if prev is not None and same and prev.get("content_fetched_at"):
            content_fetched_at = prev["content_fetched_at"]
        self._add_entry(entries.manifest_entry(
            packet, outcome=outcome, drop_reason=drop_reason, links=links, written=written,
            stale=[op[1] for op in ops if op[0] == "delete"], identities=identities, change=change,
            content_fetched_at=content_fetched_at,
        ))
        if self.options.report.enabled and outcome in ("kept", "dropped"):
            key = packet.packet_key or ""
            self._append_report(entries.report_entry(packet, outcome=outcome, drop_reason=drop_reason, markdown=markdown, packet_key=key))

    def add_unchanged(self, prev: dict[str, Any], *, url: str, not_modified: str, fetch: FetchInfo) -> None:
        """A page whose stored copy stands (a 304, a sitemap lastmod skip); ``fetch`` is its
        capture's :class:`~gatecrawl.core.fetch.FetchInfo` (this run's request)."""
        u = prev.get("url") or url
        change = self._change(prev, prev.get("outcome"), {}, prev.get("markdown_sha256"), u, not_modified=True)
        self._add_entry(entries.unchanged_manifest_entry(
            prev, url=url, url_requested=fetch.url_requested or url, depth=fetch.depth, change=change, not_modified=not_modified,
            fetched_at=fetch.fetched_at, latency_ms=fetch.latency_ms,
        ))
        if self.options.report.enabled:
            self._append_report(entries.carried_report_entry(prev, url=url, not_modified=not_modified, latency_ms=fetch.latency_ms))

    def _append_report(self, entry: dict[str, Any]) -> None:
        self._open_spill()
        assert self._report is not None
        self._report.append(entry)

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

    # -- the end of the run -----------------------------------------------------------

    def _change_counts(self) -> dict[str, int]:
        """This run's change counts, with ``not_checked``: pages kept before that this run did
        not reach (not requested: no longer linked, or past max_pages)."""
        c = dict(self.change_counts)
        reached_kept = c["changed"] + c["unchanged"] + c["removed"]
        c["not_checked"] = max(0, (self.previous.kept if self.previous is not None else 0) - reached_kept)
        return c

    def summary_head(self) -> dict[str, Any]:
        """The run manifest without its ``pages`` (counts, stats, ...), redacted."""
        stats = {k: v for k, v in sorted(self.stats.get_stats().items()) if k.startswith("gatecrawl/")}
        return redact_obj(
            {
                "schema_version": RUN_SUMMARY_VERSION,
                "run_id": self.run_id,
                "crawl_id": self.crawl_id,
                "site": self.site,
                "recipe": {"name": getattr(self.recipe, "name", self.site), "digest": getattr(self.recipe, "digest", None)},
                "store_uri": redact_url(self.config.uri),
                "started_at": self.started_at,
                "finished_at": now(),
                "counts": {**self.counts, "dropped_by_reason": dict(sorted(self.dropped_by_reason.items()))},
                "changes": {**self._change_counts(), "key": changes_key(self.site, self.run_id)},
                "stats": stats,
            }
        )

    def publish_counters(self) -> None:
        assert self.store is not None
        counters = self.store.counters()
        for name in _PUBLISHED_COUNTERS:
            if counters.get(name):
                self.stats.set_value(f"gatecrawl/export/{_COUNTER_STATS.get(name, name)}", counters[name])

    def why_not_complete(self, scope: str | None) -> str | None:
        """None when this run saw the whole site as its recipe defines it, so a URL stored before
        and not reached now has left the crawl; otherwise why that cannot be told. ``scope``: the
        crawl's own reason (JOBDIR, start URLs given, max_pages, stopped early), or None."""
        if not self.options.prune:
            return "GATECRAWL_QUARANTINE_PRUNE is off"
        if self.crawl_id:
            return "distributed crawl"
        if scope:
            return scope
        if self.counts["kept"] == 0 or self.failed_keys:
            return "nothing kept or an export failed"
        return None

    def finish(self, scope: str | None = None) -> None:
        """Runs in a thread, when the pipelines close: the run manifest and the site's documents
        (see the module docstring), uploads waited for, exit reasons set, the summary printed."""
        store = self.store
        assert store is not None
        try:
            self._finish(store, scope)
        finally:
            if self.previous is not None:
                self.previous.close()
                self.previous = None
            store.set_status_sink(None)

    def _finish(self, store: Store, scope: str | None) -> None:
        store.flush(self.config.flush_timeout)
        self.publish_counters()
        spill = self._spill_dir()
        assert self._entries is not None and self._statuses is not None
        # What is known now (later status changes, such as the manifest's own, are not part of it).
        n_entries, n_statuses = self._entries.mark(), self._statuses.mark()
        summary = self.summary_head()
        data = write_manifest(spill, summary, manifest_pages(spill, self._entries, self._statuses, n_entries, n_statuses))
        distributed_idle = self.options.distributed and summary["counts"]["seen"] == 0
        if summary["counts"]["kept"] == 0 and not distributed_idle:
            # Every page failed (or none was fetched): the crawl must not look successful. A
            # distributed worker that found the shared frontier empty did not fail.
            self.stats.set_value("gatecrawl/exit/nothing_kept", summary["counts"]["seen"] or "no pages")
        key = run_manifest_key(self.site, self.run_id)
        self.failed(self.put_doc(key, data), "could not write the run manifest")
        if self.options.write_index and not self.crawl_id:
            why_not = self.why_not_complete(scope)
            if why_not and self.options.prune:
                logger.info("export: quarantine not pruned: %s", why_not)
            result = site_docs.write_index(store, self.stats, data, why_not is None)
            self.failed([result], "could not write the site index")
        self.failed(self._write_routing(), "could not write the routing model")
        changes = site_docs.changes_doc(self.site, self.run_id, self.crawl_id, summary["changes"], spill, self._changes)
        self.failed(self.put_doc(changes_key(self.site, self.run_id), changes), "could not write the change list")
        if not self.crawl_id:
            # A complete run forgets the dropped URLs it no longer reached (their quarantine
            # packets are pruned with their index lines, above).
            complete = self.options.write_index and self.why_not_complete(scope) is None
            self.failed(self._write_state(data, complete), "could not write the recrawl state")
        pending = store.flush(self.config.flush_timeout)
        crawl_key = None
        if self.crawl_id:
            crawl_key, self.merged, error = site_docs.merge_crawl(store, data, self.crawl_id, self._registered_runs, self.config.flush_timeout)
            if error is not None:
                crawl_key = None
                self.stats.inc_value("gatecrawl/export/crawl_merge_failed")
                logger.error("could not write the merged manifest of crawl %s: %s", self.crawl_id, error)
            else:
                logger.info("crawl %s: merged manifest %s", self.crawl_id, crawl_key)
                # The crawl's merged pages are the state the next crawl starts from (the last
                # worker to finish leaves the complete one).
                self.failed(self._write_state(None), "could not write the recrawl state")
            pending = store.pending()
        self.publish_counters()
        if pending:
            where = getattr(store, "spool_root", None)
            self.stats.set_value("gatecrawl/export/pending", pending)
            detail = f"{pending} store operations (uploads, stale-object removals) not completed" + (f"; spool {where}" if where else "")
            last = getattr(store, "last_error", None)
            self.stats.set_value("gatecrawl/exit/export_pending", detail)
            logger.error("export: %s; the next run uploads them first%s", detail, f" (last error: {last})" if last else "")
        if self.failed_keys:
            self.stats.set_value("gatecrawl/exit/export_failed", f"{len(self.failed_keys)} objects could not be stored or spooled")
        if self.options.print_summary:
            print(format_summary(summary, key, pending, crawl_key), file=sys.stderr)

    def _write_routing(self) -> Results:
        """This run's observations added to the stored model (read again: in distributed mode
        another worker may have written it meanwhile)."""
        if self.routing is None:
            return []
        assert self.store is not None
        key, data, error = site_docs.routing_doc(self.store, self.site, self.routing, self.options.routing_options)
        if error is not None:
            return [(key, error)]
        return self.put_doc(key, data)

    def _write_state(self, manifest: bytes | None, complete: bool = False) -> Results:
        """``<site>/recrawl.jsonl`` from this run's manifest, or (``None``) the crawl's merged pages."""
        found = site_docs.state_doc(self.site, self.previous, manifest, self.merged, complete)
        if found is None:
            return []
        key, data = found
        return self.apply([("put", key, data, "application/x-ndjson", object_metadata(key, data))])

    def _registered_runs(self) -> list[str] | None:
        try:
            return self.run_ids() if self.run_ids else None
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: read every run manifest of the site instead
            logger.warning("could not read the run ids of crawl %s from Redis: %s", self.crawl_id, exc)
            return None

    def write_report(self, finish_reason: str) -> None:
        """Runs in a thread, when the spider closes: the crawl report (if enabled), from the
        report entries collected."""
        if not self.options.report.enabled or self.store is None:
            return
        self._open_spill()
        assert self._report is not None
        recipe = self.recipe
        write_report(
            self.store, self.stats, self.options.report, site=self.site, run_id=self.run_id, store_uri=self.config.uri,
            pages=self._report.read(self._report.mark()), started_at=self.started_at, finished_at=now(),
            recipe={
                "name": getattr(recipe, "name", self.site),
                "digest": getattr(recipe, "digest", None),
                "main_selectors": list(getattr(recipe, "main_selectors", ()) or ()),
            },
            finish_reason=finish_reason,
            conditions={
                # What makes runs comparable (drift is computed only between comparable runs).
                "render_policy": getattr(recipe, "render_policy", None),
                "crawl_id": self.crawl_id,
            },
        )

    def close(self) -> None:
        """Runs in a thread: the spill files removed, the store closed (S3: uploads waited for)."""
        try:
            if self.previous is not None:
                self.previous.close()
                self.previous = None
            if self._spill is not None:
                self._spill.close()
            self._spill = self._entries = self._statuses = self._changes = self._report = None
        finally:
            store, self.store = self.store, None
            if store is not None:
                store.set_status_sink(None)
                try:
                    store.close()
                except StoreError as exc:
                    self.stats.inc_value("gatecrawl/export/failed")
                    logger.error("closing the store failed: %s", exc)
