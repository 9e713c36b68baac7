"""What one conversion takes and gives, and the evidence packet it fills.

``FetchInfo`` (what the fetcher knows about a response, :mod:`gatecrawl.core.fetch`), ``ConversionResult`` (the Markdown,
the packet and the outcome), the packet every conversion starts from (``base_packet``: every
field present, the versions of the gate, extractor, converter and PDF reader) and the one way
a conversion ends (``finish``: outcome, drop reason, Markdown digest and time). The readers
(``convert_html``, ``convert_native``, ``convert_pdf``) fill the fields between the two.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from gatecrawl.core import evidence as ev
from gatecrawl.core.fetch import FetchInfo  # re-exported: what one conversion takes
from gatecrawl.core.gate import GATE_VERSION
from gatecrawl.core.packet import EvidencePacket
from gatecrawl.core.recipes import Recipe

__all__ = ["FetchInfo", "ConversionResult", "REMOVED_LISTED_MAX", "base_packet", "failed_report", "finish", "reader_text"]

#: at most this many removed text units are listed in a packet (``extraction.removed``)
REMOVED_LISTED_MAX = 50


@dataclass(frozen=True)
class ConversionResult:
    markdown: str
    packet: EvidencePacket
    ok: bool
    drop_reason: str | None
    title: str | None = None
    pdf_viewer_source: str | None = None  # an HTML page that embeds a PDF: the PDF's URL, to fetch next

    @property
    def outcome(self) -> str:
        return "kept" if self.ok else "dropped"

    @property
    def evidence(self) -> dict:
        """The packet as JSON types (:meth:`EvidencePacket.to_dict`); change ``packet`` to change it."""
        return self.packet.to_dict()


_MD_TARGET = re.compile(r"(!?)\[([^\]\n]{0,500})\]\([^)\s]{0,2000}(?:\s+\"[^\"\n]{0,300}\")?\)")


def reader_text(md: str) -> str:
    """Markdown without link and image targets (what a reader sees of links and images):
    the gate's unique-word check reads this, so a gallery's 80 image URLs are not 80 copies
    of the same words.

    ``_MD_TARGET.sub`` (a link becomes its text, an image nothing), with the pattern tried only
    where a match can start: at a ``[``, or at the ``!`` just before one (where the scan of
    ``sub`` would try it first); ``sub`` tries every position, and finds nothing elsewhere."""
    match = _MD_TARGET.match
    out: list[str] = []
    pos = 0  # the end of the last match (``sub`` resumes there)
    at = md.find("[")
    while at != -1:
        m = None
        if at > pos and md[at - 1] == "!":
            m = match(md, at - 1)
        if m is None:
            m = match(md, at)
        if m is None:
            at = md.find("[", at + 1)
            continue
        out.append(md[pos:m.start()])
        if not m.group(1):
            out.append(m.group(2))
        pos = m.end()
        at = md.find("[", pos)
    if not out:
        return md
    out.append(md[pos:])
    return "".join(out)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def failed_report(reason: str, **detail: Any) -> dict:
    return {
        "pass": False,
        "reasons": [str(reason)],
        "markdown_chars": 0,
        "heading_count": 0,
        "boilerplate_ratio": 0.0,
        "wrong_route_detected": False,
        "detail": detail,
    }


def base_packet(url: str, content_type: str | None, recipe: Recipe, fetch: FetchInfo, body: bytes) -> EvidencePacket:
    from gatecrawl.core.extract import EXTRACTOR_VERSION
    from gatecrawl.core.markdown import CONVERTER_VERSION

    try:
        from gatecrawl.core.pdf import READER_VERSION as PDF_VERSION
    except ImportError:  # the PDF reader is optional at import time
        PDF_VERSION = "absent"
    render = dict(fetch.render or {})
    return EvidencePacket(
        schema_version=ev.SCHEMA_VERSION,
        run_id=fetch.run_id,
        site=recipe.name,
        recipe={"name": recipe.name, "digest": recipe.digest, "source": recipe.source},
        url_requested=fetch.url_requested or url,
        url_final=url,
        url_key=ev.url_key(url),
        http_status=fetch.http_status,
        content_type=content_type or None,
        response_headers=ev.response_headers(fetch.headers or {}),
        fetched_at=fetch.fetched_at or _now(),
        latency_ms=fetch.latency_ms,
        bytes_in=len(body),
        depth=fetch.depth,
        reader=fetch.reader,
        escalated_from=fetch.escalated_from,
        escalation_reason=fetch.escalation_reason,
        needs_render=bool((fetch.fetch_presence or {}).get("needs_render", False)),
        fetch_presence_score=(fetch.fetch_presence or {}).get("fetch_presence_score"),
        fetch_gate=dict(fetch.fetch_presence) if fetch.fetch_presence else None,
        render_readiness_passed=render.get("render_readiness_passed"),
        render_readiness_reason=render.get("render_readiness_reason"),
        render_elapsed_ms=render.get("render_elapsed_ms"),
        render=render or None,
        viewer_url=fetch.viewer_url,
        required_fields_total=len(recipe.required_fields),
        # Everything else (what was read, kept and why) starts at its default and is filled in below.
        versions=ev.versions(gate=GATE_VERSION, extractor=EXTRACTOR_VERSION, converter=CONVERTER_VERSION, pdf_reader=PDF_VERSION),
    )


def finish(packet: EvidencePacket, md: str, report: dict, t0: float, title: str | None = None, viewer_src: str | None = None) -> ConversionResult:
    ok = bool(report["pass"])
    reason = None if ok else report["reasons"][0]
    packet.validation_report = report
    packet.outcome = "kept" if ok else "dropped"
    packet.drop_reason = reason
    packet.chars_out = len(md)
    packet.markdown_sha256 = hashlib.sha256(md.encode("utf-8")).hexdigest() if md else None
    packet.conversion_ms = int((time.perf_counter() - t0) * 1000)
    return ConversionResult(markdown=md, packet=packet, ok=ok, drop_reason=reason, title=title, pdf_viewer_source=viewer_src)
