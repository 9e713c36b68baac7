"""State and recovery: T18 (pause and resume with JOBDIR)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from crawlutil import ROOT

pytestmark = pytest.mark.slow


def test_t18_pause_and_resume_with_jobdir(tmp_path, recipes_dir, origin):
    n = 200
    origin.links = [origin.url(f"/article/{i}") for i in range(n)]
    store, jobdir = tmp_path / "store", tmp_path / "job"
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "probe", "-a", f"start_url={origin.url('/links')}",
        "-s", f"GATECRAWL_RECIPES_DIRS={recipes_dir}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
        "-s", f"JOBDIR={jobdir}", "-s", "CONCURRENT_REQUESTS=2", "-s", "DOWNLOAD_DELAY=0.01",
        "-s", "ROBOTSTXT_OBEY=False", "-s", f"LOG_FILE={tmp_path / 'crawl.log'}",
    ]
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.3:{origin.port}"}
    first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while sum(origin.hits[f"/article/{i}"] for i in range(n)) < n // 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)  # one SIGINT: a clean pause
    first.wait(timeout=120)
    fetched_first = sum(origin.hits[f"/article/{i}"] for i in range(n))
    assert n // 2 <= fetched_first < n, fetched_first
    second = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    hits = [origin.hits[f"/article/{i}"] for i in range(n)]
    assert all(h >= 1 for h in hits), "every URL fetched"
    assert max(hits) == 1, "no URL fetched twice across pause and resume"
    keys = list((store / "probe" / "pages").glob("*.json")) + list((store / "probe" / "quarantine").glob("*.json"))
    assert len(keys) == n + 1  # the 200 articles and the links page, one key each
