"""The merged manifest of a distributed crawl (``<site>/crawls/<crawl id>.json``), on hand-built
run manifests: one entry per key, the later run wins, counts not double counted, deterministic
bytes; the write-and-recheck loop; ``scrapy report SITE --crawl``.

The end-to-end check (real workers on redis-server) is in test_distributed.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

from crawlutil import ROOT
from gatecrawl.report import dump_json, list_runs
from gatecrawl.report.crawl import crawl_key, load_crawl_manifests, merge_run_manifests, write_crawl_manifest
from gatecrawl.store import LocalStore

SITE = "demo"


def _entry(key: str, outcome: str = "kept", reason: str | None = None, *, render: bool = False) -> dict:
    keys = [f"{SITE}/pages/{key}.md", f"{SITE}/pages/{key}.json"] if outcome == "kept" else [f"{SITE}/quarantine/{key}.json"]
    stale = [f"{SITE}/quarantine/{key}.json"] if outcome == "kept" else [f"{SITE}/pages/{key}.md", f"{SITE}/pages/{key}.json"]
    return {
        "url": f"http://x.test/{key}",
        "outcome": outcome,
        "drop_reason": reason,
        "keys": keys,
        "stale_keys": stale,
        "objects": {k: "put" for k in keys},
        "markdown_sha256": f"md-{key}" if outcome == "kept" else None,
        "needs_render": render,
        "reader": "render" if render else "http",
        "fetched_at": "2026-11-30T10:00:00.000000Z",
        "latency_ms": 10,
    }


def _manifest(run_id: str, pages: list[dict], started: str, finished: str, crawl_id: str | None = "c1", **stats) -> dict:
    kept = sum(1 for p in pages if p["outcome"] == "kept")
    return {
        "schema_version": "gatecrawl.run/1",
        "run_id": run_id,
        "crawl_id": crawl_id,
        "site": SITE,
        "recipe": {"name": SITE, "digest": "sha256:abc"},
        "store_uri": "file://./output",
        "started_at": started,
        "finished_at": finished,
        "counts": {"seen": len(pages), "kept": kept, "dropped": len(pages) - kept, "needs_render": 0, "dropped_by_reason": {}},
        "pages": pages,
        "stats": {"gatecrawl/kept": kept, "gatecrawl/retry/backoff_seconds": 0.5, "scrapy/other": 7, **stats},
    }


def _two_runs() -> tuple[dict, dict]:
    # "a" was delivered twice (at least once): dropped by the earlier run, kept by the later one.
    early = _manifest("w1", [_entry("a", "dropped", "timeout"), _entry("b")], "2026-11-30T10:00:00Z", "2026-11-30T10:00:04Z",
                      **{"gatecrawl/exit/nothing_kept": "no pages"})
    late = _manifest("w2", [_entry("a"), _entry("c", "dropped", "too_short", render=True)], "2026-11-30T10:00:01Z", "2026-11-30T10:00:09Z")
    return early, late


def test_merge_one_entry_per_key_later_run_wins_counts_not_double_counted():
    early, late = _two_runs()
    other = _manifest("x1", [_entry("z")], "2026-11-30T09:00:00Z", "2026-11-30T09:00:01Z", crawl_id="other")
    single = _manifest("s1", [_entry("y")], "2026-11-30T09:00:00Z", "2026-11-30T09:00:01Z", crawl_id=None)
    doc = merge_run_manifests([late, other, early, single], site=SITE, crawl_id="c1", registered_run_ids=["w1", "w2", "w3"])

    assert doc["schema_version"] == "gatecrawl.crawl/1" and doc["crawl_id"] == "c1" and doc["site"] == SITE
    assert [r["run_id"] for r in doc["runs"]] == ["w1", "w2"]  # by finish time; other crawls ignored
    assert doc["runs_without_manifest"] == ["w3"]
    by_key = {p["url_key"]: p for p in doc["pages"]}
    assert sorted(by_key) == ["a", "b", "c"]
    assert (by_key["a"]["outcome"], by_key["a"]["run_id"], by_key["a"]["deliveries"]) == ("kept", "w2", 2)
    assert (by_key["b"]["run_id"], by_key["b"]["deliveries"]) == ("w1", 1)
    assert doc["counts"] == {
        "seen": 3, "kept": 2, "dropped": 1, "needs_render": 1, "dropped_by_reason": {"too_short": 1},
        "duplicate_deliveries": 1, "runs": 2,
    }
    # Per-run counters summed; exit reasons stay with their run; non-gatecrawl stats left out.
    assert doc["stats"] == {"gatecrawl/kept": 2, "gatecrawl/retry/backoff_seconds": 1.0}
    assert doc["runs"][0]["exit"] == {"gatecrawl/exit/nothing_kept": "no pages"} and doc["runs"][1]["exit"] == {}
    assert (doc["started_at"], doc["finished_at"]) == ("2026-11-30T10:00:00Z", "2026-11-30T10:00:09Z")
    assert doc["runs"][1]["manifest_key"] == f"{SITE}/runs/w2.json"

    # Input order does not matter: the same bytes.
    again = merge_run_manifests([early, single, other, late], site=SITE, crawl_id="c1", registered_run_ids=["w3", "w2", "w1"])
    assert dump_json(again) == dump_json(doc)
    # The later run wins whatever the order; swap the finish times and the earlier entry wins.
    early2 = {**early, "finished_at": "2026-11-30T10:00:10Z"}
    flipped = merge_run_manifests([late, early2], site=SITE, crawl_id="c1")
    assert {p["url_key"]: p["outcome"] for p in flipped["pages"]}["a"] == "dropped"
    assert flipped["runs_without_manifest"] is None
    assert flipped["counts"]["dropped_by_reason"] == {"timeout": 1, "too_short": 1}


def _store_with_runs(tmp_path) -> LocalStore:
    store = LocalStore(f"file://{tmp_path / 'store'}")
    early, late = _two_runs()
    for m in (early, late, _manifest("s1", [_entry("y")], "2026-11-30T09:00:00Z", "2026-11-30T09:00:01Z", crawl_id=None)):
        store.put(f"{SITE}/runs/{m['run_id']}.json", dump_json(m), content_type="application/json")
    store.put(f"{SITE}/runs/reports/w1.record.json", b"{}", content_type="application/json")
    return store


def test_write_crawl_manifest_in_the_store_is_deterministic_and_idempotent(tmp_path):
    store = _store_with_runs(tmp_path)
    assert [m["run_id"] for m in load_crawl_manifests(store, SITE, "c1")] == ["w1", "w2"]
    assert [m["run_id"] for m in load_crawl_manifests(store, SITE, "c1", run_ids=["w2", "w9"])] == ["w2"]

    # `scrapy report --crawl` reads every run manifest of the site (scan); a worker reads only the
    # runs the crawl registered in Redis. Both give the same file.
    key, doc = write_crawl_manifest(store, SITE, "c1", run_ids=["w1", "w2"], scan=True)
    assert key == crawl_key(SITE, "c1") == f"{SITE}/crawls/c1.json"
    data = store.get(key)
    assert data == dump_json(doc) and json.loads(data)["counts"]["kept"] == 2
    writes = store.writes
    # Merging again (another worker closing) rewrites nothing.
    write_crawl_manifest(store, SITE, "c1", run_ids=lambda: ["w2", "w1"])
    assert store.writes == writes and store.get(key) == data
    # Run manifests stay the runs of the site; the crawl manifest is not one of them.
    assert sorted(r["run_id"] for r in list_runs(store, SITE)) == ["s1", "w1", "w2"]
    # A crawl with no run manifest writes nothing.
    _, empty = write_crawl_manifest(store, SITE, "nosuch", scan=True)
    assert empty["counts"]["runs"] == 0 and store.get(crawl_key(SITE, "nosuch")) is None


def test_a_manifest_written_while_merging_is_merged_again(tmp_path):
    """Worker B writes its manifest after worker A read the runs and before A's merge lands:
    A looks again after writing and merges once more, so A's stale merge does not stay."""
    store = _store_with_runs(tmp_path)
    late_run = _manifest("w3", [_entry("d"), _entry("b")], "2026-11-30T10:00:02Z", "2026-11-30T10:00:20Z")
    injected = []

    class Racy(LocalStore):
        def put(self, key, data, **kw):
            result = super().put(key, data, **kw)
            if "/crawls/" in key and not injected:
                injected.append(key)
                super().put(f"{SITE}/runs/w3.json", dump_json(late_run), content_type="application/json")
            return result

    racy = Racy(store.uri)
    registered = iter([["w1", "w2", "w3"]] * 5)
    key, doc = write_crawl_manifest(racy, SITE, "c1", run_ids=lambda: next(registered))
    assert injected
    final = json.loads(racy.get(key))
    assert [r["run_id"] for r in final["runs"]] == ["w1", "w2", "w3"] and final["runs_without_manifest"] == []
    assert final["counts"]["seen"] == 4 and final["counts"]["duplicate_deliveries"] == 2
    assert {p["url_key"]: p["run_id"] for p in final["pages"]} == {"a": "w2", "b": "w3", "c": "w2", "d": "w3"}


