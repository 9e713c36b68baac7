"""Integration: crawl the embedded demo site end to end with `scrapy crawl demo`."""

from __future__ import annotations

import hashlib
import json
from urllib.parse import urlsplit

import pytest

from gatecrawl.core.reasons import Reason
from gatecrawl.demo.site import EXPECTED

from crawlutil import run_crawl

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_runs(demo_server, tmp_path_factory):
    base = tmp_path_factory.mktemp("demo-crawl")
    first = run_crawl("demo", base / "store1", "-a", f"start_url={demo_server.base_url}/")
    second = run_crawl("demo", base / "store2", "-a", f"start_url={demo_server.base_url}/")
    return first, second


def _outcomes(run) -> dict[str, tuple[str, str | None]]:
    return {urlsplit(p["url_final"]).path: (p["outcome"], p["drop_reason"]) for p in run.packets()}


def test_every_page_has_its_expected_outcome(two_runs):
    first, _ = two_runs
    assert "Traceback" not in first.log, first.log[-4000:]
    got = _outcomes(first)
    assert got == {path: tuple(v) for path, v in EXPECTED.items()}


def test_kept_pages_have_markdown_and_drops_are_quarantined(two_runs):
    first, _ = two_runs
    pages = first.store / "demo" / "pages"
    quarantine = first.store / "demo" / "quarantine"
    for p in first.packets():
        key = p["url_key"]
        if p["outcome"] == "kept":
            md = (pages / f"{key}.md").read_bytes()
            assert md and md.endswith(b"\n")
            assert hashlib.sha256(md).hexdigest() == p["markdown_sha256"]
            assert not (quarantine / f"{key}.json").exists()
        else:
            assert (quarantine / f"{key}.json").exists()
            assert not (pages / f"{key}.md").exists(), "a dropped page must never be written as kept"
            assert p["drop_reason"] in {r.value for r in Reason}
            assert p["validation_report"]["pass"] is False


def test_every_packet_validates_against_the_schema(two_runs, packet_validator):
    first, _ = two_runs
    packets = first.packets()
    assert len(packets) == len(EXPECTED)
    for p in packets:
        errors = sorted(packet_validator.iter_errors(p), key=lambda e: list(e.path))
        assert not errors, (p["url_final"], [e.message for e in errors[:3]])


def test_spa_shell_is_flagged_needs_render(two_runs):
    first, _ = two_runs
    shell = next(p for p in first.packets() if urlsplit(p["url_final"]).path == "/app/dashboard")
    assert shell["needs_render"] is True
    assert shell["fetch_gate"]["shell_signals"], shell["fetch_gate"]
    static = [p for p in first.packets() if p["page_type"] == "html" and urlsplit(p["url_final"]).path.startswith("/articles/")]
    assert static and not any(p["needs_render"] for p in static), "static articles must not be flagged"


def test_stats_count_every_outcome(two_runs):
    first, _ = two_runs
    summary = first.summary()
    stats = summary["stats"]
    expected_drops: dict[str, int] = {}
    for outcome, reason in EXPECTED.values():
        if outcome == "dropped":
            expected_drops[reason] = expected_drops.get(reason, 0) + 1
    kept = sum(1 for o, _ in EXPECTED.values() if o == "kept")
    assert stats["gatecrawl/kept"] == kept
    for reason, n in expected_drops.items():
        assert stats[f"gatecrawl/dropped/{reason}"] == n, reason
    # a shell the item pipeline sends to the browser (its embedded data did not give a page) is seen twice
    assert stats["gatecrawl/pages/seen"] == len(EXPECTED) + stats.get("gatecrawl/items/escalated", 0)
    assert stats["gatecrawl/presence/needs_render"] >= 1
    assert summary["counts"]["dropped_by_reason"] == dict(sorted(expected_drops.items()))


def test_two_runs_give_identical_keys_and_markdown_bytes(two_runs):
    first, second = two_runs

    def files(run):
        root = run.store / "demo"
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file() and "runs" not in p.parts}

    a, b = files(first), files(second)
    assert sorted(a) == sorted(b)
    md = [k for k in a if k.endswith(".md")]
    assert len(md) == sum(1 for o, _ in EXPECTED.values() if o == "kept")
    for key in md:
        assert a[key] == b[key], key


def test_no_secret_reaches_the_store(two_runs):
    first, _ = two_runs
    # The demo server sets a session cookie on every response.
    for p in (first.store / "demo").rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert b"s3cr3t-session-value" not in data, p
            assert b"set-cookie" not in data.lower(), p


def test_run_summary_lists_every_key(two_runs):
    first, _ = two_runs
    summary = first.summary()
    listed = {k for page in summary["pages"] for k in page["keys"]}
    on_disk = {p.relative_to(first.store).as_posix() for p in (first.store / "demo").rglob("*") if p.is_file() and "runs" not in p.parts}
    assert listed == on_disk - {"demo/index.jsonl", "demo/recrawl.jsonl", "demo/routing.json"}
    # The site index names the same files, one line per page.
    index = [json.loads(line) for line in (first.store / "demo" / "index.jsonl").read_text("utf-8").splitlines()]
    assert {k for r in index for k in (r["markdown"], r["packet"]) if k} == listed
    assert [r["url"] for r in index] == sorted(page["url"] for page in summary["pages"])
    assert json.loads(json.dumps(summary))["run_id"]


def test_pdf_viewer_page_leads_to_the_pdf_with_both_urls(two_runs):
    first, _ = two_runs
    by_path = {urlsplit(p["url_final"]).path: p for p in first.packets()}
    viewer, pdf = by_path["/reports/viewer"], by_path["/reports/annual-report.pdf"]
    assert viewer["pdf_viewer_source"].endswith("/reports/annual-report.pdf")
    assert pdf["viewer_url"].endswith("/reports/viewer") and pdf["reader"] == "pdf" and pdf["outcome"] == "kept"
    assert pdf["pdf"]["page_count"] >= 1 and pdf["sample_provenance"][0]["page"] == 1
