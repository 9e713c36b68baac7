"""Distributed mode against a real redis-server on 127.0.0.1 and a generated 200-page site.

- two fetch workers and one render worker share one frontier: every page is fetched once across
  them, shells are rendered only by the render worker, and the union of their outputs equals a
  single-process crawl's;
- a worker killed with SIGKILL mid-crawl loses no URL;
- a pickle pushed into the queue is rejected, never unpickled;
- the last worker to finish leaves the crawl's merged manifest ``<site>/crawls/<crawl id>.json``.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from redisserver import RedisServer
from sitegen import PATHS, BigSite

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def site():
    s = BigSite().start()
    yield s
    s.stop()


_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_stray_workers():
    yield
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Worker:
    def __init__(self, name: str, proc: subprocess.Popen, log: Path, out) -> None:
        self.name, self.proc, self.log, self._out = name, proc, log, out

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"worker {self.name} did not finish in {timeout} s:\n{self.text()[-4000:]}") from None
        finally:
            self._out.close()

    def text(self) -> str:
        return self.log.read_text("utf-8", errors="replace") if self.log.exists() else ""


def start_worker(name: str, tmp: Path, redis_url: str, crawl_id: str, start_url: str, store: Path, role: str,
                 heartbeat: float = 15.0, **settings) -> Worker:
    """A worker process. ``heartbeat`` is the default 15 s: on a loaded machine a worker's event
    loop can stall for seconds, and a shorter heartbeat then hands its tasks to the others (fetched
    twice by design, which the exactly-once checks would count). The kill test shortens it."""
    log = tmp / f"{name}.log"
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "demo",
        "-a", f"start_url={start_url}", "-a", "max_pages=1000", "-a", f"crawl_id={crawl_id}",
        "-a", f"run_id={crawl_id}-{name}",
        "-s", f"GATECRAWL_REDIS_URL={redis_url}", "-s", f"GATECRAWL_WORKER_ROLE={role}",
        "-s", f"GATECRAWL_STORE_URI=file://{store}", "-s", f"LOG_FILE={log}",
        "-s", "GATECRAWL_SUMMARY_PRINT=False", "-s", f"GATECRAWL_REDIS_HEARTBEAT={heartbeat}",
    ]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    out = open(tmp / f"{name}.out", "wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ})
    _STARTED.append(proc)
    return Worker(name, proc, log, out)


def summary(store: Path, run_id: str) -> dict:
    return json.loads((store / "demo" / "runs" / f"{run_id}.json").read_text("utf-8"))


def crawl_manifest(store: Path, crawl_id: str) -> dict:
    return json.loads((store / "demo" / "crawls" / f"{crawl_id}.json").read_text("utf-8"))


def _objects(folder: Path, pattern: str) -> list[Path]:
    """Stored objects; a worker killed mid-write leaves a ``.tmp-*`` file, never a partial object."""
    return sorted(p for p in folder.glob(pattern) if not p.name.startswith("."))


def stored(store: Path) -> dict[str, bytes]:
    """Every page/quarantine object in the store (not run summaries): key -> bytes."""
    out = {}
    for sub in ("pages", "quarantine"):
        for p in _objects(store / "demo" / sub, "*"):
            out[f"{sub}/{p.name}"] = p.read_bytes()
    return out


def packet_urls(store: Path) -> list[str]:
    urls = []
    for sub in ("pages", "quarantine"):
        for p in _objects(store / "demo" / sub, "*.json"):
            urls.append(json.loads(p.read_text("utf-8"))["url_requested"])
    return urls


def redis_leftovers(client, crawl_id: str) -> dict[str, int]:
    p = f"gatecrawl:demo:{crawl_id}"
    return {
        "fetch": client.zcard(f"{p}:queue:fetch"),
        "render": client.zcard(f"{p}:queue:render"),
        "processing": client.zcard(f"{p}:processing"),
        "tasks": client.hlen(f"{p}:tasks"),
    }


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path or "/"


def test_two_fetch_workers_and_a_render_worker_share_one_frontier(redis_server, site, tmp_path):
    crawl_id = "t" + uuid.uuid4().hex[:10]
    store = tmp_path / "store"
    start = site.base_url + "/"
    workers = [
        start_worker("fetch1", tmp_path, redis_server.url, crawl_id, start, store, "fetch"),
        start_worker("fetch2", tmp_path, redis_server.url, crawl_id, start, store, "fetch"),
        start_worker("render", tmp_path, redis_server.url, crawl_id, start, store, "render"),
    ]
    for w in workers:
        rc = w.wait(180)
        # A worker that found the shared frontier empty has not failed: exit 0.
        assert rc == 0, w.name + ":\n" + w.text()[-4000:]
    hits = site.page_hits()
    shells = set(site.shell_paths)
    assert len(shells) == 8

    # Every page fetched exactly once across the workers; a shell once plainly and once by the
    # browser (its navigation), and its data only by the browser.
    assert {p: n for p, n in hits.items() if n != (2 if p in shells else 1)} == {}
    assert sum(n for p, n in site.hits.items() if p.startswith("/data/")) == len(shells)

    runs = {w.name: summary(store, f"{crawl_id}-{w.name}") for w in workers}
    per_worker = {name: [_path(e["url"]) for e in s["pages"]] for name, s in runs.items()}
    seen = [p for paths in per_worker.values() for p in paths]
    assert sorted(seen) == sorted(PATHS), "each URL exported by exactly one worker"
    # Shells rendered by the render worker only; fetch workers never started Chromium.
    rendered = {name: {_path(e["url"]) for e in s["pages"] if e["reader"] == "render"} for name, s in runs.items()}
    assert rendered == {"fetch1": set(), "fetch2": set(), "render": shells}
    assert set(per_worker["render"]) == shells
    for w in workers[:2]:
        text = w.text()
        assert "scrapy-playwright" not in text and "playwright/page_count" not in text, w.name
        # Every escalation a fetch worker made went to the render queue, none was rendered there.
        stats = runs[w.name]["stats"]
        assert stats.get("gatecrawl/distributed/enqueued/render", 0) == stats.get("gatecrawl/render/requested", 0), (w.name, stats)
        assert stats.get("gatecrawl/render/succeeded", 0) == 0, w.name
    assert sum(runs[w]["stats"].get("gatecrawl/distributed/dequeued/render", 0) for w in runs) == len(shells)
    assert runs["render"]["stats"].get("gatecrawl/distributed/dequeued/fetch", 0) == 0
    assert sum(runs[w]["stats"].get("gatecrawl/distributed/enqueued/render", 0) for w in ("fetch1", "fetch2")) == len(shells)
    assert redis_leftovers(redis_server.client(), crawl_id) == {"fetch": 0, "render": 0, "processing": 0, "tasks": 0}

    # One merged manifest for the crawl, left by the last worker to finish: every worker's run,
    # one entry per stored key (kept count = distinct kept packets in the store).
    assert {s["crawl_id"] for s in runs.values()} == {crawl_id}
    crawl = crawl_manifest(store, crawl_id)
    assert sorted(r["run_id"] for r in crawl["runs"]) == sorted(f"{crawl_id}-{w.name}" for w in workers)
    assert crawl["runs_without_manifest"] == []
    kept_keys = {p.stem for p in _objects(store / "demo" / "pages", "*.json")}
    assert crawl["counts"]["kept"] == len(kept_keys) == len({e["url_key"] for e in crawl["pages"] if e["outcome"] == "kept"})
    stored_packets = _objects(store / "demo" / "pages", "*.json") + _objects(store / "demo" / "quarantine", "*.json")
    assert crawl["counts"]["seen"] == len(stored_packets) > 0
    assert crawl["counts"]["duplicate_deliveries"] == 0
    assert crawl["stats"]["gatecrawl/distributed/dequeued/render"] == len(shells)

    # The union of the workers' outputs equals a single-process crawl's of the same site.
    ref_store = tmp_path / "single"
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "demo", "-a", f"start_url={start}", "-a", "max_pages=1000",
         "-s", f"GATECRAWL_STORE_URI=file://{ref_store}", "-s", f"LOG_FILE={tmp_path / 'single.log'}", "-s", "GATECRAWL_SUMMARY_PRINT=False"],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, (tmp_path / "single.log").read_text()[-4000:]
    ref_runs = _objects(ref_store / "demo" / "runs", "*.json")
    assert len(ref_runs) == 1 and json.loads(ref_runs[0].read_text("utf-8"))["crawl_id"] is None
    assert not (ref_store / "demo" / "crawls").exists()
    ref, got = stored(ref_store), stored(store)
    assert set(ref) == set(got) and len(ref) > 0
    md_diff = [k for k in ref if k.endswith(".md") and ref[k] != got[k]]
    assert md_diff == []
    for k in ref:
        if k.endswith(".json"):
            a, b = json.loads(ref[k]), json.loads(got[k])
            assert (a["url_requested"], a["reader"], a.get("drop_reason"), a.get("markdown_sha256")) == (
                b["url_requested"], b["reader"], b.get("drop_reason"), b.get("markdown_sha256")), k


def _exported_by(store: Path, run_id: str) -> int:
    n = 0
    for p in (store / "demo" / "pages").glob("[!.]*.json") if (store / "demo" / "pages").exists() else ():
        try:
            n += f'"run_id": "{run_id}"' in p.read_text("utf-8")
        except FileNotFoundError:
            continue
    return n


def test_sigkill_mid_crawl_loses_no_url(redis_server, tmp_path):
    site = BigSite(shells=False, delay=0.3).start()
    try:
        crawl_id = "k" + uuid.uuid4().hex[:10]
        store = tmp_path / "store"
        start = site.base_url + "/"
        victim = start_worker("victim", tmp_path, redis_server.url, crawl_id, start, store, "fetch", heartbeat=3)
        survivor = start_worker("survivor", tmp_path, redis_server.url, crawl_id, start, store, "fetch", heartbeat=3)
        client = redis_server.client()
        deadline = time.monotonic() + 90
        held = 0
        # Kill once the victim holds several requests in flight (owner of tasks in processing).
        while time.monotonic() < deadline:
            owners = client.hvals(f"gatecrawl:demo:{crawl_id}:owner")
            held = sum(1 for o in owners if o.decode().split("-")[-2] == str(victim.proc.pid))
            exported = len(list((store / "demo" / "pages").glob("*.json"))) if (store / "demo" / "pages").exists() else 0
            # ...and once the victim itself has exported pages (the other worker may start first
            # and export 30 pages alone; the victim's exports are checked below).
            if held >= 8 and exported >= 30 and _exported_by(store, f"{crawl_id}-victim") >= 3:
                break
            time.sleep(0.05)
        assert victim.proc.poll() is None, "the victim finished before it could be killed"
        os.kill(victim.proc.pid, signal.SIGKILL)
        assert victim.wait(30) == -signal.SIGKILL
        assert held >= 8
        assert survivor.wait(180) == 0, survivor.text()[-4000:]
        client.close()
    finally:
        site.stop()

    hits = site.page_hits()
    assert [p for p, n in hits.items() if n == 0] == []
    urls = [_path(u) for u in packet_urls(store)]
    assert sorted(urls) == sorted(PATHS), "every URL exported exactly once"
    surv = summary(store, f"{crawl_id}-survivor")
    recovered = surv["stats"].get("gatecrawl/distributed/recovered", 0)
    assert recovered >= 8
    # Only what the victim held (and the survivor took back) could be fetched twice.
    assert sum(n - 1 for n in hits.values()) <= recovered
    surv_paths = [_path(e["url"]) for e in surv["pages"]]
    assert len(surv_paths) == len(set(surv_paths))
    # The victim left no run summary; every URL it did not finish, the survivor exported.
    victim_done = {_path(json.loads(p.read_text())["url_requested"]) for p in _objects(store / "demo" / "pages", "*.json")
                   if json.loads(p.read_text())["run_id"] == f"{crawl_id}-victim"}
    assert victim_done and victim_done | set(surv_paths) == set(PATHS)
    assert not (store / "demo" / "runs" / f"{crawl_id}-victim.json").exists()
    # The merged manifest knows the victim's run left no manifest (its exported pages are in no manifest).
    crawl = crawl_manifest(store, crawl_id)
    assert [r["run_id"] for r in crawl["runs"]] == [f"{crawl_id}-survivor"]
    assert crawl["runs_without_manifest"] == [f"{crawl_id}-victim"]
    assert crawl["counts"]["seen"] == len(set(surv_paths))
    assert redis_leftovers(redis_server.client(), crawl_id) == {"fetch": 0, "render": 0, "processing": 0, "tasks": 0}


class _Boom:
    """Unpickling this creates a marker file (what a hostile payload would do, harmlessly)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_payload_in_the_queue_is_rejected_not_executed(redis_server, tmp_path):
    site = BigSite(shells=False).start()
    try:
        crawl_id = "p" + uuid.uuid4().hex[:10]
        marker = tmp_path / "pwned"
        prefix = f"gatecrawl:demo:{crawl_id}"
        client = redis_server.client()
        evil = pickle.dumps(_Boom(str(marker)))
        # A hostile task in our layout, a bare pickle where scrapy-redis' default queue would
        # hold it, and a JSON envelope naming a class outside the allowlist.
        client.hset(f"{prefix}:tasks", "evil1", evil)
        client.zadd(f"{prefix}:queue:fetch", {"evil1": -100})
        client.zadd(f"{prefix}:queue:fetch", {evil: -99})
        sneaky = json.dumps({"gatecrawl": 1, "request": {"url": site.base_url + "/", "_class": "os.system", "method": "GET"}})
        client.hset(f"{prefix}:tasks", "evil2", sneaky)
        client.zadd(f"{prefix}:queue:fetch", {"evil2": -98})
        w = start_worker("w", tmp_path, redis_server.url, crawl_id, site.base_url + "/p/0/0", tmp_path / "store", "fetch",
                         DEPTH_LIMIT=1)
        assert w.wait(120) == 0, w.text()[-4000:]
        assert not marker.exists(), "the pickle was executed"
        run = summary(tmp_path / "store", f"{crawl_id}-w")
        assert run["stats"].get("gatecrawl/distributed/rejected") == 3
        assert client.llen(f"{prefix}:rejected") == 3
        assert run["counts"]["kept"] >= 1
        assert "rejected a fetch payload" in w.text()
        assert redis_leftovers(client, crawl_id) == {"fetch": 0, "render": 0, "processing": 0, "tasks": 0}
        client.close()
    finally:
        site.stop()


