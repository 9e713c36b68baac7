"""Run `scrapy crawl` in a subprocess and read what it stored (used by many test modules)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class CrawlRun:
    store: Path
    log: str
    returncode: int
    stderr: str

    def summary(self, site: str = "demo") -> dict:
        runs = sorted((self.store / site / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
        assert runs, f"no run summary in {self.store}; log:\n{self.log[-3000:]}"
        return json.loads(runs[-1].read_text("utf-8"))

    def packets(self, site: str = "demo") -> list[dict]:
        files = sorted((self.store / site / "pages").glob("*.json")) + sorted((self.store / site / "quarantine").glob("*.json"))
        return [json.loads(p.read_text("utf-8")) for p in files]


def run_crawl(spider: str, store: Path, *args: str, settings: dict | None = None, timeout: int = 300, env: dict | None = None) -> CrawlRun:
    """Run ``scrapy crawl`` in a subprocess from the project folder; return the store and log."""
    store.mkdir(parents=True, exist_ok=True)
    log_file = store.parent / f"{store.name}.log"
    cmd = [sys.executable, "-m", "scrapy", "crawl", spider, "-s", f"GATECRAWL_STORE_URI=file://{store}", "-s", f"LOG_FILE={log_file}"]
    for k, v in (settings or {}).items():
        cmd += ["-s", f"{k}={v}"]
    cmd += list(args)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # A crawl that never ends: ask it what it waits on (gatecrawl's StackDump extension
        # answers SIGUSR2 into the log: engine status, pending asyncio tasks, thread stacks),
        # then fail with the log's tail.
        proc.send_signal(signal.SIGUSR2)
        time.sleep(6)
        proc.kill()
        _, stderr = proc.communicate()
        log = log_file.read_text("utf-8", errors="replace") if log_file.exists() else ""
        raise AssertionError(f"crawl {spider} did not finish in {timeout} s; log tail:\n{log[-24000:]}\nstderr tail:\n{stderr[-2000:]}") from None
    log = log_file.read_text("utf-8") if log_file.exists() else ""
    return CrawlRun(store=store, log=log, returncode=proc.returncode, stderr=stderr)


TESTS = Path(__file__).resolve().parent
PROBE_RECIPE = """start_urls = ["http://origin.test/"]
allowed_domains = []
[follow]
max_depth = 1
[validation]
min_markdown_chars = 50
"""


def probe_crawl(tmp_path: Path, recipes_dir: Path, start_urls, *, allow: str = "", dns: dict | None = None, extra: dict | None = None, name: str = "store", timeout: int = 300, args: tuple[str, ...] = ()) -> CrawlRun:
    """Crawl with the test recipe ``probe`` and a strict egress policy (only ``allow`` admitted);
    ``args`` are further command-line arguments (``-O out.jsonl``, ``-a max_pages=3``)."""
    env = {"GATECRAWL_EGRESS_ALLOW": "", "PYTHONPATH": f"{TESTS}:{ROOT}"}
    settings = {"GATECRAWL_RECIPES_DIRS": str(recipes_dir), "GATECRAWL_EGRESS_ALLOW": allow, "RETRY_TIMES": 0, "ROBOTSTXT_OBEY": False}
    if dns is not None:
        f = tmp_path / f"{name}-dns.json"
        f.write_text(json.dumps(dns))
        env["FAKEDNS_FILE"] = str(f)
        settings["GATECRAWL_EGRESS_RESOLVER"] = "fakedns:resolve"
    settings.update(extra or {})
    return run_crawl("probe", tmp_path / name, "-a", "start_url=" + " ".join(start_urls), *args, settings=settings, env=env, timeout=timeout)


def packets_by_url(run: CrawlRun, site: str = "probe") -> dict[str, dict]:
    return {p["url_requested"]: p for p in run.packets(site)}
