"""Determinism check: convert the whole corpus in two separate processes and compare.

Usage: ``python -m bench.determinism [--corpus article-extraction|wcxb-dev|all] [--data DIR]
[--save FILE | --against FILE]``

Each run is a fresh ``python -m bench.determinism --worker`` subprocess with a different
``PYTHONHASHSEED`` (so any dependence on set/dict-of-str order would show); each worker
prints ``<page id> <sha256 of the Markdown>`` for every page. The two listings are
compared page by page; the script prints the number of identical outputs and exits 1 if
any page differs (or a worker fails).

``--save FILE`` records a baseline instead: one process converts every page of the chosen
corpora (default: both) and writes, per page, the sha256 of the Markdown, the outcome and
drop reason, and the sha256 of the evidence packet (canonical JSON without the two fields
that hold the clock, ``fetched_at`` and ``conversion_ms``). ``--against FILE`` converts
again and compares with that baseline: it prints every page that differs and their number,
and exits 1 if there is any. This is the guard for changes that must not move a byte
(speed work): save before the change, check against it after.
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


#: packet fields that hold the clock: left out of the packet digest
VOLATILE_PACKET_KEYS = ("fetched_at", "conversion_ms")


def page_record(res) -> str:
    """``<markdown sha256> <outcome> <drop reason or -> <packet sha256>`` for one result."""
    import json

    packet = {k: v for k, v in res.evidence.items() if k not in VOLATILE_PACKET_KEYS}
    blob = json.dumps(packet, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return " ".join((
        hashlib.sha256(res.markdown.encode("utf-8")).hexdigest(),
        res.outcome,
        res.drop_reason or "-",
        hashlib.sha256(blob.encode("utf-8")).hexdigest(),
    ))


def snapshot(targets: list[Path]) -> dict[str, str]:
    """``{"<corpus>/<page id>": page_record}`` for every page of ``targets``, in this process."""
    import warnings

    from gatecrawl.core.convert import convert

    warnings.filterwarnings("ignore")
    out: dict[str, str] = {}
    for data in targets:
        pages, _gold, urls = load_corpus(data)
        for pid in sorted(pages):
            res = convert(pages[pid], urls[pid], content_type="text/html")
            out[f"{data.name}/{pid}"] = page_record(res)
    return out


def save(targets: list[Path], path: Path) -> int:
    snap = snapshot(targets)
    path.write_text("".join(f"{key} {rec}\n" for key, rec in sorted(snap.items())), encoding="utf-8")
    print(f"saved {len(snap)} pages to {path}")
    return 0


def against(targets: list[Path], path: Path) -> int:
    base: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, rec = line.partition(" ")
        if rec:
            base[key] = rec
    now = snapshot(targets)
    corpora = {d.name for d in targets}
    base = {k: v for k, v in base.items() if k.split("/", 1)[0] in corpora}
    keys = sorted(set(base) | set(now))
    differ = [k for k in keys if base.get(k) != now.get(k)]
    for key in differ:
        print(f"DIFFERENT {key}: {base.get(key, '<missing>')} -> {now.get(key, '<missing>')}")
    print(f"pages compared: {len(keys)}, differing: {len(differ)}")
    return 1 if differ or not keys else 0


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
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--save", type=Path, default=None, metavar="FILE",
                      help="write a baseline (Markdown, outcome and packet digests of every page)")
    mode.add_argument("--against", type=Path, default=None, metavar="FILE",
                      help="compare with a saved baseline; exit 1 if any page differs")
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.data or DEFAULT_DATA)
    if args.save is not None or args.against is not None:
        if args.data is not None:
            chosen = [args.data]
        elif args.corpus and args.corpus != "all":
            chosen = [CORPORA[args.corpus]]
        else:
            chosen = list(CORPORA.values())  # baselines cover both corpora unless told otherwise
        return save(chosen, args.save) if args.save is not None else against(chosen, args.against)
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
