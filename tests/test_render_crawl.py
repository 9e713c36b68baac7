"""Browser escalation end to end: `scrapy crawl demo` against the demo site on 127.0.0.1,
asserting on the stored packets and the run summary's stats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from gatecrawl.browser.options import find_system_chromium
from gatecrawl.demo.dynamic import EMBEDDED, EMBEDDED_TRAPS, NOT_RENDERED, RENDERED
from gatecrawl.demo.site import ARTICLES, EXPECTED

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(find_system_chromium() is None, reason="no Chromium installed"),
]

ROOT = Path(__file__).resolve().parents[1]
SCRAPY = str(Path(sys.executable).with_name("scrapy"))


def _env() -> dict:
    return {**os.environ, "GATECRAWL_EGRESS_ALLOW": "127.0.0.1", "PYTHONHASHSEED": "0"}


def _load(store: Path) -> tuple[dict[str, dict], dict, str]:
    packets = {}
    for sub in ("pages", "quarantine"):
        for f in (store / "demo" / sub).glob("*.json"):
            p = json.loads(f.read_text("utf-8"))
            packets[urlsplit(p["url_final"]).path or "/"] = p
    runs = sorted((store / "demo" / "runs").glob("*.json"))
    summary = json.loads(runs[-1].read_text("utf-8")) if runs else {}
    log = (store / "crawl.log").read_text("utf-8") if (store / "crawl.log").exists() else ""
    return packets, summary.get("stats", {}), log


def crawl(store: Path, base: str, paths: list[str], *args: str, settings: dict | None = None, timeout: int = 120):
    store.mkdir(parents=True, exist_ok=True)
    cmd = [
        SCRAPY, "crawl", "demo",
        "-a", "start_url=" + " ".join(base + p for p in paths),
        "-s", f"GATECRAWL_STORE_URI=file://{store}",
        "-s", f"LOG_FILE={store / 'crawl.log'}",
        "-s", "GATECRAWL_SUMMARY_PRINT=False",
    ]
    for k, v in (settings or {}).items():
        cmd += ["-s", f"{k}={v}"]
    for a in args:
        cmd += ["-a", a]
    subprocess.run(cmd, cwd=ROOT, env=_env(), timeout=timeout, check=False, capture_output=True)
    return _load(store)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    return tmp_path_factory.mktemp("demo")


@pytest.fixture(scope="module")
def demo_crawl(demo_server, demo_store):
    return crawl(demo_store, demo_server.base_url, ["/"])


def test_demo_outcomes_match_expected(demo_crawl):
    packets, stats, _ = demo_crawl
    got = {path: (p["outcome"], p["drop_reason"]) for path, p in packets.items() if path in EXPECTED}
    assert got == {path: tuple(exp) for path, exp in EXPECTED.items()}


def test_shells_kept_after_one_render(demo_crawl):
    packets, stats, _ = demo_crawl
    for path in RENDERED + ["/app/dashboard"]:
        p = packets[path]
        assert p["reader"] == "render", path
        reason = "embedded_data_failed" if path in EMBEDDED_TRAPS else "shell_page"
        assert p["escalated_from"] == "http" and p["escalation_reason"] == reason, path
        assert p["needs_render"] is True and p["fetch_presence_score"] is not None, path
        assert isinstance(p["render_elapsed_ms"], int) and p["render"]["condition_met_ms"], path
        if p["outcome"] == "kept":
            assert p["render_readiness_passed"] is True
            assert p["render_readiness_reason"].startswith("ready:")
        else:
            assert p["render_readiness_passed"] is False
            assert p["render_readiness_reason"].startswith(("timeout:", "settled:")), (path, p["render_readiness_reason"])
    assert packets["/dyn/loop"]["render_readiness_reason"] == "timeout:page_unresponsive"
    assert packets["/dyn/ticker"]["render_readiness_reason"] == "timeout:stability"
    # one render per shell, never two
    assert stats["gatecrawl/render/requested"] == len(RENDERED) + 1
    assert stats.get("gatecrawl/render/max_reached") is None
    assert stats["gatecrawl/render/succeeded"] + stats["gatecrawl/render/readiness_timeout"] == len(RENDERED) + 1


def test_static_pages_not_rendered(demo_crawl):
    packets, stats, _ = demo_crawl
    for path in NOT_RENDERED + [f"/articles/{slug}" for slug, _, _ in ARTICLES] + ["/about", "/docs/install"]:
        assert packets[path]["reader"] == "http", path
        assert packets[path]["escalated_from"] is None, path
    assert packets["/dyn/static-short"]["outcome"] == "kept"


def test_shells_carrying_their_data_are_kept_without_a_render(demo_crawl):
    """Issue 18: a shell whose first response carries its article (Next.js, Nuxt 3 devalue,
    Apollo state with an HTML body) is kept from that data with no render; a shell whose data
    is only navigation and settings goes to the browser (after the data was tried)."""
    packets, stats, _ = demo_crawl
    sources = {"/dyn/next-data": ("script#__NEXT_DATA__", "props.pageProps.post"),
               "/dyn/nuxt-data": ("script#__NUXT_DATA__", "data.article-nuxt-data"),
               "/dyn/apollo-state": ("window.__APOLLO_STATE__", '["Article:7"]')}
    for path in EMBEDDED:
        p = packets[path]
        assert (p["outcome"], p["reader"], p["escalated_from"], p["render"]) == ("kept", "embedded_data", None, None), path
        assert p["needs_render"] is True and p["fetch_gate"]["embedded_sources"], path
        assert (p["embedded"]["source"], p["embedded"]["path"]) == sources[path]
        assert p["embedded"]["outcome"] == "kept" and p["embedded"]["fields"], path
        assert p["fields"]["title"] and p["validation_report"]["heading_count"] >= 4, path
    for path in EMBEDDED_TRAPS:
        trap = packets[path]
        assert (trap["outcome"], trap["reader"]) == ("kept", "render"), path
        assert "embedded" not in trap and trap["escalation_reason"] == "embedded_data_failed", path
    assert stats["gatecrawl/embedded/kept"] == len(EMBEDDED)
    # the consent shell: its plain page reads as a cookie wall, and it goes to the browser all the same
    assert stats["gatecrawl/embedded/rejected/does_not_name_page"] + stats["gatecrawl/embedded/rejected/no_prose"] == len(EMBEDDED_TRAPS)
    assert stats["gatecrawl/render/deferred/embedded_data"] == len(EMBEDDED) + len(EMBEDDED_TRAPS)
    assert stats["gatecrawl/render/requested/embedded_data_failed"] == len(EMBEDDED_TRAPS)
    assert stats["gatecrawl/reader/embedded_data"] == len(EMBEDDED)


def test_embedded_data_without_a_browser(demo_server, tmp_path):
    """render=skip: the embedded shells are still kept (no browser at all); the trap is a
    shell_page."""
    paths = EMBEDDED + EMBEDDED_TRAPS
    packets, stats, log = crawl(tmp_path / "skip", demo_server.base_url, paths, "render=skip", f"max_pages={len(paths)}")
    assert {p: (packets[p]["outcome"], packets[p]["reader"]) for p in paths} == {
        **{p: ("kept", "embedded_data") for p in EMBEDDED}, **{p: ("dropped", "http") for p in EMBEDDED_TRAPS}}
    assert packets["/dyn/config-only"]["drop_reason"] == "shell_page"
    assert packets["/dyn/config-only"]["embedded"]["rejected"] == "does_not_name_page"
    assert packets["/dyn/consent-shell"]["drop_reason"] == "cookie_wall"
    assert "gatecrawl/render/requested" not in stats and "Launching browser" not in log


def test_links_found_only_after_rendering_are_followed(demo_crawl):
    packets, _, _ = demo_crawl
    assert packets["/dyn/found-by-render"]["outcome"] == "kept"
    assert packets["/dyn/found-by-render"]["depth"] == packets["/dyn/spa"]["depth"] + 1


def test_rendered_content_is_complete(demo_crawl, tmp_path):
    packets, _, _ = demo_crawl
    assert packets["/dyn/route"]["fields"]["title"]
    md_route = packets["/dyn/route"]
    assert "Page not found" not in json.dumps(md_route["sample_provenance"])
    assert packets["/dyn/lazy"]["render"]["scroll_steps"] >= 4
    # only the active tab is content
    assert packets["/dyn/tabs"]["validation_report"]["heading_count"] <= 2


def test_pages_and_contexts_all_closed(demo_crawl):
    _, stats, log = demo_crawl
    assert stats["gatecrawl/browser/page_opened"] == len(RENDERED) + 1
    assert stats["gatecrawl/browser/page_closed"] == stats["gatecrawl/browser/page_opened"]
    assert stats["gatecrawl/browser/context_opened"] >= 1
    assert stats["gatecrawl/browser/context_closed"] == stats["gatecrawl/browser/context_opened"]
    assert log.count("Launching browser chromium") == 1
    assert stats.get("gatecrawl/browser/aborted/image", 0) == 0  # the demo has no images


def test_no_browser_when_nothing_renders(demo_server, tmp_path):
    """Static pages and a shell under render=skip: plain HTTP only, Chromium never started."""
    packets, stats, log = crawl(tmp_path, demo_server.base_url, ["/about", "/app/dashboard", "/dyn/static-short"], "render=skip", "max_pages=3")
    assert packets["/about"]["outcome"] == "kept" and packets["/about"]["reader"] == "http"
    assert packets["/dyn/static-short"]["outcome"] == "kept" and packets["/dyn/static-short"]["reader"] == "http"
    assert (packets["/app/dashboard"]["outcome"], packets["/app/dashboard"]["drop_reason"]) == ("dropped", "shell_page")
    assert "gatecrawl/render/requested" not in stats and "gatecrawl/browser/page_opened" not in stats
    assert "'playwright/browser_count'" not in log
    assert stats.get("gatecrawl/render/skipped/policy_skip") == 1  # counted once, by the middleware
    assert "Launching browser" not in log


def test_force_policy_and_pipeline_escalation(demo_server, tmp_path):
    """render=force renders a static page; with the downloader gate off, the item
    pipeline's gate escalates the shell instead (same request, one render)."""
    packets, stats, _ = crawl(tmp_path / "force", demo_server.base_url, ["/about"], "render=force", "max_pages=1")
    p = packets["/about"]
    assert (p["outcome"], p["reader"], p["escalation_reason"]) == ("kept", "render", "force")
    packets, stats, _ = crawl(tmp_path / "pipe", demo_server.base_url, ["/app/dashboard"], "max_pages=1", settings={"GATECRAWL_PRESENCE_ENABLED": "False"})
    p = packets["/app/dashboard"]
    assert (p["outcome"], p["reader"], p["escalation_reason"]) == ("kept", "render", "pipeline_shell_page")
    assert p["render_readiness_passed"] is True
    assert stats["gatecrawl/items/escalated"] == 1 and stats["gatecrawl/render/requested"] == 1