def test_fetch_workers_without_a_render_worker_say_so(redis_server, site, tmp_path):
    """Fetch workers left with only render tasks and no render worker alive waited in silence
    ('+0 in 10s'): they now name the missing render worker, and the progress line shows the
    shared frontier's depths."""
    crawl_id = "n" + uuid.uuid4().hex[:10]
    worker = start_worker("lonely", tmp_path, redis_server.url, crawl_id, site.base_url + "/", tmp_path / "store", "fetch", GATECRAWL_PROGRESS_INTERVAL="1")
    deadline = time.monotonic() + 90
    text = ""
    while time.monotonic() < deadline and "no render worker" not in text:
        time.sleep(0.5)
        text = worker.text()
        assert worker.proc.poll() is None, text[-3000:]
    worker.proc.terminate()
    worker.wait(60)
    text = worker.text()
    assert "render tasks wait and no render worker is running" in text and "GATECRAWL_WORKER_ROLE=render" in text, text[-3000:]
    assert re.search(r"gatecrawl progress: .*frontier: fetch \d+, render [1-9]\d*, in processing \d+", text), text[-3000:]
    assert text.count("no render worker is running") <= 3, "said once in a while, not on every poll"


def test_recrawl_across_distributed_crawls(redis_server, tmp_path):
    """Changed-only recrawls in distributed mode: the first crawl's workers leave recrawl.jsonl
    (from the merged manifest); the next crawl's workers send its validators, the 304 pages keep
    their stored objects, and each run's change list adds up to the site."""
    from bench.recrawl import RecrawlSite

    site = RecrawlSite(pages=30, sections=3).start()
    store = tmp_path / "store"
    try:
        first = [start_worker(f"a{i}", tmp_path, redis_server.url, "rc-1", site.base_url + "/", store, "all") for i in range(2)]
        for w in first:
            assert w.wait(180) == 0, w.text()[-3000:]
        state = [json.loads(line) for line in (store / "demo" / "recrawl.jsonl").read_text("utf-8").splitlines()]
        assert len(state) == 30 and all(line["etag"] for line in state)
        edited = site.leaves[3]
        site.edit(edited)
        site.reset_counters()
        second = [start_worker(f"b{i}", tmp_path, redis_server.url, "rc-2", site.base_url + "/", store, "all") for i in range(2)]
        for w in second:
            assert w.wait(180) == 0, w.text()[-3000:]
        not_modified = site.not_modified
    finally:
        site.stop()
    assert not_modified == 29
    changes = [json.loads((store / "demo" / "runs" / "changes" / f"rc-2-b{i}.json").read_text("utf-8")) for i in range(2)]
    assert sorted(u for c in changes for u in c["changed"]) == [site.base_url + edited]
    assert sum(len(c["unchanged"]) for c in changes) == 29
    merged = crawl_manifest(store, "rc-2")
    assert sum(1 for p in merged["pages"] if p.get("not_modified") == "304") == 29