def test_report_command_with_crawl(tmp_path):
    store = _store_with_runs(tmp_path)
    out_json, out_html = tmp_path / "crawl.summary.json", tmp_path / "crawl.html"
    cmd = [sys.executable, "-m", "scrapy", "report", SITE, "--store", store.uri, "--crawl", "c1", "--json", str(out_json), "--html", str(out_html)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "crawl c1, 2 runs (w1, w2)" in proc.stdout and "duplicate deliveries 1" in proc.stdout
    assert f"crawl manifest {SITE}/crawls/c1.json" in proc.stdout
    merged = json.loads(store.get(f"{SITE}/crawls/c1.json"))
    assert merged["counts"]["kept"] == 2
    summary = json.loads(out_json.read_text("utf-8"))
    assert summary["crawl_id"] == "c1" and summary["counts"]["pages"] == 3 and summary["counts"]["kept"] == 2
    assert summary["against_run_id"] is None and [h["run_id"] for h in summary["history"]] == ["c1"]
    html = out_html.read_text("utf-8")
    assert "crawl <code>c1</code>" in html and "demo/crawls/c1.json" in html

    proc = subprocess.run([sys.executable, "-m", "scrapy", "report", SITE, "--store", store.uri, "--crawl", "nosuch"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "no run manifest of crawl 'nosuch'" in proc.stderr
