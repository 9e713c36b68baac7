"""``scrapy convert FILE_OR_URL [--url URL] [--recipe NAME] [--evidence]``

Converts one page through the same ``convert()`` the crawl uses and prints its Markdown
(and, with ``--evidence``, its packet). A page that fails validation prints its typed
reason on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import scrapy
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from gatecrawl.core import evidence as ev
from gatecrawl.core.convert import convert
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.reasons import Reason
from gatecrawl.meta import EGRESS


class _OnePage(scrapy.Spider):
    name = "gatecrawl-convert"
    # One page, printed: no pipelines, no crawl report or progress line written anywhere.
    custom_settings = {"ITEM_PIPELINES": {}, "ROBOTSTXT_OBEY": False, "GATECRAWL_SUMMARY_PRINT": False, "GATECRAWL_REPORT_ENABLED": False, "GATECRAWL_PROGRESS_INTERVAL": 0}

    def __init__(self, url: str, sink: dict, **kw: Any) -> None:
        super().__init__(**kw)
        self.url = url
        self.sink = sink

    async def start(self):
        self.sink["t0"] = time.monotonic()
        yield scrapy.Request(self.url, callback=self.got, errback=self.failed, dont_filter=True)

    def got(self, response):
        self.sink["response"] = response

    def failed(self, failure):
        from gatecrawl.exceptions import classify_failure

        reason, detail = classify_failure(failure.value)
        self.sink["error"] = detail
        self.sink["error_reason"] = reason
        request = getattr(failure, "request", None)
        if request is not None and reason in (Reason.EGRESS_BLOCKED, Reason.SCHEME_BLOCKED):
            self.sink["egress"] = request.meta.get(EGRESS)


class Command(ScrapyCommand):
    requires_project = True
    default_settings = {"LOG_LEVEL": "WARNING"}

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        # The project's LOG_LEVEL (INFO, project priority) outranks default_settings: quiet by
        # default here, -L/--loglevel (command-line priority) still wins.
        assert self.settings is not None
        self.settings.set("LOG_LEVEL", "WARNING", priority="project")
        super().process_options(args, opts)

    def syntax(self) -> str:
        return "[options] FILE_OR_URL"

    def short_desc(self) -> str:
        return "Convert one page (a file or a URL) to Markdown, as the crawl would"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--url", help="the page's URL, for a FILE (links resolve against it)")
        parser.add_argument("--recipe", help="use this recipe's content, gate and validation settings")
        parser.add_argument("--content-type", default=None, help="content type of a FILE (default: by extension)")
        parser.add_argument("--evidence", action="store_true", help="also print the evidence packet (JSON) after the Markdown")

    def _recipe(self, name: str | None):
        if not name:
            return None
        from gatecrawl.spiderloader import RecipeSpiderLoader

        loader = RecipeSpiderLoader(self.settings)
        try:
            return loader.load(name).recipe
        except KeyError:
            raise UsageError(f"no recipe named {name!r}", print_help=False) from None

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one FILE_OR_URL")
        target = args[0]
        recipe = self._recipe(opts.recipe)
        if target.startswith(("http://", "https://")):
            sink: dict = {}
            assert self.crawler_process is not None
            self.crawler_process.crawl(_OnePage, url=target, sink=sink)
            self.crawler_process.start()
            if "response" in sink:
                r = sink["response"]
                ctype = r.headers.get("Content-Type", b"").decode("latin-1") or None
                headers = {k.decode("latin-1"): v[0].decode("latin-1") for k, v in r.headers.items() if v}
                # depth 0: the URL is this one-page crawl's start URL, as it would be in a crawl.
                fetch = FetchInfo(url_requested=target, http_status=r.status, headers=headers, depth=0, latency_ms=int((time.monotonic() - sink["t0"]) * 1000))
                result = convert(r.body, r.url, ctype, recipe, fetch=fetch)
            else:
                fetch = FetchInfo(
                    url_requested=target, http_status=None, error=sink.get("error", "no response"),
                    error_reason=sink.get("error_reason"), egress=sink.get("egress"),
                )
                result = convert(b"", target, None, recipe, fetch=fetch)
        else:
            path = Path(target)
            if not path.is_file():
                raise UsageError(f"no such file: {target}", print_help=False)
            body = path.read_bytes()
            ctype = opts.content_type or ("application/pdf" if path.suffix.lower() == ".pdf" else "text/html")
            url = opts.url or path.resolve().as_uri()
            result = convert(body, url, ctype, recipe, fetch=FetchInfo(url_requested=url))
        if result.markdown and result.ok:
            sys.stdout.write(result.markdown)
        if opts.evidence:
            sys.stdout.write(ev.dumps(result.evidence).decode("utf-8"))
        sys.stdout.flush()
        if not result.ok:
            detail = result.evidence.get("drop_detail")
            print(f"dropped: {result.drop_reason}" + (f" ({detail})" if detail else ""), file=sys.stderr)
            if result.drop_reason == Reason.EGRESS_BLOCKED:
                from gatecrawl.egress.policy import EgressDecision, admit_hint

                eg = result.evidence.get("egress") or {}
                cls = str(eg.get("detail") or "").partition("address_class=")[2] or None
                hint = admit_hint(target, EgressDecision(False, Reason.EGRESS_BLOCKED, eg.get("detail"), cls))
                if hint:
                    print(f"gatecrawl: {hint}", file=sys.stderr)
            self.exitcode = 2
