"""Extraction benchmark: gatecrawl's convert() vs trafilatura and readability-lxml, same run.

Usage: ``python -m bench.extraction [--corpus article-extraction|wcxb-dev|all] [--data DIR]
[--limit N] [--worst N] [--type TYPE] [--half tune|check] [--ids a,b,c] [--per-page FILE]``

Subsets for cheap iteration: ``--type`` keeps the pages of one page type (pages without a
``page_type`` are articles), ``--half`` the pages of one half of the site split, ``--ids``
the listed page ids; the filters combine (all must hold) and apply before ``--limit``.
``--per-page FILE`` writes ``{corpus: {id: [convert F1, trafilatura F1 or null, type, half,
drop reason or null]}}`` so two runs can be compared page by page. ``--baseline-cache DIR``
keeps trafilatura's and readability-lxml's texts in ``DIR`` (one JSON file per corpus and
library version) and reuses them on the next run: the baselines are then not timed
(``speed_ratio`` is null), so use it for iteration, not for speed figures.

Corpus layout (Scrapinghub article-extraction-benchmark): ``DIR/html/<id>.html.gz`` and
``DIR/ground-truth.json`` mapping ``<id>`` to ``{"articleBody": ..., "url": ...,
"page_type": ...}`` (``page_type`` optional; missing means article).

Scoring follows that benchmark: text -> tokens (runs of ``\\w``, re.UNICODE), tokens ->
4-token shingles; per page precision = shared / predicted and recall = shared / gold over
shingle multisets (Counter intersection); a page with no prediction has recall 0 and is
left out of the precision mean; precision and recall are averaged over pages and F1 is the
harmonic mean of the two means.

What is scored is what users get: ``gatecrawl.core.convert.convert()`` with the default
recipe, a dropped page counting as empty (``convert_f1``); ``markdown_f1`` scores the same
Markdown with drops ignored. gatecrawl is scored on the text a reader of its Markdown sees:
the Markdown is rendered (markdown-it-py, GFM tables) and the visible text is taken (link
and image targets, alt text and the Markdown syntax markers are not text). trafilatura runs
with its defaults, readability-lxml with its defaults (text of ``summary()``).

Figures per page type and per half of the corpus split by site (``half:tune`` /
``half:check``: tune on one, check on the other); ``collapsed`` counts pages where
convert() scores F1 < 0.2 while trafilatura scores >= 0.8. Speed: convert(), trafilatura
and readability-lxml run back to back on each page (interleaved, so load from other
processes hits all alike); pages/s = pages / summed wall time; ``speed_ratio`` is
convert()'s pages/s over trafilatura's. The last line printed is one JSON object: one entry
per corpus under ``corpora`` (with one corpus, its figures are also at the top level).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = (REPO_ROOT / ".." / "shared" / "bench" / "article-extraction").resolve()

_TOKEN = re.compile(r"\w+", re.UNICODE)


def shingles(text: str, n: int = 4) -> Counter:
    toks = _TOKEN.findall(text or "")
    return Counter(tuple(toks[i:i + n]) for i in range(max(0, len(toks) - n + 1)))


def score(preds: dict[str, str | None], gold: dict[str, str]) -> dict:
    precisions: list[float] = []
    recalls: list[float] = []
    per_page: dict[str, tuple[float | None, float]] = {}
    for pid in sorted(gold):
        g = shingles(gold[pid])
        p = shingles(preds.get(pid) or "")
        if not p:
            recalls.append(0.0)
            per_page[pid] = (None, 0.0)
            continue
        shared = sum((g & p).values())
        pr = shared / sum(p.values())
        rc = shared / sum(g.values()) if g else 0.0
        precisions.append(pr)
        recalls.append(rc)
        per_page[pid] = (pr, rc)
    mp = sum(precisions) / len(precisions) if precisions else 0.0
    mr = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * mp * mr / (mp + mr) if mp + mr else 0.0
    return {"precision": mp, "recall": mr, "f1": f1, "per_page": per_page}


def select_ids(gt: dict, *, page_type: str | None = None, half: str | None = None,
               ids: set[str] | None = None) -> list[str]:
    """The page ids of a ground-truth mapping that pass every given filter, sorted."""
    out = []
    for pid in sorted(gt):
        if ids is not None and pid not in ids:
            continue
        if page_type is not None and (gt[pid].get("page_type") or "article") != page_type:
            continue
        if half is not None and host_half(gt[pid].get("url") or "") != half:
            continue
        out.append(pid)
    return out


def load_corpus(data: Path, limit: int | None = None, *, page_type: str | None = None,
                half: str | None = None, ids: set[str] | None = None) -> tuple[dict, dict, dict]:
    gt = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    ids = select_ids(gt, page_type=page_type, half=half, ids=ids)
    if limit:
        ids = ids[:limit]
    pages = {pid: gzip.decompress((data / "html" / f"{pid}.html.gz").read_bytes()) for pid in ids}
    gold = {pid: gt[pid].get("articleBody") or "" for pid in ids}
    urls = {pid: gt[pid].get("url") or "" for pid in ids}
    return pages, gold, urls


def core_converter(*, keep_bylines: bool = False, keep_captions: bool = False):
    """``f(body: bytes, url: str) -> markdown`` through the extraction core only:
    ``parse_html`` -> ``select_main`` -> ``to_markdown`` (what this benchmark compares
    with trafilatura, which does no more than that either). The keep options are the
    recipe's ``content.keep_bylines`` / ``content.keep_captions``."""
    from gatecrawl.core.extract import select_main
    from gatecrawl.core.htmlparse import parse_html
    from gatecrawl.core.markdown import to_markdown

    def run(body: bytes, url: str) -> str:
        doc = parse_html(body, content_type="text/html")
        sel = select_main(doc, keep_bylines=keep_bylines, keep_captions=keep_captions)
        return to_markdown(sel.root, base_url=url).text

    return run


