"""The identity of a stored object: what must change for the object to be rewritten.

A page packet carries per-run facts (``run_id``, ``fetched_at``, ``*_ms`` timings, render polls) that differ on
every crawl even when the page did not change. Its *identity* is the sha256 of the packet's
canonical JSON with those volatile fields removed (at any depth); a Markdown file's
identity leaves out the ``fetched_at`` line of its front matter; every other object's identity
is the sha256 of its bytes. Stores compare identities, not bytes, so a re-crawl of
an unchanged site rewrites nothing; the volatile facts of each run go to its run manifest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["VOLATILE_FIELDS", "VOLATILE_RENDER_FIELDS", "identity_sha256", "object_metadata", "run_facts", "stable_view"]

# Per-run facts: the run id, wall-clock times, and every duration (any field named ``*_ms``, at any
# depth: latency, conversion, render timings) plus timing-driven counters of the renderer.
VOLATILE_FIELDS = frozenset({"run_id", "fetched_at", "polls"})
VOLATILE_SUFFIX = "_ms"
# In a browser render's report (the packet's ``render``): what the renderer observed on the way,
# which depends on timing rather than on the page's result: the bytes and requests seen until
# capture (caching, connection reuse, a page that polls), the scroll steps taken, the readiness
# probe's last reading of the main text (a page that never settles, such as a ticker, reads
# differently on every run while its Markdown may not), and the name of the browser context that
# happened to render the page (it depends on the crawl's order). The result (readiness passed
# and why, the selector, the Markdown) stays in the identity; the run manifest keeps these.
VOLATILE_RENDER_FIELDS = frozenset({
    "aborted_requests", "bytes_in", "bytes_received", "context", "main_text_chars", "main_text_hash",
    "requests", "scroll_steps",
})


def _volatile(name: str, parent: str | None = None) -> bool:
    return name in VOLATILE_FIELDS or name.endswith(VOLATILE_SUFFIX) or (parent == "render" and name in VOLATILE_RENDER_FIELDS)


def stable_view(obj: Any, parent: str | None = None) -> Any:
    """``obj`` without volatile fields (recursively)."""
    if isinstance(obj, dict):
        return {k: stable_view(v, k) for k, v in obj.items() if not _volatile(k, parent)}
    if isinstance(obj, list):
        return [stable_view(v, parent) for v in obj]
    return obj


def run_facts(packet: dict[str, Any]) -> dict[str, Any] | None:
    """The per-run facts of a render report that the packet's identity leaves out, for the run
    manifest (None for a page that was not rendered)."""
    render = packet.get("render")
    if not isinstance(render, dict) or not render:
        return None
    return {k: v for k, v in sorted(render.items()) if _volatile(k, "render")}


def _is_packet_key(key: str) -> bool:
    parts = key.split("/")
    return key.endswith(".json") and len(parts) >= 3 and parts[-2] in ("pages", "quarantine")


# A kept page's Markdown file may open with YAML front matter (GATECRAWL_MARKDOWN_FRONT_MATTER);
# its ``fetched_at`` line is a per-run fact like the packet's.
_FRONT_MATTER_VOLATILE = (b"fetched_at: ",)


def _markdown_identity(data: bytes) -> bytes:
    """``data`` without the volatile lines of its front matter (unchanged when it has none)."""
    if not data.startswith(b"---\n"):
        return data
    end = data.find(b"\n---\n", 3)
    if end < 0:
        return data
    head = data[4 : end + 1].splitlines(keepends=True)
    kept = b"".join(line for line in head if not line.startswith(_FRONT_MATTER_VOLATILE))
    return b"---\n" + kept + data[end + 1 :]


def identity_sha256(key: str, data: bytes) -> str:
    """sha256 hex of what identifies ``data`` stored at ``key`` (see the module docstring)."""
    if key.endswith(".md"):
        return hashlib.sha256(_markdown_identity(data)).hexdigest()
    if _is_packet_key(key):
        try:
            doc = json.loads(data)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            canon = json.dumps(stable_view(doc), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            return hashlib.sha256(canon.encode("utf-8")).hexdigest()
    return hashlib.sha256(data).hexdigest()


def object_metadata(key: str, data: bytes, recipe_digest: str = "") -> dict[str, str]:
    """The metadata every stored object carries: its bytes' and its identity's sha256, the packet
    schema version and the recipe digest (empty for run-level documents)."""
    from gatecrawl.core.evidence import SCHEMA_VERSION

    return {
        "content-sha256": hashlib.sha256(data).hexdigest(),
        "identity-sha256": identity_sha256(key, data),
        "schema-version": SCHEMA_VERSION,
        "recipe-digest": recipe_digest,
    }
