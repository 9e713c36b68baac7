"""``scrapy list``: one spider per recipe; a broken recipe is reported on stderr (file, key,
reason) and left out, the other spiders are still listed and the exit status stays 0 (Scrapyd's
``listspiders.json`` runs this command and fails on any other status)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands.list import Command as ScrapyListCommand
from scrapy.spiderloader import get_spider_loader

if TYPE_CHECKING:
    import argparse


class Command(ScrapyListCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        loader = get_spider_loader(self.settings)
        names = sorted(loader.list())
        if names:
            print("\n".join(names))
        for name, error in sorted(getattr(loader, "broken", {}).items()):
            print(f"gatecrawl: recipe skipped: {error}", file=sys.stderr)
