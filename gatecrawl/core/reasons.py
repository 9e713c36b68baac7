"""Typed drop reasons. Each value is stable: it appears in stats keys
(``gatecrawl/dropped/<reason>``), in evidence packets (``drop_reason``) and in the README."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Reason", "REASON_DOCS", "RenderReason", "SHELL_ESCALATIONS"]


class Reason(StrEnum):
    # transport and policy
    FETCH_FAILED = "fetch_failed"
    EGRESS_BLOCKED = "egress_blocked"
    SCHEME_BLOCKED = "scheme_blocked"
    OFFSITE = "offsite"
    ROBOTS_DISALLOWED = "robots_disallowed"
    ROBOTS_UNREACHABLE = "robots_unreachable"
    TIMEOUT = "timeout"
    SIZE_EXCEEDED = "size_exceeded"
    DECOMPRESSION_BOMB = "decompression_bomb"
    TRUNCATED = "truncated"
    HTTP_ERROR = "http_error"
    DUPLICATE_OF = "duplicate_of"
    REDIRECT_LOOP = "redirect_loop"
    URL_TOO_LONG = "url_too_long"
    UNSUPPORTED_TYPE = "unsupported_type"
    TOO_COMPLEX = "too_complex"
    # wrong route
    BOT_CHALLENGE = "bot_challenge"
    LOGIN_WALL = "login_wall"
    SOFT_404 = "soft_404"
    CANONICAL_MISMATCH = "canonical_mismatch"
    ERROR_PAGE = "error_page"
    PARKED_DOMAIN = "parked_domain"
    COOKIE_WALL = "cookie_wall"
    AGE_GATE = "age_gate"
    NO_RESULTS = "no_results"
    # rendering
    SHELL_PAGE = "shell_page"
    READINESS_TIMEOUT = "readiness_timeout"
    RENDER_FAILED = "render_failed"
    # content
    EXTRACTION_EMPTY = "extraction_empty"
    TOO_SHORT = "too_short"
    TOO_FEW_HEADINGS = "too_few_headings"
    BOILERPLATE_HEAVY = "boilerplate_heavy"
    MISSING_FIELD = "missing_field"
    HEADING_MISMATCH = "heading_mismatch"
    BROKEN_STRUCTURE = "broken_structure"
    GATE_FAILED = "gate_failed"
    # PDF
    PDF_PARSE_FAILED = "pdf_parse_failed"
    PDF_ENCRYPTED = "pdf_encrypted"
    PDF_TIMEOUT = "pdf_timeout"
    PDF_LIMITS_EXCEEDED = "pdf_limits_exceeded"
    PDF_WORKER_CRASHED = "pdf_worker_crashed"
    PDF_NEEDS_OCR = "pdf_needs_ocr"
    PDF_PARTIAL = "pdf_partial"
    PDF_LOW_CONFIDENCE = "pdf_low_confidence"
    # internal
    CONVERTER_ERROR = "converter_error"


class RenderReason(StrEnum):
    """Why a page went to the browser (packet ``escalation_reason``, stats
    ``gatecrawl/render/requested/<reason>``): not a drop reason."""

    SHELL_PAGE = "shell_page"  # the plain fetch's verdict: a shell (RenderMiddleware)
    PIPELINE_SHELL_PAGE = "pipeline_shell_page"  # a shell found only at conversion
    EMBEDDED_DATA_FAILED = "embedded_data_failed"  # a shell whose embedded data did not make a page
    ROUTED = "routed"  # learned render routing: no plain fetch
    FORCE = "force"  # the recipe's render policy
    FORCE_RULE = "force_rule"  # a per-URL render rule


#: escalations that mean "the plain fetch was a shell" (not a recipe's force policy)
SHELL_ESCALATIONS = (RenderReason.SHELL_PAGE, RenderReason.PIPELINE_SHELL_PAGE, RenderReason.EMBEDDED_DATA_FAILED, RenderReason.ROUTED)


REASON_DOCS: dict[str, str] = {
    "fetch_failed": "The download failed (DNS error, connection refused or reset); no response to convert.",
    "egress_blocked": "The egress policy refused the destination: an address that is not globally routable and not allow-listed, or a DNS error (fail closed).",
    "scheme_blocked": "A URL scheme other than http or https.",
    "offsite": "The request (often a redirect hop) left the recipe's allowed domains.",
    "robots_disallowed": "robots.txt disallows the URL.",
    "robots_unreachable": "robots.txt answered 5xx or could not be fetched: the host is treated as fully disallowed (RFC 9309).",
    "timeout": "The download timed out (DOWNLOAD_TIMEOUT).",
    "size_exceeded": "The response is larger than the size cap (DOWNLOAD_MAXSIZE, or the per-type caps).",
    "decompression_bomb": "The decompressed body passed the size cap.",
    "truncated": "The body was shorter than announced (data loss) after retries.",
    "duplicate_of": "The URL redirects (HTTP or meta refresh) to a URL already requested in this run; the detail names it. That URL has its own packet.",
    "redirect_loop": "The URL redirects back to itself or to an earlier hop of its own redirect chain.",
    "url_too_long": "The URL is longer than URLLENGTH_LIMIT (2,083 characters): not requested.",
    "http_error": "The server answered with a 4xx/5xx status (and it was not a bot challenge).",
    "too_complex": "The HTML has more element nodes than GATECRAWL_MAX_DOM_NODES (about 4 KB of memory each to convert): dropped before parsing.",
    "unsupported_type": "The response is neither HTML nor PDF (images, archives, ...).",
    "bot_challenge": "The served page is a challenge: vendor challenge-page markup (Cloudflare, Akamai, DataDome, PerimeterX, Imperva, AWS WAF) and little else, or a captcha widget on a page that holds almost nothing else.",
    "login_wall": "A sign-in or pay wall instead of the content: a password form, unserved paywalled markup next to a teaser, or an access demand, on a page that holds little content.",
    "soft_404": "A 'not found' template served with a success status.",
    "canonical_mismatch": "The page's canonical URL points at another route (an error or login route, or any other path in strict mode).",
    "error_page": "An error template served with a success status: the title or first heading is an HTTP status line or a server error or maintenance message, on a page holding little content.",
    "parked_domain": "A parked, expired or web-server default page: a parking service's lander, or a title or first heading that is the parked/default message, on a page holding little content.",
    "cookie_wall": "The page is a consent dialog: consent-management markup holds the text and the page outside the dialog and its chrome holds almost nothing.",
    "age_gate": "An age check instead of the content: a date-of-birth form, or an age question with its choices, on a page holding little else.",
    "no_results": "A search page with zero results: a search route, query or echoed query box, and a title, first heading or short lead paragraph stating a zero count.",
    "shell_page": "The gate flagged an SPA shell and no rendered DOM was available (render policy skip, or rendering not enabled).",
    "readiness_timeout": "The browser render did not reach the readiness contract within max_render_time_ms.",
    "render_failed": "The browser render failed (crash, navigation error).",
    "extraction_empty": "No main content could be extracted: the Markdown is empty, or under validation.min_markdown_chars on a page that holds at least 5 times that much content text.",
    "too_short": "The page itself holds little: Markdown under validation.min_markdown_chars on a page holding under 5 times that much content text.",
    "too_few_headings": "The Markdown has fewer headings than validation.min_headings.",
    "boilerplate_heavy": "Too much of the page's text is navigation, banners and other chrome (validation.max_boilerplate_ratio).",
    "missing_field": "A field listed in validation.required_fields (title, date, ...) was not found.",
    "heading_mismatch": "No heading matches validation.expected_heading_pattern.",
    "broken_structure": "The Markdown is structurally broken (unbalanced code fence, ragged table, heading skips in strict mode).",
    "gate_failed": "The extraction scored below gate.min_score on the four-check quality gate.",
    "pdf_parse_failed": "PDFium could not parse the file (truncated, garbage, bad xref).",
    "pdf_encrypted": "The PDF needs a user password.",
    "pdf_timeout": "The PDF worker exceeded its wall-clock budget and was killed.",
    "pdf_limits_exceeded": "The PDF exceeded the page-count, size or memory cap.",
    "pdf_worker_crashed": "The PDF worker process crashed (segfault, kill); the crawl went on.",
    "pdf_needs_ocr": "Too few pages have a usable text layer (a scanned PDF) and OCR is not enabled.",
    "pdf_partial": "Some pages have no usable text layer and were not OCR'd (OCR off or refused): the Markdown would miss them (pdf.allow_partial keeps such documents).",
    "pdf_low_confidence": "The document's text confidence is below pdf.min_confidence (garbled text layer, mojibake, unsure OCR): quarantined for review.",
    "converter_error": "An unexpected error inside the converter; the page is quarantined, never kept.",
}
