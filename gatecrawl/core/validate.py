"""Fail-closed validation of an extraction, with typed drop reasons.

Checks run in a fixed priority order; every failing check is reported, and the first
one in that order is the page's drop reason. Wrong-route checks come before content
checks so that a soft 404 is reported as ``soft_404`` rather than as ``too_short``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence
from urllib.parse import urlsplit

from gatecrawl.core.reasons import Reason

__all__ = ["ValidationInput", "ValidationReport", "validate", "detect_bot_challenge", "detect_login_wall", "detect_soft_404"]


# --- wrong-route detectors ---------------------------------------------------------------

_CHALLENGE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("cloudflare", re.compile(r"just a moment\.\.\.|cf-browser-verification|challenge-platform|cf_chl_|attention required! \| cloudflare|cf-turnstile", re.I)),
    ("akamai", re.compile(r"access denied.{0,400}reference #[0-9a-f.]+|_abck|akamai bot manager", re.I | re.S)),
    ("datadome", re.compile(r"captcha-delivery\.com|datadome", re.I)),
    ("perimeterx", re.compile(r"px-captcha|_pxappid|perimeterx|press (&amp; |& )?hold", re.I)),
    ("imperva", re.compile(r"_incapsula_resource|incapsula incident id|imperva", re.I)),
    ("aws_waf", re.compile(r"awswafintegration|aws-waf-token|challenge\.js.{0,200}awswaf", re.I | re.S)),
    ("captcha", re.compile(r"g-recaptcha|h-captcha|hcaptcha\.com/1/api|recaptcha/api\.js|verify you are (a )?human|are you a robot", re.I)),
)


def detect_bot_challenge(html_text: str, status: int | None, visible_chars: int) -> str | None:
    """Return the vendor name when the page is a bot challenge, else None.

    A challenge page is short; a long article that merely mentions "captcha" is not one.
    """
    if visible_chars > 3000:
        return None
    head = html_text[:200_000]
    for vendor, rx in _CHALLENGE_MARKERS:
        if rx.search(head):
            return vendor
    if status == 202 and visible_chars < 200 and "awswaf" in head.lower():
        return "aws_waf"
    return None


_LOGIN_PHRASES = re.compile(
    r"\b(sign|log)\s?in\b.{0,80}\b(to (continue|read|view|access))|\b(subscribe|subscription required|members only|for subscribers)\b|"
    r"\bplease (sign|log)\s?in\b|\bcreate (a free |an )?account to (continue|read)\b|\byou must be logged in\b",
    re.I | re.S,
)


def detect_login_wall(has_password_field: bool, text: str, content_chars: int) -> bool:
    """A login wall: a password form or a sign-in/subscribe demand on a page with little content."""
    if content_chars > 2500:
        return False
    if has_password_field:
        return True
    return bool(_LOGIN_PHRASES.search(text[:5000]))


_NOT_FOUND = re.compile(
    r"\b404\b|\bnot found\b|\bpage (you|you're|you are) looking for\b|\b(doesn't|does not|no longer) exists?\b|"
    r"\bno longer available\b|\bpage (is )?missing\b|\bnothing (was )?found\b|\bpage not available\b",
    re.I,
)


def detect_soft_404(title: str, first_heading: str, content_chars: int, extra_markers: Sequence[str]) -> str | None:
    """Return the marker that identifies a "not found" template served with 200, else None."""
    if content_chars > 3000:
        return None
    for text in (first_heading, title):
        if not text:
            continue
        m = _NOT_FOUND.search(text)
        if m:
            return m.group(0)
        low = text.lower()
        for marker in extra_markers:
            if marker.lower() in low:
                return marker
    return None


_ERROR_ROUTE = re.compile(r"(^|/)(404|not[-_]?found|error|login|signin|sign-in|log-in|auth|captcha)(/|\.|$)", re.I)


def _norm_path(url: str) -> tuple[str, str]:
    p = urlsplit(url)
    path = p.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return (p.hostname or "").lower(), path


# --- Markdown structure ------------------------------------------------------------------

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6}) \S")


def markdown_structure(md: str) -> dict:
    """Headings, fence balance and table shapes of a Markdown text."""
    headings: list[tuple[int, str]] = []
    open_fence: str | None = None
    fences_balanced = True
    table_rows: list[int] = []
    bad_tables = 0
    for line in md.split("\n"):
        m = _FENCE.match(line)
        if m:
            marker = m.group(2)
            if open_fence is None:
                open_fence = marker
            elif marker[0] == open_fence[0] and len(marker) >= len(open_fence) and not m.group(3).strip():
                open_fence = None
            continue
        if open_fence is not None:
            continue
        h = _HEADING.match(line)
        if h:
            headings.append((len(h.group(1)), line[len(h.group(1)) + 1 :].strip()))
        if line.startswith("|") and line.rstrip().endswith("|"):
            table_rows.append(_count_cells(line))
        else:
            if table_rows and len(set(table_rows)) > 1:
                bad_tables += 1
            table_rows = []
    if table_rows and len(set(table_rows)) > 1:
        bad_tables += 1
    if open_fence is not None:
        fences_balanced = False
    skips = sum(1 for (a, _), (b, _) in zip(headings, headings[1:]) if b > a + 1)
    return {"headings": headings, "fences_balanced": fences_balanced, "bad_tables": bad_tables, "heading_level_skips": skips}


def _count_cells(line: str) -> int:
    inner = line.strip()[1:-1]
    cells, esc = 1, False
    for ch in inner:
        if esc:
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == "|":
            cells += 1
    return cells


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
    has_password_field: bool = False
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


def validate(v: ValidationInput, recipe) -> ValidationReport:
    reasons: list[str] = []
    detail: dict = {}
    md = v.markdown
    struct = markdown_structure(md)
    heading_count = len(struct["headings"])

    # 1. transport and wrong route
    challenge = detect_bot_challenge(v.html_text, v.http_status, v.page_visible_chars)
    if challenge:
        reasons.append(Reason.BOT_CHALLENGE)
        detail["bot_challenge_vendor"] = challenge
    if v.http_status is not None and v.http_status >= 400 and not challenge:
        reasons.append(Reason.HTTP_ERROR)
        detail["http_status"] = v.http_status
    if detect_login_wall(v.has_password_field, f"{v.title}\n{v.page_text}", v.content_chars):
        reasons.append(Reason.LOGIN_WALL)
    marker = detect_soft_404(v.title, v.first_heading, v.content_chars, recipe.wrong_route_markers)
    if marker and not (v.http_status or 200) >= 400:
        reasons.append(Reason.SOFT_404)
        detail["soft_404_marker"] = marker
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
    wrong_route = any(r in reasons for r in (Reason.SOFT_404, Reason.LOGIN_WALL, Reason.BOT_CHALLENGE, Reason.CANONICAL_MISMATCH))

    # 2. shells that were not (or could not be) rendered
    if v.needs_render and not v.rendered:
        reasons.append(Reason.SHELL_PAGE)

    # 3. content presence
    md_chars = len(md.strip())
    if md_chars == 0:
        reasons.append(Reason.EXTRACTION_EMPTY)
    elif md_chars < recipe.min_markdown_chars:
        reasons.append(Reason.TOO_SHORT)
        detail["min_markdown_chars"] = recipe.min_markdown_chars
    if heading_count < recipe.min_headings:
        reasons.append(Reason.TOO_FEW_HEADINGS)
        detail["min_headings"] = recipe.min_headings
    if v.boilerplate_ratio > recipe.max_boilerplate_ratio:
        reasons.append(Reason.BOILERPLATE_HEAVY)
        detail["max_boilerplate_ratio"] = recipe.max_boilerplate_ratio
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
