"""``scrapy crawl``, with repeatable list arguments and an honest exit status.

- ``-a start_url=A -a start_url=B``: Scrapy keeps only the last value of a repeated ``-a``;
  gatecrawl joins repeated ``start_url`` values (whitespace-separated, as a single Scrapyd
  parameter also may be).
- Exit status: Scrapy exits 0 even when everything failed. Any component that finds the
  run failed sets a stats key ``gatecrawl/exit/<reason>`` (for example
  ``gatecrawl/exit/export_pending``); the command then prints one line per reason and
  exits with status 1.
- Problems the user can fix (unknown spider, broken recipe, bad spider argument or setting, a
  ``GATECRAWL_STORE_URI`` that is not a path, ``file://PATH`` or ``s3://bucket/prefix``):
  one line ``gatecrawl: error: ...`` on stderr and exit status 2, before anything starts.
"""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

from gatecrawl.commands import checks, fail, tell
from gatecrawl.store import StoreError, check_store_uri
from gatecrawl.store.config import StoreConfig

_LIST_ARGS = ("start_url",)
EXIT_PREFIX = "gatecrawl/exit/"


def merge_repeated(spargs: list[str]) -> list[str]:
    merged: dict[str, list[str]] = {}
    out: list[str] = []
    for arg in spargs:
        name, sep, value = arg.partition("=")
        name = name.strip()
        if sep and name in _LIST_ARGS:
            if name not in merged:
                merged[name] = []
                out.append(name)
            merged[name].append(value.strip())
        else:
            out.append(arg)
    return [f"{a}={' '.join(merged[a])}" if a in merged else a for a in out]


def exit_reasons(stats: dict) -> list[str]:
    return sorted(k[len(EXIT_PREFIX) :] for k, v in stats.items() if k.startswith(EXIT_PREFIX) and v)


class Command(ScrapyCrawlCommand):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        opts.spargs = merge_repeated(list(opts.spargs or []))
        super().process_options(args, opts)
        if len(args) == 1:
            self._check(args[0], opts.spargs)

    def _check(self, name: str, spargs: dict) -> None:
        """Fail with one line (exit 2) on what the user can fix, before any crawl starts."""
        from scrapy.spiderloader import get_spider_loader

        settings = self.settings
        problem = checks.settings_problem(settings)
        if problem:
            fail(settings, problem)
        loader = get_spider_loader(settings)
        problem = checks.spider_problem(loader, name)
        if problem:
            fail(settings, problem)
        problem = checks.spider_args_problem(loader.load(name), spargs)
        if problem:
            fail(settings, problem)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one spider (recipe) name")
        assert self.crawler_process
        crawler = self._create_crawler(args[0])
        try:
            # Before anything runs or is written: a store URI typo is a usage error.
            check_store_uri(StoreConfig.from_settings(crawler.settings).uri)
        except StoreError as exc:
            tell(self.settings, f"gatecrawl: error: {exc}")
            self.exitcode = 2
            return
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        reasons = exit_reasons(crawler.stats.get_stats() if crawler.stats else {})
        for reason in reasons:
            detail = crawler.stats.get_value(EXIT_PREFIX + reason)
            tell(self.settings, f"gatecrawl: crawl failed: {reason}" + (f" ({detail})" if not isinstance(detail, (int, bool)) else f" ({detail})" if detail not in (1, True) else ""))
        if reasons:
            self.exitcode = 1
