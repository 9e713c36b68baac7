"""Good-page drops: every page of the two real corpora through ``convert()``, drops counted.

Usage: ``python -m bench.drops [--dump FILE] [--corpus article-extraction|wcxb-dev]``

Every page of ``../shared/bench/article-extraction`` (181 news articles) and
``../shared/bench/wcxb-dev`` (647 pages, seven page types) is a good page: it is converted
with ``convert(body, url, content_type="text/html")`` and the default recipe, and every drop
is counted by reason and (wcxb-dev) by page type. wcxb-dev is also reported in two halves
split by host (first byte of sha256(hostname) even: half A, odd: half B), so a rule tuned on
one half can be checked on the other. ``--dump`` writes one JSON line per dropped page
(id, url, type, reason, validation detail). The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH = (REPO_ROOT / ".." / "shared" / "bench").resolve()
CORPORA = ("article-extraction", "wcxb-dev")


def host_half(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    return "A" if hashlib.sha256(host.encode()).digest()[0] % 2 == 0 else "B"


def run_corpus(name: str, dump) -> dict:
    from gatecrawl.core.convert import convert

    root = BENCH / name
    gt = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    reasons: Counter = Counter()
    by_type: dict[str, list[int]] = {}
    halves: dict[str, dict] = {}
    for pid in sorted(gt):
        meta = gt[pid]
        url = meta.get("url") or f"https://example.invalid/{pid}"
        ptype = meta.get("page_type") or "article"
        body = gzip.decompress((root / "html" / f"{pid}.html.gz").read_bytes())
        r = convert(body, url, content_type="text/html")
        t = by_type.setdefault(ptype, [0, 0])
        t[1] += 1
        half = halves.setdefault(host_half(url), {"pages": 0, "dropped": 0, "reasons": Counter()})
        half["pages"] += 1
        if not r.ok:
            reasons[r.drop_reason] += 1
            t[0] += 1
            half["dropped"] += 1
            half["reasons"][r.drop_reason] += 1
            if dump is not None:
                rep = r.evidence.get("validation_report") or {}
                dump.write(json.dumps({"corpus": name, "id": pid, "url": url, "type": ptype, "half": host_half(url),
                                       "reason": r.drop_reason, "reasons": rep.get("reasons"),
                                       "detail": rep.get("detail"), "drop_detail": r.evidence.get("drop_detail"),
                                       "chars_out": r.evidence.get("chars_out")}, sort_keys=True) + "\n")
    pages = sum(v[1] for v in by_type.values())
    dropped = sum(reasons.values())
    return {
        "pages": pages,
        "dropped": dropped,
        "drop_rate": round(dropped / pages, 4) if pages else 0.0,
        "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "by_type": {k: {"dropped": v[0], "pages": v[1], "rate": round(v[0] / v[1], 4)} for k, v in sorted(by_type.items())},
        "halves": {k: {"pages": v["pages"], "dropped": v["dropped"], "rate": round(v["dropped"] / v["pages"], 4),
                       "reasons": dict(sorted(v["reasons"].items(), key=lambda kv: (-kv[1], kv[0])))}
                   for k, v in sorted(halves.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", help="write one JSON line per dropped page to this file")
    ap.add_argument("--corpus", choices=CORPORA, action="append", help="corpus to run (default: both)")
    args = ap.parse_args(argv)
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None
    out = {}
    try:
        for name in args.corpus or CORPORA:
            res = run_corpus(name, dump)
            out[name] = res
            print(f"== {name}: dropped {res['dropped']}/{res['pages']} ({res['drop_rate']:.1%})")
            for reason, n in res["reasons"].items():
                print(f"   {reason:<20} {n}")
            if len(res["by_type"]) > 1:
                for ptype, v in res["by_type"].items():
                    print(f"   type {ptype:<14} {v['dropped']}/{v['pages']} ({v['rate']:.1%})")
                for half, v in res["halves"].items():
                    print(f"   half {half}: {v['dropped']}/{v['pages']} ({v['rate']:.1%}) {v['reasons']}")
    finally:
        if dump is not None:
            dump.close()
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
