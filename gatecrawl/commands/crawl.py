"""``scrapy crawl``, with repeatable list arguments: ``-a start_url=A -a start_url=B``.

Scrapy keeps only the last value of a repeated ``-a``; gatecrawl joins repeated
``start_url`` values (whitespace-separated, as a single Scrapyd parameter also may be).
"""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawlCommand

_LIST_ARGS = ("start_url",)


def merge_repeated(spargs: list[str]) -> list[str]:
    merged: dict[str, list[str]] = {}
    out: list[str] = []
    for arg in spargs:
        name, sep, value = arg.partition("=")
        if sep and name.strip() in _LIST_ARGS:
            if name.strip() not in merged:
                merged[name.strip()] = []
                out.append(name.strip())
            merged[name.strip()].append(value.strip())
        else:
            out.append(arg)
    return [f"{a}={' '.join(merged[a])}" if a in merged else a for a in out]


class Command(ScrapyCrawlCommand):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        opts.spargs = merge_repeated(list(opts.spargs or []))
        super().process_options(args, opts)
