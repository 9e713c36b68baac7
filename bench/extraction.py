"""Article-extraction benchmark: gatecrawl vs trafilatura on the same pages, same run.

Usage: ``python -m bench.extraction [--data DIR] [--limit N]``

Corpus layout (Scrapinghub article-extraction-benchmark): ``DIR/html/<id>.html.gz`` and
``DIR/ground-truth.json`` mapping ``<id>`` to ``{"articleBody": ..., "url": ...}``.

Scoring follows that benchmark: text -> tokens (runs of ``\\w``, re.UNICODE), tokens ->
4-token shingles; per page precision = shared / predicted and recall = shared / gold over
shingle multisets (Counter intersection); a page with no prediction has recall 0 and is
left out of the precision mean; precision and recall are averaged over pages and F1 is the
harmonic mean of the two means.

gatecrawl runs with the default recipe options: bylines, datelines and captions that the
second-opinion extractor leaves out go to the evidence packet, not the Markdown body. A
second, informational pass with ``content.keep_bylines`` and ``content.keep_captions`` on
reports ``keep_bylines_captions_f1`` (row ``gc+keep``).

gatecrawl is scored on the text a reader of its Markdown sees: the Markdown is rendered
(markdown-it-py, GFM tables) and the visible text is taken (link and image targets and the
Markdown syntax markers are not text). Image alt text is dropped as well (a reader sees
the image, not its alt text).

Speed: each page is converted by gatecrawl's extraction core (``parse_html`` ->
``select_main`` -> ``to_markdown``) and by trafilatura back to back (interleaved, so that
load from other processes hits both alike); pages/s = pages / summed wall time. When
``gatecrawl.core.convert`` exists, a second pass through the full ``convert()`` (quality
gates, validation, evidence packet on top of the core) reports ``convert_pages_per_s`` and
how many pages gave the same Markdown as the core (``convert_same_markdown``).
The last line printed is one JSON object with the figures.
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


def load_corpus(data: Path, limit: int | None = None) -> tuple[dict, dict, dict]:
    gt = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    ids = sorted(gt)
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--worst", type=int, default=0, help="list the N worst pages (by F1)")
    ap.add_argument("--no-trafilatura", action="store_true",
                    help="skip the trafilatura baseline (for quick iteration)")
    ap.add_argument("--no-keep-variant", action="store_true",
                    help="skip the informational pass with keep_bylines/keep_captions on")
    ap.add_argument("--no-convert", action="store_true",
                    help="skip the informational pass through gatecrawl.core.convert")
    args = ap.parse_args(argv)

    import warnings

    warnings.filterwarnings("ignore")
    pages, gold, urls = load_corpus(args.data, args.limit)
    ids = sorted(pages)
    run = core_converter()
    import trafilatura

    ours_md: dict[str, str] = {}
    traf_txt: dict[str, str | None] = {}
    t_ours = 0.0
    t_traf = 0.0
    for pid in ids:
        t0 = time.perf_counter()
        ours_md[pid] = run(pages[pid], urls[pid])
        t1 = time.perf_counter()
        if not args.no_trafilatura:
            traf_txt[pid] = trafilatura.extract(pages[pid])
        t2 = time.perf_counter()
        t_ours += t1 - t0
        t_traf += t2 - t1

    ours_txt = {pid: markdown_visible_text(md) for pid, md in ours_md.items()}
    ours = score(ours_txt, gold)
    n = len(ids)
    pps = n / t_ours if t_ours else 0.0
    result = {
        "pages": n,
        "precision": round(ours["precision"], 4),
        "recall": round(ours["recall"], 4),
        "f1": round(ours["f1"], 4),
        "pages_per_s": round(pps, 2),
    }
    rows = [("gatecrawl", ours["precision"], ours["recall"], ours["f1"], pps)]
    if not args.no_trafilatura:
        traf = score(traf_txt, gold)
        tpps = n / t_traf if t_traf else 0.0
        rows.append(("trafilatura", traf["precision"], traf["recall"], traf["f1"], tpps))
        result.update({
            "trafilatura_f1": round(traf["f1"], 4),
            "trafilatura_pages_per_s": round(tpps, 2),
            "speed_ratio": round(pps / tpps, 3) if tpps else None,
        })
    full = None if args.no_convert else convert_entry_point()
    if full is not None:
        # Same pages through the full convert() (gates, validation, evidence packet): its
        # speed is reported for information; its Markdown should equal the core's.
        t_full = 0.0
        same = 0
        for pid in ids:
            t0 = time.perf_counter()
            md = full(pages[pid], urls[pid])
            t_full += time.perf_counter() - t0
            same += md == ours_md[pid]
        result["convert_pages_per_s"] = round(n / t_full, 2) if t_full else None
        result["convert_same_markdown"] = same
    if not args.no_keep_variant:
        # For information: the same core with the recipe options that keep every byline,
        # dateline and caption in the Markdown body (content.keep_bylines/keep_captions).
        keep_run = core_converter(keep_bylines=True, keep_captions=True)
        keep_txt = {pid: markdown_visible_text(keep_run(pages[pid], urls[pid])) for pid in ids}
        keep = score(keep_txt, gold)
        rows.append(("gc+keep", keep["precision"], keep["recall"], keep["f1"], float("nan")))
        result["keep_bylines_captions_f1"] = round(keep["f1"], 4)
    if args.worst:
        worst = []
        for pid, (pr, rc) in ours["per_page"].items():
            f = 0.0 if pr is None or pr + rc == 0 else 2 * pr * rc / (pr + rc)
            worst.append((f, pid, pr, rc))
        worst.sort()
        for f, pid, pr, rc in worst[:args.worst]:
            print(f"{f:.3f} p={pr if pr is None else round(pr, 3)} r={rc:.3f} {pid} {urls[pid]}")
    print(f"{'system':<12} {'precision':>9} {'recall':>7} {'f1':>7} {'pages/s':>8}")
    for name, p, r, f, s in rows:
        speed = f"{s:8.2f}" if s == s else f"{'-':>8}"  # nan: not timed
        print(f"{name:<12} {p:9.4f} {r:7.4f} {f:7.4f} {speed}")
    print(json.dumps(result, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