_CRASH_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    def chromium_pids():
        parents, names = {}, {}
        for d in os.listdir('/proc'):
            if d.isdigit():
                try:
                    stat = open(f'/proc/{d}/stat').read()
                except OSError:
                    continue
                names[int(d)] = stat[stat.index('(') + 1: stat.rindex(')')]
                parents[int(d)] = int(stat[stat.rindex(')') + 2:].split()[1])
        mine, frontier = set(), {os.getpid()}
        while frontier:
            frontier = {p for p, pp in parents.items() if pp in frontier} - mine
            mine |= frontier
        return [p for p in mine if 'chrom' in names.get(p, '') or 'headless' in names.get(p, '')]

    settings = get_project_settings()
    for k, v in (a.split('=', 1) for a in sys.argv[2:]):
        settings.set(k, v, priority='cmdline')
    process = CrawlerProcess(settings)
    crawler = process.create_crawler('demo')
    killed = []

    def on_response(response, request, spider=None):
        if 'playwright' in response.flags and not killed:
            for pid in chromium_pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            killed.append(1)
            crawler.stats.set_value("gatecrawl/test/killed_chromium", 1)

    crawler.signals.connect(on_response, signal=signals.response_received)
    process.crawl(crawler, start_url=sys.argv[1], max_pages=len(sys.argv[1].split()))
    process.start()
    """
)


def test_chromium_killed_mid_crawl_is_survived(demo_server, tmp_path):
    shells = ["/dyn/spa", "/dyn/skeleton", "/dyn/tabs", "/app/dashboard", "/dyn/route"]
    urls = " ".join(demo_server.base_url + p for p in shells)
    subprocess.run(
        [sys.executable, "-c", _CRASH_SCRIPT, urls,
         f"GATECRAWL_STORE_URI=file://{tmp_path}", f"LOG_FILE={tmp_path / 'crawl.log'}",
         "GATECRAWL_SUMMARY_PRINT=False", "CONCURRENT_REQUESTS=1", "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT=1"],
        cwd=ROOT, env=_env(), timeout=120, check=False, capture_output=True,
    )
    packets, stats, log = _load(tmp_path)
    assert stats.get("gatecrawl/test/killed_chromium") == 1
    assert log.count("Launching browser chromium") == 2  # relaunched once after the crash
    kept = [p for p in shells if packets[p]["outcome"] == "kept" and packets[p]["reader"] == "render"]
    assert len(kept) >= len(shells) - 1, {p: (packets[p]["outcome"], packets[p]["drop_reason"]) for p in shells}
    assert stats["gatecrawl/browser/page_closed"] == stats["gatecrawl/browser/page_opened"]


def test_second_crawl_with_renders_rewrites_nothing(demo_crawl, demo_store, demo_server):
    """Renders included (not render=skip): a second crawl of the unchanged demo site rewrites no
    object of a page whose outcome and Markdown are unchanged; what differs per run (render
    timings, bytes received, polls, the context) is in the run manifest. (/dyn/ticker changes its
    text all the time, and a render near its time budget may flip on a loaded machine: such pages
    did change, and are compared on what they are.)"""
    runs = demo_store / "demo" / "runs"
    first_runs = set(runs.glob("*.json"))
    (first,) = first_runs
    _, stats, _ = crawl(demo_store, demo_server.base_url, ["/"])
    (second,) = set(runs.glob("*.json")) - first_runs
    before = {p["url"]: p for p in json.loads(first.read_text("utf-8"))["pages"]}
    after = json.loads(second.read_text("utf-8"))["pages"]
    same = [p for p in after if p["url"] in before and (p["outcome"], p["drop_reason"], p["markdown_sha256"]) == tuple(before[p["url"]][k] for k in ("outcome", "drop_reason", "markdown_sha256"))]
    rendered = [p for p in same if p["reader"] == "render"]
    assert len(same) >= len(after) - 3 and len(rendered) >= 5, (len(same), len(after), len(rendered))
    rewritten = {p["url"]: p["objects"] for p in same if set(p["objects"].values()) - {"unchanged", "absent"}}
    assert not rewritten, rewritten
    assert all(p["render"] and "bytes_received" in p["render"] for p in rendered), "per-run render facts go to the manifest"
    changed = len(after) - len(same)
    assert stats.get("gatecrawl/export/put", 0) <= 1 + 2 * changed, stats  # the new run manifest (+ changed pages)
