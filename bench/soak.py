"""Soak: crawl N pages from a local site where 20% of responses are faulty.

``python -m bench.soak [--pages 5000]`` serves a site on 127.0.0.1 whose pages fail in five
ways, one page in five: connection reset, hang (past DOWNLOAD_TIMEOUT), truncated body, 503,
gzip bomb. It runs ``scrapy crawl`` on it in a subprocess, samples the crawler's RSS every
second, and checks that the crawl finishes, that every URL ends with a packet (kept or a
typed drop), that no browser page is left open, and that RSS stays flat (peak, and the slope
of a line fitted to the second half of the samples). Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAULTS = ("reset", "hang", "truncated", "status503", "bomb")
PER_HUB = 100
_BOMB = gzip.compress(b"\0" * (8 * 1024 * 1024), 9)
_TEXT = (
    "Soak pages carry enough distinct words to pass the gate: crawler, packet, gate, render, "
    "extraction, Markdown, validation, evidence, store, recipe, policy, budget, readiness, drift."
)


def fault_of(i: int) -> str | None:
    k = i % 25
    return FAULTS[k] if k < len(FAULTS) else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "SoakServer"

    def log_message(self, *a: object) -> None:
        pass

    def _send(self, status: int, body: bytes, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        with self.server.lock:
            self.server.hits[path] += 1
        n = self.server.pages
        if path == "/robots.txt":
            return self._send(200, b"User-agent: *\nAllow: /\n")
        if path == "/":
            hubs = (n + PER_HUB - 1) // PER_HUB
            links = "".join(f'<li><a href="/hub/{h}">hub {h}</a></li>' for h in range(hubs))
            return self._send(200, f"<html><head><title>Soak</title></head><body><ul>{links}</ul></body></html>".encode())
        if path.startswith("/hub/"):
            h = int(path.rsplit("/", 1)[1])
            links = "".join(f'<li><a href="/p/{i}">page {i}</a></li>' for i in range(h * PER_HUB, min(n, (h + 1) * PER_HUB)))
            return self._send(200, f"<html><head><title>Hub {h}</title></head><body><ul>{links}</ul></body></html>".encode())
        if path.startswith("/p/"):
            i = int(path.rsplit("/", 1)[1])
            fault = fault_of(i)
            if fault == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                self.close_connection = True
                self.connection.close()
                return None
            if fault == "hang":
                deadline = time.monotonic() + self.server.hang_s
                while time.monotonic() < deadline and not self.server.stopping:
                    time.sleep(0.1)
                return None
            if fault == "truncated":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "5000")
                self.end_headers()
                self.wfile.write(b"<html><body>cut")
                self.close_connection = True
                return None
            if fault == "status503":
                return self._send(503, b"<html><body>busy</body></html>")
            if fault == "bomb":
                return self._send(200, _BOMB, {"Content-Encoding": "gzip"})
            body = (
                f"<html><head><title>Page {i}</title></head><body><main><article><h1>Page {i}</h1>"
                f"<p>{_TEXT} Page {i} of the soak site.</p><p>{_TEXT[::-1]}</p></article></main></body></html>"
            )
            return self._send(200, body.encode())
        return self._send(404, b"<html><body>no</body></html>")


class SoakServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:  # resets are the point here
        pass

    def __init__(self, pages: int, hang_s: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pages = pages
        self.hang_s = hang_s
        self.lock = threading.Lock()
        self.hits: Counter[str] = Counter()
        self.stopping = False
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"


def _rss_tree_mb(pid: int) -> float:
    import psutil

    try:
        p = psutil.Process(pid)
        procs = [p, *p.children(recursive=True)]
        return sum(q.memory_info().rss for q in procs if q.is_running()) / 2**20
    except psutil.Error:
        return 0.0


def _slope(samples: list[tuple[float, float]]) -> float:
    """MB per minute, least squares over the second half of the samples."""
    half = samples[len(samples) // 2 :]
    if len(half) < 3:
        return 0.0
    xs, ys = [t for t, _ in half], [m for _, m in half]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs) or 1.0
    return 60.0 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den


def run(pages: int, workdir: Path, hang_s: float = 30.0, timeout_s: float = 2.0) -> dict:
    server = SoakServer(pages, hang_s)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    recipes = workdir / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "soak.toml").write_text(
        'start_urls = ["http://127.0.0.1/"]\n[follow]\nmax_depth = 2\nmax_pages = 1000000\n'
        "[validation]\nmin_markdown_chars = 50\n[gate]\nmin_chars = 50\n"
    )
    store = workdir / "store"
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "soak", "-a", f"start_url={server.base_url}/",
        "-s", f"GATECRAWL_RECIPES_DIRS={recipes}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
        "-s", f"DOWNLOAD_TIMEOUT={timeout_s}", "-s", "RETRY_TIMES=1", "-s", "GATECRAWL_RETRY_BACKOFF_BASE=0.05",
        "-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32", "-s", "DOWNLOAD_MAXSIZE=2000000",
        "-s", f"LOG_FILE={workdir / 'soak.log'}", "-s", "LOG_LEVEL=INFO", "-s", "GATECRAWL_REPORT_HTML=False",
    ]
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.1:{server.server_address[1]}"}
    t0 = time.monotonic()
    err_path = workdir / "soak.stderr"
    err_file = open(err_path, "wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err_file)
    samples: list[tuple[float, float]] = []
    while proc.poll() is None:
        samples.append((time.monotonic() - t0, _rss_tree_mb(proc.pid)))
        time.sleep(1.0)
    elapsed = time.monotonic() - t0
    err_file.close()
    stderr = err_path.read_text("utf-8", "replace")
    server.stopping = True
    server.shutdown()
    server.server_close()

    packets = {}
    for folder in ("pages", "quarantine"):
        for f in (store / "soak" / folder).glob("*.json"):
            p = json.loads(f.read_text("utf-8"))
            packets[p["url_requested"].replace(server.base_url, "")] = p
    page_paths = [f"/p/{i}" for i in range(pages)]
    missing = [p for p in page_paths if p not in packets]
    untyped = [p for p, pk in packets.items() if pk["outcome"] == "dropped" and not pk["drop_reason"]]
    by_fault: dict[str, Counter] = {}
    wrong_kept = 0
    for i, path in enumerate(page_paths):
        pk = packets.get(path)
        if pk is None:
            continue
        fault = fault_of(i) or "none"
        by_fault.setdefault(fault, Counter())[pk["drop_reason"] or "kept"] += 1
        if fault != "none" and pk["outcome"] == "kept":
            wrong_kept += 1
    stats = {}
    runs = sorted((store / "soak" / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    for r in runs:
        data = json.loads(r.read_text("utf-8"))
        if "stats" in data:
            stats = data["stats"]
    log = (workdir / "soak.log").read_text("utf-8", "replace") if (workdir / "soak.log").exists() else ""
    peak = max((m for _, m in samples), default=0.0)
    return {
        "pages": pages,
        "faulty_share": round(sum(1 for i in range(pages) if fault_of(i)) / pages, 3),
        "elapsed_s": round(elapsed, 1),
        "pages_per_s": round(pages / elapsed, 1) if elapsed else 0.0,
        "exit_code": proc.returncode,
        "packets": len(packets),
        "missing_packets": len(missing),
        "untyped_drops": len(untyped),
        "faulty_pages_kept": wrong_kept,
        "outcomes_by_fault": {k: dict(sorted(v.items())) for k, v in sorted(by_fault.items())},
        "rss_peak_mb": round(peak, 1),
        "rss_slope_mb_per_min": round(_slope(samples), 2),
        "rss_samples": len(samples),
        "browser_pages_open": int(stats.get("playwright/page_count", 0)) - int(stats.get("playwright/page_count/closed", 0)),
        "traceback_in_log": "Traceback" in log,
        "stderr_tail": stderr[-300:] if proc.returncode not in (0, 1) else "",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gatecrawl-soak-") as tmp:
        result = run(args.pages, Path(args.workdir or tmp))
    for k, v in result.items():
        if k != "outcomes_by_fault":
            print(f"{k:>24}: {v}")
    for fault, counts in result["outcomes_by_fault"].items():
        print(f"{'fault ' + fault:>24}: {counts}")
    print(json.dumps(result, sort_keys=True))
    ok = result["missing_packets"] == 0 and result["untyped_drops"] == 0 and result["faulty_pages_kept"] == 0 and result["exit_code"] in (0, 1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
