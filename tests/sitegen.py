"""A generated 200-page site on 127.0.0.1 for the distributed tests.

``/`` links to 9 section hubs ``/s/<k>``; each hub links to its 21 or so pages ``/p/<k>/<i>``
(200 HTML URLs in all). Each page links back to its hub, to the next page and to home, so many
links point at already-seen URLs. With ``shells=True`` every 25th page is an SPA shell whose
content only appears after ``/static/shell.js`` fetches ``/data/<k>/<i>.json`` (only a browser
does that). ``delay`` slows every page so a crawl lasts long enough to kill a worker mid-way.
``hits`` counts requests per path.
"""

from __future__ import annotations

import html
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from gatecrawl.demo.site import _SENTENCES

SECTIONS = 9
TOTAL = 200


def page_paths() -> list[str]:
    paths = ["/"] + [f"/s/{k}" for k in range(SECTIONS)]
    n = TOTAL - len(paths)
    for j in range(n):
        paths.append(f"/p/{j % SECTIONS}/{j // SECTIONS}")
    return paths


PATHS = page_paths()
PAGES = [p for p in PATHS if p.startswith("/p/")]


def _words(seed: int, count: int) -> list[str]:
    n = len(_SENTENCES)
    return [" ".join(_SENTENCES[(seed * 7 + p * 3 + q) % n] for q in range(3)) for p in range(count)]


def _doc(title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} | Big Site</title></head>
<body><header class="site-header"><a href="/">Big Site</a></header>
<main>{body}</main>
<footer class="site-footer"><p>Generated site for gatecrawl tests.</p><a href="/">Home</a></footer>
</body></html>
"""


class BigSite(ThreadingHTTPServer):
    daemon_threads = True
    # Two workers open 16 connections each at once: the default listen backlog (5) drops SYNs,
    # and a dropped SYN costs the client a 1 s retransmit.
    request_queue_size = 128

    def __init__(self, *, shells: bool = True, delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.shells = shells
        self.delay = delay
        self.hits: dict[str, int] = {}
        self._lock = threading.Lock()
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"

    def is_shell(self, path: str) -> bool:
        return self.shells and path in PAGES and PAGES.index(path) % 25 == 3

    @property
    def shell_paths(self) -> list[str]:
        return [p for p in PAGES if self.is_shell(p)]

    def start(self) -> "BigSite":
        threading.Thread(target=self.serve_forever, name="bigsite", daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def page_hits(self) -> dict[str, int]:
        with self._lock:
            return {p: self.hits.get(p, 0) for p in PATHS}

    def render(self, path: str) -> tuple[int, str, bytes]:
        if path == "/robots.txt":
            return 200, "text/plain", b"User-agent: *\nAllow: /\n"
        if path == "/":
            links = "".join(f'<li><a href="/s/{k}">Section {k}</a></li>' for k in range(SECTIONS))
            paras = "".join(f"<p>{html.escape(t)}</p>" for t in _words(1, 3))
            return 200, "text/html; charset=utf-8", _doc("Home", f"<h1>Big Site</h1>{paras}<ul>{links}</ul>").encode()
        if path.startswith("/s/"):
            k = int(path.split("/")[2])
            links = "".join(f'<li><a href="{p}">Page {p}</a></li>' for p in PAGES if p.startswith(f"/p/{k}/"))
            paras = "".join(f"<p>{html.escape(t)}</p>" for t in _words(10 + k, 3))
            return 200, "text/html; charset=utf-8", _doc(f"Section {k}", f"<h1>Section {k}</h1>{paras}<ul>{links}</ul>").encode()
        if path in PAGES:
            idx = PAGES.index(path)
            k = path.split("/")[2]
            if self.is_shell(path):
                shell = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App {idx} | Big Site</title></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root" data-src="/data{path[2:]}.json"></div>
<script src="/static/shell.js"></script>
</body></html>
"""
                return 200, "text/html; charset=utf-8", shell.encode()
            nxt = PAGES[(idx + 1) % len(PAGES)]
            paras = "".join(f"<p>{html.escape(t)} (Page {idx}.)</p>" for t in _words(idx, 5))
            body = (
                f"<article><h1>Page {idx}: {html.escape(_SENTENCES[idx % len(_SENTENCES)][:60])}</h1>{paras}"
                f'<p>Next: <a href="{nxt}">page {idx + 1}</a>. Back to <a href="/s/{k}">section {k}</a>.</p></article>'
            )
            return 200, "text/html; charset=utf-8", _doc(f"Page {idx}", body).encode()
        if path == "/static/shell.js":
            return 200, "application/javascript", _SHELL_JS.encode()
        if path.startswith("/data/") and path.endswith(".json"):
            page = "/p/" + path[len("/data/"):-len(".json")]
            if page in PAGES:
                idx = PAGES.index(page)
                data = {"title": f"App page {idx}", "sections": [{"heading": f"Part {n + 1}", "text": t} for n, t in enumerate(_words(idx + 50, 3))]}
                return 200, "application/json", json.dumps(data, sort_keys=True).encode()
        return 404, "text/html; charset=utf-8", _doc("Not found", "<h1>Not found</h1>").encode()


_SHELL_JS = """(function () {
  var root = document.getElementById('root');
  fetch(root.getAttribute('data-src')).then(function (r) { return r.json(); }).then(function (data) {
    var main = document.createElement('main');
    var h1 = document.createElement('h1'); h1.textContent = data.title; main.appendChild(h1);
    data.sections.forEach(function (s) {
      var h2 = document.createElement('h2'); h2.textContent = s.heading; main.appendChild(h2);
      var p = document.createElement('p'); p.textContent = s.text; main.appendChild(p);
    });
    root.appendChild(main);
  });
})();
"""


class _Handler(BaseHTTPRequestHandler):
    server_version = "gatecrawl-bigsite/1"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        site: BigSite = self.server  # type: ignore[assignment]
        path = urlsplit(self.path).path or "/"
        with site._lock:
            site.hits[path] = site.hits.get(path, 0) + 1
        if site.delay and path in PATHS:
            time.sleep(site.delay)
        status, ctype, body = site.render(path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


if __name__ == "__main__":  # python tests/sitegen.py: serve it for a manual try
    s = BigSite().start()
    print(s.base_url, flush=True)
    threading.Event().wait()
