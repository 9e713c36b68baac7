"""The evidence packet as a typed record: one per URL, kept or dropped.

``convert()`` builds an :class:`EvidencePacket`; the export stores it (``<site>/pages/<sha>.json``
or ``<site>/quarantine/<sha>.json``); the run manifest's entry and the crawl report's page entry
are built from it. Its JSON form is made in one place, :meth:`EvidencePacket.to_dict` (plain
JSON types, the keys of ``schema/evidence-packet.schema.json``), and serialised in one place,
:func:`gatecrawl.core.evidence.dumps` (redacted, canonical bytes).

Fields marked *per run* (``field(metadata={"per_run": True})``, listed in
:data:`PER_RUN_FIELDS`) differ on every crawl of an unchanged page: the run id, wall-clock time,
durations. They are left out of the stored packet's identity
(:mod:`gatecrawl.store.identity`) and repeated in the run manifest. Inside ``render``, the
renderer's timing-driven readings are per run as well (``identity.VOLATILE_RENDER_FIELDS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["EvidencePacket", "PER_RUN_FIELDS", "STORE_KEY_FIELDS", "per_run"]


def per_run(default: Any = None) -> Any:
    """A field whose value differs on every crawl of an unchanged page."""
    return field(default=default, metadata={"per_run": True})


@dataclass(kw_only=True)
class EvidencePacket:
    """What was fetched, how it was read, what was kept and why (or why not)."""

    schema_version: str
    """``gatecrawl.evidence/1``."""
    run_id: str | None = per_run()
    """The crawl run that wrote the packet (None outside a crawl)."""
    site: str
    """The recipe's name: the store folder the packet goes to."""
    recipe: dict[str, Any]
    """``name``, ``digest`` and ``source`` of the recipe used."""
    url_requested: str
    """The URL asked for, before redirects."""
    url_final: str
    """The URL that answered (after redirects): links resolve against it."""
    url_key: str
    """sha256 of the canonical ``url_final``: the packet's store key."""
    http_status: int | None = None
    """The response status (None when the download failed)."""
    content_type: str | None = None
    """The response Content-Type, as served."""
    response_headers: dict[str, str] = field(default_factory=dict)
    """The response headers worth keeping (``evidence.KEPT_RESPONSE_HEADERS``), redacted."""
    fetched_at: str = per_run("")
    """When the response arrived (UTC, ISO 8601)."""
    latency_ms: int | None = per_run()
    """Download time."""
    bytes_in: int = 0
    """Size of the body read."""
    depth: int | None = None
    """Link depth from a start URL."""
    reader: str = "http"
    """``http``, ``render``, ``pdf``, ``native_markdown`` or ``embedded_data``."""
    escalated_from: str | None = None
    """``http`` for a page sent to the browser after its plain fetch."""
    escalation_reason: str | None = None
    """Why the page was sent to the browser."""
    needs_render: bool = False
    """The plain fetch looked like a shell that needs a browser."""
    fetch_presence_score: float | None = None
    """The gate's score (0-4) on the page as served."""
    fetch_gate: dict[str, Any] | None = None
    """The fetch verdict on the page as served (``core.presence``)."""
    render_readiness_passed: bool | None = None
    """Whether the render met its readiness contract (None without a render)."""
    render_readiness_reason: str | None = None
    """Which readiness condition ended the render, or why it timed out."""
    render_elapsed_ms: int | None = per_run()
    """Time spent rendering."""
    render: dict[str, Any] | None = None
    """The browser's readiness report (None without a render); its timing readings are per run."""
    viewer_url: str | None = None
    """The HTML page whose embedded PDF this is."""
    capture_choice: dict[str, Any] | None = None
    """An escalated page's plain and rendered captures and which was kept (``core.capture``)."""
    page_type: str | None = None
    """``html``, ``pdf``, ``markdown``, ``other`` or ``none`` (no body)."""
    quality_score: int | None = None
    """The gate's score (0-4) on the extracted text."""
    extraction_gate: dict[str, Any] | None = None
    """The gate's checks on the extracted text."""
    required_fields_found: int = 0
    """How many of the recipe's required fields the page has."""
    required_fields_total: int = 0
    """How many fields the recipe requires."""
    fields: dict[str, Any] = field(default_factory=dict)
    """title, date, author, description (as found)."""
    selection_rule: str | None = None
    """Which rule chose the main content."""
    main_selectors_used: list[str] = field(default_factory=list)
    """The recipe selector that matched the main content, if any."""
    boilerplate_filter_rules_used: list[str] = field(default_factory=list)
    """The removal rules that took text out."""
    set_aside: list[dict[str, Any]] = field(default_factory=list)
    """Bylines, captions and the like taken out of the Markdown body."""
    extraction: dict[str, Any] | None = None
    """How the main content was decided (page type, agreement, removed units)."""
    validation_report: dict[str, Any] | None = None
    """The validator's checks, reasons and measurements."""
    markdown_sha256: str | None = None
    """sha256 of the Markdown (None when there is none)."""
    chars_out: int = 0
    """Characters of Markdown."""
    sample_provenance: list[dict[str, Any]] = field(default_factory=list)
    """Where the first Markdown spans came from in the page."""
    pdf: dict[str, Any] | None = None
    """The PDF reader's report (None for other pages)."""
    pdf_viewer_source: str | None = None
    """An HTML page that embeds a PDF: the PDF's URL."""
    egress: dict[str, Any] | None = None
    """The egress decision for a refused request."""
    embedded: dict[str, Any] | None = None
    """A shell read from its embedded data (``core.embedded``); absent from the JSON when None."""
    outcome: str = "dropped"
    """``kept`` or ``dropped``."""
    drop_reason: str | None = None
    """The typed reason (``core.reasons.Reason``) of a dropped page."""
    drop_detail: str | None = None
    """What exactly failed, for a human (redacted, at most 500 characters)."""
    conversion_ms: int | None = per_run()
    """Time spent converting."""
    versions: dict[str, Any] = field(default_factory=dict)
    """gatecrawl, gate, extractor, converter, PDF reader and library versions."""
    markdown_key: str | None = None
    """Set by the export: the store key of the page's Markdown (None for a dropped page)."""
    packet_key: str | None = None
    """Set by the export: the packet's own store key. While it is None (not stored yet) neither
    store key appears in the JSON."""

    def to_dict(self) -> dict[str, Any]:
        """The packet as JSON types (shallow: nested values are the packet's own)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.embedded is None:
            del out["embedded"]
        if self.packet_key is None:
            del out["markdown_key"], out["packet_key"]
        return out

    def dumps(self) -> bytes:
        """The stored bytes (:func:`gatecrawl.core.evidence.dumps`)."""
        from gatecrawl.core.evidence import dumps

        return dumps(self.to_dict())

    def stored_as(self, *, markdown_key: str | None, packet_key: str) -> EvidencePacket:
        """A copy with its store keys set."""
        from dataclasses import replace

        return replace(self, markdown_key=markdown_key, packet_key=packet_key)

    @property
    def title(self) -> str | None:
        return (self.fields or {}).get("title")


PER_RUN_FIELDS = frozenset(f.name for f in fields(EvidencePacket) if f.metadata.get("per_run"))
STORE_KEY_FIELDS = ("markdown_key", "packet_key")
