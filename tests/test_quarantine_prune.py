"""A complete run removes the quarantine packets of URLs that left the crawl (issue 16); a run
that saw only part of the site (command-line start URLs, max_pages, a stop) leaves them."""

from __future__ import annotations

import json

import pytest

from crawlutil import TESTS, run_crawl

pytestmark = pytest.mark.slow


def _crawl(tmp_path, origin, *args, extra=None):
    recipes = tmp_path / "recipes"
    recipes.mkdir(exist_ok=True)
    (recipes / "prune.toml").write_text(
        f'start_urls = ["{origin.url("/links")}"]\nallowed_domains = []\n[follow]\nmax_depth = 1\n'
        "[validation]\nmin_markdown_chars = 50\n"
    )
    settings = {"GATECRAWL_RECIPES_DIRS": str(recipes), "GATECRAWL_EGRESS_ALLOW": f"127.0.0.3:{origin.port}",
                "RETRY_TIMES": 0, "ROBOTSTXT_OBEY": False, **(extra or {})}
    run = run_crawl("prune", tmp_path / "store", *args, settings=settings,
                    env={"GATECRAWL_EGRESS_ALLOW": "", "PYTHONPATH": f"{TESTS}:{TESTS.parent}"})
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def _state(run):
    site = run.store / "prune"
    index = {r["url"]: r for r in map(json.loads, (site / "index.jsonl").read_text("utf-8").splitlines())}
    quarantined = {json.loads(p.read_text("utf-8"))["url_final"] for p in (site / "quarantine").glob("*.json")}
    # The crawl report's record has the run's final stats (the manifest is written before the index).
    record = max((site / "runs" / "reports").glob("*.record.json"), key=lambda p: p.stat().st_mtime)
    stats = json.loads(record.read_text("utf-8"))["stats"]
    return index, quarantined, stats


def test_complete_run_prunes_quarantine_of_urls_that_left(tmp_path, origin):
    gone, stays = origin.url("/status/410"), origin.url("/status/404")
    origin.links = [origin.url("/article/1"), gone, stays]
    index, quarantined, _ = _state(_crawl(tmp_path, origin))
    assert quarantined == {gone, stays} and set(index) == {origin.url("/links"), origin.url("/article/1"), gone, stays}

    # A partial run (start URL on the command line) cannot tell that a URL left: nothing pruned.
    origin.links = [origin.url("/article/1"), stays]
    run = _crawl(tmp_path, origin, "-a", "start_url=" + origin.url("/article/1"))
    index, quarantined, stats = _state(run)
    assert quarantined == {gone, stays} and gone in index
    assert "gatecrawl/export/quarantine_pruned" not in stats
    assert "quarantine not pruned: start URLs given on the command line" in run.log

    # max_pages reached: partial as well.
    run = _crawl(tmp_path, origin, "-a", "max_pages=1")
    assert _state(run)[1] == {gone, stays} and "quarantine not pruned: max_pages reached" in run.log

    # The recipe's own crawl, run to its end: the URL that left is removed, the rest stays.
    run = _crawl(tmp_path, origin)
    index, quarantined, stats = _state(run)
    assert quarantined == {stays}
    assert set(index) == {origin.url("/links"), origin.url("/article/1"), stays}
    assert stats["gatecrawl/export/quarantine_pruned"] == 1
    assert index[origin.url("/article/1")]["outcome"] == "kept"


def test_pruning_can_be_turned_off(tmp_path, origin):
    gone = origin.url("/status/410")
    origin.links = [origin.url("/article/1"), gone]
    _crawl(tmp_path, origin)
    origin.links = [origin.url("/article/1")]
    index, quarantined, stats = _state(_crawl(tmp_path, origin, extra={"GATECRAWL_QUARANTINE_PRUNE": False}))
    assert quarantined == {gone} and gone in index and "gatecrawl/export/quarantine_pruned" not in stats
