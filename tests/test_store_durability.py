"""Cheap durable writes (issue 19): the local store fsyncs per batch, journals the objects in
between, and the next run replays the journal of a killed one."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gatecrawl.store.local import JOURNAL_PREFIX, LocalStore

ROOT = Path(__file__).resolve().parent.parent


def _journal_entries(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for j in sorted(root.glob(f"{JOURNAL_PREFIX}*.jsonl")):
        for line in j.read_text("utf-8").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue  # the last line may be cut by the kill
            out[e["key"]] = e["sha256"]
    return out


def test_objects_are_journalled_until_their_batch_is_synced(tmp_path):
    store = LocalStore(f"file://{tmp_path}", {"GATECRAWL_STORE_FSYNC_BATCH": 3})
    store.put("s/pages/a.md", b"a", content_type="text/markdown")
    store.put("s/pages/b.md", b"b", content_type="text/markdown")
    assert (tmp_path / "s/pages/a.md").read_bytes() == b"a"  # visible at once
    assert set(_journal_entries(tmp_path)) == {"s/pages/a.md", "s/pages/b.md"}
    assert store.unsynced() == 2 and store.pending() == 0  # stored, only not yet fsynced
    store.put("s/pages/c.md", b"c", content_type="text/markdown")
    assert _journal_entries(tmp_path) == {} and store.unsynced() == 0
    store.put("s/pages/d.md", b"d", content_type="text/markdown")
    assert set(_journal_entries(tmp_path)) == {"s/pages/d.md"}
    store.close()
    assert _journal_entries(tmp_path) == {}
    assert store.counters().get("fsync_batches") == 2
    assert store.list() == ["s/pages/a.md", "s/pages/b.md", "s/pages/c.md", "s/pages/d.md"]


def test_a_batch_of_one_writes_no_journal(tmp_path):
    store = LocalStore(f"file://{tmp_path}", {"GATECRAWL_STORE_FSYNC_BATCH": 1})
    store.put("s/pages/a.md", b"a", content_type="text/markdown")
    assert not list(tmp_path.glob(f"{JOURNAL_PREFIX}*")) and store.unsynced() == 0


def test_the_next_run_replays_a_dead_process_journal(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    (tmp_path / "s").mkdir()
    (tmp_path / "s/good.md").write_bytes(b"good")
    (tmp_path / "s/torn.md").write_bytes(b"")  # renamed, its bytes lost by a power failure
    lines = [{"key": "s/good.md", "sha256": hashlib.sha256(b"good").hexdigest()},
             {"key": "s/torn.md", "sha256": hashlib.sha256(b"torn").hexdigest()},
             {"key": "s/gone.md", "sha256": hashlib.sha256(b"gone").hexdigest()}]
    journal = tmp_path / f"{JOURNAL_PREFIX}{dead}-1.jsonl"
    journal.write_text("".join(json.dumps(e) + "\n" for e in lines) + '{"key": "s/cut', "utf-8")
    live = tmp_path / f"{JOURNAL_PREFIX}{os.getpid()}-9.jsonl"  # a live process's batch: not touched
    live.write_text(json.dumps({"key": "s/other.md", "sha256": "0" * 64}) + "\n", "utf-8")
    store = LocalStore(f"file://{tmp_path}")
    store.resume()
    c = store.counters()
    assert (c["journal_replayed"], c["journal_damaged"]) == (3, 2)
    assert (tmp_path / "s/good.md").read_bytes() == b"good"
    assert not (tmp_path / "s/torn.md").exists()  # the crawl writes it again
    assert not journal.exists() and live.exists()


@pytest.mark.slow
def test_a_sigkilled_crawl_loses_no_written_object_and_the_next_run_completes(tmp_path):
    from bench.crawl import Site, SiteServer

    site = Site(60)
    server = SiteServer(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "killme.toml").write_text('start_urls = ["http://127.0.0.1/"]\n[follow]\nmax_depth = 3\nmax_pages = 10000\n')
    store = tmp_path / "store"

    def crawl(run_id: str) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "scrapy", "crawl", "killme", "-a", f"start_url={server.base_url}/", "-a", f"run_id={run_id}",
               "-s", f"GATECRAWL_RECIPES_DIRS={recipes}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
               "-s", f"GATECRAWL_SPOOL_DIR={tmp_path / 'spool'}", "-s", "GATECRAWL_STORE_FSYNC_BATCH=100000",
               "-s", "GATECRAWL_RENDER_ENABLED=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2",
               "-s", f"LOG_FILE={tmp_path / (run_id + '.log')}", "-s", "GATECRAWL_REPORT_HTML=False"]
        env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.1:{server.server_address[1]}"}
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    try:
        first = crawl("killed")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_journal_entries(store)) < 20 and first.poll() is None:
            time.sleep(0.05)
        assert first.poll() is None, "the crawl ended before it could be killed"
        os.killpg(first.pid, signal.SIGKILL)  # the crawl and its conversion workers
        first.wait(30)
        written = _journal_entries(store)
        assert len(written) >= 20
        # Every object the store reported as written is there, whole.
        lost = [k for k, sha in written.items() if not (store / k).is_file() or hashlib.sha256((store / k).read_bytes()).hexdigest() != sha]
        assert lost == []
        assert not (store / "killme" / "runs").exists() or not list((store / "killme" / "runs").glob("killed.json"))

        second = crawl("again")
        assert second.wait(300) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert list(store.glob(f"{JOURNAL_PREFIX}*")) == []
    manifest = json.loads((store / "killme" / "runs" / "again.json").read_text("utf-8"))
    assert manifest["stats"]["gatecrawl/export/journal_replayed"] == len(written)
    assert manifest["stats"].get("gatecrawl/export/journal_damaged", 0) == 0
    # The next run completes the rest: every page the hubs list has its packet.
    # (a killed write can leave its temporary file, .tmp-*: not an object, the store lists none)
    urls = {json.loads(p.read_text("utf-8"))["url_final"] for p in store.glob("killme/*/*.json") if p.parent.name != "runs" and not p.name.startswith(".")}
    expected = {f"{server.base_url}/p/{i}" for i in site.listed}
    assert expected <= urls, sorted(expected - urls)[:5]
