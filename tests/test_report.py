"""Crawl report (issue 9): aggregates, JSON summary, HTML report, drift, progress line.

Unit tests use synthetic records; the slow tests crawl a private demo server three times
(unchanged, unchanged, one article turned into a shell) with the browser off (fast and
deterministic) and check every figure against the packets in the store.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crawlutil import ROOT, run_crawl
from gatecrawl.report import ReportOptions, build_record, build_summary, dump_json, list_runs, render_html, run_stats
from gatecrawl.report.aggregate import percentile, stability
from gatecrawl.report.record import headings_from_markdown, record_from_store, report_keys
from gatecrawl.store import LocalStore

SHELLED = "/articles/recipes"
UNIT_COSTS = {"GATECRAWL_COST_FETCH": "0.002", "GATECRAWL_COST_RENDER_SECOND": "0.05", "GATECRAWL_COST_PDF_PAGE": "0.01"}


# -- unit ----------------------------------------------------------------------------------


def _page(key, outcome="kept", **kw):
    base = {
        "url": f"http://x.test/{key}",
        "url_key": key,
        "outcome": outcome,
        "drop_reason": None if outcome == "kept" else kw.pop("reason", "too_short"),
        "reader": "http",
        "page_type": "html",
        "needs_render": False,
        "escalated": False,
        "escalated_from": None,
        "quality_score": 4,
        "latency_ms": 100,
        "render_elapsed_ms": None,
        "bytes_in": 1000,
        "chars_out": 500 if outcome == "kept" else 0,
        "markdown_sha256": f"sha-{key}" if outcome == "kept" else None,
        "headings": ["# T", "## A"] if outcome == "kept" else [],
        "pdf_pages": None,
        "main_selectors_used": [],
    }
    base.update(kw)
    return base


def _record(run_id, pages, finished, selectors=()):
    return build_record(site="s", run_id=run_id, pages=pages, finished_at=finished, recipe={"name": "s", "main_selectors": list(selectors)})


def test_percentile_nearest_rank():
    vals = list(range(1, 11))
    assert percentile(vals, 50) == 5
    assert percentile(vals, 95) == 10
    assert percentile([7], 95) == 7
    assert percentile([], 50) is None


def test_headings_ignore_code_fences():
    md = "# Title\n\ntext\n\n```\n# not a heading\n```\n\n## Sub ##\n~~~\n## no\n~~~\n### Deep\n"
    assert headings_from_markdown(md) == ["# Title", "## Sub", "### Deep"]


def test_cost_formula_and_rates():
    pages = [
        _page("a"),
        _page("b", reader="pdf", page_type="pdf", pdf_pages=3),
        _page("c", reader="render", escalated_from="http", needs_render=True, escalated=True, render_elapsed_ms=2500),
        _page("d", "dropped", needs_render=True, escalated=True),
    ]
    opts = ReportOptions(unit_costs={"fetch": 0.01, "render_second": 0.1, "pdf_page": 0.02})
    st = run_stats(_record("r1", pages, "2026-01-01T00:00:00Z"), opts)
    total = 4 * 0.01 + 2.5 * 0.1 + 3 * 0.02  # every page had a plain fetch (c escalated from one)
    assert st["cost"]["total"] == pytest.approx(total)
    assert st["cost"]["per_1000_clean_pages"] == pytest.approx(1000 * total / 3)
    assert st["rates"] == {"drop_rate": 0.25, "escalation_rate": 0.5, "render_rate": 0.25, "keep_rate": 0.75}
    assert st["by_page_type"]["html"]["escalation_rate"] == pytest.approx(2 / 3, abs=1e-6)
    assert st["by_reader"]["render"]["quality_scores"]["4"] == 1
    assert st["render"]["elapsed_ms"]["p50"] == 2500


def test_stability_identical_and_jaccard():
    prev = _record("r1", [_page("a"), _page("b"), _page("c"), _page("d")], "2026-01-01T00:00:00Z")
    cur = _record("r2", [_page("a"), _page("b", markdown_sha256="other", headings=["# T", "## B"]), _page("c", "dropped"), _page("e")], "2026-01-02T00:00:00Z")
    st = stability(cur, prev)
    assert st["compared"] == 2 and st["identical"] == 1 and st["identical_share"] == 0.5
    assert st["heading_jaccard_mean"] == pytest.approx(1 / 3, abs=1e-6)
    assert st["score"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-6)
    assert [o["url_key"] for o in st["outcome_changed"]] == ["c"]
    assert (st["added"], st["removed"]) == (1, 1)


def test_drift_alerts_and_selector(tmp_path):
    store = LocalStore(str(tmp_path))
    p1 = [_page(str(i), main_selectors_used=["article.body"]) for i in range(10)]
    p2 = [_page(str(i), main_selectors_used=[]) for i in range(9)] + [_page("9", "dropped", reason="shell_page", needs_render=True, escalated=True)]
    for rid, pages, fin in (("r1", p1, "2026-01-01T00:00:00Z"), ("r2", p2, "2026-01-01T00:00:00.500000Z")):
        store.put(report_keys("s", rid)["record"], dump_json(_record(rid, pages, fin, ["article.body"])), content_type="application/json")
    assert [r["run_id"] for r in list_runs(store, "s")] == ["r1", "r2"]
    summary, _ = build_summary(store, "s")
    kinds = {a["kind"]: a for a in summary["drift"]["alerts"]}
    assert set(kinds) == {"escalation_rate", "drop_rate", "selector_stopped_matching"}
    assert kinds["escalation_rate"]["pages"] == ["http://x.test/9"]
    assert kinds["selector_stopped_matching"]["selector"] == "article.body"
    quiet, _ = build_summary(store, "s", options=ReportOptions(drift_escalation=0.2, drift_drop=0.2))
    assert [a["kind"] for a in quiet["drift"]["alerts"]] == ["selector_stopped_matching"]
    html = render_html(summary, _, packet_href=lambda k: None)
    assert html.count('data-alert="') == 3 and "http" not in html.split("<body>", 1)[0].replace("http-equiv", "")


def test_html_report_with_userinfo_urls(tmp_path):
    """Issue 15: a page URL with userinfo (a link or redirect to ``http://x@host/``) crashed the
    HTML report (ValueError: the redacted ``[REDACTED]@`` netloc is not a valid URL)."""
    store = LocalStore(str(tmp_path))
    pages = [_page(str(i)) for i in range(3)] + [
        _page("u1", "dropped", reason="shell_page", url="http://x@x.test/private?clientSecret=C4N4RY", needs_render=True, escalated=True),
        _page("u2", "dropped", reason="http_error", url="http://user:C4N4RY@x.test/a;jsessionid=C4N4RY"),
    ]
    rec = _record("r1", pages, "2026-01-01T00:00:00Z")
    store.put(report_keys("s", "r1")["record"], dump_json(rec), content_type="application/json")
    summary, record = build_summary(store, "s", current_record=rec)
    html = render_html(summary, record, packet_href=lambda k: None)
    assert "x.test" in html and "C4N4RY" not in html and "C4N4RY" not in dump_json(rec).decode()


class _FailingStore(LocalStore):
    def __init__(self, root, fail_suffix):
        super().__init__(root)
        self.fail_suffix = fail_suffix

    def put(self, key, data, content_type=None):
        from gatecrawl.store import StoreError

        if key.endswith(self.fail_suffix):
            raise StoreError("injected")
        return super().put(key, data, content_type=content_type)


@pytest.mark.parametrize("fail", [None, ".html", ".summary.json", "render"])
def test_report_stats_say_what_happened(tmp_path, monkeypatch, fail):
    """gatecrawl/report/written is 1 only when record, summary and HTML were all stored;
    otherwise gatecrawl/report/failed is 1, whatever part failed (a store error or a crash)."""
    from scrapy.utils.test import get_crawler

    import gatecrawl.ledger.report as report_mod

    crawler = get_crawler(settings_dict={"GATECRAWL_STORE_URI": f"file://{tmp_path}"})
    store = _FailingStore(str(tmp_path), fail or "\0")
    if fail == "render":
        monkeypatch.setattr(report_mod, "render_html", lambda *a, **k: (_ for _ in ()).throw(ValueError("Invalid IPv6 URL")))
    report_mod.write_report(
        store, crawler.stats, report_mod.ReportSettings.from_settings(crawler.settings), site="s", run_id="r1",
        store_uri=f"file://{tmp_path}", pages=[_page("1")], started_at=None, finished_at="2026-01-01T00:00:00Z",
        recipe={"name": "s"}, finish_reason="finished", conditions={},
    )
    stats = crawler.stats.get_stats()
    if fail is None:
        assert stats.get("gatecrawl/report/written") == 1 and "gatecrawl/report/failed" not in stats
        assert (tmp_path / "s/runs/reports/r1.html").exists()
    else:
        assert stats.get("gatecrawl/report/failed") == 1 and "gatecrawl/report/written" not in stats, stats


def test_record_rebuilt_from_manifest(tmp_path):
    """A run without a record (report extension off) is rebuilt from its manifest and packets."""
    store = LocalStore(str(tmp_path))
    packet = {"url_final": "http://x.test/a", "url_key": "k1", "outcome": "kept", "reader": "http", "page_type": "html", "quality_score": 4, "bytes_in": 10, "chars_out": 5, "sample_provenance": [{"markdown_span": "# Hello"}]}
    store.put("s/pages/k1.json", json.dumps(packet).encode(), content_type="application/json")
    store.put("s/pages/k1.md", b"# Hello\n\n## World\n", content_type="text/markdown")
    manifest = {"run_id": "old", "finished_at": "2026-01-01T00:00:00Z", "pages": [{"url": "http://x.test/a", "outcome": "kept", "drop_reason": None, "keys": ["s/pages/k1.md", "s/pages/k1.json"], "markdown_sha256": "m1"}]}
    store.put("s/runs/old.json", json.dumps(manifest).encode(), content_type="application/json")
    rec = record_from_store(store, "s", manifest)
    assert rec["source"] == "manifest" and rec["pages"][0]["headings"] == ["# Hello", "## World"]
    summary, _ = build_summary(store, "s")
    assert summary["run_id"] == "old" and summary["counts"]["kept"] == 1 and summary["stability"] is None


# -- crawls of the demo site ---------------------------------------------------------------


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    from gatecrawl.demo import DemoServer

    server = DemoServer(port=0).start_in_thread()  # private: the shell switch must not leak
    store = tmp_path_factory.mktemp("report") / "store"
    settings = {**UNIT_COSTS, "GATECRAWL_RENDER_ENABLED": "False", "GATECRAWL_PROGRESS_INTERVAL": "0.2", "GATECRAWL_REPORT_DRIFT_ESCALATION": "0.01", "GATECRAWL_REPORT_DRIFT_DROP": "0.01"}
    runs = []
    try:
        for i in range(3):
            if i == 2:
                server.shells.add(SHELLED)
            run = run_crawl("demo", store, "-a", f"start_url={server.base_url}/", "-a", f"run_id=report-test-{i + 1}", settings=settings)
            assert run.returncode == 0, run.stderr[-3000:]
            runs.append(run)
    finally:
        server.stop()
    return store, runs


def _summary(store: Path, run_id: str) -> dict:
    return json.loads((store / report_keys("demo", run_id)["summary"]).read_text("utf-8"))


def _packets(store: Path) -> list[dict]:
    files = sorted((store / "demo" / "pages").glob("*.json")) + sorted((store / "demo" / "quarantine").glob("*.json"))
    return [json.loads(p.read_text("utf-8")) for p in files]


@pytest.mark.slow
def test_summary_counts_equal_the_packets_in_the_store(three_runs):
    store, _ = three_runs
    s = _summary(store, "report-test-3")  # the store now holds run 3's state of every URL
    packets = _packets(store)
    kept = [p for p in packets if p["outcome"] == "kept"]
    dropped = [p for p in packets if p["outcome"] == "dropped"]
    assert s["counts"]["pages"] == len(packets)
    assert s["counts"]["kept"] == len(kept) == len(list((store / "demo" / "pages").glob("*.md")))
    assert s["counts"]["dropped"] == len(dropped) == len(list((store / "demo" / "quarantine").glob("*.json")))
    reasons: dict[str, int] = {}
    for p in dropped:
        reasons[p["drop_reason"]] = reasons.get(p["drop_reason"], 0) + 1
    assert s["counts"]["dropped_by_reason"] == dict(sorted(reasons.items()))
    escalated = [p for p in packets if p["needs_render"] or p["escalated_from"]]
    assert s["counts"]["escalated"] == len(escalated)
    assert s["counts"]["needs_render"] == sum(1 for p in packets if p["needs_render"])
    assert s["counts"]["rendered"] == sum(1 for p in packets if p["reader"] == "render")
    assert s["rates"]["escalation_rate"] == pytest.approx(len(escalated) / len(packets), abs=1e-6)
    for t in {p["page_type"] for p in packets}:
        of_type = [p for p in packets if p["page_type"] == t]
        assert s["by_page_type"][t]["pages"] == len(of_type)
        assert s["by_page_type"][t]["escalated"] == sum(1 for p in of_type if p["needs_render"] or p["escalated_from"])
    for r in {p["reader"] for p in packets}:
        of_reader = [p for p in packets if p["reader"] == r]
        hist = {str(k): sum(1 for p in of_reader if p["quality_score"] == k) for k in range(5)}
        assert {k: s["by_reader"][r]["quality_scores"][k] for k in hist} == hist
        assert s["by_reader"][r]["bytes_in"] == sum(p["bytes_in"] for p in of_reader)
    assert s["volume"]["bytes_in"] == sum(p["bytes_in"] for p in packets)
    assert s["volume"]["markdown_chars"] == sum(p["chars_out"] for p in kept)
    assert {q["packet_key"] for q in s["quarantine"]} == {f"demo/quarantine/{p['url_key']}.json" for p in dropped}
    # Cost per 1,000 clean pages, from the configured unit costs (no page was rendered).
    fetches = sum(1 for p in packets if p["reader"] in ("http", "pdf", "embedded_data", "native_markdown") or p["escalated_from"] == "http")
    pdf_pages = sum(p["pdf"]["page_count"] for p in packets if p["page_type"] == "pdf")
    render_s = sum((p["render_elapsed_ms"] or 0) for p in packets) / 1000
    total = fetches * 0.002 + render_s * 0.05 + pdf_pages * 0.01
    assert pdf_pages > 0
    assert s["cost"]["unit_costs"] == {"fetch": 0.002, "render_second": 0.05, "pdf_page": 0.01}
    assert s["cost"]["usage"] == {"fetches": fetches, "render_seconds": render_s, "pdf_pages": pdf_pages}
    assert s["cost"]["per_1000_clean_pages"] == pytest.approx(1000 * total / len(kept))
    # The run manifest agrees.
    manifest = json.loads((store / "demo" / "runs" / "report-test-3.json").read_text("utf-8"))
    assert manifest["counts"]["kept"] == s["counts"]["kept"] and manifest["counts"]["dropped_by_reason"] == s["counts"]["dropped_by_reason"]


@pytest.mark.slow
def test_second_run_is_stable_and_quiet(three_runs):
    store, _ = three_runs
    first, second = _summary(store, "report-test-1"), _summary(store, "report-test-2")
    assert first["against_run_id"] is None and first["stability"] is None
    assert second["against_run_id"] == "report-test-1"
    st = second["stability"]
    assert st["compared"] == second["counts"]["kept"] > 0
    assert st["identical_share"] == 1.0 and st["score"] == 1.0 and st["changed"] == 0
    assert second["drift"]["alerts"] == []
    assert [h["run_id"] for h in second["history"]] == ["report-test-1", "report-test-2"]


@pytest.mark.slow
def test_a_page_turned_shell_is_an_escalation_drift(three_runs):
    store, runs = three_runs
    s = _summary(store, "report-test-3")
    alerts = {a["kind"]: a for a in s["drift"]["alerts"]}
    assert "escalation_rate" in alerts, s["drift"]
    esc = alerts["escalation_rate"]
    assert esc["site"] == "demo" and esc["direction"] == "up" and esc["delta"] > 0.01
    assert [u.rsplit(":", 1)[-1].split("/", 1)[-1] for u in esc["pages"]] == [SHELLED.lstrip("/")]
    assert any(o["url"].endswith(SHELLED) and o["current_reason"] == "shell_page" for o in s["stability"]["outcome_changed"])
    assert s["stability"]["identical_share"] == 1.0  # every page still kept is unchanged
    assert "drift: escalation rate for site demo" in runs[2].log
    assert "DRIFT: escalation rate" in runs[2].stderr


@pytest.mark.slow
def test_progress_line_and_run_manifests_untouched(three_runs):
    store, runs = three_runs
    lines = [ln for ln in runs[0].log.splitlines() if "gatecrawl progress (final):" in ln]
    assert lines, runs[0].log[-2000:]
    s = _summary(store, "report-test-1")
    assert f"kept {s['counts']['kept']}, dropped {s['counts']['dropped']}, rendered 0" in lines[-1]
    # <site>/runs/*.json stays the set of run manifests.
    assert sorted(p.name for p in (store / "demo" / "runs").glob("*.json")) == [f"report-test-{i}.json" for i in (1, 2, 3)]
    assert runs[0].summary()["schema_version"].startswith("gatecrawl.run/")


@pytest.mark.slow
def test_report_command(three_runs, tmp_path):
    store, _ = three_runs
    out_json, out_html = tmp_path / "s.json", tmp_path / "r.html"
    cmd = [sys.executable, "-m", "scrapy", "report", "demo", "--store", f"file://{store}", "--run", "report-test-2", "--against", "report-test-1", "--json", str(out_json), "--html", str(out_html)]
    for k, v in UNIT_COSTS.items():
        cmd += ["-s", f"{k}={v}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got, stored = json.loads(out_json.read_text("utf-8")), _summary(store, "report-test-2")
    for doc in (got, stored):
        doc.pop("generated_at")
        doc.pop("store_uri")
    assert got["counts"] == stored["counts"] and got["stability"] == stored["stability"] and got["history"] == stored["history"]
    assert "report: site demo, run report-test-2, against report-test-1" in proc.stdout
    html = out_html.read_text("utf-8")
    href = html.split('<a href="', 1)[1].split('"', 1)[0]
    assert (out_html.parent / href).resolve().is_file()  # packet links work from anywhere
    # Defaults: the latest run against the one before it; unknown sites exit 1.
    proc = subprocess.run([sys.executable, "-m", "scrapy", "report", "demo", "--store", f"file://{store}", "--json", "-"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    latest = json.loads(proc.stdout)
    assert (latest["run_id"], latest["against_run_id"]) == ("report-test-3", "report-test-2")
    proc = subprocess.run([sys.executable, "-m", "scrapy", "report", "nosuch", "--store", f"file://{store}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "no runs of site 'nosuch'" in proc.stderr


# -- the HTML report in a real browser ---------------------------------------------------------

CHARTS = ["outcomes", "drop-reasons", "page-types", "scores-http", "scores-pdf", "latency", "cost", "selection-rules", "history-rates", "history-cost", "stability"]


@pytest.mark.slow
@pytest.mark.browser
def test_html_report_in_headless_chromium(three_runs):
    from playwright.sync_api import sync_playwright

    store, _ = three_runs
    html_path = (store / report_keys("demo", "report-test-3")["html"]).resolve()
    url = html_path.as_uri()
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    requests, problems = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-gpu"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
            page.goto(url, wait_until="load")
            page.wait_for_timeout(300)
            sizes = page.evaluate(
                """() => Object.fromEntries([...document.querySelectorAll('svg.chart')].map(svg => {
                    const marks = [...svg.querySelectorAll('.mark')].map(m => m.getBBox()).filter(b => b.width > 0 || b.height > 0);
                    const box = svg.getBoundingClientRect();
                    return [svg.dataset.chart, {marks: marks.length, w: box.width, h: box.height, empty: svg.classList.contains('empty')}];
                }))"""
            )
            alerts = page.eval_on_selector_all("[data-alert]", "els => els.map(e => e.dataset.alert)")
            page.screenshot(path=str(artifacts / "report.png"), full_page=True)
        finally:
            browser.close()
    assert requests == [url], requests
    assert not problems, problems
    for name in CHARTS:
        assert name in sizes, (name, sorted(sizes))
        info = sizes[name]
        assert not info["empty"] and info["marks"] > 0 and info["w"] > 100 and info["h"] > 30, (name, info)
    assert "escalation_rate" in alerts
    assert (artifacts / "report.png").stat().st_size > 20_000


def test_drift_compares_only_comparable_successful_runs(tmp_path):
    """The default run to compare with is the latest earlier run that succeeded, under the same
    render policy and not a distributed worker's share (issue 16: drift against a failed run,
    a render=skip run or another worker's run)."""
    store = LocalStore(str(tmp_path))
    good = [_page(str(i)) for i in range(10)]
    bad = [_page(str(i), "dropped", reason="fetch_failed") for i in range(10)]
    runs = [
        ("r1", good, {}, {"render_policy": "auto", "crawl_id": None}),
        ("r2", bad, {"gatecrawl/exit/nothing_kept": 10}, {"render_policy": "auto", "crawl_id": None}),
        ("r3", good[:5], {}, {"render_policy": "skip", "crawl_id": None}),
        ("r4", good[:3], {}, {"render_policy": "auto", "crawl_id": "c1"}),
        ("r5", good, {}, {"render_policy": "auto", "crawl_id": None}),
    ]
    for n, (rid, pages, stats, conditions) in enumerate(runs):
        rec = build_record(site="s", run_id=rid, pages=pages, finished_at=f"2026-01-01T00:00:0{n}Z", recipe={"name": "s"}, stats=stats, conditions=conditions)
        store.put(report_keys("s", rid)["record"], dump_json(rec), content_type="application/json")
    summary, _ = build_summary(store, "s")
    assert summary["against_run_id"] == "r1" and summary["drift"]["alerts"] == []
    # A failed run is compared with nothing, and nothing is compared with it.
    failed, _ = build_summary(store, "s", run_id="r2")
    assert failed["against_run_id"] is None and failed["drift"]["alerts"] == []
    # A distributed worker's run is compared with nothing by default.
    worker, _ = build_summary(store, "s", run_id="r4")
    assert worker["against_run_id"] is None
    # Named explicitly, any run is compared.
    named, _ = build_summary(store, "s", against="r2")
    assert named["against_run_id"] == "r2" and {a["kind"] for a in named["drift"]["alerts"]} == {"drop_rate"}
