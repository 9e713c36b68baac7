"""Soak (issue 8): 5,000 pages, 20% faulty (resets, hangs, truncation, 5xx, bombs)."""

from __future__ import annotations

import pytest

from bench.soak import run

pytestmark = pytest.mark.slow


def test_soak_5000_pages_with_faults(tmp_path):
    r = run(5000, tmp_path)
    print(r)
    assert r["exit_code"] == 0
    assert r["missing_packets"] == 0, "every URL ends with a packet"
    assert r["untyped_drops"] == 0 and r["faulty_pages_kept"] == 0
    assert r["outcomes_by_fault"]["none"] == {"kept": 4000}
    for fault, reason in {"bomb": "decompression_bomb", "hang": "timeout", "reset": "fetch_failed", "status503": "http_error", "truncated": "truncated"}.items():
        assert r["outcomes_by_fault"][fault] == {reason: 200}, (fault, r["outcomes_by_fault"][fault])
    assert r["browser_pages_open"] == 0
    assert not r["traceback_in_log"]
    # Flat memory: the crawler's RSS does not keep growing through the second half of the run.
    assert r["rss_slope_mb_per_min"] < 30, r
    assert r["rss_peak_mb"] < 800, r
