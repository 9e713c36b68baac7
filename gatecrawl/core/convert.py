"""The one path through the core.

``convert()`` reads a page (HTML or PDF), scores it with the gate, selects the main
content, converts it to Markdown, validates it and builds its evidence packet. The crawl's
item pipeline, ``scrapy convert`` and ``from gatecrawl import convert`` all call it, so
they cannot disagree. It never raises on bad input: an unexpected error becomes a typed
drop (``converter_error``), never a kept page.
"""

from __future__ import annotations

import functools

import hashlib
import re
import logging
import time
import traceback
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Mapping

from gatecrawl.core import evidence as ev
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.gate import GATE_VERSION, GateThresholds, score
from gatecrawl.core.packet import EvidencePacket
from gatecrawl.core.page import canonical_url, find_fields, measure_page, visible_text
from gatecrawl.core.pagetype import item_link_chars
from gatecrawl.core.route import page_type
from gatecrawl.core.presence import assess_fetch, challenge_text, unique_ratio_window
from gatecrawl.core.reasons import Reason
from gatecrawl.core.recipes import Recipe, load_recipe_text
from gatecrawl.core.redact import redact_text, redact_url
from gatecrawl.core.validate import ValidationInput, ValidationReport, describe_drop, validate
from gatecrawl.core.walls import find_paywall, has_password_form, page_signals

__all__ = ["FetchInfo", "ConversionResult", "convert", "default_recipe", "page_type"]

logger = logging.getLogger(__name__)

#: at most this many removed text units are listed in a packet (``extraction.removed``)
REMOVED_LISTED_MAX = 50


# Parsing and converting costs about 4 KB of memory and 0.1-0.3 ms of CPU per element (15 MB of
# tiny paragraphs: 1.5 million elements, several GB). The largest page of the two benchmark
# corpora has under 16,000; a page over the cap is dropped as too_complex before it is parsed.
DEFAULT_MAX_DOM_NODES = 100_000


def dom_node_estimate(body: bytes) -> int:
    """Elements in an HTML body, estimated without parsing: start tags (``<`` not followed by
    ``/`` or ``!``). Linear, in C."""
    return body.count(b"<") - body.count(b"</") - body.count(b"<!")


