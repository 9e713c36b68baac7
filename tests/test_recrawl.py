"""Changed-only recrawls (issue 18 item 4): conditional requests from what the store kept, 304s
that keep the stored objects, sitemap lastmod skips, the change list; HTTP cache and render path.

The crawls run ``scrapy crawl`` in a subprocess against :class:`bench.recrawl.RecrawlSite` on
127.0.0.1 (port 0), which answers ``If-None-Match`` / ``If-Modified-Since`` with 304."""

from __future__ import annotations

import json
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bench.recrawl import RECIPE, RecrawlSite, crawl
from gatecrawl.core.evidence import url_key
from gatecrawl.store.recrawl import PreviousState, change_of, conditional_headers, lastmod_not_after, parse_lastmod, state_lines

SITE = "recrawl_bench"


# -- pure parts ------------------------------------------------------------------------------


def test_lastmod_date_only_means_the_end_of_that_day():
    assert parse_lastmod("2026-12-01") == datetime(2026, 12, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert parse_lastmod("2026-12-01T10:00:00+02:00") == datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
    assert parse_lastmod("2026-12-01T08:00:00Z") == datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
    assert parse_lastmod("yesterday") is None
    kept = {"outcome": "kept", "content_fetched_at": "2026-12-01T10:00:00.000000Z"}
    # Changed later the same day: a date-only lastmod must not hide it.
    assert not lastmod_not_after("2026-12-01", kept)
    assert lastmod_not_after("2026-11-30", kept)
    assert lastmod_not_after("2026-12-01T09:59:59Z", kept)
    assert not lastmod_not_after("2026-12-01T10:00:01Z", kept)
    assert not lastmod_not_after(None, kept)
    assert not lastmod_not_after("2020-01-01", {**kept, "outcome": "dropped"})
    # The stored response's Last-Modified counts too.
    assert lastmod_not_after("2026-12-02", {"outcome": "kept", "last_modified": "Thu, 03 Dec 2026 00:00:00 GMT"})


def test_change_kinds_and_conditional_headers():
    kept = {"outcome": "kept"}
    assert change_of(None, "kept", {}, False) == "added"
    assert change_of({"outcome": "dropped"}, "kept", {}, False) == "added"
    assert change_of(kept, "dropped", {}, False) == "removed"
    assert change_of(None, "dropped", {}, False) == "dropped"
    assert change_of(kept, "kept", {}, True) == "unchanged"
    assert change_of(kept, "kept", {"a": "put"}, False) == "changed"
    assert change_of(kept, "kept", {"a": "unchanged"}, False) == "unchanged"
    assert conditional_headers({"etag": '"x"', "last_modified": "Thu, 03 Dec 2026 00:00:00 GMT"}) == {
        "If-None-Match": '"x"',
        "If-Modified-Since": "Thu, 03 Dec 2026 00:00:00 GMT",
    }
    assert conditional_headers({"etag": None, "last_modified": None}) == {}


def test_previous_state_is_found_by_final_or_requested_url(tmp_path):
    state = PreviousState(tmp_path / "p.sqlite")
    state.add_lines([json.dumps({"url": "http://a.test/b?y=2&x=1", "url_requested": "http://a.test/old", "outcome": "kept"}), "not json"])
    assert len(state) == 1 and state.kept == 1
    assert state.get("http://a.test/b?x=1&y=2")["url"] == "http://a.test/b?y=2&x=1"  # canonical URL
    assert state.get("http://a.test/old")["url"] == "http://a.test/b?y=2&x=1"
    assert state.get("http://a.test/other") is None
    state.close()
    assert not (tmp_path / "p.sqlite").exists()


# -- crawls ----------------------------------------------------------------------------------


def _recipes(tmp_path: Path, site: RecrawlSite, *, render: str = "skip", extra: str = "") -> Path:
    d = tmp_path / "recipes"
    d.mkdir(exist_ok=True)
    (d / f"{SITE}.toml").write_text(RECIPE.format(base=site.base_url, render=render) + extra)
    return d


def _mtimes(store: Path) -> dict[str, int]:
    root = store / SITE
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for d in ("pages", "quarantine") if (root / d).exists() for p in (root / d).iterdir()}


def _changes(store: Path, run_id: str) -> dict:
    return json.loads((store / SITE / "runs" / "changes" / f"{run_id}.json").read_text("utf-8"))


