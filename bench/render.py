"""Render benchmark: ``.venv/bin/python -m bench.render`` (one run; the last line is JSON).

1. Render economy: a generated 200-page site on 127.0.0.1 (70% static articles, 20% PDFs,
   10% shells of five kinds) crawled with ``scrapy crawl demo``: render rate, false
   escalations (non-shells rendered), missed shells (shells not rendered), pages kept correctly.
2. Readiness latency: shells whose data arrives T = 300, 800, 2000 ms after the page asks
   for it; median time from navigation to the captured DOM with gatecrawl's readiness (A + D
   defaults) vs a fixed 3 s sleep vs Playwright's ``networkidle``, as ratios; the margin over
   the moment the content really appeared (the page stamps it), and partial snapshots.
3. Browser cost: peak PSS of the Chromium process tree while rendering 100 shells (4 at a
   time, one context), and pages/s.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from gatecrawl.browser.options import BrowserOptions, find_system_chromium, launch_args
from gatecrawl.browser.readiness import ReadinessSession, render_with_readiness
from gatecrawl.demo import dynamic
from gatecrawl.demo.site import _article_paragraphs, make_pdf

ROOT = Path(__file__).resolve().parents[1]
MARK = "Closing section of the delayed story"


def _article(i: int) -> str:
    paras = "".join(f"<p>{p}</p>" for p in _article_paragraphs(i, 5))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Article {i}</title></head><body>'
            f'<header><nav><a href="/">Home</a></nav></header><main><article><h1>Static article number {i}</h1>'
            f'{paras}</article></main><footer>Bench site</footer></body></html>')


_LAT_JS = """
fetch('/api/lat/' + location.pathname.split('/').pop()).then(function (r) { return r.json(); }).then(function (d) { gcBuild(document.getElementById('root'), d); window.__contentAt = performance.now(); });
"""


def build_site() -> tuple[dict[str, tuple[str, object]], dict[str, str]]:
    """path -> (content type, body or callable), and path -> kind for the 200 crawled pages."""
    routes: dict[str, tuple[str, object]] = {}
    kinds: dict[str, str] = {}
    for i in range(140):
        routes[f"/a/{i}"] = ("text/html; charset=utf-8", _article(i))
        kinds[f"/a/{i}"] = "static"
    for i in range(40):
        routes[f"/d/{i}.pdf"] = ("application/pdf", make_pdf(f"Report {i}", _article_paragraphs(i + 60, 4)))
        kinds[f"/d/{i}.pdf"] = "pdf"
    shells = ["/dyn/spa", "/dyn/skeleton", "/dyn/route", "/dyn/tabs", "/app/dashboard"]
    from gatecrawl.demo.site import PAGES

    for path, (status, ctype, builder) in PAGES.items():
        if path.startswith(("/static/", "/api/")) or path in shells:
            routes[path] = (ctype, builder)
    for i in range(20):
        base = shells[i % len(shells)]
        routes[f"/s/{i}"] = routes[base]
        kinds[f"/s/{i}"] = "shell"
    for t in (300, 800, 2000):
        routes[f"/lat/{t}"] = ("text/html; charset=utf-8", dynamic.shell_html(f"Delayed {t}", "/static/bench/lat.js"))
        payload = dynamic.article_json(f"Story after {t} ms", t % 7, sections=3)
        payload["sections"].append({"heading": MARK, "text": "The last words arrive together with the rest of the story."})

        def delayed(t=t, payload=payload):
            time.sleep(t / 1000)
            return json.dumps(payload)

        routes[f"/api/lat/{t}"] = ("application/json", delayed)
    routes["/static/bench/lat.js"] = ("application/javascript", dynamic._BUILD_JS + _LAT_JS)
    routes["/robots.txt"] = ("text/plain", "User-agent: *\nAllow: /\n")
    return routes, kinds


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        entry = self.server.routes.get(urlsplit(self.path).path)  # type: ignore[attr-defined]
        if entry is None:
            status, ctype, body = 404, "text/html", b"<h1>Not found</h1>"
        else:
            ctype, b = entry
            b = b() if callable(b) else b
            status, body = 200, b if isinstance(b, bytes) else b.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a: object) -> None:
        pass


def serve(routes: dict) -> tuple[ThreadingHTTPServer, str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    srv.routes = routes  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def economy(base: str, kinds: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        urls = " ".join(base + p for p in kinds)
        cmd = [str(Path(sys.executable).with_name("scrapy")), "crawl", "demo", "-a", f"start_url={urls}", "-a", f"max_pages={len(kinds) + 50}",
               "-s", f"GATECRAWL_STORE_URI=file://{tmp}", "-s", f"LOG_FILE={tmp}/crawl.log", "-s", "GATECRAWL_SUMMARY_PRINT=False"]
        t = time.monotonic()
        subprocess.run(cmd, cwd=ROOT, env={**os.environ, "GATECRAWL_EGRESS_ALLOW": "127.0.0.1"}, check=False, capture_output=True)
        elapsed = time.monotonic() - t
        packets = {}
        for sub in ("pages", "quarantine"):
            for f in Path(tmp, "demo", sub).glob("*.json"):
                p = json.loads(f.read_text("utf-8"))
                packets[urlsplit(p["url_final"]).path] = p
    rendered = [p for p, k in kinds.items() if p in packets and packets[p]["reader"] == "render"]
    false_esc = [p for p in rendered if kinds[p] != "shell"]
    missed = [p for p, k in kinds.items() if k == "shell" and (p not in packets or packets[p]["reader"] != "render")]
    kept_correct = sum(1 for p in kinds if p in packets and packets[p]["outcome"] == "kept")
    return {
        "pages": len(kinds),
        "packets": sum(1 for p in kinds if p in packets),
        "shell_share": round(sum(1 for k in kinds.values() if k == "shell") / len(kinds), 3),
        "render_rate": round(len(rendered) / len(kinds), 3),
        "false_escalations": len(false_esc),
        "missed_shells": len(missed),
        "kept_correct": kept_correct,
        "crawl_s": round(elapsed, 1),
    }


async def latency(base: str, exe: str, runs: int = 3) -> dict:
    from playwright.async_api import async_playwright

    opts = BrowserOptions.from_table({})
    out: dict = {"stability_window_ms": opts.stability_window_ms, "by_T": {}}
    partial = {"readiness": 0, "sleep3s": 0, "networkidle": 0}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=exe, args=launch_args())
        ctx = await browser.new_context(**opts.context_kwargs())
        for t in (300, 800, 2000):
            url = f"{base}/lat/{t}"
            times: dict[str, list[float]] = {"readiness": [], "sleep3s": [], "networkidle": []}
            appear: list[float] = []
            for _ in range(runs):
                # gatecrawl's readiness, timed like the baselines: from navigation to DOM captured
                page = await ctx.new_page()
                session = ReadinessSession(opts)
                await session.init_page(page)
                t0 = time.monotonic()
                await page.goto(url, wait_until="commit")
                report = await session.wait_ready(page)
                html = await page.content()
                times["readiness"].append((time.monotonic() - t0) * 1000)
                appear.append(await page.evaluate("window.__contentAt || 0"))
                await page.close()
                partial["readiness"] += int(not (html and MARK in html and report["render_readiness_passed"]))
                for name in ("sleep3s", "networkidle"):
                    page = await ctx.new_page()
                    t0 = time.monotonic()
                    if name == "sleep3s":
                        await page.goto(url, wait_until="load")
                        await asyncio.sleep(3)
                    else:
                        await page.goto(url, wait_until="networkidle")
                    html = await page.content()
                    times[name].append((time.monotonic() - t0) * 1000)
                    partial[name] += int(MARK not in html)
                    await page.close()
            med = {k: statistics.median(v) for k, v in times.items()}
            seen = statistics.median(appear)  # when the content really appeared (ms after navigation start)
            out["by_T"][str(t)] = {
                "content_appears_ms": round(seen),
                "readiness_ms": round(med["readiness"]),
                "sleep3s_ms": round(med["sleep3s"]),
                "networkidle_ms": round(med["networkidle"]),
                "ratio_vs_sleep3s": round(med["readiness"] / med["sleep3s"], 2),
                "ratio_vs_networkidle": round(med["readiness"] / med["networkidle"], 2),
                "margin_over_T_ms": round(med["readiness"] - seen),
                "within_target": med["readiness"] <= seen + opts.stability_window_ms + 400,
            }
        await ctx.close()
        await browser.close()
    out["partial"] = partial
    return out


def _tree_pss_kib(root: int) -> int:
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
                parents[int(d)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    tree, frontier = set(), {root}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - tree
        tree |= frontier
    total = 0
    for pid in tree:
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


async def memory(base: str, exe: str, n: int = 100) -> dict:
    from playwright.async_api import async_playwright

    opts = BrowserOptions.from_table({})
    paths = [f"/s/{i % 20}" for i in range(n)]
    peak = 0
    stop = False

    async def sample() -> None:
        nonlocal peak
        while not stop:
            peak = max(peak, _tree_pss_kib(os.getpid()))
            await asyncio.sleep(0.2)

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=exe, args=launch_args())
        ctx = await browser.new_context(**opts.context_kwargs())
        sampler = asyncio.create_task(sample())
        sem = asyncio.Semaphore(4)
        ok = 0

        async def one(path: str) -> None:
            nonlocal ok
            async with sem:
                report, html = await render_with_readiness(ctx, base + path, opts)
                ok += int(bool(report["render_readiness_passed"]))

        t0 = time.monotonic()
        await asyncio.gather(*(one(x) for x in paths))
        elapsed = time.monotonic() - t0
        stop = True
        await sampler
        await ctx.close()
        await browser.close()
    return {"pages": n, "ready": ok, "peak_pss_mib": round(peak / 1024), "pages_per_s": round(n / elapsed, 2), "concurrency": 4}


def main() -> int:
    exe = find_system_chromium()
    if exe is None:
        print(json.dumps({"error": "no Chromium installed"}))
        return 1
    routes, kinds = build_site()
    srv, base = serve(routes)
    try:
        eco = economy(base, kinds)
        print("economy:", json.dumps(eco), flush=True)
        lat = asyncio.run(latency(base, exe))
        print("latency:", json.dumps(lat), flush=True)
        mem = asyncio.run(memory(base, exe))
        print("browser:", json.dumps(mem), flush=True)
    finally:
        srv.shutdown()
    targets = {
        "render_rate_equals_shell_share": eco["render_rate"] == eco["shell_share"],
        "false_escalations_0": eco["false_escalations"] == 0,
        "missed_shells_0": eco["missed_shells"] == 0,
        "latency_within_T_plus_window_plus_400ms": all(v["within_target"] for v in lat["by_T"].values()),
        "partial_extractions_0": lat["partial"]["readiness"] == 0,
    }
    print(json.dumps({"bench": "render", "economy": eco, "latency": lat, "browser": mem, "targets_met": targets}, sort_keys=True))
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
