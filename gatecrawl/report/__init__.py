"""Crawl reports: aggregates over the store, a JSON summary and a self-contained HTML page.

- ``record``: per-run records (``<site>/runs/reports/<run id>.record.json``), runs by finished time;
- ``aggregate``: the JSON summary of one run, built from ``stats`` (counts, rates,
  distributions, cost of one run), ``compare`` (which runs compare, stability, drift) and
  ``options`` (unit costs, thresholds);
- ``html`` (with ``style``, ``widgets`` and ``svg``): the HTML report (inline SVG charts, no
  script, no network);
- ``crawl``: the merged manifest of a distributed crawl (``<site>/crawls/<crawl id>.json``).

Used by the report extension at the end of every crawl and by ``scrapy report``. Pure: no
Scrapy imports.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import quote

from gatecrawl.report.aggregate import SUMMARY_VERSION, ReportError, ReportOptions, build_summary, run_stats
from gatecrawl.report.crawl import CRAWL_MANIFEST_VERSION, crawl_key, merge_run_manifests, text_crawl_summary, write_crawl_manifest
from gatecrawl.report.html import render_html
from gatecrawl.report.record import RECORD_VERSION, build_record, dump_json, list_runs, page_entry, report_keys
from gatecrawl.store.base import Store

__all__ = [
    "CRAWL_MANIFEST_VERSION",
    "SUMMARY_VERSION",
    "RECORD_VERSION",
    "ReportError",
    "ReportOptions",
    "build_summary",
    "build_record",
    "crawl_key",
    "dump_json",
    "list_runs",
    "merge_run_manifests",
    "page_entry",
    "packet_linker",
    "render_html",
    "report_keys",
    "run_stats",
    "text_crawl_summary",
    "text_summary",
    "write_crawl_manifest",
]


def packet_linker(store: Store, html_dir: str | os.PathLike[str] | None) -> Callable[[str], str | None]:
    """Links from an HTML file in ``html_dir`` to packets: relative paths for a local store,
    None (show the key) for any other store or when the HTML has no known folder."""
    root = getattr(store, "root", None)
    if root is None or html_dir is None:
        return lambda key: None
    root_abs = Path(root).resolve()
    base = Path(html_dir).resolve()

    def href(key: str) -> str | None:
        rel = os.path.relpath(root_abs / key, base)
        return quote(Path(rel).as_posix())

    return href


def text_summary(summary: Mapping[str, Any]) -> str:
    """A few lines for a terminal."""
    c, r, cost = summary["counts"], summary["rates"], summary["cost"]

    def pct(x: Any) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}%"

    per_k = cost["per_1000_clean_pages"]
    lines = [
        f"report: site {summary['site']}, run {summary['run_id']}" + (f", against {summary['against_run_id']}" if summary.get("against_run_id") else ""),
        f"  pages {c['pages']}, kept {c['kept']}, dropped {c['dropped']} ({pct(r['drop_rate'])}), escalated {c['escalated']} ({pct(r['escalation_rate'])}), rendered {c['rendered']} ({pct(r['render_rate'])})",
        f"  cost per 1,000 clean pages: {'n/a' if per_k is None else f'{per_k:.4g}'} {cost['currency']}",
    ]
    st = summary.get("stability")
    if st:
        lines.append(f"  stability: {pct(st['identical_share'])} byte-identical of {st['compared']} pages kept in both runs, score {st['score']}")
    for a in (summary.get("drift") or {}).get("alerts") or []:
        lines.append(f"  DRIFT: {a['message']}")
    return "\n".join(lines)
