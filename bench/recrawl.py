"""Changed-only recrawl benchmark: crawl a loopback site, edit 5% of its pages, crawl again.

The site (127.0.0.1, port 0) answers with ``ETag`` and ``Last-Modified`` and honours
``If-None-Match`` / ``If-Modified-Since`` with ``304 Not Modified``. ``/`` links to section hubs
``/s/<k>``, each hub to its pages ``/p/<k>/<i>``. After the first crawl, 5% of the pages get a new
paragraph; the second crawl runs into the same store.

Reported for each crawl: requests the server answered (and how many were 304), bytes it sent
(status line, headers and body), objects written to the store (``put`` in the run manifest), and
for the second crawl the change list (``<site>/runs/changes/<run id>.json``) against the truth.

Acceptance (issue 18, item 4): second crawl bytes <= 15% of the first's; the pages whose objects
were rewritten are exactly the edited pages; the change list is exact (changed = edited, nothing
added or removed, the rest unchanged). Exit status 1 when one fails. Last line: JSON.

    PYTHONPATH=. .venv/bin/python -m bench.recrawl [--pages 200] [--edit-share 0.05]
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import subprocess
import sys
import tempfile
import threading
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

_WORDS = (
    "river harbour lantern meadow orchard granite quarry beacon willow thistle copper saddle "
    "ember falcon glacier hollow juniper kestrel lagoon marble nettle oyster pebble quill "
    "rowan sorrel timber umber velvet walnut yarrow zephyr anchor bramble cinder drift"
).split()


def _sentence(seed: int, n: int = 14) -> str:
    words = [_WORDS[(seed * 31 + i * 7 + (seed >> 3)) % len(_WORDS)] for i in range(n)]
    return " ".join(words).capitalize() + "."


class RecrawlSite(ThreadingHTTPServer):
    """A site whose pages can be edited between crawls; counts what it sends.

    ``shell_section``: pages of that section are SPA shells (for the routing benchmark): an
    empty app root and a script; their text comes from ``/data/<k>/<i>.json``."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, pages: int = 200, sections: int = 8, *, validators: bool = True, shell_section: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.sections = sections
        self.validators = validators
        self.shell_section = shell_section
        self.paths = ["/"] + [f"/s/{k}" for k in range(sections)]
        # Pages of the shell section live under their own template (/app/{n}/{n}).
        self.leaves = [f"/{'app' if j % sections == shell_section else 'p'}/{j % sections}/{j // sections}" for j in range(max(0, pages - len(self.paths)))]
        self.paths += self.leaves
        self.version: dict[str, int] = {p: 0 for p in self.paths}
        self.mtime: dict[str, float] = {p: 1_700_000_000.0 for p in self.paths}
        self.removed: set[str] = set()
        self.lock = threading.Lock()
        self.requests = 0
        self.not_modified = 0
        self.bytes_sent = 0
        self.hits: dict[str, int] = {}
        self.plain_hits: dict[str, int] = {}  # requests not made by the browser (no Fetch Metadata headers)
        self.shells_on = True  # False: the shell section serves static pages (a site change)
        self.hang: set[str] = set()  # paths answered after hang_s seconds (timeouts)
        self.hang_s = 3.0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> "RecrawlSite":
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def reset_counters(self) -> None:
        with self.lock:
            self.requests = self.not_modified = self.bytes_sent = 0
            self.hits = {}
            self.plain_hits = {}

    def edit(self, path: str, when: float | None = None) -> None:
        with self.lock:
            self.version[path] += 1
            self.mtime[path] = when if when is not None else self.mtime[path] + 86400.0 * self.version[path]

    def is_shell(self, path: str) -> bool:
        return self.shells_on and self.shell_section is not None and path.startswith(f"/app/{self.shell_section}/")

    def children(self, path: str) -> list[str]:
        if path == "/":
            return [f"/s/{k}" for k in range(self.sections)]
        if path.startswith("/s/"):
            k = path.rsplit("/", 1)[1]
            return [p for p in self.leaves if p.split("/")[2] == k and p not in self.removed]
        return []

    def text(self, path: str) -> tuple[str, list[str]]:
        seed = int(hashlib.sha256(path.encode()).hexdigest()[:8], 16)
        title = "Home" if path == "/" else f"Page {path.strip('/').replace('/', ' ')}"
        paras = [_sentence(seed + i) + " " + _sentence(seed + i + 101) for i in range(6)]
        for v in range(self.version.get(path, 0)):
            paras.append(f"Update {v + 1}: " + _sentence(seed + 1000 + v) + " " + _sentence(seed + 2000 + v))
        return title, paras

    def render(self, path: str) -> tuple[int, str, bytes]:
        if path.startswith("/data/"):
            page = "/app/" + path[len("/data/") :].removesuffix(".json")
            if page not in self.version or page in self.removed:
                return 404, "application/json", b"{}"
            title, paras = self.text(page)
            return 200, "application/json", json.dumps({"title": title, "paragraphs": paras}).encode()
        if path == "/sitemap.xml":
            from datetime import datetime, timezone

            urls = "".join(
                f"<url><loc>{self.base_url}{p}</loc><lastmod>{datetime.fromtimestamp(self.mtime[p], timezone.utc).strftime('%Y-%m-%dT%H:%M:%S+00:00')}</lastmod></url>"
                for p in self.paths if p not in self.removed
            )
            return 200, "application/xml", f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'.encode()
        if path == "/app.js":
            return 200, "application/javascript", _APP_JS.encode()
        if path not in self.version or path in self.removed:
            return 404, "text/html; charset=utf-8", b"<!doctype html><title>Not found</title><h1>Not found</h1>"
        title, paras = self.text(path)
        links = "".join(f'<li><a href="{c}">{html.escape(c)}</a></li>' for c in self.children(path))
        nav = '<nav><a href="/">Home</a></nav>'
        if self.is_shell(path):
            data = "/data/" + path[len("/app/") :] + ".json"
            body = f'<div id="app" data-src="{data}"></div><noscript>Please enable JavaScript.</noscript><script src="/app.js"></script>'
        else:
            body = f"<main><article><h1>{html.escape(title)}</h1>" + "".join(f"<p>{html.escape(p)}</p>" for p in paras) + f"<ul>{links}</ul></article></main>"
        # Page weight of an ordinary site (inline styles, a footer with the site map and legal
        # text): about 6 KB per page, small for the web (the median HTML page is over 30 KB).
        foot = "<footer>" + "".join(f'<a href="/s/{k}">Section {k}</a> ' for k in range(self.sections)) + "".join(f"<p>{_sentence(i + 7)}</p>" for i in range(8)) + "</footer>"
        doc = f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_CSS}</style></head><body>{nav}{body}{foot}</body></html>'
        return 200, "text/html; charset=utf-8", doc.encode("utf-8")


