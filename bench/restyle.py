"""Markup robustness: the extraction corpora rewritten in older markup, convert() vs trafilatura.

Usage: ``python -m bench.restyle [--corpus article-extraction|wcxb-dev|all] [--data DIR]
[--styles asis,sectioning,brpara,noattr,legacy] [--limit N] [--per-page FILE]``
(``--data`` names a corpus folder laid out as bench.extraction's, in place of ``--corpus``)

The corpora's pages are recent markup: HTML5 sectioning elements, ARIA roles, JSON-LD, classes
that name what they hold. Pages that were never tuned on (older news sites, blogs, hand-made
pages) often have none of it. Each style rewrites every page of a corpus, deterministically,
and scores the result against the same ground truth:

* ``asis``: the page unchanged (the reference figures of this run);
* ``sectioning``: ``article``, ``main``, ``section``, ``header``, ``footer``, ``nav``,
  ``aside``, ``figure`` and ``figcaption`` become ``div``; ``role`` and microdata attributes,
  JSON-LD and Open Graph ``meta`` are removed;
* ``brpara``: every ``<p>`` is unwrapped, its content followed by ``<br><br>`` (paragraphs as
  line breaks, the way editors of the early 2000s wrote them);
* ``noattr``: every ``class`` and ``id`` attribute is removed;
* ``legacy``: all three.

Scoring is bench.extraction's (shingle F1 of the visible text of what ``convert()`` stores, a
dropped page counting as empty); trafilatura runs with its defaults on the same rewritten
bytes. ``collapsed`` counts pages where convert() scores F1 < 0.2 while trafilatura scores
>= 0.8. The last line printed is one JSON object ``{"corpora": {corpus: {style: {...}}}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import lxml.html

from bench.extraction import CORPORA, load_corpus, markdown_visible_text, page_f1, score

STYLES = ("asis", "sectioning", "brpara", "noattr", "legacy")
_SECTIONING = frozenset(("article", "main", "section", "header", "footer", "nav", "aside",
                         "figure", "figcaption"))
_SEMANTIC_ATTRS = ("role", "itemprop", "itemtype", "itemscope")


def _strip_sectioning(doc: lxml.html.HtmlElement) -> None:
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag in _SECTIONING:
            el.tag = "div"
        for name in _SEMANTIC_ATTRS:
            el.attrib.pop(name, None)
    for el in doc.xpath('//script[@type="application/ld+json"]|//meta[starts-with(@property, "og:")]'):
        el.drop_tree()


def _paragraphs_as_breaks(doc: lxml.html.HtmlElement) -> None:
    for p in list(doc.iter("p")):
        if p.getparent() is None:
            continue
        prev = p.getprevious()
        before = prev.tail if prev is not None else p.getparent().text
        if (before or "").strip():  # loose text right before: a line break keeps it apart
            br = lxml.html.Element("br")
            br.tail, p.text = p.text, None
            p.insert(0, br)
        p.append(lxml.html.Element("br"))
        p.append(lxml.html.Element("br"))
        p.drop_tag()  # the content and the tail stay where the paragraph was


def _strip_names(doc: lxml.html.HtmlElement) -> None:
    for el in doc.iter():
        if isinstance(el.tag, str):
            el.attrib.pop("class", None)
            el.attrib.pop("id", None)


def restyle(body: bytes, style: str) -> bytes:
    """``body`` rewritten in ``style`` (one of :data:`STYLES`); the same input gives the same
    bytes."""
    if style == "asis":
        return body
    doc = lxml.html.document_fromstring(body)
    if style in ("sectioning", "legacy"):
        _strip_sectioning(doc)
    if style in ("brpara", "legacy"):
        _paragraphs_as_breaks(doc)
    if style in ("noattr", "legacy"):
        _strip_names(doc)
    return lxml.html.tostring(doc, encoding="utf-8", doctype="<!DOCTYPE html>")


def run_style(pages: dict, gold: dict, urls: dict, style: str) -> tuple[dict, dict]:
    import trafilatura
    from gatecrawl.core.convert import convert

    ours: dict[str, str] = {}
    theirs: dict[str, str] = {}
    drops = 0
    for pid in sorted(pages):
        body = restyle(pages[pid], style)
        res = convert(body, urls[pid], content_type="text/html")
        if res.ok:
            ours[pid] = markdown_visible_text(res.markdown)
        else:
            drops += 1
        theirs[pid] = trafilatura.extract(body) or ""
    a, b = score(ours, gold), score(theirs, gold)
    per_page = {pid: (page_f1(*a["per_page"][pid]), page_f1(*b["per_page"][pid])) for pid in gold}
    collapsed = sum(1 for o, t in per_page.values() if o < 0.2 and t >= 0.8)
    out = {"pages": len(gold), "convert_f1": round(a["f1"], 4), "trafilatura_f1": round(b["f1"], 4),
           "difference": round(a["f1"] - b["f1"], 4), "dropped": drops, "collapsed": collapsed}
    return out, per_page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default="all")
    ap.add_argument("--data", type=Path, default=None, help="a corpus folder (in place of --corpus)")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--limit", type=int, default=None, help="pages per corpus")
    ap.add_argument("--per-page", type=Path, default=None,
                    help="write {corpus: {style: {id: [convert F1, trafilatura F1]}}}")
    args = ap.parse_args(argv)
    styles = [s for s in args.styles.split(",") if s]
    unknown = [s for s in styles if s not in STYLES]
    if unknown:
        ap.error(f"unknown style(s) {unknown}; choose from {', '.join(STYLES)}")
    if args.data is not None:
        folders = {args.data.name: args.data}
    else:
        folders = {name: CORPORA[name] for name in (list(CORPORA) if args.corpus == "all" else [args.corpus])}
    report: dict = {"corpora": {}}
    pages_out: dict = {}
    for name, folder in folders.items():
        pages, gold, urls = load_corpus(folder, args.limit)
        report["corpora"][name] = {}
        pages_out[name] = {}
        for style in styles:
            out, per_page = run_style(pages, gold, urls, style)
            report["corpora"][name][style] = out
            pages_out[name][style] = {pid: [round(o, 4), round(t, 4)] for pid, (o, t) in per_page.items()}
            print(f"{name:20s} {style:11s} convert {out['convert_f1']:.4f}  trafilatura "
                  f"{out['trafilatura_f1']:.4f}  difference {out['difference']:+.4f}  "
                  f"dropped {out['dropped']}  collapsed {out['collapsed']}", flush=True)
    if args.per_page:
        args.per_page.write_text(json.dumps(pages_out, sort_keys=True), encoding="utf-8")
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
