"""T20 in CI size: 50 rendered pages, 20% failing in five ways; no page or context leaks.
(`python -m bench.browser_soak` runs the 500-page version.)"""

from __future__ import annotations

import shutil

import pytest

from bench.browser_soak import run

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.skipif(not shutil.which("chromium"), reason="no Chromium")]


def test_t20_browser_soak_closes_every_page_and_context(tmp_path):
    r = run(50, tmp_path)
    assert r["exit_code"] == 0
    assert r["missing_packets"] == 0
    assert r["pages_opened"] == r["pages_closed"] > 40
    assert r["contexts_opened"] == r["contexts_closed"] >= 2  # recycled every 20 renders
    assert r["aborted_requests"] > 0  # images aborted
    assert r["outcomes"]["ok"] == {"kept": 40}
    assert r["outcomes"]["never"] == {"readiness_timeout": 2} and r["outcomes"]["busy_loop"] == {"readiness_timeout": 2}
    assert r["browser_pss_peak_mb"] < 1500