def convert_entry_point():
    """The full pipeline entry point ``gatecrawl.core.convert.convert`` (gates, validation,
    evidence packet on top of the core), or None if it cannot be imported."""
    try:
        from gatecrawl.core.convert import convert
    except ImportError:
        return None

    def run(body: bytes, url: str) -> str:
        return convert(body, url, content_type="text/html").markdown

    return run


def gatecrawl_converter():
    """The full entry point when available, else the core (used by bench.determinism)."""
    return convert_entry_point() or core_converter()


_md_parser = None


def markdown_visible_text(md: str) -> str:
    """Text a reader of the rendered Markdown sees (no targets, no syntax markers)."""
    global _md_parser
    if _md_parser is None:
        from markdown_it import MarkdownIt

        _md_parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    out: list[str] = []

    def walk(tokens) -> None:
        for tok in tokens:
            if tok.type == "inline" and tok.children is not None:
                walk(tok.children)
            elif tok.type in ("text", "code_inline"):
                out.append(tok.content)
            elif tok.type in ("code_block", "fence"):
                out.append("\n" + tok.content + "\n")
            elif tok.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif tok.type == "image":
                continue  # alt text is not visible
            elif tok.type.endswith("_close") and tok.block:
                out.append("\n")

    walk(_md_parser.parse(md))
    return "".join(out)


CORPORA = {
    "article-extraction": (REPO_ROOT / ".." / "shared" / "bench" / "article-extraction").resolve(),
    "wcxb-dev": (REPO_ROOT / ".." / "shared" / "bench" / "wcxb-dev").resolve(),
}
#: a page "collapses" when gatecrawl scores under this F1 while trafilatura scores at least COLLAPSE_REF
COLLAPSE_MAX = 0.2
COLLAPSE_REF = 0.8


def page_f1(pr: float | None, rc: float) -> float:
    return 0.0 if pr is None or pr + rc == 0 else 2 * pr * rc / (pr + rc)


def host_half(url: str) -> str:
    """``tune`` or ``check``: a split by site (host without ``www.``), stable across runs."""
    import hashlib
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    return "tune" if hashlib.sha256(host.encode()).digest()[0] % 2 == 0 else "check"


def load_types(data: Path, ids) -> dict[str, str]:
    gt = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    return {pid: gt[pid].get("page_type") or "article" for pid in ids}


def _readability_text(body: bytes) -> str | None:
    try:
        import lxml.html
        from readability import Document
    except ImportError:
        return None
    try:
        return lxml.html.fromstring(Document(body).summary()).text_content()
    except Exception:
        return ""


