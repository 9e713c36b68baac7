"""The export pipeline and the run ledger, in process (issue 17 items 3 and 6): no subprocess
crawl, so a failure points at the component. The pipeline writes each page's objects; the
ledger writes the run (manifest, index, change list, report) through the run's one store."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

import gatecrawl.store as store_mod
from gatecrawl.core.convert import FetchInfo, convert
from gatecrawl.core.evidence import dumps
from gatecrawl.core.recipes import load_recipe_text
from gatecrawl.items import PageCapture
from gatecrawl.pipelines.export import ExportPipeline
from gatecrawl.signals import crawl_joined

ARTICLE = (
    "<html><head><title>Ledger</title></head><body><article><h1>Ledger</h1>"
    + "<p>The run ledger writes what a crawl did, one record per page, once per run. </p>" * 20
    + "</article></body></html>"
)
SHELL = "<html><head><title>x</title></head><body><div id='app'></div><script src='/app.js'></script></body></html>"


def _capture(recipe, body: str, path: str) -> PageCapture:
    url = f"http://127.0.0.1:1{path}"
    fetch = FetchInfo(url_requested=url, run_id="r1", fetched_at="2026-12-02T00:00:00.000000Z", latency_ms=12)
    res = convert(body, url, "text/html", recipe, fetch=fetch)
    return PageCapture(url_final=url, fetch=fetch, packet=res.packet, markdown=res.markdown, outcome=res.outcome,
                       drop_reason=res.drop_reason, links=[])


def _crawler(tmp_path, run_id: str, recipe, **settings):
    crawler = get_crawler(settings_dict={
        "GATECRAWL_STORE_URI": f"file://{tmp_path / 'store'}",
        "GATECRAWL_SPOOL_DIR": str(tmp_path / "spool"),
        "GATECRAWL_SUMMARY_PRINT": False,
        "GATECRAWL_INDEX_ENABLED": True,
        **settings,
    })
    crawler.spider = SimpleNamespace(name="s", run_id=run_id, recipe=recipe, covers_recipe=True)
    return crawler


@pytest.fixture
def run(tmp_path, monkeypatch):
    """A crawler (``get_crawler``) with a stand-in spider, and the store opens counted."""
    opened = []
    real_open = store_mod.open_store

    def counting_open(uri, options=None):
        opened.append(uri)
        return real_open(uri, options)

    monkeypatch.setattr(store_mod, "open_store", counting_open)
    recipe = load_recipe_text('name = "s"\n', source="<test>", default_name="s")
    return SimpleNamespace(crawler=_crawler(tmp_path, "r1", recipe), recipe=recipe, root=tmp_path / "store" / "s", opened=opened,
                           again=lambda run_id, **kw: _crawler(tmp_path, run_id, recipe, **kw))


def _crawl(crawler, items, *, pipeline=None, before_open=()):
    """open_spider, process_item for each item, close_spider, then spider_closed: what the engine
    does. Returns what process_item gave for each item (a feed record, or the DropItem)."""

    pipeline = pipeline or ExportPipeline.from_crawler(crawler)

    async def flow():
        for signal, kw in before_open:
            crawler.signals.send_catch_log(signal=signal, **kw)
        await pipeline.open_spider()
        out = []
        for item in items:
            try:
                out.append(await pipeline.process_item(item))
            except DropItem as exc:
                out.append(exc)
        await pipeline.close_spider()
        await pipeline.spider_closed(crawler.spider, "finished")
        return out

    return asyncio.run(flow())


def test_pages_become_objects_and_the_run_one_record_through_one_store(run):
    kept, dropped = _capture(run.recipe, ARTICLE, "/a"), _capture(run.recipe, SHELL, "/shell")
    assert kept.outcome == "kept" and dropped.outcome == "dropped"
    out = _crawl(run.crawler, [kept, dropped])
    assert out[0]["outcome"] == "kept" and isinstance(out[1], DropItem)
    k, d = kept.packet.url_key, dropped.packet.url_key
    # The page objects: the packet bytes are the typed packet's, with its store keys.
    stored = (run.root / "pages" / f"{k}.json").read_bytes()
    assert stored == dumps(kept.packet.stored_as(markdown_key=f"s/pages/{k}.md", packet_key=f"s/pages/{k}.json"))
    assert (run.root / "pages" / f"{k}.md").read_text("utf-8") == kept.markdown
    assert json.loads((run.root / "quarantine" / f"{d}.json").read_bytes())["packet_key"] == f"s/quarantine/{d}.json"
    # The run: manifest entries built from the packets, per-run facts included.
    manifest = json.loads((run.root / "runs" / "r1.json").read_bytes())
    assert manifest["counts"]["kept"] == 1 and manifest["counts"]["dropped"] == 1 and manifest["crawl_id"] is None
    entry = next(p for p in manifest["pages"] if p["outcome"] == "kept")
    assert entry["title"] == "Ledger" and entry["fetched_at"] == "2026-12-02T00:00:00.000000Z" and entry["latency_ms"] == 12
    assert entry["objects"] == {f"s/pages/{k}.md": "put", f"s/pages/{k}.json": "put", f"s/quarantine/{k}.json": "absent"}
    assert len((run.root / "index.jsonl").read_text("utf-8").splitlines()) == 2
    # The report, through the same store instance: the store was opened once for the run.
    record = json.loads((run.root / "runs" / "reports" / "r1.record.json").read_bytes())
    assert sorted(p["outcome"] for p in record["pages"]) == ["dropped", "kept"]
    assert (run.root / "runs" / "reports" / "r1.html").is_file()
    assert len(run.opened) == 1, run.opened
    stats = run.crawler.stats.get_stats()
    assert stats["gatecrawl/report/written"] == 1 and stats["gatecrawl/export/quarantined"] == 1
    assert "gatecrawl/exit/export_failed" not in stats and "gatecrawl/exit/nothing_kept" not in stats


def test_the_crawl_id_is_passed_in_by_the_scheduler_signal(run):
    """No reach through crawler.engine.scheduler: the distributed scheduler announces the crawl
    (``crawl_joined``); the run manifest, the report and the merged manifest name it."""
    pipeline = ExportPipeline.from_crawler(run.crawler)  # built with the engine, before the scheduler opens
    joined = [(crawl_joined, {"crawl_id": "c1", "run_ids": lambda: ["r1"]})]
    _crawl(run.crawler, [_capture(run.recipe, ARTICLE, "/a")], pipeline=pipeline, before_open=joined)
    assert json.loads((run.root / "runs" / "r1.json").read_bytes())["crawl_id"] == "c1"
    merged = json.loads((run.root / "crawls" / "c1.json").read_bytes())
    assert [r["run_id"] for r in merged["runs"]] == ["r1"]
    record = json.loads((run.root / "runs" / "reports" / "r1.record.json").read_bytes())
    assert record["conditions"]["crawl_id"] == "c1"


def test_a_failed_object_write_is_counted_and_fails_the_run(run, monkeypatch):
    from gatecrawl.store import StoreError
    from gatecrawl.store.local import LocalStore

    real_put = LocalStore.put

    def put(self, key, data, **kw):
        if key.endswith(".md"):
            raise StoreError("disk full (injected)")
        return real_put(self, key, data, **kw)

    monkeypatch.setattr(LocalStore, "put", put)
    _crawl(run.crawler, [_capture(run.recipe, ARTICLE, "/a")])
    stats = run.crawler.stats.get_stats()
    assert stats["gatecrawl/export/failed"] == 1 and "1 objects" in stats["gatecrawl/exit/export_failed"]


def test_a_page_whose_stored_copy_stands_is_recorded_not_rewritten(run):
    """A 304 (or a sitemap lastmod skip): the ledger's manifest entry repeats what is stored,
    no object is written, and the report carries the earlier record's facts."""
    first = _capture(run.recipe, ARTICLE, "/a")
    _crawl(run.crawler, [first])
    stored_line = json.loads((run.root / "recrawl.jsonl").read_text("utf-8").splitlines()[0])
    url = first.url_final
    again = PageCapture(url_final=url, fetch=FetchInfo(url_requested=url, http_status=304, run_id="r2", fetched_at="2026-12-03T00:00:00.000000Z", latency_ms=3),
                        not_modified="304", previous=stored_line, outcome="kept")
    crawler = run.again("r2")
    out = _crawl(crawler, [again])
    assert isinstance(out[0], DropItem)  # not in the feeds: nothing about the page changed
    entry = json.loads((run.root / "runs" / "r2.json").read_bytes())["pages"][0]
    assert (entry["not_modified"], entry["change"], entry["outcome"], entry["latency_ms"]) == ("304", "unchanged", "kept", 3)
    assert set(entry["objects"].values()) == {"unchanged"}
    stats = crawler.stats.get_stats()
    # Written: this run's manifest and change list only (no page object, the index unchanged).
    assert stats["gatecrawl/export/put"] == 2 and stats["gatecrawl/recrawl/unchanged"] == 1
    page = json.loads((run.root / "runs" / "reports" / "r2.record.json").read_bytes())["pages"][0]
    assert (page["outcome"], page["not_modified"], page["bytes_in"], page["latency_ms"]) == ("kept", "304", 0, 3)
    assert page["url_key"] == first.packet.url_key and page["chars_out"] == first.packet.chars_out  # from the r1 record


def test_report_off_the_ledger_still_writes_the_run(run):
    crawler = run.again("r3", GATECRAWL_REPORT_ENABLED=False)
    _crawl(crawler, [_capture(run.recipe, ARTICLE, "/a")])
    assert json.loads((run.root / "runs" / "r3.json").read_bytes())["counts"]["kept"] == 1
    assert not (run.root / "runs" / "reports").exists()
    assert not [k for k in crawler.stats.get_stats() if k.startswith("gatecrawl/report/")]
    spill = run.root.parent.parent / "spool" / "spill"
    assert not spill.exists() or not [p for p in spill.iterdir() if p.is_dir()], "the ledger's spill folder is removed at close"
