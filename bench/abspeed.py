"""Same-process speed comparison of ``convert()`` between a base revision and this checkout.

Usage: ``python -m bench.abspeed --base REV|DIR [--corpus article-extraction|wcxb-dev|all]
[--limit N] [--reps R]``

A shared machine's load changes from minute to minute, so two benchmark runs minutes apart do
not compare. Here both versions run in one process: the base's ``gatecrawl`` package (a
source tree ``DIR``, or the git revision ``REV`` of this repository, exported to a temporary
folder) and this checkout's are imported side by side, each keeping its own modules (they are
swapped into ``sys.modules`` before each call, so lazy imports resolve to the right tree), and
every page is converted by the base, then by this checkout, in turn. Prints ms/page of each,
the ratio (this checkout over the base) and how many pages gave the same Markdown, then the
same as one JSON object. Timing wraps ``convert()`` only (reading the corpus is not timed;
two pages are converted once by each, untimed, first).
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.extraction import CORPORA, REPO_ROOT, load_corpus

_PACKAGES = ("gatecrawl.core.extract", "gatecrawl.core.htmlparse", "gatecrawl.core.markdown",
             "gatecrawl.core.soft404", "gatecrawl.core.embedded", "gatecrawl.core.pdf")


def _own(name: str) -> bool:
    return name == "gatecrawl" or name.startswith("gatecrawl.")


def load_tree(root: Path):
    """``(convert, modules)`` of the ``gatecrawl`` package under ``root``; its modules are taken
    out of ``sys.modules`` again (returned), so another tree can be imported next."""
    saved = {k: sys.modules.pop(k) for k in [k for k in sys.modules if _own(k)]}
    sys.path.insert(0, str(root))
    try:
        convert = importlib.import_module("gatecrawl.core.convert").convert
        for name in _PACKAGES:  # what convert() imports lazily
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        modules = {k: sys.modules.pop(k) for k in [k for k in sys.modules if _own(k)]}
    finally:
        sys.path.remove(str(root))
        sys.modules.update(saved)
    return convert, modules


def export_revision(rev: str, into: Path) -> Path:
    """The ``gatecrawl`` package of git revision ``rev`` of this repository, under ``into``."""
    tar = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", rev, "gatecrawl"], check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="a source tree holding gatecrawl/, or a git revision")
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default="all")
    ap.add_argument("--limit", type=int, default=None, help="pages per corpus")
    ap.add_argument("--reps", type=int, default=1)
    args = ap.parse_args(argv)

    import warnings

    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        base_dir = Path(args.base)
        if not (base_dir / "gatecrawl").is_dir():
            base_dir = export_revision(args.base, Path(tmp))
        base_convert, base_modules = load_tree(base_dir)
        new_convert, new_modules = load_tree(REPO_ROOT)
        names = list(CORPORA) if args.corpus == "all" else [args.corpus]
        pages = []
        for name in names:
            bodies, _gold, urls = load_corpus(CORPORA[name], args.limit)
            pages += [(bodies[pid], urls[pid]) for pid in sorted(bodies)]
        for body, url in pages[:2]:  # warm-up, untimed: first-call costs (lazy imports, caches)
            sys.modules.update(base_modules)
            base_convert(body, url, content_type="text/html")
            sys.modules.update(new_modules)
            new_convert(body, url, content_type="text/html")
        t_base = t_new = 0.0
        same = 0
        for _ in range(args.reps):
            for body, url in pages:
                sys.modules.update(base_modules)
                t = time.perf_counter()
                a = base_convert(body, url, content_type="text/html")
                t_base += time.perf_counter() - t
                sys.modules.update(new_modules)
                t = time.perf_counter()
                b = new_convert(body, url, content_type="text/html")
                t_new += time.perf_counter() - t
                same += a.markdown == b.markdown
    n = args.reps * len(pages)
    print(f"{n} conversions each: base {t_base / n * 1000:.1f} ms/page, this checkout {t_new / n * 1000:.1f} ms/page, "
          f"ratio {t_new / t_base:.3f}; same Markdown {same}/{n}")
    print(json.dumps({"base": args.base, "conversions": n, "base_ms_per_page": round(t_base / n * 1000, 1),
                      "ms_per_page": round(t_new / n * 1000, 1), "ratio": round(t_new / t_base, 3), "same_markdown": same}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
