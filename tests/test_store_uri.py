"""Store URIs are checked at start (issue 15): a typo must not write to a local folder named
after it while the summary prints ``s3://...``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from crawlutil import ROOT
from gatecrawl.store import StoreError, check_store_uri, open_store


@pytest.mark.parametrize("uri", ["S3://bucket/p", "s3a://bucket/p", "s3:/bucket/p", "ftp://host/p", "bogus://x", "s3://", "s3:///p", "file:", "http://h/p"])
def test_bad_store_uris_are_refused(uri):
    with pytest.raises(StoreError) as e:
        check_store_uri(uri)
    assert "GATECRAWL_STORE_URI" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(StoreError):
        open_store(uri)


@pytest.mark.parametrize("uri", ["output", "./out/dir", "/abs/path", "file://./output", "file:///abs/path", "file://relative", "s3://bucket", "s3://bucket/prefix/x", "s3://AK:SK@bkt/p"])
def test_good_store_uris_pass(uri):
    check_store_uri(uri)


@pytest.mark.slow
@pytest.mark.parametrize("uri", ["S3://gc-bucket/x", "s3a://gc-bucket/x", "s3:/gc-bucket/x", "ftp://gc-bucket/x", "bogus://gc-bucket/x"])
def test_crawl_with_a_store_uri_typo_exits_2_and_writes_nothing(tmp_path, demo_server, uri):
    cmd = [sys.executable, "-m", "scrapy", "crawl", "demo", "-a", f"start_url={demo_server.base_url}/", "-s", f"GATECRAWL_STORE_URI={uri}", "-s", "GATECRAWL_SPOOL_DIR=" + str(tmp_path / "spool")]
    before = set(os.listdir(tmp_path))
    proc = subprocess.run(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT), "SCRAPY_SETTINGS_MODULE": "gatecrawl.settings"}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if "GATECRAWL_STORE_URI" in line]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert set(os.listdir(tmp_path)) == before, f"something was written: {sorted(set(os.listdir(tmp_path)) - before)}"
