"""The merged manifest of a distributed crawl: one answer to "what did crawl X produce".

In distributed mode every worker writes its own run manifest ``<site>/runs/<run id>.json``,
each naming the shared crawl in ``crawl_id``. This module merges the run manifests of one crawl
into ``<site>/crawls/<crawl id>.json`` (schema ``gatecrawl.crawl/1``):

- ``pages``: one entry per store key (the ``url_key`` of the canonical final URL): the union of
  the runs' entries. Delivery is at least once, so two runs may have exported the same key; the
  entry of the *later* run wins (runs ordered by ``finished_at``, then ``started_at``, then run
  id; within a run, the later entry). The store keeps the later *write*, which is almost always
  the later run's; both deliveries convert the same page, so they differ only when its outcome
  changed in between. Each entry says which run it comes from (``run_id``) and how many entries
  the runs had for its key (``deliveries``);
- ``counts``: recomputed from the merged entries (never summed, so a page delivered twice counts
  once), plus ``duplicate_deliveries`` (entries beyond the first for a key) and ``runs``;
- ``runs``: every run of the crawl with its manifest key, start and finish times, its own counts
  and its exit reasons (``gatecrawl/exit/*`` stats); ``runs_without_manifest``: run ids the crawl
  registered (Redis set ``<prefix>:<spider>:<crawl id>:runs``) that have no manifest: still
  running, or killed before writing one (their exported pages are in the store but in no
  manifest). None when the registered runs are not known;
- ``stats``: the runs' numeric ``gatecrawl/*`` stats summed (they are per-run counters; the
  ``gatecrawl/exit/*`` reasons stay per run).

The output is deterministic: the same manifests give the same bytes, whatever order they were
read in (canonical JSON, sorted keys, as for run manifests). No wall-clock time is added.

Pure: no Scrapy imports. Reads and writes through :class:`gatecrawl.store.base.Store`, so the
same code serves a local folder and S3.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Mapping

from gatecrawl.core.evidence import url_key as _url_key
from gatecrawl.report.record import dump_json, time_key
from gatecrawl.store.keys import crawl_key, run_manifest_key, runs_prefix
from gatecrawl.store.base import Store

__all__ = [
    "CRAWL_MANIFEST_VERSION",
    "crawl_key",
    "run_manifest_key",
    "merge_run_manifests",
    "load_crawl_manifests",
    "write_crawl_manifest",
    "text_crawl_summary",
]

CRAWL_MANIFEST_VERSION = "gatecrawl.crawl/1"


# -- merging (no I/O) ------------------------------------------------------------------


def _entry_key(entry: Mapping[str, Any]) -> str:
    """The store identity of a manifest entry: the ``url_key`` its objects are named after."""
    for k in list(entry.get("keys") or []) + list(entry.get("stale_keys") or []):
        name = str(k).rsplit("/", 1)[-1]
        if "." in name:
            return name.split(".", 1)[0]
    url = entry.get("url")
    return _url_key(url) if url else ""


def _run_order(m: Mapping[str, Any]) -> tuple[str, str, str]:
    return (time_key(str(m.get("finished_at") or "")), time_key(str(m.get("started_at") or "")), str(m.get("run_id") or ""))


def _canonical(m: Mapping[str, Any]) -> str:
    return json.dumps(m, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _counts(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    entries = list(entries)
    reasons: dict[str, int] = {}
    for e in entries:
        if e.get("outcome") == "dropped":
            r = str(e.get("drop_reason"))
            reasons[r] = reasons.get(r, 0) + 1
    return {
        "seen": len(entries),
        "kept": sum(1 for e in entries if e.get("outcome") == "kept"),
        "dropped": sum(1 for e in entries if e.get("outcome") == "dropped"),
        "needs_render": sum(1 for e in entries if e.get("needs_render")),
        "dropped_by_reason": dict(sorted(reasons.items())),
    }


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def merge_run_manifests(
    manifests: Iterable[Mapping[str, Any]],
    *,
    site: str,
    crawl_id: str,
    registered_run_ids: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Merge the run manifests of crawl ``crawl_id`` (see the module docstring).

    Manifests whose ``crawl_id`` or ``site`` differ are ignored. Two manifests with the same run id
    (should not happen) count once: the later finished, ties broken by content, so the result
    never depends on the input order. ``registered_run_ids``: the run ids the crawl registered,
    to report the runs that left no manifest (None: unknown).
    """
    by_run: dict[str, Mapping[str, Any]] = {}
    for m in manifests:
        if not isinstance(m, Mapping) or m.get("crawl_id") != crawl_id or (m.get("site") not in (None, site)):
            continue
        rid = str(m.get("run_id") or "")
        old = by_run.get(rid)
        if old is None or (_run_order(m), _canonical(m)) > (_run_order(old), _canonical(old)):
            by_run[rid] = m
    runs = sorted(by_run.values(), key=_run_order)

    merged: dict[str, dict[str, Any]] = {}
    deliveries: dict[str, int] = {}
    stats: dict[str, int | float] = {}
    run_list = []
    for m in runs:
        rid = str(m.get("run_id") or "")
        for e in m.get("pages") or []:
            if not isinstance(e, Mapping):
                continue
            k = _entry_key(e)
            deliveries[k] = deliveries.get(k, 0) + 1
            merged[k] = {**e, "url_key": k, "run_id": rid}
        run_stats = m.get("stats") or {}
        for name, value in run_stats.items():
            if name.startswith("gatecrawl/") and not name.startswith("gatecrawl/exit/") and _number(value):
                stats[name] = stats.get(name, 0) + value
        run_list.append(
            {
                "run_id": rid,
                "manifest_key": run_manifest_key(site, rid),
                "started_at": m.get("started_at"),
                "finished_at": m.get("finished_at"),
                "recipe_digest": (m.get("recipe") or {}).get("digest"),
                "counts": m.get("counts") or {},
                "exit": {n: v for n, v in sorted(run_stats.items()) if n.startswith("gatecrawl/exit/")},
            }
        )
    for k, e in merged.items():
        e["deliveries"] = deliveries[k]
    pages = sorted(merged.values(), key=lambda e: (str(e.get("url") or ""), e["url_key"]))
    counts = _counts(pages)
    counts["duplicate_deliveries"] = sum(deliveries.values()) - len(deliveries)
    counts["runs"] = len(run_list)
    latest = runs[-1] if runs else {}
    recipe = latest.get("recipe") or {}
    starts = sorted((time_key(str(m["started_at"])), str(m["started_at"])) for m in runs if m.get("started_at"))
    missing = None
    if registered_run_ids is not None:
        missing = sorted({str(r) for r in registered_run_ids if r} - set(by_run))
    return {
        "schema_version": CRAWL_MANIFEST_VERSION,
        "site": site,
        "crawl_id": crawl_id,
        "recipe": {"name": recipe.get("name"), "digest": recipe.get("digest")},
        "started_at": starts[0][1] if starts else None,
        "finished_at": latest.get("finished_at"),
        "counts": counts,
        "runs": run_list,
        "runs_without_manifest": missing,
        "pages": pages,
        "stats": dict(sorted(stats.items())),
    }


