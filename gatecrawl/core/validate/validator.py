"""``validate``: the checks in priority order over a :class:`ValidationInput`, giving a
:class:`ValidationReport` whose first reason is the page's drop reason."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import urlsplit

from gatecrawl.core.reasons import Reason
from gatecrawl.core.validate.access import detect_bot_challenge, detect_login_wall
from gatecrawl.core.validate.interstitials import (detect_age_gate, detect_cookie_wall,
    detect_error_page, detect_no_results, detect_parked, detect_soft_404, lead_paragraph)
from gatecrawl.core.validate.structure import markdown_structure
from gatecrawl.core.validate.thresholds import (AGE_GATE_MAX_CONTENT_CHARS, EXTRACTION_FAILURE_PAGE_FACTOR,
    INTERSTITIAL_MAX_CONTENT_CHARS, LOGIN_DEMAND_MAX_CONTENT_CHARS, SOFT_404_MAX_CONTENT_CHARS)

_ERROR_ROUTE = re.compile(r"(^|/)(404|not[-_]?found|error|login|signin|sign-in|log-in|auth|captcha)(/|\.|$)", re.I)


def _norm_path(url: str) -> tuple[str, str]:
    p = urlsplit(url)
    path = p.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return (p.hostname or "").lower(), path


#: link-heavy extractions are content when the independent extractor keeps this share of them
LISTING_CONFIRMED_SHARE = 0.6

# --- the validator -----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ValidationInput:
    markdown: str
    url_final: str
    http_status: int | None
    html_text: str = ""  # raw page source for challenge markers ('' for non-HTML)
    page_text: str = ""  # visible text of the whole page (first few KB are enough)
    title: str = ""
    first_heading: str = ""
    page_visible_chars: int = 0
    content_chars: int = 0
    boilerplate_ratio: float = 0.0
    #: share of the extraction's text that the independent extractor keeps too (None: unknown)
    reference_share: float | None = None
    has_password_field: bool = False
    page_content_chars: int | None = None  # the page's content text outside chrome (None: use content_chars)
    paywall: dict | None = None  # paywall markup found on the page (gatecrawl.core.walls.Paywall.to_dict)
    signals: Mapping = field(default_factory=dict)  # structural interstitial signals (gatecrawl.core.walls.page_signals)
    canonical: str | None = None
    fields: dict = field(default_factory=dict)
    needs_render: bool = False
    rendered: bool = False
    gate_passed: bool = True
    not_found_match: dict | None = None  # the page matches its host's "not found" probe (gatecrawl.core.soft404.match)


@dataclass(frozen=True)
class ValidationReport:
    passed: bool
    reasons: list[str]
    detail: dict
    markdown_chars: int
    heading_count: int
    boilerplate_ratio: float
    wrong_route_detected: bool

    @property
    def drop_reason(self) -> str | None:
        return self.reasons[0] if self.reasons else None

    def to_dict(self) -> dict:
        return {
            "pass": self.passed,
            "reasons": list(self.reasons),
            "markdown_chars": self.markdown_chars,
            "heading_count": self.heading_count,
            "boilerplate_ratio": round(self.boilerplate_ratio, 4),
            "wrong_route_detected": self.wrong_route_detected,
            "detail": self.detail,
        }


def _age_gate(v: ValidationInput, sig, held: int) -> dict | None:
    """``detect_age_gate`` of the page, its signals read only where it reads them: on a page
    holding at most AGE_GATE_MAX_CONTENT_CHARS (``v.signals`` takes a signal when read)."""
    if held > AGE_GATE_MAX_CONTENT_CHARS:
        return None
    return detect_age_gate(v.first_heading, v.page_text, held, int(sig.get("choice_controls") or 0), bool(sig.get("birth_date_form")))


def _no_results(v: ValidationInput, sig) -> dict | None:
    """``detect_no_results`` of the page, its search signal and lead paragraph taken only where
    it reads them: on a page holding at most INTERSTITIAL_MAX_CONTENT_CHARS."""
    if v.content_chars > INTERSTITIAL_MAX_CONTENT_CHARS:
        return None
    return detect_no_results(v.title, v.first_heading, v.content_chars, v.url_final, bool(sig.get("search_query_shown")),
                             lead_paragraph(v.markdown))


def validate(v: ValidationInput, recipe) -> ValidationReport:
    reasons: list[str] = []
    detail: dict = {}
    md = v.markdown
    struct = markdown_structure(md)
    heading_count = len(struct["headings"])

    held = v.content_chars if v.page_content_chars is None else v.page_content_chars
    md_chars = len(md.strip())

    # 1. transport and wrong route
    challenge = detect_bot_challenge(v.html_text, v.http_status, v.page_visible_chars, held)
    if challenge:
        reasons.append(Reason.BOT_CHALLENGE)
        detail["bot_challenge_vendor"] = challenge["vendor"]
        detail["bot_challenge"] = challenge
    if v.http_status is not None and v.http_status >= 400 and not challenge:
        reasons.append(Reason.HTTP_ERROR)
        detail["http_status"] = v.http_status
    sig = v.signals
    # (the paywall container counts only on a page holding under LOGIN_DEMAND_MAX_CONTENT_CHARS:
    # it is not looked for on the others)
    container = sig.get("paywall_container") if held < LOGIN_DEMAND_MAX_CONTENT_CHARS else None
    wall = detect_login_wall(v.has_password_field, f"{v.title}\n{v.page_text}", held, markdown_chars=md_chars, paywall=v.paywall,
                             paywall_container=container)
    if wall:
        reasons.append(Reason.LOGIN_WALL)
        detail["login_wall"] = wall
    marker = detect_soft_404(v.title, v.first_heading, v.content_chars, recipe.wrong_route_markers, sig.get("document_title"))
    if marker and not (v.http_status or 200) >= 400:
        reasons.append(Reason.SOFT_404)
        detail["soft_404_marker"] = marker
        detail["soft_404"] = {"marker": marker, "content_chars": v.content_chars, "max_content_chars": SOFT_404_MAX_CONTENT_CHARS}
    # interstitials served instead of the content (a success status; a 4xx/5xx is http_error)
    if not (v.http_status or 200) >= 400:
        for reason, found in (
            (Reason.ERROR_PAGE, detect_error_page(v.title, v.first_heading, v.content_chars)),
            (Reason.PARKED_DOMAIN, detect_parked(v.title, v.first_heading, v.content_chars, v.html_text)),
            (Reason.COOKIE_WALL, detect_cookie_wall(sig.get("consent"))),
            (Reason.AGE_GATE, _age_gate(v, sig, held)),
            (Reason.NO_RESULTS, _no_results(v, sig)),
        ):
            if found:
                reasons.append(reason)
                detail[str(reason)] = found
    if v.not_found_match and not (v.http_status or 200) >= 400:
        reasons.append(Reason.SOFT_404)
        detail["soft_404_fingerprint"] = v.not_found_match
    if v.canonical and recipe.canonical_check != "off":
        from urllib.parse import urljoin

        canon = urljoin(v.url_final, v.canonical)
        host_c, path_c = _norm_path(canon)
        host_f, path_f = _norm_path(v.url_final)
        mismatch = (host_c, path_c) != (host_f, path_f)
        if mismatch and (recipe.canonical_check == "strict" or _ERROR_ROUTE.search(path_c)):
            reasons.append(Reason.CANONICAL_MISMATCH)
            detail["canonical"] = canon
    wrong_route = any(r in reasons for r in (Reason.SOFT_404, Reason.LOGIN_WALL, Reason.BOT_CHALLENGE, Reason.CANONICAL_MISMATCH,
                                             Reason.ERROR_PAGE, Reason.PARKED_DOMAIN, Reason.COOKIE_WALL, Reason.AGE_GATE, Reason.NO_RESULTS))

    # 2. shells that were not (or could not be) rendered
    if v.needs_render and not v.rendered:
        reasons.append(Reason.SHELL_PAGE)
        detail["shell_page"] = {"page_content_chars": held, "page_visible_chars": v.page_visible_chars}

    # 3. content presence, relative to what the page holds
    if md_chars < recipe.min_markdown_chars or md_chars == 0:
        failure_at = EXTRACTION_FAILURE_PAGE_FACTOR * recipe.min_markdown_chars
        failed = md_chars == 0 or held >= failure_at
        reasons.append(Reason.EXTRACTION_EMPTY if failed else Reason.TOO_SHORT)
        detail["min_markdown_chars"] = recipe.min_markdown_chars
        detail["length"] = {
            "markdown_chars": md_chars,
            "min_markdown_chars": recipe.min_markdown_chars,
            "page_content_chars": held,
            "page_visible_chars": v.page_visible_chars,
            # at or above this, a short Markdown is an extraction failure, not a short page
            "extraction_failure_page_chars": failure_at,
        }
    if heading_count < recipe.min_headings:
        reasons.append(Reason.TOO_FEW_HEADINGS)
        detail["min_headings"] = recipe.min_headings
        detail["heading_count"] = heading_count
    if v.boilerplate_ratio > recipe.max_boilerplate_ratio:
        # Link text the independent extractor also takes for the page's main content is a
        # listing's items, not chrome (a hub of bare links is chrome to it too).
        confirmed = (getattr(recipe, "links_confirmed_are_content", True) and v.reference_share is not None
                     and v.reference_share >= LISTING_CONFIRMED_SHARE)
        if confirmed:
            detail["link_text_confirmed_by_reference"] = round(v.reference_share, 4)
        else:
            reasons.append(Reason.BOILERPLATE_HEAVY)
            detail["max_boilerplate_ratio"] = recipe.max_boilerplate_ratio
            detail["boilerplate_ratio"] = round(v.boilerplate_ratio, 4)
            if v.reference_share is not None:
                detail["reference_share"] = round(v.reference_share, 4)
                detail["reference_share_min"] = LISTING_CONFIRMED_SHARE
    missing = [f for f in recipe.required_fields if not v.fields.get(f)]
    if missing:
        reasons.append(Reason.MISSING_FIELD)
        detail["missing_fields"] = missing
    if recipe.expected_heading_pattern and md_chars:
        rx = re.compile(recipe.expected_heading_pattern, re.I)
        if not any(rx.search(text) for _, text in struct["headings"]):
            reasons.append(Reason.HEADING_MISMATCH)

    # 4. structure sanity
    broken = []
    if not struct["fences_balanced"]:
        broken.append("unbalanced_code_fence")
    if struct["bad_tables"]:
        broken.append("table_column_mismatch")
    if recipe.strict_heading_hierarchy and struct["heading_level_skips"]:
        broken.append("heading_level_skip")
    detail["heading_level_skips"] = struct["heading_level_skips"]
    if broken:
        reasons.append(Reason.BROKEN_STRUCTURE)
        detail["structure"] = broken

    # de-duplicate, keep order
    seen: set[str] = set()
    ordered = [r for r in reasons if not (r in seen or seen.add(r))]
    return ValidationReport(
        passed=not ordered,
        reasons=[str(r) for r in ordered],
        detail=detail,
        markdown_chars=md_chars,
        heading_count=heading_count,
        boilerplate_ratio=v.boilerplate_ratio,
        wrong_route_detected=wrong_route,
    )
