"""Trust benchmark: are good pages kept and junk pages dropped?

Usage: ``python -m bench.trust [--corpus article-extraction|wcxb-dev|junk|all] [--limit N]
[--no-crawl] [--crawl-render auto|skip] [--crawl-sample 60] [--workdir DIR]``

(a) Good pages: every page of ``../shared/bench/article-extraction`` (all articles) and
    ``../shared/bench/wcxb-dev`` (``page_type`` from its ground truth) through
    ``gatecrawl.core.convert.convert(body, url, content_type="text/html")``: the share dropped,
    overall and per page type, the count per drop reason and the ids of the dropped pages.
(b) Junk: every page of the labelled corpus ``bench/junk/`` (written by ``python -m
    bench.junkgen``; ``labels.json`` gives kind, URL, status, content type and headers) through
    ``convert()`` with ``FetchInfo(http_status=..., headers=...)``: junk kept per kind (the
    target is 0) and the drop reasons seen per kind. Any drop counts as correct for junk.
(c) Crawl (with ``--corpus all``): a loopback site on 127.0.0.1 (port 0) serving a sample of good
    pages spread over both corpora and types plus every junk page (with its status, content
    type and headers), linked from an index page, crawled by ``scrapy crawl`` with a recipe
    whose render policy is the default ``auto`` (``--crawl-render skip`` when no browser is
    wanted). Read back from the store: good dropped, junk kept, and how many good (static)
    pages were escalated to the browser (``reader == "render"`` or ``needs_render``).

``--limit N`` takes at most N pages of each good corpus (spread over the page types) and N
pages of each junk kind. The last line printed is one JSON object with the figures; the exit
code is 1 when a target of issue 14 is missed (good dropped > 2% on a corpus or > 5% on a page
type, any junk kept, any good page escalated in the crawl).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT / ".." / "shared" / "bench").resolve()
GOOD_CORPORA = ("article-extraction", "wcxb-dev")
JUNK_DIR = Path(__file__).resolve().parent / "junk"
TARGET_CORPUS_RATE = 0.02
TARGET_TYPE_RATE = 0.05


# --- loading -------------------------------------------------------------------------------


def good_root() -> Path:
    return Path(os.environ.get("GATECRAWL_BENCH_DATA", str(SHARED)))


def spread(ids: list[str], n: int) -> list[str]:
    """``n`` ids evenly spaced over the sorted ``ids`` (all of them when n >= len)."""
    ids = sorted(ids)
    if n >= len(ids):
        return ids
    return [ids[(i * len(ids)) // n] for i in range(n)]


def good_ids(corpus: str, limit: int | None = None) -> list[tuple[str, str, str]]:
    """``(id, url, page_type)`` of a good corpus, spread over its types when limited."""
    gt = json.loads((good_root() / corpus / "ground-truth.json").read_text("utf-8"))
    by_type: dict[str, list[str]] = defaultdict(list)
    for pid, rec in gt.items():
        by_type[rec.get("page_type") or "article"].append(pid)
    chosen: list[str] = []
    if limit is None or limit >= len(gt):
        chosen = sorted(gt)
    else:
        types = sorted(by_type)
        quota = {t: limit // len(types) + (1 if i < limit % len(types) else 0) for i, t in enumerate(types)}
        for t in types:
            chosen += spread(by_type[t], quota[t])
        chosen = sorted(chosen)
    return [(pid, gt[pid].get("url") or f"https://{corpus}.invalid/{pid}", gt[pid].get("page_type") or "article") for pid in chosen]


def good_body(corpus: str, pid: str) -> bytes:
    return gzip.decompress((good_root() / corpus / "html" / f"{pid}.html.gz").read_bytes())


def junk_labels(limit: int | None = None, junk_dir: Path = JUNK_DIR) -> list[dict]:
    labels = json.loads((junk_dir / "labels.json").read_text("utf-8"))["pages"]
    if limit is None:
        return labels
    per: dict[str, int] = Counter()
    out = []
    for lab in labels:
        if per[lab["kind"]] < limit:
            per[lab["kind"]] += 1
            out.append(lab)
    return out


def junk_body(lab: dict, junk_dir: Path = JUNK_DIR) -> bytes:
    return (junk_dir / lab["file"]).read_bytes()


# --- (a) and (b): convert() ------------------------------------------------------------------


def _detail(packet: dict) -> dict:
    """What a drop says about itself: drop_detail, the validation detail, the failed gate checks."""
    rep = packet.get("validation_report") or {}
    out = {"drop_detail": packet.get("drop_detail"), "validation_detail": rep.get("detail") or {}}
    gate = packet.get("extraction_gate") or {}
    if gate.get("failed_checks"):
        out["gate_failed_checks"] = gate["failed_checks"]
    out["markdown_chars"] = rep.get("markdown_chars")
    return out


def convert_good(corpus: str, limit: int | None) -> dict:
    from gatecrawl.core.convert import convert

    by_type: dict[str, Counter] = defaultdict(Counter)
    reasons: Counter = Counter()
    type_reasons: dict[str, Counter] = defaultdict(Counter)
    dropped: list[str] = []
    examples: list[dict] = []
    t0 = time.monotonic()
    pages = good_ids(corpus, limit)
    for pid, url, ptype in pages:
        res = convert(good_body(corpus, pid), url, content_type="text/html")
        by_type[ptype]["pages"] += 1
        if not res.ok:
            by_type[ptype]["dropped"] += 1
            reasons[res.drop_reason] += 1
            type_reasons[ptype][res.drop_reason] += 1
            dropped.append(pid)
            examples.append({"id": f"{corpus}/{pid}", "type": ptype, "reason": res.drop_reason, **_detail(res.evidence)})
    n = len(pages)
    return {
        "pages": n,
        "dropped": len(dropped),
        "dropped_rate": round(len(dropped) / n, 4) if n else 0.0,
        "by_reason": dict(sorted(reasons.items())),
        "by_type": {
            t: {"pages": c["pages"], "dropped": c["dropped"], "dropped_rate": round(c["dropped"] / c["pages"], 4),
                "by_reason": dict(sorted(type_reasons[t].items()))}
            for t, c in sorted(by_type.items())
        },
        "dropped_ids": dropped,
        "seconds": round(time.monotonic() - t0, 1),
        "_examples": examples,
    }


def convert_junk(limit: int | None, junk_dir: Path = JUNK_DIR) -> dict:
    from gatecrawl.core.convert import FetchInfo, convert

    labels = junk_labels(limit, junk_dir)
    kinds: dict[str, Counter] = defaultdict(Counter)
    reasons: dict[str, Counter] = defaultdict(Counter)
    kept: list[str] = []
    near: Counter = Counter()
    examples: list[dict] = []
    outcomes: dict[str, str] = {}
    for lab in labels:
        fetch = FetchInfo(url_requested=lab["url"], http_status=lab.get("status", 200), headers=lab.get("headers") or {})
        res = convert(junk_body(lab, junk_dir), lab["url"], content_type=lab.get("content_type", "text/html"), fetch=fetch)
        kinds[lab["kind"]]["pages"] += 1
        outcomes[lab["id"]] = res.drop_reason or "kept"
        if res.ok:
            kinds[lab["kind"]]["kept"] += 1
            kept.append(lab["id"])
            near["kept"] += int(bool(lab.get("near_miss")))
        else:
            reasons[lab["kind"]][res.drop_reason] += 1
            examples.append({"id": lab["id"], "reason": res.drop_reason, **_detail(res.evidence)})
        near["pages"] += int(bool(lab.get("near_miss")))
    return {
        "pages": len(labels),
        "kinds": len(kinds),
        "kept": len(kept),
        "kept_by_kind": {k: c["kept"] for k, c in sorted(kinds.items())},
        "pages_by_kind": {k: c["pages"] for k, c in sorted(kinds.items())},
        "reasons_by_kind": {k: dict(sorted(reasons[k].items())) for k in sorted(kinds)},
        "kept_ids": kept,
        "near_miss_pages": near["pages"],
        "near_miss_kept": near["kept"],
        "_outcomes": outcomes,
        "_examples": examples,
    }


# --- (c): a real crawl of a loopback site -------------------------------------------------------


def _canon(url_or_path: str) -> str:
    from w3lib.url import canonicalize_url

    p = urlsplit(url_or_path)
    return canonicalize_url("http://h" + (p.path or "/") + (f"?{p.query}" if p.query else ""))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        site: TrustSite = self.server  # type: ignore[assignment]
        entry = site.routes.get(_canon(self.path))
        if entry is None:
            status, headers, body = 404, {"Content-Type": "text/html; charset=utf-8"}, b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
        else:
            status, headers, body = entry
        try:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass


class TrustSite(ThreadingHTTPServer):
    """Good pages under ``/good/<corpus>/<id>``, junk pages under ``/j<n>`` + their labelled path
    (and query), an index page at ``/`` linking to all of them; anything else is a real 404."""

    daemon_threads = True

    def __init__(self, good: list[tuple[str, str, str, bytes]], junk: list[tuple[dict, bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"
        self.routes: dict[str, tuple[int, dict, bytes]] = {}
        self.kind_of: dict[str, tuple[str, str, str]] = {}  # canonical path -> ("good"|"junk", id, type or kind)
        links = []
        for corpus, pid, ptype, body in good:
            path = f"/good/{corpus}/{pid}"
            self.routes[_canon(path)] = (200, {"Content-Type": "text/html; charset=utf-8"}, body)
            self.kind_of[_canon(path)] = ("good", f"{corpus}/{pid}", f"{corpus}:{ptype}")
            links.append((path, f"{corpus} {pid}"))
        for n, (lab, body) in enumerate(junk):
            u = urlsplit(lab["url"])
            path = f"/j{n:03d}" + (u.path or "/") + (f"?{u.query}" if u.query else "")
            headers = {"Content-Type": lab.get("content_type", "text/html")}
            headers.update({k: v for k, v in (lab.get("headers") or {}).items() if k.lower() not in ("content-type", "content-length")})
            self.routes[_canon(path)] = (int(lab.get("status", 200)), headers, body)
            self.kind_of[_canon(path)] = ("junk", lab["id"], lab["kind"])
            links.append((path, lab["id"]))
        from html import escape

        items = "".join(f'<li><a href="{escape(p)}">{escape(t)}</a></li>' for p, t in links)
        index = (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Trust benchmark site</title></head><body><main>"
                 f"<h1>Trust benchmark site</h1><p>Good pages and junk pages, mixed.</p><ul>{items}</ul></main></body></html>").encode()
        self.routes[_canon("/")] = (200, {"Content-Type": "text/html; charset=utf-8"}, index)
        self.routes[_canon("/robots.txt")] = (200, {"Content-Type": "text/plain"}, b"User-agent: *\nAllow: /\n")

    def handle_error(self, request, client_address) -> None:
        pass


def crawl_sample(limit: int | None, size: int, corpora: tuple[str, ...] = GOOD_CORPORA) -> list[tuple[str, str, str, bytes]]:
    """About ``size`` good pages: a third from article-extraction, the rest from wcxb-dev spread over its types."""
    share = {"article-extraction": size // 3, "wcxb-dev": size - size // 3}
    out = []
    for corpus in corpora:
        pool = good_ids(corpus, limit)
        by_type: dict[str, list[str]] = defaultdict(list)
        for pid, _url, ptype in pool:
            by_type[ptype].append(pid)
        types = sorted(by_type)
        want = min(share.get(corpus, size // 2), len(pool))
        quota = {t: want // len(types) + (1 if i < want % len(types) else 0) for i, t in enumerate(types)}
        for t in types:
            for pid in spread(by_type[t], quota[t]):
                out.append((corpus, pid, t, good_body(corpus, pid)))
    return out


def run_crawl(good: list[tuple[str, str, str, bytes]], junk: list[tuple[dict, bytes]], render: str, workdir: Path, timeout: int = 1800) -> dict:
    site = TrustSite(good, junk)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    recipes = workdir / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "trust.toml").write_text(
        'start_urls = ["http://127.0.0.1/"]\nallowed_domains = ["127.0.0.1"]\n'
        f'[follow]\nmax_depth = 1\nmax_pages = {len(site.routes) + 100}\n'
        f'[render]\npolicy = "{render}"\n', "utf-8")
    store = workdir / "store"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "trust", "-a", f"start_url={site.base_url}/",
           "-s", f"GATECRAWL_RECIPES_DIRS={recipes}", "-s", f"GATECRAWL_STORE_URI=file://{store}",
           "-s", "RETRY_TIMES=0", "-s", "GATECRAWL_REPORT_HTML=False", "-s", "GATECRAWL_SUMMARY_PRINT=False",
           "-s", f"LOG_FILE={workdir / 'trust-crawl.log'}"]
    env = {**os.environ, "GATECRAWL_EGRESS_ALLOW": f"127.0.0.1:{site.server_address[1]}", "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    stderr = ""
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
        rc, stderr = proc.returncode, proc.stderr or ""
    finally:
        site.shutdown()
        site.server_close()
    elapsed = time.monotonic() - t0
    from gatecrawl.core.evidence import url_key

    packets: dict[str, dict] = {}  # url_key of the final URL, and the canonical requested path, -> packet
    for folder in ("pages", "quarantine"):
        for f in sorted((store / "trust" / folder).glob("*.json")):
            p = json.loads(f.read_text("utf-8"))
            packets[p["url_key"]] = p
            packets.setdefault(_canon(p.get("url_requested") or p["url_final"]), p)
    manifest: dict = {}
    runs = sorted((store / "trust" / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    if runs:
        manifest = json.loads(runs[-1].read_text("utf-8"))
    good_res: Counter = Counter()
    good_reasons: Counter = Counter()
    type_res: dict[str, Counter] = defaultdict(Counter)
    junk_res: dict[str, Counter] = defaultdict(Counter)
    junk_reasons: dict[str, Counter] = defaultdict(Counter)
    dropped_ids, escalated_ids, kept_junk, missing = [], [], [], []
    renders_total = 0
    for path, (cls, pid, group) in sorted(site.kind_of.items()):
        served = site.base_url + urlsplit(path).path + (f"?{urlsplit(path).query}" if urlsplit(path).query else "")
        p = packets.get(url_key(served)) or packets.get(path)
        if p is None:
            missing.append(pid)
            continue
        rendered = p.get("reader") == "render" or bool(p.get("escalated_from"))
        renders_total += int(rendered)
        if cls == "good":
            good_res["pages"] += 1
            type_res[group]["pages"] += 1
            if rendered or p.get("needs_render"):
                escalated_ids.append(pid)
            if p["outcome"] != "kept":
                good_res["dropped"] += 1
                type_res[group]["dropped"] += 1
                good_reasons[p["drop_reason"]] += 1
                dropped_ids.append(pid)
        else:
            junk_res[group]["pages"] += 1
            if p["outcome"] == "kept":
                junk_res[group]["kept"] += 1
                kept_junk.append(pid)
            else:
                junk_reasons[group][p["drop_reason"]] += 1
    n_good = good_res["pages"]
    return {
        "render_policy": render,
        "exit_code": rc,
        "seconds": round(elapsed, 1),
        "good_pages": len(good),
        "junk_pages": len(junk),
        "packets_missing": len(missing),
        "missing_ids": missing,
        "good_dropped": good_res["dropped"],
        "good_dropped_rate": round(good_res["dropped"] / n_good, 4) if n_good else 0.0,
        "good_by_reason": dict(sorted(good_reasons.items())),
        "good_by_type": {t: {"pages": c["pages"], "dropped": c["dropped"]} for t, c in sorted(type_res.items())},
        "good_dropped_ids": dropped_ids,
        "good_escalated": len(escalated_ids),
        "good_escalated_ids": escalated_ids,
        "junk_kept": len(kept_junk),
        "junk_kept_by_kind": {k: c["kept"] for k, c in sorted(junk_res.items())},
        "junk_reasons_by_kind": {k: dict(sorted(junk_reasons[k].items())) for k in sorted(junk_res)},
        "junk_kept_ids": kept_junk,
        "renders": renders_total,
        "manifest_counts": manifest.get("counts", {}),
        "render_stats": {k: v for k, v in sorted((manifest.get("stats") or {}).items()) if k.startswith(("gatecrawl/render/", "gatecrawl/presence/"))},
        "stderr_tail": stderr[-800:] if rc else "",
    }


# --- report --------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _print_good(name: str, r: dict) -> None:
    print(f"\n== good pages: {name} ({r['pages']} pages, {r['seconds']} s) ==")
    print(f"{'type':<16}{'pages':>7}{'dropped':>9}{'rate':>8}  reasons")
    for t, c in r["by_type"].items():
        print(f"{t:<16}{c['pages']:>7}{c['dropped']:>9}{_pct(c['dropped_rate']):>8}  {c['by_reason']}")
    print(f"{'ALL':<16}{r['pages']:>7}{r['dropped']:>9}{_pct(r['dropped_rate']):>8}  {r['by_reason']}")
    if r["dropped_ids"]:
        print("dropped ids:", " ".join(r["dropped_ids"]))


def _print_junk(r: dict) -> None:
    print(f"\n== junk corpus ({r['pages']} pages, {r['kinds']} kinds; near-miss pages {r['near_miss_pages']}, kept {r['near_miss_kept']}) ==")
    print(f"{'kind':<16}{'pages':>7}{'kept':>6}  drop reasons")
    for k in r["pages_by_kind"]:
        print(f"{k:<16}{r['pages_by_kind'][k]:>7}{r['kept_by_kind'][k]:>6}  {r['reasons_by_kind'][k]}")
    print(f"{'ALL':<16}{r['pages']:>7}{r['kept']:>6}")
    if r["kept_ids"]:
        print("junk kept:", " ".join(r["kept_ids"]))


def _print_examples(good: dict, junk: dict | None, n: int = 6) -> None:
    picked: list[dict] = []
    seen: set[str] = set()
    pools = [r["_examples"] for r in good.values()] + ([junk["_examples"]] if junk else [])
    for pool in pools:
        for ex in pool:
            if ex["reason"] not in seen:
                seen.add(ex["reason"])
                picked.append(ex)
    if not picked:
        return
    print("\n== drop details (one per reason) ==")
    for ex in picked[: n * 2]:
        print(f"- {ex['id']} [{ex['reason']}] drop_detail={json.dumps(ex['drop_detail'], ensure_ascii=False)} "
              f"validation_detail={json.dumps(ex['validation_detail'], ensure_ascii=False, sort_keys=True)}"
              + (f" gate_failed_checks={ex['gate_failed_checks']}" if ex.get("gate_failed_checks") else "")
              + f" markdown_chars={ex['markdown_chars']}")


def _print_crawl(c: dict) -> None:
    print(f"\n== crawl of a loopback site (render policy {c['render_policy']}, {c['seconds']} s, exit {c['exit_code']}) ==")
    print(f"good pages {c['good_pages']}: dropped {c['good_dropped']} ({_pct(c['good_dropped_rate']).strip()}) {c['good_by_reason']}; "
          f"escalated to the browser {c['good_escalated']}")
    for t, v in c["good_by_type"].items():
        print(f"  {t:<30}{v['pages']:>4} pages{v['dropped']:>4} dropped")
    print(f"junk pages {c['junk_pages']}: kept {c['junk_kept']} {c['junk_kept_by_kind']}")
    print(f"packets missing: {c['packets_missing']}; pages rendered: {c['renders']}")
    if c["good_dropped_ids"]:
        print("good dropped:", " ".join(c["good_dropped_ids"]))
    if c["good_escalated_ids"]:
        print("good escalated:", " ".join(c["good_escalated_ids"]))
    if c["junk_kept_ids"]:
        print("junk kept:", " ".join(c["junk_kept_ids"]))
    if c["stderr_tail"]:
        print("crawl stderr (tail):", c["stderr_tail"])


def browser_available() -> bool:
    try:
        from gatecrawl.browser.options import find_system_chromium
    except ImportError:
        return False
    return find_system_chromium() is not None


def run(corpus: str = "all", limit: int | None = None, crawl: bool = True, crawl_render: str | None = None,
        sample: int = 60, workdir: Path | None = None) -> dict:
    out: dict = {"bench": "trust", "corpus": corpus, "limit": limit}
    good: dict[str, dict] = {}
    for name in GOOD_CORPORA:
        if corpus in (name, "all"):
            good[name] = convert_good(name, limit)
    junk = convert_junk(limit) if corpus in ("junk", "all") else None
    for name, r in good.items():
        _print_good(name, r)
    if junk:
        _print_junk(junk)
    _print_examples(good, junk)
    out["good"] = {k: {kk: vv for kk, vv in v.items() if not kk.startswith("_")} for k, v in good.items()}
    out["good_dropped_rate"] = {k: v["dropped_rate"] for k, v in good.items()}
    out["good_dropped_rate_by_type"] = {k: {t: c["dropped_rate"] for t, c in v["by_type"].items()} for k, v in good.items()}
    if junk:
        out["junk"] = {k: v for k, v in junk.items() if not k.startswith("_")}
        out["junk_kept"] = junk["kept"]
        out["junk_kept_by_kind"] = junk["kept_by_kind"]
    if crawl and corpus == "all":
        policy = crawl_render or ("auto" if browser_available() else "skip")
        sample_pages = crawl_sample(limit, sample)
        junk_pages = [(lab, junk_body(lab)) for lab in junk_labels(limit)]
        with tempfile.TemporaryDirectory(prefix="gatecrawl-trust-") as tmp:
            c = run_crawl(sample_pages, junk_pages, policy, Path(workdir or tmp))
        c["browser_available"] = browser_available()
        _print_crawl(c)
        out["crawl"] = c
    targets = {}
    for k, v in good.items():
        targets[f"{k}_dropped_le_2pct"] = v["dropped_rate"] <= TARGET_CORPUS_RATE
        targets[f"{k}_no_type_above_5pct"] = all(c["dropped_rate"] <= TARGET_TYPE_RATE for c in v["by_type"].values())
    if junk:
        targets["junk_kept_0"] = junk["kept"] == 0
    if "crawl" in out:
        targets["crawl_junk_kept_0"] = out["crawl"]["junk_kept"] == 0
        targets["crawl_good_escalated_0"] = out["crawl"]["good_escalated"] == 0
        targets["crawl_no_missing_packets"] = out["crawl"]["packets_missing"] == 0
    out["targets_met"] = targets
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.trust", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("article-extraction", "wcxb-dev", "junk", "all"), default="all")
    ap.add_argument("--limit", type=int, default=None, help="at most N pages per good corpus and N per junk kind")
    ap.add_argument("--no-crawl", action="store_true", help="skip part (c), the loopback crawl")
    ap.add_argument("--crawl-render", choices=("auto", "skip"), default=None, help="render policy of the crawl (default: auto when Chromium is installed)")
    ap.add_argument("--crawl-sample", type=int, default=60, help="good pages served in the crawl (default 60)")
    ap.add_argument("--workdir", default=None, help="keep the crawl's store and log here")
    args = ap.parse_args(argv)
    r = run(args.corpus, args.limit, crawl=not args.no_crawl, crawl_render=args.crawl_render, sample=args.crawl_sample,
            workdir=Path(args.workdir) if args.workdir else None)
    print(json.dumps(r, sort_keys=True, ensure_ascii=False))
    return 0 if all(r["targets_met"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