def run_corpus(data: Path, args) -> tuple[dict, list]:
    """Score one corpus; returns (figures, table rows)."""
    import trafilatura

    from gatecrawl.core.convert import convert

    wanted = set(args.ids.split(",")) if args.ids else None
    pages, gold, urls = load_corpus(data, args.limit, page_type=args.type, half=args.half, ids=wanted)
    ids = sorted(pages)
    types = load_types(data, ids)
    stored: dict[str, str] = {}  # what the store gets: a dropped page is empty
    markdown: dict[str, str] = {}  # convert()'s Markdown, drops ignored
    drops: Counter = Counter()
    dropped_ids: dict[str, str] = {}
    traf_txt: dict[str, str | None] = {}
    read_txt: dict[str, str | None] = {}
    t_conv = t_traf = t_read = 0.0
    cache_file = None
    cache: dict = {}
    if args.baseline_cache is not None:
        try:
            import readability
            rver = getattr(readability, "__version__", "x")
        except ImportError:
            rver = "none"
        cache_file = args.baseline_cache / f"{data.name}-traf{trafilatura.__version__}-read{rver}.json"
        if cache_file.exists():
            cache = json.loads(cache_file.read_text(encoding="utf-8"))
    cache.setdefault("trafilatura", {})
    cache.setdefault("readability", {})
    cache_dirty = False
    for pid in ids:
        t0 = time.perf_counter()
        res = convert(pages[pid], urls[pid], content_type="text/html")
        t1 = time.perf_counter()
        if not args.no_trafilatura:
            if pid in cache["trafilatura"]:
                traf_txt[pid] = cache["trafilatura"][pid]
            else:
                traf_txt[pid] = trafilatura.extract(pages[pid])
                cache["trafilatura"][pid] = traf_txt[pid]
                cache_dirty = True
        t2 = time.perf_counter()
        if not args.no_readability:
            if pid in cache["readability"]:
                read_txt[pid] = cache["readability"][pid]
            else:
                read_txt[pid] = _readability_text(pages[pid])
                cache["readability"][pid] = read_txt[pid]
                cache_dirty = True
        t3 = time.perf_counter()
        t_conv += t1 - t0
        t_traf += t2 - t1
        t_read += t3 - t2
        markdown[pid] = markdown_visible_text(res.markdown)
        stored[pid] = markdown[pid] if res.ok else ""
        if not res.ok:
            drops[res.drop_reason] += 1
            dropped_ids[pid] = res.drop_reason
    if cache_file is not None:
        if cache_dirty:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(cache, sort_keys=True), encoding="utf-8")
        t_traf = t_read = 0.0  # not timed when cached
    n = len(ids)
    if not n:
        return {"pages": 0, "dropped": 0, "drop_reasons": {}, "groups": {}}, []
    conv = score(stored, gold)
    md = score(markdown, gold)
    out: dict = {
        "pages": n,
        "convert_f1": round(conv["f1"], 4),
        "convert_precision": round(conv["precision"], 4),
        "convert_recall": round(conv["recall"], 4),
        "dropped": sum(drops.values()),
        "drop_reasons": dict(sorted(drops.items())),
        "markdown_f1": round(md["f1"], 4),
        "convert_pages_per_s": round(n / t_conv, 2) if t_conv else None,
    }
    rows = [("convert()", conv["precision"], conv["recall"], conv["f1"], n / t_conv if t_conv else 0.0),
            ("markdown", md["precision"], md["recall"], md["f1"], float("nan"))]
    traf = read = None
    if not args.no_trafilatura:
        traf = score(traf_txt, gold)
        tpps = n / t_traf if t_traf else 0.0
        rows.append(("trafilatura", traf["precision"], traf["recall"], traf["f1"], tpps))
        out.update(trafilatura_f1=round(traf["f1"], 4), trafilatura_pages_per_s=round(tpps, 2),
                   speed_ratio=round((n / t_conv) / tpps, 3) if tpps and t_conv else None)
        collapsed = [pid for pid in ids if page_f1(*conv["per_page"][pid]) < COLLAPSE_MAX
                     and page_f1(*traf["per_page"][pid]) >= COLLAPSE_REF]
        out["collapsed"] = len(collapsed)
        out["collapsed_share"] = round(len(collapsed) / n, 4) if n else 0.0
        out["collapsed_ids"] = collapsed[:50]
    if not args.no_readability:
        read = score(read_txt, gold)
        rows.append(("readability", read["precision"], read["recall"], read["f1"], n / t_read if t_read else 0.0))
        out["readability_f1"] = round(read["f1"], 4)
    groups: dict[str, list[str]] = {}
    for pid in ids:
        groups.setdefault(f"type:{types[pid]}", []).append(pid)
        groups.setdefault(f"half:{host_half(urls[pid])}", []).append(pid)
    breakdown = {}
    for name in sorted(groups):
        sub = groups[name]
        g = {pid: gold[pid] for pid in sub}
        entry = {"pages": len(sub), "convert_f1": round(score({p: stored[p] for p in sub}, g)["f1"], 4),
                 "markdown_f1": round(score({p: markdown[p] for p in sub}, g)["f1"], 4),
                 "dropped": sum(1 for p in sub if stored[p] != markdown[p])}
        if traf is not None:
            entry["trafilatura_f1"] = round(score({p: traf_txt[p] for p in sub}, g)["f1"], 4)
        if read is not None:
            entry["readability_f1"] = round(score({p: read_txt[p] for p in sub}, g)["f1"], 4)
        breakdown[name] = entry
    out["groups"] = breakdown
    if args.worst:
        worst = sorted((page_f1(*conv["per_page"][pid]), pid) for pid in ids)[:args.worst]
        out["worst"] = [[pid, round(f, 3)] for f, pid in worst]
    per_page = {}
    for pid in ids:
        tf = round(page_f1(*traf["per_page"][pid]), 4) if traf is not None else None
        per_page[pid] = [round(page_f1(*conv["per_page"][pid]), 4), tf, types[pid],
                         host_half(urls[pid]), dropped_ids.get(pid)]
    out["_per_page"] = per_page
    return out, rows


