"""An HTML page through the core: gate, selection, Markdown, validation (``convert_html``),
and a shell's content rebuilt from its embedded data (``convert_embedded``).

One parse of the page serves every step: the fetch verdict when nothing assessed the page
before, the interstitial signals, the candidates' selection and the checks of validation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from gatecrawl.core.convert_packet import REMOVED_LISTED_MAX, ConversionResult, base_packet, finish, reader_text
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.gate import GateThresholds, score
from gatecrawl.core.page import canonical_url, find_fields, measure_page, visible_text
from gatecrawl.core.pageindex import PageIndex, jsonld_of
from gatecrawl.core.pagetype import item_link_chars
from gatecrawl.core.presence import assess_fetch, challenge_text, unique_ratio_window
from gatecrawl.core.reasons import Reason
from gatecrawl.core.validate import ValidationInput, ValidationReport, describe_drop, validate
from gatecrawl.core.walls import find_paywall, has_password_form, page_signals

__all__ = ["convert_html", "convert_embedded"]


def convert_html(body, url, content_type, recipe, fetch, packet, t0, *, source_html: str | None = None) -> ConversionResult:
    from gatecrawl.core.extract import select_main
    from gatecrawl.core.htmlparse import FLATTENED_ATTR, parse_html
    from gatecrawl.core.markdown import to_markdown

    doc = parse_html(body, content_type=content_type)
    thresholds = GateThresholds.from_recipe(recipe)
    # One pass over the elements' attributes serves the text measure, the fields, the shell
    # signals, the page type and the interstitial signals (the <noscript> view below changes
    # nothing it reads: attributes, and the nav, aside, header, footer, main and article tags).
    index = PageIndex(doc)
    page = measure_page(doc, index=index)
    # the page's JSON-LD, parsed once for the fields, the paywall markup and the page type (all
    # only read it)
    jsonld = jsonld_of(index, doc)
    fields = find_fields(doc, jsonld=jsonld, index=index)
    presence: Mapping[str, Any] | None = fetch.fetch_presence
    # the start of the served HTML, decoded once for the bot-challenge checks of the fetch verdict
    # and of validation
    served_head = challenge_text(body)
    if presence is None:
        # Not assessed by the fetcher (scrapy convert, a direct convert() call): the same fetch
        # verdict the presence middleware records, on the document as served.
        p, presence = assess_fetch(doc, recipe, url, status=fetch.http_status, body=body, measure=page, fields=dict(fields),
                                   index=index, served_head=served_head)
        packet.fetch_gate = dict(presence)
        packet.needs_render = p.needs_render
        packet.fetch_presence_score = p.presence_score
    if page.noscript_text:
        # The page's only text is its <noscript> view (what a client without JavaScript gets):
        # extract from that view.
        for el in list(doc.iter("noscript")):
            el.tag = "div"
        fields = find_fields(doc, jsonld=jsonld, index=index)
    if recipe.embedded_enabled and fetch.reader == "http" and fetch.capture != "plain" and presence.get("needs_render"):
        # A shell: before it goes to the browser, its first response's embedded data may hold the content.
        result, info = convert_embedded(doc, body, url, content_type, recipe, fetch, presence, t0)
        if result is not None:
            return result
        if info.get("sources"):
            packet.embedded = info
    viewer_src = None
    try:
        from gatecrawl.core.pdf import find_pdf_viewer_source

        viewer_src = find_pdf_viewer_source(doc, url, index=index)
    except ImportError:
        pass
    packet.pdf_viewer_source = viewer_src

    sel = select_main(doc, main_selectors=recipe.main_selectors,
                      exclude_selectors=recipe.exclude_selectors,
                      keep_comments=recipe.keep_comments, keep_bylines=recipe.keep_bylines,
                      keep_captions=recipe.keep_captions, page_type=recipe.page_type, url=url, index=index)
    md = to_markdown(sel.root, base_url=url)
    if not fields.get("title") and md.title:
        fields["title"] = md.title
    packet.fields = {k: v for k, v in sorted(fields.items())}
    packet.selection_rule = sel.rule
    packet.main_selectors_used = [sel.selector] if sel.selector else []
    packet.boilerplate_filter_rules_used = list(sel.removal_rules)
    packet.set_aside = [{"kind": k, "text": t} for k, t in sel.set_aside]
    # A listing's item titles are its content, not chrome (a menu's bare links still count).
    # Each link's text is measured once: the listing measure and the link share below both
    # read it (nothing changes the extraction in between).
    link_len: dict = {}

    def link_text_chars(a) -> int:
        n = link_len.get(a)
        if n is None:
            n = link_len[a] = len(visible_text(a))
        return n

    listing_link_chars = item_link_chars(sel.root, link_text_chars)
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
    link_chars = sum(link_text_chars(a) for a in sel.root.iter("a"))
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

    has_password = has_password_form(doc, index=index)
    paywall = find_paywall(doc, jsonld=jsonld)
    html_text = source_html if source_html is not None else served_head
    rendered = fetch.reader == "render"
    vin = ValidationInput(
        markdown=text,
        url_final=url,
        http_status=fetch.http_status,
        html_text=html_text,
        page_text=page.body_text[:5000],
        title=fields.get("title") or "",
        first_heading=_first_heading(text),
        page_visible_chars=page.total_chars,
        content_chars=sel.main_text_chars,
        boilerplate_ratio=boiler_ratio,
        reference_share=sel.reference_share,
        has_password_field=has_password,
        page_content_chars=len(page.body_text),
        paywall=paywall.to_dict() if paywall is not None else None,
        signals=page_signals(doc, index=index, body_text=page.plain_text),
        canonical=canonical_url(doc, index=index),
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
    return finish(packet, text, report, t0, title=fields.get("title"), viewer_src=viewer_src)


def convert_embedded(doc, body, url, content_type, recipe, fetch, presence, t0) -> tuple[ConversionResult | None, dict]:
    """A shell's content rebuilt from its embedded data (core.embedded), converted and judged
    like any page: ``(result, info)``, the result None unless it was kept."""
    from gatecrawl.core.embedded import read_embedded

    if has_password_form(doc) or find_paywall(doc) is not None or presence.get("bot_challenge"):
        return None, {"rejected": "page_is_a_wall"}
    found = read_embedded(doc, url=url, paths=tuple(recipe.embedded_paths))
    info = dict(found.info)
    if found.html is None:
        return None, info
    packet = base_packet(url, content_type, recipe, fetch, body)
    packet.reader = "embedded_data"
    packet.page_type = "html"
    sub = replace(fetch, reader="embedded_data", fetch_presence=None)
    res = convert_html(found.html.encode("utf-8"), url, "text/html; charset=utf-8", recipe, sub, packet, t0,
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


def _first_heading(md: str) -> str:
    """The first line of ``md`` that starts with ``#``, without its ``#`` marks and surrounding
    blanks ("" when there is none): found, not every line split off."""
    if md.startswith("#"):
        at = 0
    else:
        at = md.find("\n#") + 1
        if not at:
            return ""
    end = md.find("\n", at)
    return (md[at:] if end < 0 else md[at:end]).lstrip("#").strip()


def _not_found_match(doc, text: str, url: str, fetch: FetchInfo) -> dict | None:
    if not fetch.not_found_probe:
        return None
    from gatecrawl.core import soft404

    return soft404.match(soft404.fingerprint(doc, text, url), fetch.not_found_probe)
