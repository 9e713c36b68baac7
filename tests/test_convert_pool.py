"""Conversion in worker processes (issue 19): same bytes as in the crawl process, logs come back,
a dead worker costs no page."""

from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path

import pytest

from gatecrawl.core.convert import FetchInfo, convert, default_recipe
from gatecrawl.core.convertpool import ConvertProcessPool, convert_job, replay_logs

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path("/work/shared/bench/article-extraction/html")
JUNK = Path(__file__).resolve().parent.parent / "bench" / "junk"
#: per-run facts of a packet (timings): not part of what a conversion produces
RUN_FACTS = ("conversion_ms", "fetched_at")


def _pages() -> list[tuple[str, bytes]]:
    pages = [(p.name, (p / "input.html").read_bytes()) for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    pages += [(f"junk/{p.parent.name}/{p.name}", p.read_bytes()) for p in sorted(JUNK.glob("*/*.html"))[:20]]
    if CORPUS.is_dir():
        pages += [(p.name, gzip.decompress(p.read_bytes())) for p in sorted(CORPUS.glob("*.html.gz"))[:12]]
    return pages


def _comparable(result) -> tuple:
    packet = {k: v for k, v in result.evidence.items() if k not in RUN_FACTS}
    return result.markdown.encode("utf-8"), packet, result.ok, result.drop_reason, result.title


def test_markdown_bytes_are_the_same_with_and_without_the_process_pool():
    pages = _pages()
    assert len(pages) > 60
    recipe = default_recipe()
    fetch = FetchInfo(fetched_at="2026-01-01T00:00:00.000000Z", run_id="r")
    pool = ConvertProcessPool(2)
    try:
        futures = [pool.submit(body, f"https://example.test/{name}", "text/html; charset=utf-8", recipe, fetch) for name, body in pages]
        pooled = [f.result(timeout=120) for f in futures]
    finally:
        pool.shutdown()
    kept = 0
    for (name, body), (result, records) in zip(pages, pooled):
        local = convert(body, f"https://example.test/{name}", "text/html; charset=utf-8", recipe, fetch=fetch)
        assert _comparable(result) == _comparable(local), name
        kept += result.ok
    assert kept >= 10  # the comparison covers kept pages with real Markdown, not only drops


def test_conversion_runs_in_another_process():
    pool = ConvertProcessPool(1)
    try:
        fut = pool._start().submit(os.getpid)
        assert fut.result(timeout=60) != os.getpid()
    finally:
        pool.shutdown()


def test_log_records_of_a_worker_conversion_reach_the_parent_loggers(monkeypatch, caplog):
    import gatecrawl.core.extract as extract

    def boom(*a, **k):
        raise RuntimeError("injected")

    monkeypatch.setattr(extract, "select_main", boom)
    result, records = convert_job(b"<html><body><p>text</p></body></html>", "https://example.test/a", "text/html", default_recipe(), FetchInfo())
    assert result.drop_reason == "converter_error"
    assert any("converter error" in r.getMessage() for r in records)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="gatecrawl"):
        replay_logs(records)
    assert any("converter error" in r.getMessage() and r.name == "gatecrawl.core.convert" for r in caplog.records)


_DEAD_WORKER = r"""
import dataclasses, json, os, sys
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred
import gatecrawl.pipelines.convert as conv_mod
from gatecrawl.core.convert import default_recipe
from gatecrawl.core.convertpool import ConvertProcessPool
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.items import PageCapture

crawler = get_crawler(settings_dict={"GATECRAWL_CONVERT_WORKERS": 1, "GATECRAWL_CONVERT_POOL": "process"})
pipe = conv_mod.ConvertPipeline(crawler)
recipe = dataclasses.replace(default_recipe(), not_found_probe=False)
crawler.spider = type("S", (), {"run_id": "r", "recipe": recipe, "name": "s"})()
pipe.open_spider()
real_submit = ConvertProcessPool.submit
calls = []

def submit_then_die(self, *args, **kwargs):
    calls.append(1)
    if len(calls) == 1:  # the first page's worker is killed before it converts
        self._start().submit(os._exit, 9)
    return real_submit(self, *args, **kwargs)

ConvertProcessPool.submit = submit_then_die
body = b"<html><head><title>T</title></head><body><article><h1>Title</h1><p>" + b"Ordinary words of a paragraph here. " * 40 + b"</p></article></body></html>"
items = [PageCapture(url_final=f"http://x.test/{i}", fetch=FetchInfo(url_requested=f"http://x.test/{i}", run_id="r"), content_type="text/html", body=body) for i in range(3)]
out = []

async def run():
    try:
        for item in items:
            out.append((await pipe.process_item(item)).outcome)
    finally:
        pipe.close_spider()

d = ensureDeferred(run())
d.addErrback(lambda f: out.append(repr(f.value)))
d.addBoth(lambda _: reactor.callLater(0, reactor.stop))
reactor.run()
print(json.dumps({"outcomes": out, "restarted": crawler.stats.get_value("gatecrawl/convert/pool_restarted")}))
"""


@pytest.mark.slow
def test_a_dead_worker_costs_no_page():
    """A worker that dies breaks the executor: its page is converted in a thread, the pool is
    replaced for the next pages. (In a subprocess: the reactor runs once per process.)"""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", _DEAD_WORKER], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"outcomes": ["kept", "kept", "kept"], "restarted": 1}, (got, proc.stderr[-2000:])


def test_warm_starts_every_worker_before_the_first_page():
    """Issue 19: the executor started a worker per job while none was idle, so the crawl's first
    pages waited for the workers to start (1.5 s or more each under load). ConvertPipeline
    warms the pool when the spider opens: every worker is up before a page arrives."""
    pool = ConvertProcessPool(2)
    try:
        pids = {f.result(timeout=60) for f in pool.warm()}
        assert len(pool._executor._processes) == 2
        assert os.getpid() not in pids
    finally:
        pool.shutdown()