def _print_corpus(name: str, out: dict, rows: list) -> None:
    print(f"== {name}: {out['pages']} pages, {out['dropped']} dropped {out['drop_reasons']}")
    if not out["pages"]:
        return
    print(f"{'system':<12} {'precision':>9} {'recall':>7} {'f1':>7} {'pages/s':>8}")
    for sys_name, p, r, f, sp in rows:
        speed = f"{sp:8.2f}" if sp == sp else f"{'-':>8}"  # nan: not timed
        print(f"{sys_name:<12} {p:9.4f} {r:7.4f} {f:7.4f} {speed}")
    print(f"{'group':<20} {'pages':>5} {'convert':>8} {'traf':>7} {'read':>7} {'dropped':>7}")
    for g, e in out["groups"].items():
        print(f"{g:<20} {e['pages']:5d} {e['convert_f1']:8.4f} {e.get('trafilatura_f1', float('nan')):7.4f} "
              f"{e.get('readability_f1', float('nan')):7.4f} {e['dropped']:7d}")
    if "collapsed" in out:
        print(f"collapsed (F1 < {COLLAPSE_MAX} while trafilatura >= {COLLAPSE_REF}): {out['collapsed']} "
              f"({out['collapsed_share']:.2%}) {out['collapsed_ids'][:20]}")
    if out.get("speed_ratio") is not None:
        print(f"convert() {out['convert_pages_per_s']} pages/s, trafilatura {out['trafilatura_pages_per_s']} "
              f"pages/s: ratio {out['speed_ratio']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default=None,
                    help="a named corpus (default: article-extraction, or --data)")
    ap.add_argument("--data", type=Path, default=None, help="a corpus folder in the same layout")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--worst", type=int, default=0, help="list the N worst pages (by convert() F1)")
    ap.add_argument("--type", default=None, help="only pages of this page type (wcxb: article, "
                    "collection, documentation, forum, listing, product, service)")
    ap.add_argument("--half", choices=["tune", "check"], default=None,
                    help="only pages of this half of the split by site")
    ap.add_argument("--ids", default=None, help="only these page ids, comma-separated")
    ap.add_argument("--per-page", type=Path, default=None,
                    help="write per-page figures (JSON) to this file")
    ap.add_argument("--baseline-cache", type=Path, default=None,
                    help="reuse baseline texts kept in this folder (baselines then not timed)")
    ap.add_argument("--no-trafilatura", action="store_true", help="skip the trafilatura baseline")
    ap.add_argument("--no-readability", action="store_true", help="skip the readability-lxml baseline")
    args = ap.parse_args(argv)

    import warnings

    warnings.filterwarnings("ignore")
    if args.data is not None:
        targets = {args.data.name: args.data}
    elif args.corpus == "all":
        targets = dict(CORPORA)
    else:
        name = args.corpus or "article-extraction"
        targets = {name: CORPORA[name]}
    result: dict = {"corpora": {}}
    per_page: dict = {}
    for name, data in targets.items():
        out, rows = run_corpus(data, args)
        per_page[name] = out.pop("_per_page", {})
        _print_corpus(name, out, rows)
        result["corpora"][name] = out
    if args.per_page is not None:
        args.per_page.write_text(json.dumps(per_page, sort_keys=True, indent=0), encoding="utf-8")
    if len(targets) == 1:
        result.update(next(iter(result["corpora"].values())))
    print(json.dumps(result, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