@functools.cache
def default_recipe() -> Recipe:
    """The recipe used when none is given: every key at its default (a cache: built once per
    process; a Recipe is immutable)."""
    return load_recipe_text("", source="<default>", default_name="default")


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
    of the same words."""
    return _MD_TARGET.sub(lambda m: "" if m.group(1) else m.group(2), md)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def convert(
    body: bytes | str,
    url: str,
    content_type: str | None = "text/html",
    recipe: Recipe | None = None,
    *,
    fetch: FetchInfo | None = None,
) -> ConversionResult:
    """Convert one fetched page to Markdown plus its evidence packet.

    ``url`` is the final URL (after redirects): links and images resolve against it.
    """
    recipe = recipe or default_recipe()
    fetch = fetch or FetchInfo(url_requested=url)
    if isinstance(body, str):
        body = body.encode("utf-8")
    t0 = time.perf_counter()
    try:
        return _convert(body, url, content_type, recipe, fetch, t0)
    except Exception as exc:  # fail closed: a converter bug quarantines the page, never keeps it
        logger.error("converter error on %s: %s", redact_url(url), redact_text(repr(exc)))
        packet = _base_packet(url, content_type, recipe, fetch, body)
        packet = replace(
            packet,
            page_type="other",
            reader=fetch.reader,
            outcome="dropped",
            drop_reason=str(Reason.CONVERTER_ERROR),
            drop_detail=redact_text("".join(traceback.format_exception_only(type(exc), exc)).strip())[:500],
            validation_report=_failed_report(Reason.CONVERTER_ERROR),
            conversion_ms=int((time.perf_counter() - t0) * 1000),
        )
        return ConversionResult(markdown="", packet=packet, ok=False, drop_reason=str(Reason.CONVERTER_ERROR))


def _failed_report(reason: str, **detail: Any) -> dict:
    return {
        "pass": False,
        "reasons": [str(reason)],
        "markdown_chars": 0,
        "heading_count": 0,
        "boilerplate_ratio": 0.0,
        "wrong_route_detected": False,
        "detail": detail,
    }


def _base_packet(url: str, content_type: str | None, recipe: Recipe, fetch: FetchInfo, body: bytes) -> EvidencePacket:
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


def _finish(packet: EvidencePacket, md: str, report: dict, t0: float, title: str | None = None, viewer_src: str | None = None) -> ConversionResult:
    ok = bool(report["pass"])
    reason = None if ok else report["reasons"][0]
    packet.validation_report = report
    packet.outcome = "kept" if ok else "dropped"
    packet.drop_reason = reason
    packet.chars_out = len(md)
    packet.markdown_sha256 = hashlib.sha256(md.encode("utf-8")).hexdigest() if md else None
    packet.conversion_ms = int((time.perf_counter() - t0) * 1000)
    return ConversionResult(markdown=md, packet=packet, ok=ok, drop_reason=reason, title=title, pdf_viewer_source=viewer_src)


def _convert(body: bytes, url: str, content_type: str | None, recipe: Recipe, fetch: FetchInfo, t0: float) -> ConversionResult:
    packet = _base_packet(url, content_type, recipe, fetch, body)
    if fetch.error is not None:
        packet.page_type = "none"
        packet.drop_detail = redact_text(fetch.error)[:500]
        packet.egress = dict(fetch.egress) if fetch.egress else None
        return _finish(packet, "", _failed_report(fetch.error_reason or Reason.FETCH_FAILED), t0)
    kind = page_type(body, content_type, url)
    packet.page_type = kind
    if kind == "pdf":
        packet.reader = "pdf"
        return _convert_pdf(body, url, recipe, fetch, packet, t0)
    if kind == "markdown":
        packet.reader = "native_markdown"
        return _convert_native_markdown(body, url, content_type, recipe, fetch, packet, t0)
    if kind != "html":
        status = fetch.http_status or 200
        reason = Reason.HTTP_ERROR if status >= 400 else Reason.UNSUPPORTED_TYPE
        return _finish(packet, "", _failed_report(reason, content_type=content_type), t0)
    cap = DEFAULT_MAX_DOM_NODES if fetch.max_dom_nodes is None else fetch.max_dom_nodes
    if cap > 0:
        nodes = dom_node_estimate(body)
        if nodes > cap:
            packet.drop_detail = f"about {nodes:,} element nodes, over the cap of {cap:,} (GATECRAWL_MAX_DOM_NODES)"
            return _finish(packet, "", _failed_report(Reason.TOO_COMPLEX, nodes=nodes, max_dom_nodes=cap), t0)
    return _convert_html(body, url, content_type, recipe, fetch, packet, t0)


def _convert_html(body, url, content_type, recipe, fetch, packet, t0, *, source_html: str | None = None) -> ConversionResult:
    from gatecrawl.core.extract import select_main
    from gatecrawl.core.htmlparse import FLATTENED_ATTR, parse_html
    from gatecrawl.core.markdown import to_markdown

    doc = parse_html(body, content_type=content_type)
    thresholds = GateThresholds.from_recipe(recipe)
    page = measure_page(doc)
    fields = find_fields(doc)
    presence: Mapping[str, Any] | None = fetch.fetch_presence
    if presence is None:
        # Not assessed by the fetcher (scrapy convert, a direct convert() call): the same fetch
        # verdict the presence middleware records, on the document as served.
        p, presence = assess_fetch(doc, recipe, url, status=fetch.http_status, body=body, measure=page, fields=dict(fields))
        packet.fetch_gate = dict(presence)
        packet.needs_render = p.needs_render
        packet.fetch_presence_score = p.presence_score
    if page.noscript_text:
        # The page's only text is its <noscript> view (what a client without JavaScript gets):
        # extract from that view.
        for el in list(doc.iter("noscript")):
            el.tag = "div"
        fields = find_fields(doc)
    if recipe.embedded_enabled and fetch.reader == "http" and fetch.capture != "plain" and presence.get("needs_render"):
        # A shell: before it goes to the browser, its first response's embedded data may hold the content.
        result, info = _convert_embedded(doc, body, url, content_type, recipe, fetch, presence, t0)
        if result is not None:
            return result
        if info.get("sources"):
            packet.embedded = info
    viewer_src = None
    try:
        from gatecrawl.core.pdf import find_pdf_viewer_source

        viewer_src = find_pdf_viewer_source(doc, url)
    except ImportError:
        pass
    packet.pdf_viewer_source = viewer_src

    sel = select_main(doc, main_selectors=recipe.main_selectors,
                      exclude_selectors=recipe.exclude_selectors,
                      keep_comments=recipe.keep_comments, keep_bylines=recipe.keep_bylines,
                      keep_captions=recipe.keep_captions, page_type=recipe.page_type, url=url)
    md = to_markdown(sel.root, base_url=url)
    if not fields.get("title") and md.title:
        fields["title"] = md.title
    packet.fields = {k: v for k, v in sorted(fields.items())}
    packet.selection_rule = sel.rule
    packet.main_selectors_used = [sel.selector] if sel.selector else []
    packet.boilerplate_filter_rules_used = list(sel.removal_rules)
    packet.set_aside = [{"kind": k, "text": t} for k, t in sel.set_aside]
    # A listing's item titles are its content, not chrome (a menu's bare links still count).
    listing_link_chars = item_link_chars(sel.root, lambda a: len(visible_text(a)))
    packet.extraction = {
        "page_type_detected": sel.page_type.to_dict() if sel.page_type else None,
        "agreement": sel.agreement,
        "removed": [{"rule": r, "text": t} for r, t in sel.removed[:REMOVED_LISTED_MAX]],
        "removed_count": len(sel.removed),
        "listing_item_link_chars": listing_link_chars,
    }
    flattened = int(doc.get(FLATTENED_ATTR) or 0) if doc is not None else 0
    if flattened:
        # elements nested deeper than htmlparse.MAX_DEPTH: their text is kept, their tags are not
        packet.extraction["flattened_deep_elements"] = flattened
    packet.sample_provenance = list(md.provenance)

    # Extraction gate: the same four checks, on the extraction.
    link_chars = sum(len(visible_text(a)) for a in sel.root.iter("a"))
    link_chars = max(0, link_chars - listing_link_chars)
    main_chars = max(sel.main_text_chars, 1)
    boiler_ratio = round(min(1.0, link_chars / main_chars), 4) if sel.main_text_chars else 0.0
    text = md.text
    verdict = score(
        text,
        boilerplate_share=page.boilerplate_share,
        fields=fields,
        thresholds=thresholds,
        unique_text=unique_ratio_window(reader_text(text)),
    )
    packet.extraction_gate = verdict.to_dict()
    packet.quality_score = verdict.score
    packet.required_fields_found = sum(1 for f in recipe.required_fields if fields.get(f))

    headings = [line.lstrip("#").strip() for line in text.split("\n") if line.startswith("#")]
    has_password = has_password_form(doc)
    paywall = find_paywall(doc)
    html_text = source_html if source_html is not None else challenge_text(body)
    rendered = fetch.reader == "render"
    vin = ValidationInput(
        markdown=text,
        url_final=url,
        http_status=fetch.http_status,
        html_text=html_text,
        page_text=page.body_text[:5000],
        title=fields.get("title") or "",
        first_heading=headings[0] if headings else "",
        page_visible_chars=page.total_chars,
        content_chars=sel.main_text_chars,
        boilerplate_ratio=boiler_ratio,
        reference_share=sel.reference_share,
        has_password_field=has_password,
        page_content_chars=len(page.body_text),
        paywall=paywall.to_dict() if paywall is not None else None,
        signals=page_signals(doc),
        canonical=canonical_url(doc),
        fields=fields,
        needs_render=bool(presence.get("needs_render")) and fetch.capture != "plain",
        rendered=rendered,
        gate_passed=verdict.passed,
        not_found_match=_not_found_match(doc, text, url, fetch),
    )
    rep: ValidationReport = validate(vin, recipe)
    report = rep.to_dict()
    nf = report["detail"].get("soft_404_fingerprint")
    if nf and report["reasons"][:1] == [str(Reason.SOFT_404)]:
        sim, thr = nf["similarity"], nf["threshold"]
        packet.drop_detail = (
            f"matches the host's not-found probe: text similarity {sim['text']} >= {thr['text']}, "
            f"skeleton similarity {sim['skeleton']} >= {thr['skeleton']}"
        )
    if rendered and fetch.render and fetch.render.get("render_readiness_passed") is False:
        report["pass"] = False
        report["reasons"] = [str(Reason.READINESS_TIMEOUT)] + [r for r in report["reasons"] if r != Reason.READINESS_TIMEOUT]
    if report["pass"] and not verdict.passed:
        report["pass"] = False
        report["reasons"] = [str(Reason.GATE_FAILED)]
        report["detail"]["gate_failed_checks"] = verdict.failed_checks
        report["detail"]["gate_failed"] = {name: {k: c[k] for k in ("value", "threshold")} for name, c in verdict.checks.items() if not c["passed"]}
    if not report["pass"] and packet.drop_detail is None:
        packet.drop_detail = describe_drop(report["reasons"][0], report["detail"])
    return _finish(packet, text, report, t0, title=fields.get("title"), viewer_src=viewer_src)


def _convert_embedded(doc, body, url, content_type, recipe, fetch, presence, t0) -> tuple[ConversionResult | None, dict]:
    """A shell's content rebuilt from its embedded data (core.embedded), converted and judged
    like any page: ``(result, info)``, the result None unless it was kept."""
    from gatecrawl.core.embedded import read_embedded

    if has_password_form(doc) or find_paywall(doc) is not None or presence.get("bot_challenge"):
        return None, {"rejected": "page_is_a_wall"}
    found = read_embedded(doc, url=url, paths=tuple(recipe.embedded_paths))
    info = dict(found.info)
    if found.html is None:
        return None, info
    packet = _base_packet(url, content_type, recipe, fetch, body)
    packet.reader = "embedded_data"
    packet.page_type = "html"
    sub = replace(fetch, reader="embedded_data", fetch_presence=None)
    res = _convert_html(found.html.encode("utf-8"), url, "text/html; charset=utf-8", recipe, sub, packet, t0,
                        source_html=body[:200_000].decode("utf-8", "replace"))
    ev = res.packet
    # the fetch's own verdict (a shell), not the rebuilt page's
    ev.fetch_gate = dict(presence)
    ev.needs_render = bool(presence.get("needs_render"))
    ev.fetch_presence_score = presence.get("fetch_presence_score")
    info["outcome"] = res.outcome
    info["drop_reason"] = res.drop_reason
    ev.embedded = info
    return (res if res.ok else None), info


def _not_found_match(doc, text: str, url: str, fetch: FetchInfo) -> dict | None:
    if not fetch.not_found_probe:
        return None
    from gatecrawl.core import soft404

    return soft404.match(soft404.fingerprint(doc, text, url), fetch.not_found_probe)


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.{0,4000}?)\n(?:---|\.\.\.)[ \t]*\n", re.S)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_MD_LINK_TEXT = re.compile(r"(?<!!)\[([^\]\n]{0,500})\]\([^)\s]{0,2000}(?:\s+\"[^\"\n]{0,300}\")?\)")


def normalise_markdown(text: str) -> tuple[str, dict]:
    """A site's own Markdown, normalised deterministically: ``(markdown, front matter fields)``.

    Line endings become ``\n``, a byte-order mark and a YAML front matter block go (its
    ``title``/``description``/``date``/``author`` become fields), trailing spaces go, runs of
    blank lines outside fenced code become one, and the text is stripped and ends with one
    newline (like every page's Markdown); nothing else changes."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    meta: dict = {}
    m = _FRONT_MATTER.match(text)
    if m:
        for line in m.group(1).split("\n"):
            key, sep, value = line.partition(":")
            key = key.strip().lower()
            if sep and key in ("title", "description", "date", "author") and value.strip():
                meta[key] = value.strip().strip("'\"")[:500]
        text = text[m.end():]
    out: list[str] = []
    fence: str | None = None
    blank = False
    for line in text.split("\n"):
        f = _FENCE.match(line)
        if fence is not None:
            out.append(line.rstrip("\n"))
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = None
            continue
        line = line.rstrip()
        if f:
            fence = f.group(1)
        if not line:
            if not blank and out:
                out.append("")
            blank = True
            continue
        blank = False
        out.append(line)
    text = "\n".join(out).strip("\n")
    return (text + "\n" if text else ""), meta


def _convert_native_markdown(body, url, content_type, recipe, fetch, packet, t0) -> ConversionResult:
    """A site that answered the negotiated ``Accept: text/markdown``: its Markdown is used as it
    is (normalised), then gated and validated like every page."""
    from gatecrawl.core.htmlparse import detect_encoding

    encoding, _ = detect_encoding(body, content_type)
    try:
        raw = body.decode(encoding, "replace")
    except LookupError:
        raw = body.decode("utf-8", "replace")
    md, meta = normalise_markdown(raw)
    lines = md.split("\n")
    headings = [m.group(2).strip() for m in (_ATX.match(ln) for ln in lines) if m]
    h1 = next((m.group(2).strip() for m in (_ATX.match(ln) for ln in lines) if m and len(m.group(1)) == 1), None)
    title = meta.get("title") or h1 or (headings[0] if headings else None)
    fields = {"title": title, "date": meta.get("date"), "author": meta.get("author"), "description": meta.get("description")}
    packet.fields = {k: v for k, v in sorted(fields.items())}
    packet.selection_rule = "native_markdown"
    packet.page_type = "markdown"
    plain = reader_text(md)
    link_chars = sum(len(m.group(1)) for m in _MD_LINK_TEXT.finditer(md))
    boiler_ratio = round(min(1.0, link_chars / max(1, len(plain))), 4) if plain else 0.0
    packet.sample_provenance = [
        {"markdown_span": f"line {i + 1}", "text_preview": ln[:120]} for i, ln in enumerate(lines) if ln.strip()
    ][:10]
    thresholds = GateThresholds.from_recipe(recipe)
    verdict = score(md, boilerplate_share=0.0, fields=fields, thresholds=thresholds, unique_text=unique_ratio_window(plain))
    packet.extraction_gate = verdict.to_dict()
    packet.quality_score = verdict.score
    packet.required_fields_found = sum(1 for f in recipe.required_fields if fields.get(f))
    vin = ValidationInput(
        markdown=md,
        url_final=url,
        http_status=fetch.http_status,
        page_text=plain[:5000],
        title=title or "",
        first_heading=headings[0] if headings else "",
        page_visible_chars=len(plain),
        content_chars=len(plain),
        boilerplate_ratio=boiler_ratio,
        page_content_chars=len(plain),
        fields=fields,
        gate_passed=verdict.passed,
    )
    report = validate(vin, recipe).to_dict()
    if report["pass"] and not verdict.passed:
        report["pass"] = False
        report["reasons"] = [str(Reason.GATE_FAILED)]
        report["detail"]["gate_failed_checks"] = verdict.failed_checks
    if not report["pass"] and packet.drop_detail is None:
        packet.drop_detail = describe_drop(report["reasons"][0], report["detail"])
    return _finish(packet, md, report, t0, title=title)


def _convert_pdf(body, url, recipe, fetch, packet, t0) -> ConversionResult:
    from gatecrawl.core.pdf import PdfLimits, read_pdf

    opts = dict(recipe.pdf)
    allowed = {f for f in PdfLimits.__dataclass_fields__}
    limits = PdfLimits(**{k: v for k, v in opts.items() if k in allowed})
    res = read_pdf(body, limits=limits)
    info = res.to_dict()
    info.pop("markdown", None)
    packet.pdf = info
    if not res.ok:
        packet.drop_detail = res.detail or None
        rep = _failed_report(res.reason or Reason.PDF_PARSE_FAILED)
        if res.needs_ocr_pages:
            rep["detail"]["needs_ocr_pages"] = list(res.needs_ocr_pages)
        if res.confidence is not None:  # the measured value and the threshold, for review
            rep["detail"].update(pdf_strategy=res.strategy, pdf_confidence=res.confidence,
                                 pdf_min_confidence=limits.min_confidence)
        return _finish(packet, "", rep, t0)
    md = res.markdown
    fields = {"title": res.title, "date": None, "author": None, "description": None}
    packet.fields = fields
    packet.selection_rule = f"pdf_{res.strategy or 'text_layer'}"  # pdf_text_layer|pdf_ocr|pdf_mixed
    packet.sample_provenance = list(res.provenance)
    thresholds = GateThresholds.from_recipe(recipe)
    verdict = score(md, boilerplate_share=0.0, fields=fields, thresholds=thresholds, unique_text=unique_ratio_window(md))
    packet.extraction_gate = verdict.to_dict()
    packet.quality_score = verdict.score
    packet.required_fields_found = sum(1 for f in recipe.required_fields if fields.get(f))
    headings = [line.lstrip("#").strip() for line in md.split("\n") if line.startswith("#")]
    vin = ValidationInput(
        markdown=md,
        url_final=url,
        http_status=fetch.http_status,
        title=res.title or "",
        first_heading=headings[0] if headings else "",
        page_visible_chars=len(md),
        content_chars=len(md),
        fields=fields,
    )
    report = validate(vin, recipe).to_dict()
    if report["pass"] and not verdict.passed:
        report["pass"] = False
        report["reasons"] = [str(Reason.GATE_FAILED)]
        report["detail"]["gate_failed_checks"] = verdict.failed_checks
    return _finish(packet, md, report, t0, title=res.title)