# -- store I/O -------------------------------------------------------------------------


def _load(store: Store, key: str) -> dict[str, Any] | None:
    data = store.get(key)
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _manifest_keys(store: Store, site: str) -> list[str]:
    """Every run manifest key of ``site`` (``<site>/runs/*.json``, not the reports below it)."""
    prefix = runs_prefix(site)
    return [k for k in store.list(prefix) if k.endswith(".json") and "/" not in k[len(prefix) :]]


def load_crawl_manifests(
    store: Store,
    site: str,
    crawl_id: str,
    *,
    run_ids: Iterable[str] | None = None,
    cache: dict[str, dict[str, Any] | None] | None = None,
) -> list[dict[str, Any]]:
    """The run manifests of crawl ``crawl_id`` in the store.

    With ``run_ids`` only those runs' manifests are read (a worker knows them from Redis);
    without, every run manifest of the site is read and those naming the crawl are kept.
    ``cache`` (key -> parsed manifest) spares re-reading a manifest already read: a run
    manifest is written once, at the end of its run; a key not found is looked up again."""
    cache = {} if cache is None else cache
    keys = sorted({run_manifest_key(site, r) for r in run_ids if r}) if run_ids is not None else _manifest_keys(store, site)
    out = []
    for key in keys:
        if cache.get(key) is None:
            cache[key] = _load(store, key)
        doc = cache[key]
        if doc is not None and doc.get("crawl_id") == crawl_id:
            out.append(doc)
    return out


