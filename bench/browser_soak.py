"""Browser soak (T20): render N pages through Chromium, about 20% of which fail.

``python -m bench.browser_soak [--pages 500]`` serves a site on 127.0.0.1 where every page is
rendered (recipe policy ``force``) with ``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT=2`` and contexts
recycled every 20 renders. One page in five fails in one of five ways: content that never
arrives (readiness timeout), a 204, a download instead of a page, a script error, a script that
never yields. It checks that the crawl ends, that every page has a packet, that every browser
page and context opened was closed, that image/font/media requests were aborted, and samples
the PSS of the browser process tree. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILURES = ("never", "no_content", "download", "script_error", "busy_loop")
TEXT = "A rendered page with enough distinct words for the readiness contract and the quality gate to pass cleanly. " * 3


def failure_of(i: int) -> str | None:
    k = i % 25
    return FAILURES[k] if k < len(FAILURES) else None


def _page(i: int, kind: str | None) -> tuple[int, dict, bytes]:
    html = "text/html; charset=utf-8"
    if kind == "no_content":
        return 204, {}, b""
    if kind == "download":
        return 200, {"Content-Type": "application/octet-stream", "Content-Disposition": 'attachment; filename="x.bin"'}, b"\0" * 2048
    fill = f"document.getElementById('root').innerHTML = '<main><h1>Page {i}</h1><p>{TEXT}</p><img src=\"/img.png\"></main>';"
    if kind == "never":
        script = ""
    elif kind == "script_error":
        script = fill + " throw new Error('boom');"
    elif kind == "busy_loop":
        script = "setTimeout(function () { while (true) {} }, 0);"
    else:
        script = fill
    body = f"<!doctype html><html><head><title>Page {i}</title></head><body><div id='root'></div><script>{script}</script></body></html>"
    return 200, {"Content-Type": html}, body.encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "SoakSite"

    def log_message(self, *a: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        with self.server.lock:
            self.server.hits[path] += 1
        if path == "/robots.txt":
            status, headers, body = 200, {"Content-Type": "text/plain"}, b"User-agent: *\nAllow: /\n"
        elif path == "/":
            links = "".join(f'<a href="/p/{i}">p{i}</a> ' for i in range(self.server.pages))
            status, headers, body = 200, {"Content-Type": "text/html"}, f"<html><head><title>Index</title></head><body><main><h1>Index</h1><p>{TEXT}</p>{links}</main></body></html>".encode()
        elif path.startswith("/p/"):
            i = int(path.rsplit("/", 1)[1])
            status, headers, body = _page(i, failure_of(i))
        else:
            status, headers, body = 404, {"Content-Type": "text/plain"}, b"no"
        try:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            if status != 204:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status != 204:
                self.wfile.write(body)
        except OSError:
            pass


class SoakSite(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, pages: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pages = pages
        self.lock = threading.Lock()
        self.hits: Counter[str] = Counter()
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request, client_address) -> None:
        pass


def _browser_pss_mb(pid: int) -> float:
    import psutil

    total = 0
    try:
        for q in psutil.Process(pid).children(recursive=True):
            try:
                if "chrom" in q.name().lower():
                    total += q.memory_full_info().pss
            except psutil.Error:
                pass
    except psutil.Error:
        return 0.0
    return total / 2**20


def run(pages: int, workdir: Path) -> dict:
    site = SoakSite(pages)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    recipes = workdir / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "bsoak.toml").write_text(
        'start_urls = ["http://127.0.0.1/"]\n[follow]\nmax_depth = 1\nmax_pages = 100000\n'
        '[render]\npolicy = "force"\n[render.browser]\nmax_render_time_ms = 2500\nmin_main_text_chars = 100\n'
        "[validation]\nmin_markdown_chars = 50\n"
    )
    store = workdir / "store"
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "bsoak", "-a", f"start_url={site.base_url}/",
        "-s", f"GATECRAWL_RECIPES_DIRS={recipes}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
        "-s", "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT=2", "-s", "GATECRAWL_BROWSER_CONTEXT_MAX_PAGES=20",
        "-s", "CONCURRENT_REQUESTS=4", "-s", "RETRY_TIMES=0", "-s", "GATECRAWL_REPORT_HTML=False",
        "-s", f"LOG_FILE={workdir / 'bsoak.log'}",
    ]
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.1:{site.server_address[1]}"}
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pss: list[float] = []
    while proc.poll() is None:
        pss.append(_browser_pss_mb(proc.pid))
        time.sleep(1.0)
    elapsed = time.monotonic() - t0
    site.shutdown()
    site.server_close()
    packets = {}
    for folder in ("pages", "quarantine"):
        for f in (store / "bsoak" / folder).glob("*.json"):
            p = json.loads(f.read_text("utf-8"))
            packets[p["url_requested"].replace(site.base_url, "")] = p
    stats: dict = {}
    for r in sorted((store / "bsoak" / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime):
        stats = json.loads(r.read_text("utf-8")).get("stats", stats)
    outcomes: dict[str, Counter] = {}
    for i in range(pages):
        p = packets.get(f"/p/{i}")
        key = failure_of(i) or "ok"
        outcomes.setdefault(key, Counter())[(p or {}).get("drop_reason") or ("kept" if p else "missing")] += 1
    g = lambda k: int(stats.get(k, 0))  # noqa: E731
    return {
        "pages": pages,
        "elapsed_s": round(elapsed, 1),
        "exit_code": proc.returncode,
        "missing_packets": sum(c.get("missing", 0) for c in outcomes.values()),
        "outcomes": {k: dict(sorted(v.items())) for k, v in sorted(outcomes.items())},
        "pages_opened": g("gatecrawl/browser/page_opened"),
        "pages_closed": g("gatecrawl/browser/page_closed"),
        "contexts_opened": g("gatecrawl/browser/context_opened"),
        "contexts_closed": g("gatecrawl/browser/context_closed"),
        "aborted_requests": sum(int(v) for k, v in stats.items() if k.startswith("gatecrawl/browser/aborted/")),
        "browser_pss_peak_mb": round(max(pss, default=0.0), 1),
        "renders_per_s": round(g("gatecrawl/render/requested") / elapsed, 2) if elapsed else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.browser_soak", description=__doc__)
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--workdir", default=None, help="keep the store and log here (default: a temporary folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gatecrawl-bsoak-") as tmp:
        r = run(args.pages, Path(args.workdir or tmp))
    for k, v in r.items():
        print(f"{k:>20}: {v}")
    print(json.dumps(r, sort_keys=True))
    ok = r["missing_packets"] == 0 and r["pages_opened"] == r["pages_closed"] and r["contexts_opened"] == r["contexts_closed"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
