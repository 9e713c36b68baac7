"""Hostile inputs (issue 15, T33): redaction time on 1 MB adversarial strings.

Usage: ``python -m bench.hostile [--size BYTES] [--limit SECONDS]``

Each input is about ``--size`` characters (1 MB by default) built to make a backtracking pattern
blow up: one long token-like word, runs of secret names, dotted and dashed words before ``://``,
a header name followed by a megabyte of spaces, an opening quote that never closes, ``name:``
repeated, userinfo-like URLs repeated, escaped quotes. Every input goes through
``gatecrawl.core.redact.redact_text`` once; the line per input gives its time, and the last
line is JSON: ``{"redact": {name: seconds}, "redact_max_s", "limit_s", "ok"}``. Exit 1 when any
input takes ``--limit`` seconds (0.5 by default) or more.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--limit", type=float, default=0.5)
    args = ap.parse_args(argv)
    times: dict[str, float] = {}
    for name, text in adversarial(args.size).items():
        t0 = time.perf_counter()
        redact_text(text)
        times[name] = round(time.perf_counter() - t0, 4)
        print(f"redact_text {name:<22} {len(text):>9,} chars  {times[name]:.3f} s", flush=True)
    worst = max(times.values())
    ok = worst < args.limit
    print(json.dumps({"redact": times, "redact_max_s": worst, "limit_s": args.limit, "size": args.size, "ok": ok}, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
