"""Evidence packets: one JSON document per URL, kept or dropped.

A packet records what was fetched, which reader read it, why it escalated, the gate's
measurements, the selectors and removal rules used, the validation report, provenance of
the Markdown, and the versions of everything that could change the result. It is
redacted before it is serialised, and it validates against ``schema/evidence-packet.schema.json``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import json
import sys
from functools import lru_cache
from typing import Any, Mapping

from w3lib.url import canonicalize_url

from gatecrawl.core.packet import EvidencePacket
from gatecrawl.core.redact import redact_headers, redact_obj

__all__ = [
    "SCHEMA_VERSION",
    "KEPT_RESPONSE_HEADERS",
    "url_key",
    "versions",
    "dumps",
    "load_schema",
    "response_headers",
]

SCHEMA_VERSION = "gatecrawl.evidence/1"
# Response headers worth keeping for debugging; everything else (cookies included) is left out.
KEPT_RESPONSE_HEADERS = (
    "cache-control",
    "content-language",
    "content-length",
    "content-type",
    "etag",
    "last-modified",
    "location",
    "retry-after",
    "server",
    "x-robots-tag",
)


def url_key(url: str) -> str:
    """sha256 hex of the canonical form of ``url`` (query sorted, fragment dropped)."""
    try:
        canon = canonicalize_url(url, keep_fragments=False)
    except Exception:  # malformed URLs still get a stable key
        canon = url
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def _lib_versions() -> dict[str, str]:
    out = {}
    for dist in ("scrapy", "lxml", "trafilatura", "pypdfium2", "scrapy-playwright", "playwright"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "absent"
    out["python"] = "%d.%d.%d" % sys.version_info[:3]
    return out


def versions(**components: str) -> dict[str, Any]:
    from gatecrawl import __version__

    return {"gatecrawl": __version__, **components, "libraries": dict(_lib_versions())}


def response_headers(headers: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for k, v in headers.items():
        name = str(k).lower()
        if name in KEPT_RESPONSE_HEADERS:
            out[name] = v if isinstance(v, str) else str(v)
    return dict(sorted(redact_headers(out).items()))


def dumps(packet: Mapping[str, Any] | EvidencePacket) -> bytes:
    """Canonical serialisation: redacted, sorted keys, UTF-8, two-space indent, final newline.
    The one place a packet becomes bytes (an :class:`EvidencePacket` through its ``to_dict()``)."""
    doc = packet.to_dict() if isinstance(packet, EvidencePacket) else packet
    return (json.dumps(redact_obj(doc), sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


@lru_cache(maxsize=1)
def load_schema() -> dict:
    text = importlib.resources.files("gatecrawl.schema").joinpath("evidence-packet.schema.json").read_text("utf-8")
    return json.loads(text)
