"""``python -m gatecrawl.demo.run``: serve the demo site on a free 127.0.0.1 port, crawl it with
``scrapy crawl demo``, and print what happened to every page next to what should happen.

Run from the project folder (where scrapy.cfg is); ``make demo`` does exactly this.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from gatecrawl.demo import DemoServer
from gatecrawl.demo.site import EXPECTED


def latest_summary(store: Path, site: str) -> dict:
    runs = sorted((store / site / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    if not runs:
        raise SystemExit(f"no run summary under {store / site / 'runs'}")
    return json.loads(runs[-1].read_text("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gatecrawl.demo.run", description=__doc__)
    ap.add_argument("--output", default="./output", help="local store folder (default ./output)")
    ap.add_argument("--log", default=None, help="Scrapy log file (default <output>/demo-crawl.log)")
    args = ap.parse_args(argv)
    out = Path(args.output).resolve()
    out.mkdir(parents=True, exist_ok=True)
    log = Path(args.log) if args.log else out / "demo-crawl.log"
    server = DemoServer(port=0).start_in_thread()
    try:
        print(f"demo site: {server.base_url}")
        cmd = [
            sys.executable, "-m", "scrapy", "crawl", "demo",
            "-a", f"start_url={server.base_url}/",
            "-s", f"GATECRAWL_STORE_URI=file://{out}",
            "-s", f"LOG_FILE={log}",
            "-s", "GATECRAWL_SUMMARY_PRINT=False",
        ]
        proc = subprocess.run(cmd, env={**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")})
    finally:
        server.stop()
    summary = latest_summary(out, "demo")
    c = summary["counts"]
    print(f"run {summary['run_id']}: pages seen {c['seen']}, kept {c['kept']}, dropped {c['dropped']}, flagged for rendering {c['needs_render']}")
    for reason, n in c["dropped_by_reason"].items():
        print(f"  dropped {reason}: {n}")
    print("\npage                                  outcome   reason             expected                   reader  readiness")
    mismatches = 0
    seen_paths = set()
    for page in summary["pages"]:
        path = urlsplit(page["url"]).path or "/"
        seen_paths.add(path)
        exp = EXPECTED.get(path)
        got = (page["outcome"], page["drop_reason"])
        ok = exp is None or tuple(exp) == got
        mismatches += 0 if ok else 1
        exp_s = "-" if exp is None else (exp[0] if exp[1] is None else f"{exp[0]} {exp[1]}")
        readiness = ""
        if page.get("reader") == "render":
            packet_key = next((k for k in page.get("keys", []) if k.endswith(".json")), None)
            if packet_key and (out / packet_key).exists():
                readiness = json.loads((out / packet_key).read_text("utf-8")).get("render_readiness_reason") or ""
        print(f"{'  ' if ok else '! '}{path:<36}{got[0]:<10}{(got[1] or ''):<19}{exp_s:<27}{page.get('reader') or '':<8}{readiness}")
    missing = sorted(set(EXPECTED) - seen_paths)
    for path in missing:
        print(f"! {path:<36}{'not crawled':<29}{EXPECTED[path][0]}")
    print(f"\nMarkdown and packets: {out}/demo/pages/, quarantine: {out}/demo/quarantine/, run summary: {out}/demo/runs/{summary['run_id']}.json")
    print(f"crawl log: {log}")
    reports = sorted((out / "demo" / "runs" / "reports").glob(f"{summary['run_id']}*.html"))
    if reports:
        print(f"crawl report: {reports[0]}")
    if proc.returncode != 0:
        print(f"scrapy crawl exited with status {proc.returncode}", file=sys.stderr)
    if mismatches or missing:
        print(f"{mismatches + len(missing)} page(s) differ from the expected outcome", file=sys.stderr)
        return 1
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