_CSS = "".join(f".c{i}{{margin:{i}px;padding:{i % 7}px;color:#{i * 4111 % 0xFFFFFF:06x};font-size:{10 + i % 9}px}}" for i in range(40))

_APP_JS = """(function () {
  var root = document.getElementById('app');
  fetch(root.getAttribute('data-src')).then(function (r) { return r.json(); }).then(function (d) {
    var main = document.createElement('main'); var art = document.createElement('article');
    var h1 = document.createElement('h1'); h1.textContent = d.title; art.appendChild(h1);
    d.paragraphs.forEach(function (t) { var p = document.createElement('p'); p.textContent = t; art.appendChild(p); });
    main.appendChild(art); root.appendChild(main);
  });
})();
"""


class _Handler(BaseHTTPRequestHandler):
    server_version = "gatecrawl-recrawl/1"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        site: RecrawlSite = self.server  # type: ignore[assignment]
        path = urlsplit(self.path).path or "/"
        with site.lock:
            site.requests += 1
            site.hits[path] = site.hits.get(path, 0) + 1
            # The browser navigates with Scrapy's User-Agent, but only it sends Fetch Metadata.
            if self.headers.get("Sec-Fetch-Mode") is None:
                site.plain_hits[path] = site.plain_hits.get(path, 0) + 1
            status, ctype, body = site.render(path)
            mtime = site.mtime.get(path)
            hang = path in site.hang
        if hang:  # counted on arrival, answered too late
            import time

            time.sleep(site.hang_s)
        headers = {"Content-Type": ctype}
        if status == 200 and site.validators and mtime is not None:
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            last_modified = formatdate(mtime, usegmt=True)
            headers["ETag"] = etag
            headers["Last-Modified"] = last_modified
            inm = self.headers.get("If-None-Match")
            ims = self.headers.get("If-Modified-Since")
            fresh = False
            if inm is not None:
                fresh = etag in [t.strip() for t in inm.split(",")]
            elif ims is not None:
                try:
                    fresh = parsedate_to_datetime(ims).timestamp() >= int(mtime)
                except (TypeError, ValueError):
                    fresh = False
            if fresh:
                status, body = 304, b""
                with site.lock:
                    site.not_modified += 1
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        sent = len(f"HTTP/1.1 {status} OK\r\n") + sum(len(k) + len(v) + 4 for k, v in headers.items()) + 40 + len(body)
        with site.lock:
            site.bytes_sent += sent
        if body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


