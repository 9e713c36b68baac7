"""`scrapy crawl` and `scrapy convert` give the same packet for the same page (issue 17): one fetch
verdict (`gatecrawl.core.presence.assess_fetch`) serves the presence middleware and convert()."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from crawlutil import PROBE_RECIPE, ROOT, TESTS, packets_by_url, probe_crawl
from gatecrawl.store.identity import stable_view

pytestmark = pytest.mark.slow

JUNK = ROOT / "bench" / "junk"
# Store keys are given by the export, which scrapy convert does not do.
STORE_ONLY = ("markdown_key", "packet_key")


def _convert(url: str, recipes, port: int) -> dict:
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.3:{port}", "PYTHONPATH": f"{TESTS}:{ROOT}"}
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "convert", url, "--recipe", "probe", "--evidence", "-s", f"GATECRAWL_RECIPES_DIRS={recipes}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    out = proc.stdout
    start = 0 if out.startswith("{") else out.index("\n{") + 1
    return json.loads(out[start:])


def test_crawl_and_convert_packets_are_the_same(tmp_path, origin):
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    # render=skip: the shell stays a plain page in both paths (a render is the crawl's business).
    (recipes / "probe.toml").write_text(PROBE_RECIPE.replace("[follow]", '[render]\npolicy = "skip"\n[follow]'))
    origin.pages["/shell"] = (200, "text/html; charset=utf-8", (JUNK / "spa_shell" / "ember-app.html").read_bytes())
    origin.pages["/challenge"] = (403, "text/html; charset=utf-8", (JUNK / "bot_challenge" / "cloudflare-js-challenge.html").read_bytes())
    urls = [origin.url("/article/3"), origin.url("/shell"), origin.url("/challenge")]
    run = probe_crawl(tmp_path, recipes, urls, allow=f"127.0.0.3:{origin.port}")
    crawled = packets_by_url(run)
    assert crawled[urls[1]]["fetch_gate"]["needs_render"] is True
    assert crawled[urls[2]]["fetch_gate"]["bot_challenge"], crawled[urls[2]]["fetch_gate"]
    for url in urls:
        a = {k: v for k, v in stable_view(crawled[url]).items() if k not in STORE_ONLY}
        b = {k: v for k, v in stable_view(_convert(url, recipes, origin.port)).items() if k not in STORE_ONLY}
        differing = sorted(k for k in set(a) | set(b) if a.get(k, "<absent>") != b.get(k, "<absent>"))
        assert not differing, {url: {k: (a.get(k, "<absent>"), b.get(k, "<absent>")) for k in differing}}
