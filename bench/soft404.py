"""Measure the per-host "not found" fingerprint (gatecrawl.core.soft404) on real pages.

For every page of ``../shared/bench/wcxb-dev`` (and ``article-extraction``), build a "not found"
template wrapped in that page's own chrome: the selected main-content element's children are
replaced by a short apology (three wordings, one of them with a list of links to "popular"
pages as news sites do, one echoing the requested path). Then:

- negatives: the real page against its own site's template (must NOT match);
- positives: the template served at another made-up URL against the probe's template (must match).

Usage: ``python -m bench.soft404 [--corpus wcxb-dev|article-extraction|both]``. Last line JSON.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

from lxml import etree
from lxml.html import fragment_fromstring, tostring

from gatecrawl.core import soft404
from gatecrawl.core.extract import select_main
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import to_markdown

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
if not BENCH.exists():
    BENCH = Path("/work/shared/bench")

TEMPLATES = (
    "<div><h1>Oops!</h1><p>We looked everywhere but this page seems to have wandered off. "
    "Check the address or head back to the home page.</p></div>",
    "<div><h2>Sorry, we could not find that</h2><p>The link you followed may be broken, or the page may have been removed. "
    "Try a search, or read one of our most popular stories:</p><ul>"
    "<li><a href='/a'>Ten things to know this week</a></li><li><a href='/b'>The long read: how it all began</a></li>"
    "<li><a href='/c'>Opinion: what comes next</a></li><li><a href='/d'>Photos of the day</a></li></ul></div>",
    "<div><h1>Nothing here</h1><p>There is no page at {path} on this site. It may have moved, or the address may be mistyped.</p>"
    "<p><a href='/'>Go to the home page</a></p></div>",
)


def _main_element(doc, main_text: str):
    """The deepest element that still holds at least 90% of the main text's words: the content
    container, found in the page as served (a CSS path from the extractor may not survive a re-parse)."""
    target = set(re.findall(r"\w+", main_text.lower()))
    if len(target) < 5:
        return None
    body = doc.find("body")
    node = body
    while node is not None:
        best = None
        for child in node:
            if not isinstance(child.tag, str) or child.tag in ("script", "style"):
                continue
            words = set(re.findall(r"\w+", child.text_content().lower()))
            if len(target & words) >= 0.9 * len(target):
                best = child
                break
        if best is None:
            return None if node is body else node
        node = best
    return None


def _template(raw: bytes, main_text: str, template: str, path: str) -> bytes | None:
    doc = parse_html(raw)
    el = _main_element(doc, main_text)
    if el is None:
        return None
    for child in list(el):
        el.remove(child)
    el.text = None
    el.append(fragment_fromstring(template.replace("{path}", path)))
    # A template must really have lost the page's content: at most 10% of its main-text
    # 3-shingles may remain anywhere in the template page (else the pair is not built).
    words = re.findall(r"\w+", main_text.lower())
    grams = {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
    left = re.findall(r"\w+", doc.text_content().lower())
    left_grams = {" ".join(left[i : i + 3]) for i in range(len(left) - 2)}
    if grams and len(grams & left_grams) > 0.1 * len(grams):
        return None
    return tostring(doc.getroottree(), encoding="utf-8", doctype="<!DOCTYPE html>")


def _fp(raw: bytes, url: str) -> dict:
    doc = parse_html(raw)
    sel = select_main(doc)
    md = to_markdown(sel.root, base_url=url)
    return soft404.fingerprint(doc, md.text, url)


def _pages(corpus: str):
    root = BENCH / corpus
    gt = json.loads((root / "ground-truth.json").read_text("utf-8"))
    items = gt.items() if isinstance(gt, dict) else ((str(e.get("id")), e) for e in gt)
    for pid, entry in sorted(items):
        f = root / "html" / f"{pid}.html.gz"
        if not f.exists():
            f = root / "html" / f"{pid}.html"
            if not f.exists():
                continue
            raw = f.read_bytes()
        else:
            raw = gzip.open(f).read()
        yield pid, raw, (entry.get("url") if isinstance(entry, dict) else None) or f"https://example.test/page/{pid}", (entry.get("page_type") if isinstance(entry, dict) else None) or "article"


def run(corpora: list[str], step: int = 1) -> dict:
    out: dict = {"text_threshold": soft404.TEXT_THRESHOLD, "skeleton_threshold": soft404.SKELETON_THRESHOLD}
    for corpus in corpora:
        neg_max_text = 0.0
        neg_max_both = 0.0
        neg_max_margin = 0.0
        neg_false = []
        pos_min_text = 1.0
        pos_min_skel = 1.0
        pos_miss = []
        pairs = 0
        skipped = 0
        unusable = 0
        for n, (pid, raw, url, ptype) in enumerate(_pages(corpus)):
            if n % step:
                continue
            doc = parse_html(raw)
            sel = select_main(doc)
            real_md = to_markdown(sel.root, base_url=url).text
            real_fp = soft404.fingerprint(doc, real_md, url)
            base = url.split("/", 3)
            origin = "/".join(base[:3]) if len(base) >= 3 else "https://example.test"
            probe_url = origin + soft404.probe_path("bench", "host")
            other_url = origin + "/news/2024/some-made-up-story-that-is-gone"
            for ti, tpl in enumerate(TEMPLATES):
                probe_raw = _template(raw, real_md, tpl, soft404.probe_path("bench", "host"))
                other_raw = _template(raw, real_md, tpl, "/news/2024/some-made-up-story-that-is-gone")
                if probe_raw is None or other_raw is None:
                    skipped += 1
                    break
                probe_fp = _fp(probe_raw, probe_url)
                if not soft404.usable(probe_fp):
                    unusable += 1
                    continue
                pairs += 1
                sim = soft404.compare(real_fp, probe_fp)
                neg_max_text = max(neg_max_text, sim["text"])
                neg_max_both = max(neg_max_both, min(sim["text"], sim["skeleton"]))
                # How close the pair came to a match: a match needs both similarities at their
                # thresholds, so the weaker of the two ratios is the distance to one (1.0 = match).
                neg_max_margin = max(neg_max_margin, round(min(sim["text"] / soft404.TEXT_THRESHOLD, sim["skeleton"] / soft404.SKELETON_THRESHOLD), 4))
                if soft404.match(real_fp, probe_fp):
                    neg_false.append((pid, ptype, ti, sim))
                psim = soft404.compare(_fp(other_raw, other_url), probe_fp)
                pos_min_text = min(pos_min_text, psim["text"])
                pos_min_skel = min(pos_min_skel, psim["skeleton"])
                if not soft404.match(_fp(other_raw, other_url), probe_fp):
                    pos_miss.append((pid, ptype, ti, psim))
        out[corpus] = {
            "pairs": pairs,
            "pages_without_main_element": skipped,
            "unusable_probes": unusable,
            "real_pages_matched": len(neg_false),
            "real_max_text_similarity": neg_max_text,
            "real_max_min_similarity": neg_max_both,
            "real_max_match_ratio": neg_max_margin,
            "templates_missed": len(pos_miss),
            "template_min_text_similarity": pos_min_text,
            "template_min_skeleton_similarity": pos_min_skel,
            "false_matches": neg_false[:10],
            "misses": pos_miss[:10],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="both", choices=("wcxb-dev", "article-extraction", "both"))
    a = ap.parse_args(argv)
    corpora = ["wcxb-dev", "article-extraction"] if a.corpus == "both" else [a.corpus]
    res = run(corpora)
    print(json.dumps(res, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