@pytest.mark.slow
def test_recrawl_keeps_what_answered_304_and_lists_every_change(tmp_path):
    site = RecrawlSite(pages=24, sections=3).start()
    try:
        recipes = _recipes(tmp_path, site)
        store = tmp_path / "store"
        first = crawl(store, recipes, "one")
        assert first["counts"]["kept"] == 24
        assert _changes(store, "one")["added"] == sorted(site.base_url + p for p in site.paths)
        before = _mtimes(store)
        state_before = (store / SITE / "recrawl.jsonl").stat().st_mtime_ns
        edited, gone = site.leaves[0], site.leaves[4]
        site.edit(edited)
        site.removed.add(gone)  # 404 now, and no longer linked from its hub
        new = "/p/2/99"
        site.leaves.append(new)
        site.paths.append(new)
        site.version[new], site.mtime[new] = 0, 1_800_000_000.0
        site.reset_counters()
        second = crawl(store, recipes, "two", extra={"GATECRAWL_REPORT_HTML": "True"})
        hits = dict(site.hits)
    finally:
        site.stop()
    base = site.base_url
    hub = {p: "/s/" + p.split("/")[2] for p in (edited, gone, new)}
    changes = _changes(store, "two")
    assert changes["added"] == [base + new]
    assert changes["changed"] == sorted(base + p for p in {edited, hub[gone], hub[new]})
    # The removed page is no longer linked: asked at the end of the run, it answers 404.
    assert changes["removed"] == [base + gone]
    assert changes["counts"]["not_checked"] == 0
    assert second["stats"]["gatecrawl/recrawl/unreached_checked"] == 1
    unchanged = sorted(base + p for p in site.paths if p not in (edited, gone, new, hub[gone], hub[new]))
    assert changes["unchanged"] == unchanged
    assert changes["counts"] == {"added": 1, "changed": 3, "removed": 1, "unchanged": len(unchanged), "dropped": 0, "not_checked": 0}
    assert second["changes"]["unchanged"] == len(unchanged)
    # Every unchanged page was asked once and answered 304; its objects were not touched.
    assert all(hits.get(u[len(base):]) == 1 for u in unchanged), hits
    pages = {p["url"]: p for p in second["pages"]}
    for u in unchanged:
        p = pages[u]
        assert (p["not_modified"], p["outcome"], p["change"]) == ("304", "kept", "unchanged"), p
        assert set(p["objects"].values()) == {"unchanged"}, p
    after = _mtimes(store)
    rewritten = sorted(k for k in after if before.get(k) != after[k])
    # The edited and the new page: Markdown and packet. The hubs: their packet (new validators, a
    # link more or less); their Markdown only if the link list is part of the content.
    key = {p: url_key(base + p) for p in (edited, new, hub[gone], hub[new])}
    assert {f"pages/{key[edited]}.md", f"pages/{key[edited]}.json", f"pages/{key[new]}.md", f"pages/{key[new]}.json"} <= set(rewritten)
    assert {f"pages/{key[hub[gone]]}.json", f"pages/{key[hub[new]]}.json"} <= set(rewritten)
    assert set(rewritten) <= {f"pages/{k}.{ext}" for k in key.values() for ext in ("md", "json")} | {f"quarantine/{url_key(base + gone)}.json"}, rewritten
    assert f"pages/{url_key(base + gone)}.md" not in after  # the deleted page left pages/ for quarantine
    assert pages[base + gone]["drop_reason"] == "http_error"
    assert (store / SITE / "recrawl.jsonl").stat().st_mtime_ns != state_before
    # The report counts the unchanged pages (their facts carried from the earlier record).
    summary = json.loads((store / SITE / "runs" / "reports" / "two.summary.json").read_text("utf-8"))
    assert summary["counts"]["pages"] == len(site.paths), summary["counts"]
    assert summary["changes"]["unchanged"] == len(unchanged) and summary["changes"]["not_modified"] == len(unchanged)
    html = (store / SITE / "runs" / "reports" / "two.html").read_text("utf-8")
    assert 'id="changes"' in html and "runs/changes/two.json" in html
    # The one real drift: a page went 404 (the unchanged pages did not move any rate).
    assert [a["metric"] for a in summary["drift"]["alerts"]] == ["drop_rate"], summary["drift"]["alerts"]


@pytest.mark.slow
def test_an_unchanged_site_rewrites_no_state(tmp_path):
    """A site without validators: everything is fetched, nothing rewritten, recrawl.jsonl and
    index.jsonl keep their bytes; the change list says unchanged."""
    site = RecrawlSite(pages=12, sections=2, validators=False).start()
    try:
        recipes = _recipes(tmp_path, site)
        store = tmp_path / "store"
        crawl(store, recipes, "one")
        files = {n: (store / SITE / n).read_bytes() for n in ("recrawl.jsonl", "index.jsonl")}
        stamps = {n: (store / SITE / n).stat().st_mtime_ns for n in files}
        time.sleep(0.05)
        second = crawl(store, recipes, "two")
    finally:
        site.stop()
    # The /p/{n}/{n} pages' template never needed the browser: the downloader skipped their shell
    # check, and the converter's verdict gave the same packets (nothing rewritten, below).
    assert second["stats"]["gatecrawl/routing/check_skipped"] >= 5
    for n in files:
        assert (store / SITE / n).read_bytes() == files[n]
        assert (store / SITE / n).stat().st_mtime_ns == stamps[n], f"{n} rewritten"
    changes = _changes(store, "two")
    assert len(changes["unchanged"]) == 12 and changes["changed"] == changes["added"] == []


