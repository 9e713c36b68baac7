"""``scrapy report SITE [--store URI] [--run ID] [--against RUN_ID] [--html FILE] [--json FILE]``

Builds the crawl report of one stored run of SITE (default: the latest, by finished time)
compared against another (default: the run before it), from the store (default:
``GATECRAWL_STORE_URI``; local folder or S3). Writes the HTML report and/or the JSON summary
(``--json -``: standard output) and prints a few lines. Exits 1 when the site or a run is
not in the store.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from gatecrawl.report import ReportError, ReportOptions, build_summary, dump_json, packet_linker, render_html, text_summary
from gatecrawl.store import StoreError, open_store


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
        parser.add_argument("--against", metavar="RUN_ID", help="run to compare with (default: the previous one)")
        parser.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
        parser.add_argument("--json", metavar="FILE", help="write the JSON summary to FILE ('-': standard output)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one SITE (the spider / recipe name)")
        site = args[0]
        assert self.settings is not None
        uri = opts.store or self.settings.get("GATECRAWL_STORE_URI")
        options = {k: v for k, v in self.settings.items() if k.startswith("AWS_") or k.startswith("GATECRAWL_")}
        try:
            store = open_store(uri, options)
        except StoreError as exc:
            print(f"gatecrawl report: cannot open the store {uri}: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        try:
            summary, record = build_summary(store, site, run_id=opts.run, against=opts.against, options=ReportOptions.from_settings(self.settings), store_uri=uri)
            if opts.json:
                data = dump_json(summary)
                if opts.json == "-":
                    sys.stdout.buffer.write(data)
                    sys.stdout.flush()
                else:
                    Path(opts.json).parent.mkdir(parents=True, exist_ok=True)
                    Path(opts.json).write_bytes(data)
            if opts.html:
                out = Path(opts.html)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(render_html(summary, record, packet_href=packet_linker(store, out.parent)), "utf-8")
        except ReportError as exc:
            print(f"gatecrawl report: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        finally:
            store.close()
        if opts.json != "-":
            print(text_summary(summary))
            for label, path in (("HTML", opts.html), ("JSON", opts.json)):
                if path:
                    print(f"  {label}: {path}")
