"""How people run gatecrawl from a shell (issue 16): settings from the environment, the list
forms Scrapy accepts, one-line errors with exit code 2, messages that name what to change."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from crawlutil import ROOT, TESTS, packets_by_url, probe_crawl

pytestmark = pytest.mark.slow


def scrapy(*args: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """``scrapy ARGS`` from the project folder, the tests' helpers importable."""
    full = {**os.environ, "PYTHONPATH": f"{TESTS}:{ROOT}", **(env or {})}
    return subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=timeout)


def test_egress_allow_json_list_form(tmp_path, recipes_dir, origin):
    """``-s GATECRAWL_EGRESS_ALLOW='["host:port"]'``, the JSON list form Scrapy documents for list
    settings, admits the host like the comma-separated form (it died in the resolver)."""
    url = origin.url("/article/1")
    run = probe_crawl(tmp_path, recipes_dir, [url], allow=json.dumps([f"127.0.0.3:{origin.port}"]))
    assert "Traceback" not in run.stderr + run.log, (run.stderr + run.log)[-3000:]
    assert run.returncode == 0, run.stderr[-2000:]
    assert packets_by_url(run)[url]["outcome"] == "kept"


def test_settings_from_the_environment(tmp_path, recipes_dir, origin):
    """GATECRAWL_RECIPES_DIRS, GATECRAWL_STORE_URI and GATECRAWL_RUN_ID are read from the
    environment (only GATECRAWL_EGRESS_ALLOW was); -s still wins over them."""
    listed = scrapy("list", env={"GATECRAWL_RECIPES_DIRS": str(recipes_dir)})
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "probe" in listed.stdout.split()
    store = tmp_path / "store"
    env = {
        "GATECRAWL_RECIPES_DIRS": str(recipes_dir),
        "GATECRAWL_STORE_URI": f"file://{store}",
        "GATECRAWL_RUN_ID": "from-env",
        "GATECRAWL_EGRESS_ALLOW": f"127.0.0.3:{origin.port}",
    }
    done = scrapy("crawl", "probe", "-a", f"start_url={origin.url('/article/1')}", "-s", "ROBOTSTXT_OBEY=False", "--nolog", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    manifest = json.loads((store / "probe" / "runs" / "from-env.json").read_text("utf-8"))
    assert manifest["run_id"] == "from-env" and manifest["counts"]["kept"] == 1
    other = tmp_path / "other"
    done = scrapy("crawl", "probe", "-a", f"start_url={origin.url('/article/1')}", "-s", "ROBOTSTXT_OBEY=False", "-s", f"GATECRAWL_STORE_URI=file://{other}", "--nolog", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (other / "probe" / "runs" / "from-env.json").exists()


def _one_line(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.strip()
    assert "Traceback" not in err, err[-3000:]
    assert len(err.splitlines()) == 1, err[-3000:]
    return err


@pytest.mark.parametrize(
    "arg, expected",
    [
        ("max_pages=abc", "spider argument max_pages: expected a positive integer, got 'abc'"),
        ("render=sometimes", "spider argument render: must be one of auto, force, skip, got 'sometimes'"),
        ("start_url=docs.example.org", "spider argument start_url: not an absolute http(s) URL"),
    ],
)
@pytest.mark.parametrize("nolog", [False, True])
def test_bad_spider_argument_is_one_line_and_exit_2(arg, expected, nolog):
    proc = scrapy("crawl", "demo", "-a", arg, *(["--nolog"] if nolog else []))
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert expected in _one_line(proc)


def test_unknown_spider_is_one_line_with_a_suggestion():
    proc = scrapy("crawl", "dmeo", "--nolog")
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = _one_line(proc)
    assert "no spider named 'dmeo'" in line and "did you mean 'demo'?" in line
    proc = scrapy("crawl", "docs_site")
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = _one_line(proc)
    assert "no spider named 'docs_site'" in line and "demo" in line and "scrapy list" in line


def test_broken_recipe_names_file_and_key_and_spares_the_others(tmp_path):
    extra = tmp_path / "recipes"
    extra.mkdir()
    bad = extra / "broken.toml"
    bad.write_text('start_urls = ["https://x.example/"]\n[follow]\nmax_deep = 3\n')
    (extra / "fine.toml").write_text('start_urls = ["https://y.example/"]\n')
    env = {"GATECRAWL_RECIPES_DIRS": str(extra)}
    listed = scrapy("list", env=env)
    assert listed.returncode == 0, listed.stderr[-3000:]
    assert {"demo", "fine"} <= set(listed.stdout.split()) and "broken" not in listed.stdout.split()
    assert f"{bad}: key 'follow.max_deep': unknown key" in _one_line(listed)
    crawl = scrapy("crawl", "broken", env=env)
    assert crawl.returncode == 2, crawl.stderr[-3000:]
    assert f"{bad}: key 'follow.max_deep': unknown key" in _one_line(crawl)


def test_bad_setting_is_one_line_and_exit_2():
    proc = scrapy("crawl", "demo", "-s", "GATECRAWL_EGRESS_ALLOW=[127.0.0.1", "--nolog")
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "GATECRAWL_EGRESS_ALLOW" in _one_line(proc)


def test_egress_blocked_local_site_names_the_setting_that_admits_it(tmp_path, recipes_dir, origin):
    """A crawl of a local site that the egress policy refuses says which setting admits it."""
    run = probe_crawl(tmp_path, recipes_dir, [origin.url("/article/1")], allow="")
    assert run.returncode == 1 and origin.connections == 0
    hint = f"GATECRAWL_EGRESS_ALLOW={origin.host}:{origin.port}"
    assert hint in run.stderr, run.stderr[-3000:]
    assert hint in run.log, run.log[-3000:]


def test_convert_of_a_refused_url_gives_the_egress_reason(origin, tmp_path):
    out = tmp_path / "out"
    proc = scrapy("convert", origin.url("/article/1"), "-s", f"GATECRAWL_STORE_URI=file://{out}", env={"GATECRAWL_EGRESS_ALLOW": ""})
    assert not out.exists(), "scrapy convert writes no crawl report into the store"
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert origin.connections == 0
    assert "dropped: egress_blocked (" in proc.stderr and "address_class=loopback" in proc.stderr, proc.stderr[-3000:]
    assert "fetch_failed" not in proc.stderr
    # convert is quiet by default: the verdict and the hint, not Scrapy's start-up log
    assert len(proc.stderr.strip().splitlines()) <= 4, proc.stderr[-3000:]
    assert f"GATECRAWL_EGRESS_ALLOW={origin.host}:{origin.port}" in proc.stderr


@pytest.mark.parametrize(
    "uri, expected",
    [
        ("s4://bucket/x", "GATECRAWL_STORE_URI: unknown store 's4://'"),
        ("s3:///no-bucket", "GATECRAWL_STORE_URI: not an s3://bucket/prefix URI"),
    ],
)
def test_bad_store_uri_is_one_line_and_exit_2(uri, expected, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "demo", "-s", f"GATECRAWL_STORE_URI={uri}", "--nolog"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{TESTS}:{ROOT}"}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert expected in _one_line(proc)
    assert not (ROOT / "s4:").exists()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_quiet_by_default(tmp_path):
    """A crawl's console shows a short banner, gatecrawl's lines and the summary (it showed ~200
    lines: versions, every enabled component, overridden settings, a robots.txt traceback, the
    stats dump); -L DEBUG shows the inventory, a LOG_FILE keeps the stats dump."""
    url = f"http://127.0.0.1:{_closed_port()}/"
    common = ("crawl", "demo", "-a", f"start_url={url}", "-s", "RETRY_TIMES=0", "-s", f"GATECRAWL_STORE_URI=file://{tmp_path / 'store'}")
    quiet = scrapy(*common)
    assert quiet.returncode == 1, quiet.stderr[-3000:]
    err = quiet.stderr
    for hidden in ("Versions:", "Enabled downloader middlewares", "Overridden settings", "Dumping Scrapy stats", "Traceback", "Crawled 0 pages"):
        assert hidden not in err, (hidden, err[-3000:])
    assert "Scrapy 2." in err and "gatecrawl: crawl failed: nothing_kept" in err and "robots.txt unreachable" in err
    assert len(err.strip().splitlines()) <= 20, err
    loud = scrapy(*common, "-L", "DEBUG")
    assert "Enabled downloader middlewares" in loud.stderr and "Dumping Scrapy stats" in loud.stderr
    log = tmp_path / "crawl.log"
    scrapy(*common, "-s", f"LOG_FILE={log}")
    text = log.read_text("utf-8")
    assert "Dumping Scrapy stats" in text and "Enabled downloader middlewares" not in text
