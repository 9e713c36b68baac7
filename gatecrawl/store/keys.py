"""The store's key layout, in one place. Keys are relative and '/'-separated; an
``s3://bucket/prefix`` store puts them under ``prefix/``.

Per page (``url_key``: sha256 of the canonical final URL, :func:`gatecrawl.core.evidence.url_key`):

- ``<site>/pages/<url_key>.md`` and ``<site>/pages/<url_key>.json``: a kept page's Markdown and packet;
- ``<site>/quarantine/<url_key>.json``: a dropped page's packet.

Per site:

- ``<site>/index.jsonl``: every URL stored for the site with its latest outcome;
- ``<site>/recrawl.jsonl``: what changed-only recrawls start from (:mod:`gatecrawl.store.recrawl`);
- ``<site>/routing.json``: learned render routing (:mod:`gatecrawl.core.routing`).

Per run (run and crawl ids made key-safe by :func:`key_safe`):

- ``<site>/runs/<run id>.json``: the run manifest;
- ``<site>/runs/changes/<run id>.json``: the run's change list;
- ``<site>/runs/reports/<run id>.{record.json,summary.json,html}``: the crawl report;
- ``<site>/crawls/<crawl id>.json``: a distributed crawl's run manifests merged.

Pure: no imports beyond the standard library.
"""

from __future__ import annotations

import re

__all__ = [
    "CRAWLS_FOLDER",
    "REPORTS_FOLDER",
    "changes_key",
    "crawl_key",
    "index_key",
    "key_safe",
    "page_keys",
    "report_keys",
    "routing_key",
    "run_manifest_key",
    "runs_prefix",
    "state_key",
]

RUNS_FOLDER = "runs"
REPORTS_FOLDER = "reports"
CHANGES_FOLDER = "changes"
CRAWLS_FOLDER = "crawls"

_UNSAFE_KEY_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def key_safe(name: str) -> str:
    """A run or crawl id made safe for a store key (runs of other characters become ``_``)."""
    return _UNSAFE_KEY_CHARS.sub("_", str(name))


def page_keys(site: str, url_key: str) -> dict[str, str]:
    """A page's three possible objects: ``markdown`` and ``packet`` (kept), ``quarantine`` (dropped)."""
    return {
        "markdown": f"{site}/pages/{url_key}.md",
        "packet": f"{site}/pages/{url_key}.json",
        "quarantine": f"{site}/quarantine/{url_key}.json",
    }


def index_key(site: str) -> str:
    return f"{site}/index.jsonl"


def state_key(site: str) -> str:
    return f"{site}/recrawl.jsonl"


def routing_key(site: str) -> str:
    return f"{site}/routing.json"


def runs_prefix(site: str) -> str:
    """The folder of the site's run manifests (``<site>/runs/``)."""
    return f"{site}/{RUNS_FOLDER}/"


def run_manifest_key(site: str, run_id: str) -> str:
    return f"{runs_prefix(site)}{key_safe(run_id)}.json"


def changes_key(site: str, run_id: str) -> str:
    return f"{runs_prefix(site)}{CHANGES_FOLDER}/{key_safe(run_id)}.json"


def report_keys(site: str, run_id: str) -> dict[str, str]:
    """Keys of a run's record, summary and HTML report."""
    base = f"{runs_prefix(site)}{REPORTS_FOLDER}/{key_safe(run_id)}"
    return {"record": f"{base}.record.json", "summary": f"{base}.summary.json", "html": f"{base}.html"}


def crawl_key(site: str, crawl_id: str) -> str:
    return f"{site}/{CRAWLS_FOLDER}/{key_safe(crawl_id)}.json"
