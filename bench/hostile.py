"""Hostile inputs (issue 15, T33): redaction time on 1 MB adversarial strings, and a crawl
with pathological pages.

Usage: ``python -m bench.hostile [--size BYTES] [--limit SECONDS] [--crawl] [--pages N]``

Each input is about ``--size`` characters (1 MB by default) built to make a backtracking pattern
blow up: one long token-like word, runs of secret names, dotted and dashed words before ``://``,
a header name followed by a megabyte of spaces, an opening quote that never closes, ``name:``
repeated, userinfo-like URLs repeated, escaped quotes. Every input goes through
``gatecrawl.core.redact.redact_text`` ``--repeat`` times (3); the best run counts (the machine may
be shared) and the slowest is reported too. The last line is JSON: ``{"redact": {name: seconds},
"redact_max_s", "redact_slowest_run_s", "limit_s", "ok"}``. Exit 1 when any input's best run
takes ``--limit`` seconds (0.5 by default) or more.

``--crawl`` also crawls a loopback site (``127.0.0.1``, port 0) holding a page with a 160 KB
``<meta name=description>``, a 15 MB page of tiny paragraphs (under the 16 MB HTML cap) and
``--pages`` ordinary articles, each served after 300 ms. It measures, for the ordinary pages,
fetch-to-export latency above server time (the packet file's write time minus the moment the
server finished sending the page) and the crawler's peak RSS (``ru_maxrss`` of the crawl
process). Targets (issue 15): latency under 2 s, peak RSS under 1 GB. The JSON gets a
``crawl`` object and ``ok`` covers both parts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from gatecrawl.core.redact import redact_text


def adversarial(size: int) -> dict[str, str]:
    def fill(unit: str, head: str = "", tail: str = "") -> str:
        n = max(1, (size - len(head) - len(tail)) // len(unit))
        return head + unit * n + tail

    return {
        "token_like_word": fill("A"),
        "secret_name_run": fill("accessTokenSecret"),
        "dotted_words": fill("a."),
        "dashed_scheme": fill("a-", tail="://x"),
        "header_then_spaces": fill(" ", head="Cookie:", tail="'"),
        "unclosed_quote": fill("x", head="{'clientSecret': '"),
        "names_without_values": fill("sessionToken:"),
        "userinfo_urls": fill("http://u:p@h/;jsessionid=1 "),
        "escaped_quotes": fill("\\'", head="{'token': '"),
        "pairs_and_urls": fill("a=b&accessToken=c https://x/?AWSAccessKeyId=d "),
        "meta_description": fill("lorem ipsum dolor sit amet token-like-words sessionid ", head='<meta name="description" content="'),
    }


ARTICLE = (
    "Careful crawlers keep an honest record of every fetch they make. They separate cheap requests from "
    "expensive renders, measure what they extract, and refuse to store pages that only look like content. "
)


def _article(title: str, head: str = "", body: str = "") -> bytes:
    paras = "".join(f"<p>{ARTICLE} Paragraph {i} of {title}.</p>" for i in range(6))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head><body><main><article>"
        f"<h1>{title}</h1>{paras}<h2>More on {title}</h2><p>{ARTICLE}</p>{body}</article></main></body></html>"
    ).encode()


def hostile_pages() -> dict[str, bytes]:
    words = " ".join(f"sessionToken{i:05d}Value{i * 7919 % 100000:05d}" for i in range(6000))[: 160 * 1024]
    meta = f'<meta name="description" content="{words}">'
    tiny = "".join(f"<p>w{i % 10}</p>" for i in range(15 * 1024 * 1024 // 10))[: 15 * 1024 * 1024 - 400]
    return {
        "/meta-description": _article("Long description", head=meta),
        "/tiny-paragraphs": ("<!doctype html><html><head><title>Tiny</title></head><body><main>" + tiny + "</main></body></html>").encode(),
    }


class _Site(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, pages: dict[str, bytes], delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pages = pages
        self.delay = delay
        self.sent: dict[str, float] = {}
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Site

    def log_message(self, *a: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        body = self.server.pages.get(path)
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path.startswith("/page/"):
            time.sleep(self.server.delay)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        with self.server.lock:
            self.server.sent[path] = time.time()


RECIPE = """start_urls = ["http://x.test/"]
allowed_domains = []
[follow]
max_depth = 0
[validation]
min_markdown_chars = 50
"""


def crawl(pages: int, delay: float = 0.3) -> dict:
    site_pages = hostile_pages()
    for i in range(pages):
        site_pages[f"/page/{i}"] = _article(f"Ordinary page {i}")
    site = _Site(site_pages, delay)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    port = site.server_address[1]
    base = f"http://127.0.0.1:{port}"
    # The hostile pages first, the ordinary ones right behind them.
    urls = [base + "/tiny-paragraphs", base + "/meta-description"] + [f"{base}/page/{i}" for i in range(pages)]
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="gc-hostile-") as tmp:
        tmpd = Path(tmp)
        (tmpd / "recipes").mkdir()
        (tmpd / "recipes" / "hostile.toml").write_text(RECIPE)
        store = tmpd / "store"
        cmd = [
            sys.executable, "-m", "scrapy", "crawl", "hostile", "-a", "start_url=" + " ".join(urls),
            "-s", f"GATECRAWL_STORE_URI=file://{store}", "-s", f"GATECRAWL_RECIPES_DIRS={tmpd / 'recipes'}",
            "-s", f"GATECRAWL_EGRESS_ALLOW=127.0.0.1:{port}", "-s", "ROBOTSTXT_OBEY=False", "-s", "GATECRAWL_RENDER_ENABLED=False",
            "-s", f"GATECRAWL_SPOOL_DIR={tmpd / 'spool'}", "-s", f"LOG_FILE={tmpd / 'crawl.log'}", "-s", "GATECRAWL_REPORT_HTML=False",
        ]
        t0 = time.time()
        proc = subprocess.run(cmd, cwd=root, env={**os.environ, "GATECRAWL_EGRESS_ALLOW": ""}, capture_output=True, text=True, timeout=1800)
        wall = time.time() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        site.shutdown()
        packets = {}
        for folder in ("pages", "quarantine"):
            for f in (store / "hostile" / folder).glob("*.json"):
                doc = json.loads(f.read_text("utf-8"))
                path = "/" + doc["url_requested"].split("/", 3)[3]
                packets[path] = {"exported": f.stat().st_mtime, "outcome": doc.get("outcome"), "drop_reason": doc.get("drop_reason"), "conversion_ms": doc.get("conversion_ms")}
        lat = sorted(
            round(packets[p]["exported"] - site.sent[p], 3) for p in packets if p.startswith("/page/") and p in site.sent
        )
        log_tail = (tmpd / "crawl.log").read_text("utf-8", errors="replace")[-1500:] if (tmpd / "crawl.log").exists() else ""
    hostile = {p: packets.get(p) for p in ("/meta-description", "/tiny-paragraphs")}
    result = {
        "exit_code": proc.returncode,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "ordinary_pages": pages,
        "ordinary_exported": len(lat),
        "latency_above_server_s": {"p50": lat[len(lat) // 2] if lat else None, "max": lat[-1] if lat else None},
        "hostile": hostile,
        "latency_target_s": 2.0,
        "rss_target_mb": 1024,
    }
    result["ok"] = bool(lat) and len(lat) == pages and lat[-1] < 2.0 and peak_kb / 1024 < 1024
    if not lat:
        result["log_tail"] = log_tail
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--limit", type=float, default=0.5)
    ap.add_argument("--repeat", type=int, default=3, help="runs per input; the best counts (shared machines)")
    ap.add_argument("--crawl", action="store_true", help="also crawl the hostile loopback site")
    ap.add_argument("--pages", type=int, default=20)
    args = ap.parse_args(argv)
    times: dict[str, float] = {}
    slowest_run = 0.0
    for name, text in adversarial(args.size).items():
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            redact_text(text)
            runs.append(time.perf_counter() - t0)
        times[name] = round(min(runs), 4)
        slowest_run = max(slowest_run, max(runs))
        print(f"redact_text {name:<22} {len(text):>9,} chars  best {min(runs):.3f} s  worst {max(runs):.3f} s", flush=True)
    worst = max(times.values())
    ok = worst < args.limit
    out: dict = {"redact": times, "redact_max_s": worst, "redact_slowest_run_s": round(slowest_run, 4), "repeat": args.repeat, "limit_s": args.limit, "size": args.size}
    if args.crawl:
        out["crawl"] = crawl(args.pages)
        print(f"crawl: {json.dumps(out['crawl'], sort_keys=True)}", flush=True)
        ok = ok and out["crawl"]["ok"]
    out["ok"] = ok
    print(json.dumps(out, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
