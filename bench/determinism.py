"""Determinism check: convert the whole corpus in two separate processes and compare.

Usage: ``python -m bench.determinism [--corpus article-extraction|wcxb-dev|all] [--data DIR]``

Each run is a fresh ``python -m bench.determinism --worker`` subprocess with a different
``PYTHONHASHSEED`` (so any dependence on set/dict-of-str order would show); each worker
prints ``<page id> <sha256 of the Markdown>`` for every page. The two listings are
compared page by page; the script prints the number of identical outputs and exits 1 if
any page differs (or a worker fails).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from bench.extraction import DEFAULT_DATA, REPO_ROOT, gatecrawl_converter, load_corpus


def worker(data: Path) -> int:
    import warnings

    warnings.filterwarnings("ignore")
    pages, _gold, urls = load_corpus(data)
    run = gatecrawl_converter()
    for pid in sorted(pages):
        md = run(pages[pid], urls[pid])
        print(pid, hashlib.sha256(md.encode("utf-8")).hexdigest(), flush=False)
    return 0


def _run_worker(data: Path, seed: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run(
        [sys.executable, "-m", "bench.determinism", "--worker", "--data", str(data)],
        cwd=str(REPO_ROOT), env=env, capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"worker with PYTHONHASHSEED={seed} failed ({proc.returncode})")
    out: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        pid, _, digest = line.partition(" ")
        if digest:
            out[pid] = digest
    return out


def main(argv: list[str] | None = None) -> int:
    from bench.extraction import CORPORA

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.data or DEFAULT_DATA)
    if args.data is not None:
        targets = [args.data]
    elif args.corpus == "all":
        targets = list(CORPORA.values())
    else:
        targets = [CORPORA[args.corpus] if args.corpus else DEFAULT_DATA]
    ok = True
    for data in targets:
        a = _run_worker(data, "1")
        b = _run_worker(data, "4242")
        ids = sorted(set(a) | set(b))
        same = sum(1 for pid in ids if a.get(pid) is not None and a.get(pid) == b.get(pid))
        for pid in ids:
            if a.get(pid) != b.get(pid):
                print(f"DIFFERENT {data.name} {pid}")
        print(f"{data.name} identical: {same}/{len(ids)}")
        ok = ok and bool(ids) and same == len(ids)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
