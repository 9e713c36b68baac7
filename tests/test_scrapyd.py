"""Scrapyd end to end: deploy the project egg with scrapyd-deploy, schedule the demo recipe
through schedule.json, wait for listjobs.json, and find the run (named by the job id) in the store.

Scrapyd listens on 127.0.0.1 (free port) with basic auth, as the README's documented setup does.
The job runs from the zipped egg in a folder outside the project, so recipes and the packet schema
must come from package data.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.services, pytest.mark.slow]

USER, PASSWORD = "gatecrawl", "test-only-password"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base: str, path: str, data: dict | list | None = None, auth: bool = True) -> dict:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    req = urllib.request.Request(base + path, data=body)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read().decode("utf-8"))


EXTRA_RECIPE = """start_urls = ["http://127.0.0.1:8750/"]
allowed_domains = ["127.0.0.1"]
[follow]
max_depth = 0
[settings]
GATECRAWL_EGRESS_ADMIT_START_URLS = true
"""


@pytest.fixture
def scrapyd(tmp_path):
    home = tmp_path / "scrapyd"
    home.mkdir()
    # A recipe outside the egg, in a folder named by the environment of the Scrapyd daemon: its
    # spider is listed and schedulable like the packaged ones.
    extra = tmp_path / "extra-recipes"
    extra.mkdir()
    (extra / "extra_site.toml").write_text(EXTRA_RECIPE, encoding="utf-8")
    port = _free_port()
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        "bind_address = 127.0.0.1\n"
        f"http_port = {port}\n"
        f"username = {USER}\n"
        f"password = {PASSWORD}\n"
        "poll_interval = 0.5\n"
        "max_proc = 2\n"
        f"eggs_dir = {home / 'eggs'}\n"
        f"logs_dir = {home / 'logs'}\n"
        f"dbs_dir = {home / 'dbs'}\n"
        "items_dir =\n",
        encoding="utf-8",
    )
    log = open(home / "scrapyd.out", "wb")
    env = {**os.environ, "GATECRAWL_RECIPES_DIRS": str(extra)}
    proc = subprocess.Popen([str(BIN / "scrapyd")], cwd=home, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _api(base, "daemonstatus.json")
                break
            except (urllib.error.URLError, ConnectionError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("scrapyd did not start: " + (home / "scrapyd.out").read_text(errors="replace"))
                time.sleep(0.2)
        yield base, home, port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_for(base: str, job: str, timeout: float = 150) -> None:
    deadline = time.monotonic() + timeout
    while True:
        jobs = _api(base, "listjobs.json?project=gatecrawl")
        if any(j["id"] == job for j in jobs["finished"]):
            return
        assert time.monotonic() < deadline, f"job {job} did not finish: {jobs}"
        time.sleep(0.5)


def test_scrapyd_deploy_schedule_and_trace_the_job(scrapyd, demo_server, tmp_path):
    base, home, port = scrapyd

    # Basic auth is enforced: no credentials, no API.
    with pytest.raises(urllib.error.HTTPError) as err:
        _api(base, "listprojects.json", auth=False)
    assert err.value.code == 401
    err.value.close()

    # scrapyd-deploy reads targets from every scrapy.cfg source; a test-only target (free port,
    # test credentials) goes in $XDG_CONFIG_HOME/scrapy.cfg so the project's file stays untouched.
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "scrapy.cfg").write_text(
        f"[deploy:pytest]\nurl = http://127.0.0.1:{port}/\nproject = gatecrawl\nusername = {USER}\npassword = {PASSWORD}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(xdg)}
    deploy = subprocess.run(
        [str(BIN / "scrapyd-deploy"), "pytest", "-p", "gatecrawl", "-v", "pytest1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr
    assert json.loads(deploy.stdout.strip().splitlines()[-1])["status"] == "ok", deploy.stdout

    spiders = _api(base, "listspiders.json?project=gatecrawl")
    assert spiders["status"] == "ok" and {"demo", "extra_site"} <= set(spiders["spiders"]), spiders

    store = tmp_path / "store"
    scheduled = _api(
        base,
        "schedule.json",
        [
            ("project", "gatecrawl"),
            ("spider", "demo"),
            # The demo's two PDFs first: max_pages (40) is under the demo's page count, and which
            # 40 pages a crawl reaches depends on the order responses come back.
            ("start_url", " ".join(demo_server.base_url + p for p in ("/reports/annual-report.pdf", "/reports/methods.pdf", "/"))),
            ("max_pages", "40"),
            ("setting", f"GATECRAWL_STORE_URI=file://{store}"),
            ("setting", "GATECRAWL_SUMMARY_PRINT=False"),
        ],
    )
    assert scheduled["status"] == "ok", scheduled
    job = scheduled["jobid"]

    _wait_for(base, job)

    job_log = home / "logs" / "gatecrawl" / "demo" / f"{job}.log"
    log_text = job_log.read_text("utf-8", errors="replace") if job_log.exists() else "(no job log)"

    # The run summary is named by the job id and lists every key written.
    summary_path = store / "demo" / "runs" / f"{job}.json"
    assert summary_path.exists(), log_text[-4000:]
    summary = json.loads(summary_path.read_text("utf-8"))
    assert summary["run_id"] == job
    assert summary["counts"]["kept"] > 0, log_text[-4000:]
    written = {k for page in summary["pages"] for k in page["keys"]}
    md = [k for k in written if k.endswith(".md")]
    assert md and all((store / k).exists() for k in written)

    # Every packet names the job, so any stored object traces back to it.
    packets = [json.loads(p.read_text("utf-8")) for p in (store / "demo").glob("*/*.json") if p.parent.name != "runs"]
    assert packets and {p["run_id"] for p in packets} == {job}
    assert len(packets) == summary["counts"]["seen"]
    assert "Traceback" not in log_text, log_text[-4000:]
    # HTML conversion ran in worker processes started from the egg (a pool that cannot start
    # would fall back to threads page by page and say so).
    assert "conversion worker process died" not in log_text, log_text[-4000:]
    assert not summary["stats"].get("gatecrawl/convert/pool_restarted"), summary["stats"]

    # The PDFs are read by worker processes started from the deployed egg (issue 16: they all
    # ended as pdf_worker_crashed, "Not a directory", the worker's cwd being the egg file).
    by_path = {urllib.parse.urlsplit(p["url_final"]).path: p for p in packets}
    for path in ("/reports/annual-report.pdf", "/reports/methods.pdf"):
        assert path in by_path, sorted(by_path)
        got = by_path[path]
        assert (got["outcome"], got["drop_reason"], got["reader"]) == ("kept", None, "pdf"), (path, got["drop_reason"], got["drop_detail"])

    # The recipe from GATECRAWL_RECIPES_DIRS runs under Scrapyd too.
    extra = _api(
        base,
        "schedule.json",
        [
            ("project", "gatecrawl"),
            ("spider", "extra_site"),
            ("start_url", demo_server.base_url + "/articles/pdf-text-layers"),
            ("render", "skip"),
            ("setting", f"GATECRAWL_STORE_URI=file://{store}"),
        ],
    )
    assert extra["status"] == "ok", extra
    _wait_for(base, extra["jobid"], timeout=90)
    extra_summary = store / "extra_site" / "runs" / f"{extra['jobid']}.json"
    assert extra_summary.exists(), (home / "logs" / "gatecrawl" / "extra_site" / f"{extra['jobid']}.log").read_text("utf-8", errors="replace")[-3000:]
    assert json.loads(extra_summary.read_text("utf-8"))["counts"]["kept"] == 1

    # Failures are visible to Scrapyd users at the end of the job's log (listjobs.json shows no
    # exit status): a crawl that kept nothing (its start URL refuses connections), and a bad
    # spider argument, which stops the job before anything runs.
    closed = f"http://127.0.0.1:{_free_port()}/"
    for args, expected in (
        ([("start_url", closed), ("render", "skip")], "gatecrawl: crawl failed: nothing_kept"),
        ([("max_pages", "abc")], "gatecrawl: error: spider argument max_pages: expected a positive integer, got 'abc'"),
    ):
        failed = _api(base, "schedule.json", [("project", "gatecrawl"), ("spider", "extra_site"), *args, ("setting", f"GATECRAWL_STORE_URI=file://{store}")])
        assert failed["status"] == "ok", failed
        _wait_for(base, failed["jobid"], timeout=90)
        tail = (home / "logs" / "gatecrawl" / "extra_site" / f"{failed['jobid']}.log").read_text("utf-8", errors="replace").rstrip().splitlines()[-1]
        assert tail.endswith(expected), tail
