"""A PDF through the core: the PDF reader's Markdown (text layer, OCR or both), then the
gate and validation like every page (``convert_pdf``)."""

from __future__ import annotations

from gatecrawl.core.convert_packet import ConversionResult, failed_report, finish
from gatecrawl.core.gate import GateThresholds, score
from gatecrawl.core.presence import unique_ratio_window
from gatecrawl.core.reasons import Reason
from gatecrawl.core.validate import ValidationInput, validate

__all__ = ["convert_pdf"]


def convert_pdf(body, url, recipe, fetch, packet, t0) -> ConversionResult:
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
        rep = failed_report(res.reason or Reason.PDF_PARSE_FAILED)
        if res.needs_ocr_pages:
            rep["detail"]["needs_ocr_pages"] = list(res.needs_ocr_pages)
        if res.confidence is not None:  # the measured value and the threshold, for review
            rep["detail"].update(pdf_strategy=res.strategy, pdf_confidence=res.confidence,
                                 pdf_min_confidence=limits.min_confidence)
        return finish(packet, "", rep, t0)
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
    return finish(packet, md, report, t0, title=res.title)
