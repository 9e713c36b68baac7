"""A switch that changes the demo site between runs: chosen pages turn into SPA shells.

A "shell" is what a site serves after it moved a page to client-side rendering: an empty app
root, a "please enable JavaScript" notice and a script bundle (the demo's dashboard app, so a
browser still finds content). The crawl report should then show a drift in escalation rate.

Turn it on with either:

- ``DemoServer.shells``: a set of paths, changed at any time (tests);
- the environment variable ``GATECRAWL_DEMO_SHELLS``: comma-separated paths, read on every
  request (``GATECRAWL_DEMO_SHELLS=/articles/recipes python -m gatecrawl.demo``).
"""

from __future__ import annotations

import html
import os
from typing import Any

__all__ = ["ENV_VAR", "shell_paths", "shell_page", "apply"]

ENV_VAR = "GATECRAWL_DEMO_SHELLS"


def shell_paths(server: Any = None) -> set[str]:
    paths = set(getattr(server, "shells", None) or ())
    for p in os.environ.get(ENV_VAR, "").split(","):
        if p.strip():
            paths.add(p.strip())
    return paths


def shell_page(path: str) -> bytes:
    title = html.escape(path.rstrip("/").rsplit("/", 1)[-1].replace("-", " ").capitalize() or "Home")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | Gatecrawl Demo</title></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script src="/static/app.js"></script>
</body></html>
""".encode("utf-8")


def apply(server: Any, path: str, status: int, ctype: str, body: bytes) -> tuple[int, str, bytes]:
    """The response for ``path``: a shell if the switch names it (HTML pages only)."""
    if status == 200 and ctype.startswith("text/html") and path in shell_paths(server):
        return 200, "text/html; charset=utf-8", shell_page(path)
    return status, ctype, body
