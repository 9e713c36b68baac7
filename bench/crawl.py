"""Crawl throughput: gatecrawl vs the plain Scrapy + trafilatura spider a user would write instead.

``python -m bench.crawl [--pages 1000]`` serves a generated site on 127.0.0.1 (port 0): a root
page, hub pages (100 links each) and N pages, of which 70% are real articles (the article
extraction corpus under ``/work/shared/bench/article-extraction/html``, else the soak text), 10%
junk (``bench/junk``: cookie walls, bot challenges, parked domains...) and 20% broken links
(404), linked only from the articles (depth 3). The articles' own links are made to point off
the site, so both crawlers fetch the same URLs.

It then runs, back to back in one invocation, ``scrapy crawl`` of a gatecrawl recipe and
``scrapy runspider`` of a plain spider (LinkExtractor + ``trafilatura.extract`` in the callback,
items to a JSON-lines feed), both at CONCURRENT_REQUESTS_PER_DOMAIN=8, no delay, robots.txt
obeyed, depth limit 3. For each it prints responses/s (responses received over Scrapy's own
``elapsed_time_seconds``), CPU seconds per kept page (the crawl process and every process it
started: ``getrusage(RUSAGE_CHILDREN)``, or the CPU times of its process tree sampled every 0.2 s
when larger), and the peak RSS of the crawl's process tree
(sampled every 0.2 s; its PSS every second); for gatecrawl also the per-stage times from its ``gatecrawl/stage_ms/*``
stats (fetch is summed download latency, overlapping; the others are time spent in the stage).
gatecrawl runs with its defaults otherwise (render policy ``auto``: junk pages that look like
shells are rendered in the browser); ``-s NAME=VALUE`` passes settings to its crawl.
Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARTICLES_DIR = Path("/work/shared/bench/article-extraction/html")
JUNK_DIR = ROOT / "bench" / "junk"
PER_HUB = 100
CONCURRENCY = 8
MAX_DEPTH = 3
STAGES = ("fetch", "verdict", "links", "convert", "export")

_HREF = re.compile(rb"""(<a\b[^>]*?\bhref\s*=\s*)(["']?)(?!https?:|#|mailto:|javascript:)""", re.I)
_FALLBACK_TEXT = (
    "Throughput pages carry enough distinct words to pass the gate: crawler, packet, gate, render, "
    "extraction, Markdown, validation, evidence, store, recipe, policy, budget, readiness, drift. "
)


def _articles() -> list[bytes]:
    out = []
    if ARTICLES_DIR.is_dir():
        for f in sorted(ARTICLES_DIR.glob("*.html.gz")):
            out.append(gzip.decompress(f.read_bytes()))
    if not out:
        for i in range(20):
            body = f"<html><head><title>Article {i}</title></head><body><main><article><h1>Article {i}</h1>"
            body += "".join(f"<p>{_FALLBACK_TEXT} Paragraph {j} of article {i}.</p>" for j in range(12))
            out.append((body + "</article></main></body></html>").encode())
    # The article's own relative links would land on this site as unplanned 404s: send them off site.
    return [_HREF.sub(rb"\1\2https://origin.invalid/", a) for a in out]


def _junk() -> list[bytes]:
    labels = json.loads((JUNK_DIR / "labels.json").read_text("utf-8"))
    return [
        _HREF.sub(rb"\1\2https://origin.invalid/", (JUNK_DIR / p["file"]).read_bytes())
        for p in labels["pages"]
        if p.get("status", 200) == 200 and p.get("expected_drop") and (JUNK_DIR / p["file"]).is_file()
    ]


class Site:
    """Page i is an article, junk or broken by a fixed pattern: per 10 pages, 7 articles, 1 junk,
    2 broken. Broken pages are linked from articles only; hubs link articles and junk."""

    def __init__(self, pages: int) -> None:
        self.pages = pages
        self.articles = _articles()
        self.junk = _junk()
        self.kind = ["article" if i % 10 < 7 else "junk" if i % 10 == 7 else "broken" for i in range(pages)]
        self.listed = [i for i in range(pages) if self.kind[i] != "broken"]
        broken = [i for i in range(pages) if self.kind[i] == "broken"]
        arts = [i for i in range(pages) if self.kind[i] == "article"]
        self.links_of: dict[int, list[int]] = {i: [] for i in arts}
        for n, b in enumerate(broken):  # each broken URL linked from one article (and a neighbour)
            self.links_of[arts[n % len(arts)]].append(b)
        for n, a in enumerate(arts):  # and a related article already listed on a hub
            self.links_of[a].append(arts[(n + 1) % len(arts)])

    def body(self, path: str) -> tuple[int, bytes]:
        if path == "/robots.txt":
            return 200, b"User-agent: *\nAllow: /\n"
        if path == "/":
            hubs = (len(self.listed) + PER_HUB - 1) // PER_HUB
            links = "".join(f'<li><a href="/hub/{h}">Section {h}</a></li>' for h in range(hubs))
            return 200, f"<html><head><title>Site</title></head><body><h1>Sections</h1><ul>{links}</ul></body></html>".encode()
        if path.startswith("/hub/"):
            h = int(path.rsplit("/", 1)[1])
            ids = self.listed[h * PER_HUB : (h + 1) * PER_HUB]
            links = "".join(f'<li><a href="/p/{i}">Story {i}</a></li>' for i in ids)
            return 200, f"<html><head><title>Section {h}</title></head><body><h1>Section {h}</h1><ul>{links}</ul></body></html>".encode()
        if path.startswith("/p/"):
            try:
                i = int(path.rsplit("/", 1)[1])
            except ValueError:
                return 404, b"<html><body>Not found</body></html>"
            if not 0 <= i < self.pages or self.kind[i] == "broken":
                return 404, b"<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>"
            if self.kind[i] == "junk":
                return 200, self.junk[i % len(self.junk)]
            html = self.articles[i % len(self.articles)]
            nav = "".join(f'<a href="/p/{j}">Related {j}</a> ' for j in self.links_of.get(i, ()))
            nav_b = f'<nav class="related">{nav}</nav>'.encode()
            k = html.lower().rfind(b"</body>")
            return 200, (html[:k] + nav_b + html[k:]) if k >= 0 else html + nav_b
        return 404, b"<html><body>Not found</body></html>"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "SiteServer"

    def log_message(self, *a: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        status, body = self.server.site.body(self.path.split("?", 1)[0])
        self.send_response(status)
        ctype = "text/plain" if self.path == "/robots.txt" else "text/html; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self, site: Site) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site = site
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"


def _serve(pages: int, conn: Any) -> None:
    server = SiteServer(Site(pages))
    conn.send(server.server_address[1])
    server.serve_forever()


PLAIN_SPIDER = '''
import json
import scrapy
import trafilatura
from scrapy.linkextractors import LinkExtractor


class PlainSpider(scrapy.Spider):
    name = "plain"

    def __init__(self, start_url, stats_out, **kw):
        super().__init__(**kw)
        self.start_urls = [start_url]
        self.allowed_domains = ["127.0.0.1"]
        self.stats_out = stats_out
        self.links = LinkExtractor()

    def parse(self, response):
        self.crawler.stats.inc_value("plain/fetch_ms", int(response.meta.get("download_latency", 0) * 1000))
        text = trafilatura.extract(response.text, url=response.url) if response.status < 400 else None
        if text:
            self.crawler.stats.inc_value("plain/kept")
            yield {"url": response.url, "text": text}
        for link in self.links.extract_links(response):
            yield response.follow(link, callback=self.parse)

    def closed(self, reason):
        with open(self.stats_out, "w") as fh:
            json.dump(self.crawler.stats.get_stats(), fh, default=str)
'''


def _tree(pid: int) -> list:
    import psutil

    try:
        p = psutil.Process(pid)
        return [p, *p.children(recursive=True)]
    except psutil.Error:
        return []


_NAMES: dict[int, str] = {}


def _pss_tree_mb(pid: int) -> float:
    """Proportional set size of the process tree (shared pages split between their users: the
    browser's processes share much of their memory, which a sum of RSS counts many times)."""
    total = 0
    for q in _tree(pid):
        try:
            with open(f"/proc/{q.pid}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except (OSError, ValueError):
            pass
    return total / 1024


def _sample(pid: int, cpu: dict[int, float], by_name: dict[str, float]) -> float:
    """RSS of the process tree in MB; records each process's CPU seconds in ``cpu`` and the RSS
    per process name in ``by_name``."""
    import psutil

    total = 0
    by_name.clear()
    for q in _tree(pid):
        try:
            with q.oneshot():
                rss = q.memory_info().rss
                t = q.cpu_times()
                name = q.name()
            cpu[q.pid] = t.user + t.system
            _NAMES[q.pid] = name
            total += rss
            by_name[name] = by_name.get(name, 0.0) + rss / 2**20
        except psutil.Error:
            pass
    return total / 2**20


def _run(cmd: list[str], cwd: Path, env: dict, log: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(log.with_suffix(".stderr"), "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0.0
        sampled: dict[int, float] = {}
        names: dict[str, float] = {}
        peak_names: dict[str, float] = {}
        peak_pss = 0.0
        n = 0
        while proc.poll() is None:
            rss = _sample(proc.pid, sampled, names)
            if rss > peak:
                peak, peak_names = rss, dict(names)
            if n % 5 == 0:
                peak_pss = max(peak_pss, _pss_tree_mb(proc.pid))
            n += 1
            time.sleep(0.2)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Processes the crawl reaped count in its rusage; workers of a fork server do not (their
    # parent is not waited for), so the sampled CPU of every process seen is the other bound.
    cpu = max((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), sum(sampled.values()))
    top = {k: round(v, 1) for k, v in sorted(peak_names.items(), key=lambda kv: -kv[1])}
    by_name: dict[str, float] = {}
    for p, c in sampled.items():
        label = "crawl" if p == proc.pid else _NAMES.get(p, "?")
        by_name[label] = by_name.get(label, 0.0) + c
    cpu_by = {k: round(v, 1) for k, v in sorted(by_name.items(), key=lambda kv: -kv[1])}
    return {"exit_code": proc.returncode, "wall_s": wall, "cpu_s": cpu, "rss_peak_mb": peak, "pss_peak_mb": peak_pss, "rss_peak_by_process": top, "cpu_s_by_process": cpu_by}


def _log_stats(log: Path) -> dict:
    """Scrapy's own counters from the stats dump at the end of a crawl log."""
    text = log.read_text("utf-8", "replace") if log.exists() else ""
    dump = text.rsplit("Dumping Scrapy stats:", 1)[-1]
    out: dict = {}
    for key in ("response_received_count", "elapsed_time_seconds"):
        m = re.search(rf"'{key}': ([0-9.]+)", dump)
        if m:
            out[key] = float(m.group(1))
    return out


def _summary(run: dict, stats: dict, kept: int) -> dict:
    responses = int(stats.get("response_received_count", 0))
    elapsed = float(stats.get("elapsed_time_seconds") or run["wall_s"])
    return {
        "exit_code": run["exit_code"],
        "responses": responses,
        "kept": kept,
        "elapsed_s": round(elapsed, 2),
        "wall_s": round(run["wall_s"], 2),
        "responses_per_s": round(responses / elapsed, 1) if elapsed else 0.0,
        "cpu_s": round(run["cpu_s"], 2),
        "cpu_s_per_kept": round(run["cpu_s"] / kept, 4) if kept else None,
        "rss_peak_mb": round(run["rss_peak_mb"], 1),
        "pss_peak_mb": round(run["pss_peak_mb"], 1),
        "rss_peak_by_process": run["rss_peak_by_process"],
        "cpu_s_by_process": run["cpu_s_by_process"],
    }


def run_gatecrawl(base_url: str, port: int, workdir: Path, extra: list[str] | None = None) -> dict:
    recipes = workdir / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "crawlbench.toml").write_text(
        f'start_urls = ["http://127.0.0.1/"]\n[follow]\nmax_depth = {MAX_DEPTH}\nmax_pages = 1000000\n'
    )
    store = workdir / "store"
    log = workdir / "gatecrawl.log"
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "crawlbench", "-a", f"start_url={base_url}/",
        "-s", f"GATECRAWL_RECIPES_DIRS={recipes}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
        "-s", f"GATECRAWL_SPOOL_DIR={workdir / 'spool'}",
        "-s", "CONCURRENT_REQUESTS=16", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
        "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
        "-s", f"LOG_FILE={log}", "-s", "LOG_LEVEL=INFO", "-s", "GATECRAWL_REPORT_HTML=False",
        *(extra or []),
    ]
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.1:{port}"}
    run = _run(cmd, ROOT, env, log)
    stats: dict = {}
    for r in sorted((store / "crawlbench" / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime):
        data = json.loads(r.read_text("utf-8"))
        stats = data.get("stats") or stats
    stats = {**stats, **_log_stats(log)}
    out = _summary(run, stats, int(stats.get("gatecrawl/kept", 0)))
    out["stage_s"] = {s: round(int(stats.get(f"gatecrawl/stage_ms/{s}", 0)) / 1000, 2) for s in STAGES}
    out["dropped"] = int(stats.get("gatecrawl/dropped", 0))
    if run["exit_code"] not in (0, 1):
        out["stderr_tail"] = log.with_suffix(".stderr").read_text("utf-8", "replace")[-500:]
    return out


def run_plain(base_url: str, workdir: Path) -> dict:
    spider = workdir / "plain_spider.py"
    spider.write_text(PLAIN_SPIDER)
    stats_out = workdir / "plain_stats.json"
    log = workdir / "plain.log"
    cmd = [
        sys.executable, "-m", "scrapy", "runspider", str(spider), "-a", f"start_url={base_url}/",
        "-a", f"stats_out={stats_out}", "-o", str(workdir / "plain.jsonl"),
        "-s", "CONCURRENT_REQUESTS=16", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
        "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "ROBOTSTXT_OBEY=True",
        "-s", f"DEPTH_LIMIT={MAX_DEPTH}", "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", f"LOG_FILE={log}", "-s", "LOG_LEVEL=INFO",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}
    env.pop("PYTHONPATH", None)
    run = _run(cmd, workdir, env, log)  # cwd outside the project: no scrapy.cfg, Scrapy's defaults
    stats = json.loads(stats_out.read_text("utf-8")) if stats_out.exists() else {}
    out = _summary(run, stats, int(stats.get("plain/kept", 0)))
    out["stage_s"] = {"fetch": round(int(stats.get("plain/fetch_ms", 0)) / 1000, 2)}
    return out


def run(pages: int, workdir: Path, extra: list[str] | None = None, rounds: int = 1) -> dict:
    """``rounds`` times gatecrawl then the plain spider, back to back on one site (a fresh store
    each time); the ratio is the median of the rounds' ratios (the machine's load moves)."""
    site = Site(pages)
    # The site is served from its own process: the sampling of the crawl's process tree here
    # (longer for a tree with a browser) must not slow the server down.
    ctx = multiprocessing.get_context("spawn")
    parent_end, child_end = ctx.Pipe()
    server_proc = ctx.Process(target=_serve, args=(pages, child_end), daemon=True)
    server_proc.start()
    port = parent_end.recv()
    base_url = f"http://127.0.0.1:{port}"
    results = []
    try:
        for n in range(rounds):
            wd = workdir / f"round{n + 1}" if rounds > 1 else workdir
            (wd / "gc").mkdir(parents=True, exist_ok=True)
            (wd / "plain").mkdir(parents=True, exist_ok=True)
            gc = run_gatecrawl(base_url, port, wd / "gc", extra)
            plain = run_plain(base_url, wd / "plain")
            ratio = round(gc["responses_per_s"] / plain["responses_per_s"], 3) if plain["responses_per_s"] else 0.0
            results.append((ratio, gc, plain))
    finally:
        server_proc.terminate()
        server_proc.join(10)
    ratios = [r for r, _, _ in results]
    median = sorted(results, key=lambda t: t[0])[(len(results) - 1) // 2]
    return {
        "pages": pages,
        "site": {k: site.kind.count(k) for k in ("article", "junk", "broken")},
        "gatecrawl": median[1],
        "plain": median[2],
        "ratio": median[0],
        "ratios": ratios,
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.crawl", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1000, help="pages on the generated site (default 1000)")
    ap.add_argument("--workdir", default=None, help="keep the crawl outputs here (default: a temporary folder)")
    ap.add_argument("--rounds", type=int, default=1, help="alternate the two crawls this many times; median ratio (default 1)")
    ap.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                    help="an extra setting for the gatecrawl crawl (repeatable)")
    args = ap.parse_args(argv)
    extra = [x for s in args.settings for x in ("-s", s)]
    with tempfile.TemporaryDirectory(prefix="gatecrawl-crawlbench-") as tmp:
        result = run(args.pages, Path(args.workdir or tmp), extra, max(1, args.rounds))
    print(f"site: {result['pages']} pages {result['site']}, {result['cpus']} CPUs")
    for name in ("gatecrawl", "plain"):
        r = result[name]
        print(
            f"{name:>10}: {r['responses_per_s']:>7} responses/s ({r['responses']} in {r['elapsed_s']} s, wall {r['wall_s']} s), "
            f"kept {r['kept']}, CPU {r['cpu_s']} s = {r['cpu_s_per_kept']} s/kept page, peak RSS {r['rss_peak_mb']} MB (PSS {r['pss_peak_mb']} MB), exit {r['exit_code']}"
        )
    print(f"{'peak RSS':>10}: " + ", ".join(f"{k} {v} MB" for k, v in result["gatecrawl"]["rss_peak_by_process"].items()))
    print(f"{'CPU s':>10}: " + ", ".join(f"{k} {v}" for k, v in result["gatecrawl"]["cpu_s_by_process"].items()))
    print(f"{'stages':>10}: " + ", ".join(f"{s} {v} s" for s, v in result["gatecrawl"]["stage_s"].items())
          + f" (plain: fetch {result['plain']['stage_s']['fetch']} s)")
    print(f"{'ratio':>10}: {result['ratio']}" + (f" (median of rounds {result['ratios']}; figures above from that round)" if len(result["ratios"]) > 1 else ""))
    print(json.dumps(result, sort_keys=True))
    ok = result["gatecrawl"]["exit_code"] in (0, 1) and result["plain"]["exit_code"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
