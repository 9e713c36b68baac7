"""Render routing learned per URL template (issue 18 item 2): from validated outcomes only,
render-only templates go straight to the browser, a re-check share notices a site change, and a
fetch failure teaches nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.recrawl import RECIPE, RecrawlSite, crawl
from gatecrawl.core.routing import RoutingModel, observation, url_template

SITE = "recrawl_bench"


def test_url_templates_generalise_ids_and_slugs():
    assert url_template("http://Example.org/p/3/17?x=1") == "example.org/p/{n}/{n}"
    assert url_template("http://example.org/blog/choosing-a-reader") == "example.org/blog/{slug}"
    assert url_template("http://example.org/item/a1b2c3d4e5f6") == "example.org/item/{id}"
    assert url_template("http://example.org/u/550e8400-e29b-41d4-a716-446655440000") == "example.org/u/{id}"
    assert url_template("http://example.org/reports/annual-2025.pdf") == "example.org/reports/{slug}.pdf"
    assert url_template("http://example.org/app/dashboard") == "example.org/app/dashboard"
    assert url_template("http://example.org/") == "example.org/"


def test_only_validated_pages_teach_the_model():
    kept_render = {"outcome": "kept", "reader": "render", "escalated_from": "http", "escalation_reason": "shell_page"}
    assert observation(kept_render) == "browser"
    assert observation({**kept_render, "escalated_from": "routing", "escalation_reason": "routed"}) == "browser"
    assert observation({**kept_render, "escalation_reason": "embedded_data_failed"}) == "browser"  # its data did not read
    assert observation({**kept_render, "escalation_reason": "force"}) is None  # the recipe forced it
    assert observation({"outcome": "kept", "reader": "http"}) == "plain"
    assert observation({"outcome": "kept", "reader": "http", "escalated_from": "http", "capture_choice": {"kept": "plain"}}) == "plain"
    # Fetch failures, timeouts, drops and renders that never got ready teach nothing.
    assert observation({"outcome": "dropped", "reader": "http", "drop_reason": "timeout"}) is None
    assert observation({"outcome": "dropped", "reader": "http", "drop_reason": "fetch_failed"}) is None
    assert observation({"outcome": "dropped", "reader": "render", "drop_reason": "readiness_timeout", "escalation_reason": "shell_page"}) is None
    assert observation({"outcome": "kept", "reader": "pdf"}) is None
    assert observation({"outcome": "kept", "reader": "embedded_data"}) == "plain"  # read from the plain fetch's body


def test_model_update_render_only_and_recheck_share():
    m = RoutingModel(min_observations=3, recheck_share=0.1)
    for i in range(2):
        m.observe(f"http://s/app/{i}", "browser")
    m = m.updated()
    assert not m.render_only("http://s/app/9")  # 2 < 3 observations
    for i in range(2):
        m.observe(f"http://s/app/{i}", "browser")
    m = m.updated()
    assert not m.render_only("http://s/app/9") and m.templates["s/app/{n}"] == {"browser": 2, "plain": 0}  # the same 2 again
    for i in range(4):
        m.observe(f"http://s/app/{i}", "browser")
    m = m.updated()
    assert m.render_only("http://s/app/9") and m.templates["s/app/{n}"] == {"browser": 3, "plain": 0}  # capped
    m.observe("http://s/app/7", "browser")  # a recrawl: most pages answered 304 and teach nothing
    assert m.updated().dumps() == m.dumps()
    m.observe("http://s/app/8", "plain")  # one page read fine without the browser
    m = m.updated()
    assert not m.render_only("http://s/app/9") and m.templates["s/app/{n}"] == {"browser": 0, "plain": 1}
    assert not m.plain_only("http://s/app/9")  # 1 < 3 pages read plain
    for i in range(3):
        m.observe(f"http://s/app/{i}", "plain")
    m = m.updated()
    assert m.plain_only("http://s/app/9") and not m.render_only("http://s/app/9")
    assert RoutingModel.loads(m.dumps(), min_observations=3).templates == m.templates
    shares = sum(RoutingModel(recheck_share=0.1).recheck(f"http://s/app/{i}") for i in range(1000))
    assert 70 <= shares <= 130
    assert RoutingModel(recheck_share=0.1).recheck("http://a/app/1") == RoutingModel(recheck_share=0.1).recheck("http://b:81/app/1")


def _recipes(tmp_path: Path, site: RecrawlSite) -> Path:
    d = tmp_path / "recipes"
    d.mkdir(exist_ok=True)
    (d / f"{SITE}.toml").write_text(RECIPE.format(base=site.base_url, render="auto"))
    return d


def _model(store: Path) -> dict:
    return json.loads((store / SITE / "routing.json").read_text("utf-8"))["templates"]


@pytest.mark.slow
def test_a_timeout_on_a_static_page_does_not_mark_its_template_render_only(tmp_path):
    site = RecrawlSite(pages=16, sections=2, validators=False, shell_section=0).start()
    site.shells_on = False  # /app/0/* are static pages
    app = [p for p in site.leaves if p.startswith("/app/")]
    assert len(app) >= 5
    settings = {"DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 0}
    try:
        recipes = _recipes(tmp_path, site)
        store = tmp_path / "store"
        site.hang = set(app)  # every page of the template times out on its plain fetch
        first = crawl(store, recipes, "one", extra=settings)
        assert {e["drop_reason"] for e in first["pages"] if "/app/" in e["url"]} == {"timeout"}
        site.hang = set()
        site.reset_counters()
        second = crawl(store, recipes, "two", extra=settings)
        plain = dict(site.plain_hits)
    finally:
        site.stop()
    assert "127.0.0.1/app/{n}/{n}" not in _model(tmp_path / "store") or _model(tmp_path / "store")["127.0.0.1/app/{n}/{n}"]["browser"] == 0
    assert "gatecrawl/routing/routed" not in second["stats"] and "gatecrawl/render/requested" not in second["stats"]
    assert all(plain.get(p) == 1 for p in app), (app, plain, [(e["url"], e["outcome"], e["drop_reason"]) for e in second["pages"]])
    assert _model(tmp_path / "store")["127.0.0.1/app/{n}/{n}"] == {"browser": 0, "plain": 5}


@pytest.mark.slow
def test_render_only_template_goes_straight_to_the_browser_and_a_change_is_noticed(tmp_path):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("needs Chromium")
    site = RecrawlSite(pages=20, sections=2, validators=False, shell_section=0).start()
    shells = [p for p in site.leaves if site.is_shell(p)]
    settings = {"GATECRAWL_ROUTING_MIN_OBSERVATIONS": 3}
    try:
        recipes = _recipes(tmp_path, site)
        store = tmp_path / "store"
        crawl(store, recipes, "one", extra=settings)
        assert _model(store)["127.0.0.1/app/{n}/{n}"] == {"browser": 3, "plain": 0}
        site.reset_counters()
        second = crawl(store, recipes, "two", extra={**settings, "GATECRAWL_ROUTING_RECHECK_SHARE": 0})
        plain2 = sum(site.plain_hits.get(p, 0) for p in shells)
        # The site changes: the template's pages are static now. Half of them are re-checked.
        site.shells_on = False
        third = crawl(store, recipes, "three", extra={**settings, "GATECRAWL_ROUTING_RECHECK_SHARE": 0.5})
        fourth_model = _model(store)
    finally:
        site.stop()
    assert plain2 == 0, site.plain_hits
    summary = json.loads((store / SITE / "runs" / "reports" / "two.summary.json").read_text("utf-8"))
    assert {k: summary["routing"][k] for k in ("routed", "rechecked", "mispredicted")} == {"routed": len(shells), "rechecked": 0, "mispredicted": 0}
    assert second["stats"]["gatecrawl/routing/routed"] == len(shells)
    kept = {e["url"]: e for e in second["pages"] if e["outcome"] == "kept"}
    assert all(kept[site.base_url + p]["reader"] == "render" for p in shells)
    assert third["stats"]["gatecrawl/routing/mispredicted"] >= 1
    assert third["stats"]["gatecrawl/routing/rechecked"] == third["stats"]["gatecrawl/routing/mispredicted"]
    assert fourth_model["127.0.0.1/app/{n}/{n}"]["browser"] == 0  # the next crawl fetches them plain again


@pytest.mark.slow
def test_a_plain_only_template_that_turns_into_shells_is_still_rendered(tmp_path):
    """The downloader skips the shell check of a template that never needed the browser; when its
    pages become shells the pipeline's check escalates them (kept, rendered) and the model learns."""
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("needs Chromium")
    site = RecrawlSite(pages=14, sections=2, validators=False, shell_section=0).start()
    site.shells_on = False
    app = [p for p in site.leaves if p.startswith("/app/")]
    settings = {"GATECRAWL_ROUTING_MIN_OBSERVATIONS": 3, "GATECRAWL_ROUTING_RECHECK_SHARE": 0}
    try:
        recipes = _recipes(tmp_path, site)
        store = tmp_path / "store"
        crawl(store, recipes, "one", extra=settings)
        assert _model(store)["127.0.0.1/app/{n}/{n}"] == {"browser": 0, "plain": 3}
        site.shells_on = True
        second = crawl(store, recipes, "two", extra=settings)
    finally:
        site.stop()
    assert second["stats"]["gatecrawl/routing/check_skipped"] >= len(app)
    pages = {e["url"]: e for e in second["pages"]}
    for p in app:
        e = pages[site.base_url + p]
        assert (e["outcome"], e["reader"]) == ("kept", "render"), e
    assert second["stats"]["gatecrawl/routing/mispredicted"] == len(app)
    assert _model(store)["127.0.0.1/app/{n}/{n}"] == {"browser": 3, "plain": 0}
