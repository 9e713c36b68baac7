"""A site's own Markdown (the answer to ``Accept: text/markdown``): normalised
deterministically (``normalise_markdown``), then gated and validated like every page
(``convert_native_markdown``)."""

from __future__ import annotations

import re

from gatecrawl.core.convert_packet import ConversionResult, finish, reader_text
from gatecrawl.core.gate import GateThresholds, score
from gatecrawl.core.presence import unique_ratio_window
from gatecrawl.core.reasons import Reason
from gatecrawl.core.validate import ValidationInput, describe_drop, validate

__all__ = ["normalise_markdown", "convert_native_markdown"]

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


def convert_native_markdown(body, url, content_type, recipe, fetch, packet, t0) -> ConversionResult:
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
    return finish(packet, md, report, t0, title=title)