def write_crawl_manifest(
    store: Store,
    site: str,
    crawl_id: str,
    *,
    own: Mapping[str, Any] | None = None,
    run_ids: Callable[[], Iterable[str] | None] | Iterable[str] | None = None,
    scan: bool = False,
    flush_timeout: float | None = None,
    max_passes: int = 5,
) -> tuple[str, dict[str, Any]]:
    """Merge the crawl's run manifests and write ``<site>/crawls/<crawl id>.json``.

    ``own``: the calling run's manifest (read from the store otherwise: an asynchronous store
    may not have it yet). ``run_ids``: the crawl's registered run ids, or a function returning
    them (re-asked on every pass); with ``scan`` (or without ``run_ids``) every run manifest of
    the site is read instead and the registered ids only tell which runs left no manifest.

    Every worker calls this after writing its own manifest, so the last one to finish leaves the
    complete file. Two workers finishing together could interleave (A reads, B writes its manifest
    and the merge, A writes an older merge), so after writing, the manifests are looked up again
    and the merge is redone while the set of manifests changed (at most ``max_passes`` passes): the
    last write then covers every manifest written before it. Returns (key, merged manifest); when
    the crawl has no run manifest in the store, nothing is written (``counts["runs"]`` is 0).
    Raises :class:`gatecrawl.store.StoreError` when the store cannot be read or written."""
    key = crawl_key(site, crawl_id)
    cache: dict[str, dict[str, Any] | None] = {}
    own_doc = json.loads(dump_json(own)) if own is not None else None
    if own_doc is not None:
        cache[run_manifest_key(site, str(own_doc.get("run_id")))] = own_doc
    written: tuple | None = None
    doc: dict[str, Any] = {}
    for _ in range(max(1, max_passes)):
        registered = run_ids() if callable(run_ids) else run_ids
        registered = sorted({str(r) for r in registered if r}) if registered is not None else None
        if own_doc is not None and registered is not None and own_doc.get("run_id") not in registered:
            registered = sorted([*registered, str(own_doc.get("run_id"))])
        read_ids = None if (scan or registered is None) else registered
        manifests = load_crawl_manifests(store, site, crawl_id, run_ids=read_ids, cache=cache)
        state = (tuple(sorted(str(m.get("run_id")) for m in manifests)), tuple(registered) if registered is not None else None)
        if state == written:
            break
        if not manifests:
            # Nothing to merge (no run of this crawl in the store): nothing is written.
            return key, merge_run_manifests([], site=site, crawl_id=crawl_id, registered_run_ids=registered)
        doc = merge_run_manifests(manifests, site=site, crawl_id=crawl_id, registered_run_ids=registered)
        store.put(key, dump_json(doc), content_type="application/json")
        if store.flush(flush_timeout):
            break  # not durably stored yet (S3 spool): the next run uploads it
        written = state
    return key, doc


def text_crawl_summary(doc: Mapping[str, Any], key: str | None = None) -> str:
    """A few lines for a terminal."""
    c = doc["counts"]
    runs = [r["run_id"] for r in doc.get("runs") or []]
    lines = [
        f"crawl: site {doc['site']}, crawl {doc['crawl_id']}, {len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(runs)})",
        (
            f"  pages seen {c['seen']}, kept {c['kept']}, dropped {c['dropped']}, flagged for rendering {c['needs_render']}; "
            f"duplicate deliveries {c['duplicate_deliveries']}"
        ),
    ]
    for reason, n in (c.get("dropped_by_reason") or {}).items():
        lines.append(f"    dropped {reason}: {n}")
    if doc.get("runs_without_manifest"):
        lines.append(f"  runs without a manifest (running, or killed): {', '.join(doc['runs_without_manifest'])}")
    if key:
        lines.append(f"  crawl manifest {key}")
    return "\n".join(lines)