RECIPE = """start_urls = ["{base}/"]
[follow]
max_depth = 3
max_pages = 5000
[validation]
min_markdown_chars = 100
not_found_probe = false
[render]
policy = "{render}"
"""


def crawl(store: Path, recipes: Path, run_id: str, *, extra: dict | None = None, timeout: int = 600) -> dict:
    """``scrapy crawl recrawl_bench`` into ``store``; returns the run manifest."""
    log = store.parent / f"{run_id}.log"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "recrawl_bench", "-a", f"run_id={run_id}",
           "-s", f"GATECRAWL_STORE_URI=file://{store}", "-s", f"GATECRAWL_RECIPES_DIRS={recipes}",
           "-s", f"LOG_FILE={log}", "-s", "GATECRAWL_SPOOL_DIR=" + str(store.parent / "spool"),
           "-s", "GATECRAWL_EGRESS_ALLOW=127.0.0.1", "-s", "ROBOTSTXT_OBEY=False", "-s", "GATECRAWL_REPORT_HTML=False"]
    for k, v in (extra or {}).items():
        cmd += ["-s", f"{k}={v}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})
    manifest = store / "recrawl_bench" / "runs" / f"{run_id}.json"
    if not manifest.exists():
        raise SystemExit(f"crawl {run_id} wrote no manifest (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(manifest.read_text("utf-8"))


def objects_written(manifest: dict) -> dict[str, int]:
    """Page URL -> objects put (Markdown, packet, quarantine) in this run."""
    out = {}
    for p in manifest["pages"]:
        n = sum(1 for status in (p.get("objects") or {}).values() if status == "put")
        if n:
            out[p["url"]] = n
    return out


def routing_part(pages: int = 206, sections: int = 5) -> dict:
    """Learned render routing: a site (no validators: every page is fetched) whose section 0 is
    all SPA shells, crawled twice with render policy auto; plain fetches of the shell template in
    each crawl (the server tells the browser apart by its Fetch Metadata headers)."""
    site = RecrawlSite(pages=pages, sections=sections, validators=False, shell_section=0).start()
    try:
        with tempfile.TemporaryDirectory(prefix="gatecrawl-bench-routing-") as tmp:
            tmpd = Path(tmp)
            recipes = tmpd / "recipes"
            recipes.mkdir()
            (recipes / "recrawl_bench.toml").write_text(RECIPE.format(base=site.base_url, render="auto"))
            store = tmpd / "store"
            shells = [p for p in site.leaves if site.is_shell(p)]
            out = {}
            for run in ("first", "second"):
                site.reset_counters()
                m = crawl(store, recipes, run)
                plain = sum(site.plain_hits.get(p, 0) for p in shells)
                kept = sum(1 for e in m["pages"] if e["outcome"] == "kept" and e["url"] in {site.base_url + p for p in shells})
                st = m["stats"]
                out[run] = {
                    "shell_plain_fetches": plain,
                    "shells_kept": kept,
                    "renders": st.get("gatecrawl/render/requested", 0),
                    "routed": st.get("gatecrawl/routing/routed", 0),
                    "rechecked": st.get("gatecrawl/routing/rechecked", 0),
                    "mispredicted": st.get("gatecrawl/routing/mispredicted", 0),
                    "checks_skipped": st.get("gatecrawl/routing/check_skipped", 0),
                    "verdict_ms": st.get("gatecrawl/stage_ms/verdict", 0),
                    "kept": m["counts"]["kept"],
                }
            model = json.loads((store / "recrawl_bench" / "routing.json").read_text("utf-8"))
    finally:
        site.stop()
    first, second = out["first"]["shell_plain_fetches"], out["second"]["shell_plain_fetches"]
    out["shell_pages"] = len(shells)
    out["plain_fetches_down"] = round(1 - second / first, 4) if first else 0.0
    out["templates"] = model["templates"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--edit-share", type=float, default=0.05)
    ap.add_argument("--no-routing", action="store_true", help="leave out the render-routing part (needs Chromium)")
    args = ap.parse_args(argv)
    site = RecrawlSite(pages=args.pages).start()
    try:
        with tempfile.TemporaryDirectory(prefix="gatecrawl-bench-recrawl-") as tmp:
            tmpd = Path(tmp)
            recipes = tmpd / "recipes"
            recipes.mkdir()
            (recipes / "recrawl_bench.toml").write_text(RECIPE.format(base=site.base_url, render="auto"))
            store = tmpd / "store"
            first = crawl(store, recipes, "first")
            f_req, f_bytes = site.requests, site.bytes_sent
            f_written = objects_written(first)
            n_edit = max(1, round(len(site.paths) * args.edit_share))
            step = max(1, len(site.leaves) // n_edit)
            edited = sorted({site.leaves[i * step] for i in range(n_edit)})
            for p in edited:
                site.edit(p)
            site.reset_counters()
            second = crawl(store, recipes, "second")
            s_req, s_bytes, s_304 = site.requests, site.bytes_sent, site.not_modified
            s_written = objects_written(second)
            changes = json.loads((store / "recrawl_bench" / "runs" / "changes" / "second.json").read_text("utf-8"))
    finally:
        site.stop()
    base = site.base_url
    edited_urls = sorted(base + p for p in edited)
    all_urls = sorted(base + p for p in site.paths)
    ratio = s_bytes / f_bytes if f_bytes else 1.0
    rewritten = sorted(s_written)
    change_exact = (
        changes["changed"] == edited_urls
        and changes["added"] == []
        and changes["removed"] == []
        and changes["unchanged"] == sorted(set(all_urls) - set(edited_urls))
    )
    print(f"site: {len(site.paths)} pages (about {f_bytes // max(1, f_req)} bytes per response), {len(edited)} edited ({args.edit_share:.0%})")
    print(f"first crawl : {f_req} requests, {f_bytes} bytes, {sum(f_written.values())} objects written ({len(f_written)} pages), kept {first['counts']['kept']}")
    print(f"second crawl: {s_req} requests ({s_304} answered 304), {s_bytes} bytes = {ratio:.1%} of the first, "
          f"{sum(s_written.values())} objects written ({len(s_written)} pages), kept {second['counts']['kept']}")
    print(f"change list : " + ", ".join(f"{k} {changes['counts'][k]}" for k in ("added", "changed", "removed", "unchanged", "not_checked")))
    checks = {
        "bytes_ratio_le_0_15": ratio <= 0.15,
        "rewritten_equals_edited": rewritten == edited_urls,
        "change_list_exact": change_exact,
    }
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    if not checks["rewritten_equals_edited"]:
        print("  rewritten but not edited:", sorted(set(rewritten) - set(edited_urls))[:10], "edited not rewritten:", sorted(set(edited_urls) - set(rewritten))[:10])
    routing = None
    if not args.no_routing:
        from gatecrawl.browser.options import find_system_chromium

        if find_system_chromium() is None:
            print("routing: skipped (no Chromium)")
        else:
            routing = routing_part()
            f, s2 = routing["first"], routing["second"]
            print(f"routing: {routing['shell_pages']} pages of an all-shell template; plain fetches of them {f['shell_plain_fetches']} -> {s2['shell_plain_fetches']} "
                  f"(down {routing['plain_fetches_down']:.0%}); second crawl routed {s2['routed']}, re-checked {s2['rechecked']}, mispredicted {s2['mispredicted']}; "
                  f"shells kept {f['shells_kept']} -> {s2['shells_kept']}; downloader shell checks skipped {s2['checks_skipped']} "
                  f"(reactor-thread verdict time {f['verdict_ms']} -> {s2['verdict_ms']} ms)")
            checks["routing_plain_fetches_down_ge_0_90"] = routing["plain_fetches_down"] >= 0.90
            checks["routing_shells_still_kept"] = s2["shells_kept"] == routing["shell_pages"]
            for name in ("routing_plain_fetches_down_ge_0_90", "routing_shells_still_kept"):
                print(f"  {'ok  ' if checks[name] else 'FAIL'} {name}")
    result = {
        "routing": routing,
        "pages": len(site.paths),
        "edited": len(edited),
        "first": {"requests": f_req, "bytes": f_bytes, "objects_written": sum(f_written.values()), "kept": first["counts"]["kept"]},
        "second": {"requests": s_req, "not_modified": s_304, "bytes": s_bytes, "objects_written": sum(s_written.values()),
                   "pages_rewritten": len(s_written), "kept": second["counts"]["kept"]},
        "bytes_ratio": round(ratio, 4),
        "changes": changes["counts"],
        "checks": checks,
    }
    print(json.dumps(result, sort_keys=True))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
