"""``scrapy report SITE [--store URI] [--run ID | --crawl CRAWL_ID] [--against RUN_ID] [--html FILE] [--json FILE]``

Builds the crawl report of one stored run of SITE (default: the latest, by finished time)
compared against another (default: the run before it), from the store (default:
``GATECRAWL_STORE_URI``; local folder or S3). Writes the HTML report and/or the JSON summary
(``--json -``: standard output) and prints a few lines. Exits 1 when the site or a run is
not in the store.

``--crawl CRAWL_ID``: a distributed crawl as a whole. Merges the run manifests of every worker of
the crawl (every ``<site>/runs/*.json`` whose ``crawl_id`` is CRAWL_ID), writes the merged manifest
to ``<site>/crawls/<crawl id>.json`` and prints its counts; ``--html``/``--json`` then report on the
merged crawl (compared with no run unless ``--against`` names one). When ``GATECRAWL_REDIS_URL`` is
set, the crawl's registered run ids are read from Redis to list the runs that left no manifest.
Exits 1 when the store holds no run manifest of the crawl.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from gatecrawl.report import (
    ReportError,
    ReportOptions,
    build_summary,
    dump_json,
    packet_linker,
    render_html,
    text_crawl_summary,
    text_summary,
    write_crawl_manifest,
)
from gatecrawl.report.record import record_from_store
from gatecrawl.store import StoreError
from gatecrawl.store.config import StoreConfig
from gatecrawl.store.base import Store


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "[options] SITE"

    def short_desc(self) -> str:
        return "Report on stored crawl runs of a site (HTML and JSON summary)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--store", metavar="URI", help="store to read (default: GATECRAWL_STORE_URI)")
        parser.add_argument("--run", metavar="ID", help="run to report on (default: the latest)")
        parser.add_argument("--crawl", metavar="CRAWL_ID", help="a distributed crawl: merge its workers' run manifests into <site>/crawls/<crawl id>.json and report on it")
        parser.add_argument("--against", metavar="RUN_ID", help="run to compare with (default: the previous one; with --crawl: none)")
        parser.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
        parser.add_argument("--json", metavar="FILE", help="write the JSON summary to FILE ('-': standard output)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one SITE (the spider / recipe name)")
        if opts.crawl and opts.run:
            raise UsageError("give --run or --crawl, not both")
        site = args[0]
        assert self.settings is not None
        config = StoreConfig.from_settings(self.settings, uri=opts.store)
        uri = config.uri
        try:
            store = config.open()
        except StoreError as exc:
            print(f"gatecrawl report: cannot open the store {uri}: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        lines: list[str] = []
        try:
            if opts.crawl:
                summary, record, lines = self._crawl_summary(store, site, uri, opts)
            else:
                summary, record = build_summary(store, site, run_id=opts.run, against=opts.against, options=ReportOptions.from_settings(self.settings), store_uri=uri)
                lines = [text_summary(summary)]
            if summary is not None and opts.json:
                data = dump_json(summary)
                if opts.json == "-":
                    sys.stdout.buffer.write(data)
                    sys.stdout.flush()
                else:
                    Path(opts.json).parent.mkdir(parents=True, exist_ok=True)
                    Path(opts.json).write_bytes(data)
            if summary is not None and opts.html:
                out = Path(opts.html)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(render_html(summary, record, packet_href=packet_linker(store, out.parent)), "utf-8")
        except (ReportError, StoreError) as exc:
            print(f"gatecrawl report: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        finally:
            store.close()
        if opts.json != "-":
            print("\n".join(lines))
            for label, path in (("HTML", opts.html), ("JSON", opts.json)):
                if path:
                    print(f"  {label}: {path}")

    def _crawl_summary(self, store: Store, site: str, uri: str, opts: argparse.Namespace) -> tuple[Any, Any, list[str]]:
        """Merge and store the crawl's manifest; the report summary of the crawl when asked for."""
        crawl_id = opts.crawl
        key, doc = write_crawl_manifest(store, site, crawl_id, run_ids=self._registered_runs(site, crawl_id), scan=True)
        if not doc["runs"]:
            raise ReportError(f"no run manifest of crawl {crawl_id!r} of site {site!r} in {uri}")
        lines = [text_crawl_summary(doc, key)]
        if not (opts.json or opts.html):
            return None, None, lines
        record = record_from_store(store, site, {**doc, "run_id": crawl_id})
        summary, record = build_summary(
            store, site, current_record=record, against=opts.against, options=ReportOptions.from_settings(self.settings), store_uri=uri, standalone=True
        )
        summary["crawl_id"] = crawl_id
        summary["keys"] = {"crawl": key}
        lines.append(text_summary(summary))
        return summary, record, lines

    def _registered_runs(self, site: str, crawl_id: str) -> list[str] | None:
        """The run ids the crawl registered in Redis (``GATECRAWL_REDIS_URL``), or None."""
        assert self.settings is not None
        url = self.settings.get("GATECRAWL_REDIS_URL")
        if not url:
            return None
        prefix = self.settings.get("GATECRAWL_REDIS_PREFIX") or "gatecrawl"
        try:
            import redis

            client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)
            try:
                members = client.smembers(f"{prefix}:{site}:{crawl_id}:runs")
            finally:
                client.close()
        except Exception as exc:  # noqa: BLE001 - Redis is optional here
            print(f"gatecrawl report: cannot read the crawl's run ids from Redis ({exc}); runs without a manifest are not listed", file=sys.stderr)
            return None
        return sorted({m.decode("utf-8", "replace") if isinstance(m, bytes) else str(m) for m in members} - {""})