@pytest.mark.slow
def test_http_cache_never_keeps_a_304(tmp_path):
    """HTTPCACHE_ENABLED: a conditional request bypasses the cache, so a 304 is never stored and
    replayed to a later crawl that has nothing stored (it would drop every page)."""
    site = RecrawlSite(pages=10, sections=2).start()
    cache = {"HTTPCACHE_ENABLED": "True", "HTTPCACHE_DIR": str(tmp_path / "httpcache")}
    try:
        recipes = _recipes(tmp_path, site)
        crawl(tmp_path / "store", recipes, "one")
        second = crawl(tmp_path / "store", recipes, "two", extra=cache)
        assert site.not_modified == 10 and second["changes"]["unchanged"] == 10
        fresh = crawl(tmp_path / "fresh", recipes, "three", extra=cache)
    finally:
        site.stop()
    assert fresh["counts"]["kept"] == 10, fresh["counts"]


@pytest.mark.slow
def test_sitemap_lastmod_skips_pages_not_modified_since_they_were_stored(tmp_path):
    site = RecrawlSite(pages=12, sections=2).start()
    try:
        d = tmp_path / "recipes"
        d.mkdir()
        # Sitemap only (a start page answering 304 would replay its links, racing the sitemap).
        recipe = RECIPE.format(base=site.base_url, render="skip").replace(f'start_urls = ["{site.base_url}/"]', f'sitemaps = ["{site.base_url}/sitemap.xml"]')
        recipe = recipe.replace("[follow]\n", "[follow]\nsitemap_lastmod = true\n")
        (d / f"{SITE}.toml").write_text(recipe)
        store = tmp_path / "store"
        crawl(store, d, "one")
        edited = site.leaves[1]
        site.edit(edited, when=time.time() + 5)
        site.reset_counters()
        second = crawl(store, d, "two")
        hits = dict(site.hits)
    finally:
        site.stop()
    assert hits == {"/sitemap.xml": 1, edited: 1}, hits
    changes = _changes(store, "two")
    assert changes["changed"] == [site.base_url + edited]
    assert len(changes["unchanged"]) == 11
    skipped = [p for p in second["pages"] if p["not_modified"] == "sitemap_lastmod"]
    assert len(skipped) == 11 and all(p["outcome"] == "kept" and set(p["objects"].values()) == {"unchanged"} for p in skipped)
    assert second["stats"]["gatecrawl/recrawl/skipped_lastmod"] == 11


@pytest.mark.slow
def test_a_rendered_page_answering_304_is_kept_without_a_render(tmp_path):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("needs Chromium")
    site = RecrawlSite(pages=12, sections=2, shell_section=1).start()
    try:
        recipes = _recipes(tmp_path, site, render="auto")
        store = tmp_path / "store"
        first = crawl(store, recipes, "one", timeout=300)
        shells = sorted(p for p in site.leaves if site.is_shell(p))
        rendered = {p["url"] for p in first["pages"] if p["reader"] == "render" and p["outcome"] == "kept"}
        assert rendered == {site.base_url + p for p in shells}, first["counts"]
        site.reset_counters()
        second = crawl(store, recipes, "two", timeout=300)
        hits = dict(site.hits)
    finally:
        site.stop()
    assert "gatecrawl/render/requested" not in second["stats"], second["stats"]
    assert not any(p.startswith("/data/") or p == "/app.js" for p in hits), hits
    for p in shells:
        entry = next(e for e in second["pages"] if e["url"] == site.base_url + p)
        assert (entry["not_modified"], entry["outcome"], entry["change"]) == ("304", "kept", "unchanged")


def test_a_complete_run_forgets_the_dropped_urls_it_no_longer_reached(tmp_path):
    """As the site index does when quarantine packets are pruned: recrawl.jsonl keeps kept pages
    not reached, and forgets dropped ones only after a complete run."""
    state = PreviousState(tmp_path / "p.sqlite")
    state.add_lines(json.dumps({"url": u, "outcome": o}) for u, o in (("http://a/kept", "kept"), ("http://a/gone", "dropped"), ("http://a/seen", "dropped")))
    pages = [{"url": "http://a/seen", "outcome": "kept"}]
    urls = lambda lines: [json.loads(line)["url"] for line in lines]  # noqa: E731
    assert urls(state_lines(state, pages)) == ["http://a/gone", "http://a/kept", "http://a/seen"]
    assert urls(state_lines(state, pages, forget_unreached_dropped=True)) == ["http://a/kept", "http://a/seen"]
    state.close()


def test_previous_state_streams_its_lines_in_url_order(tmp_path):
    state = PreviousState(tmp_path / "p.sqlite")
    urls = [f"http://a/{i:05d}" for i in range(2500)]
    state.add_lines(json.dumps({"url": u, "outcome": "kept" if i % 2 else "dropped", "depth": i % 3}) for i, u in enumerate(reversed(urls)))
    assert [line["url"] for line in state.lines()] == urls
    kept = list(state.kept_pages())
    assert len(kept) == 1250 and [k[0] for k in kept] == sorted(k[0] for k in kept)
    state.close()
