"""Fail-closed validation of an extraction, with typed drop reasons.

Checks run in a fixed priority order; every failing check is reported, and the first
one in that order is the page's drop reason. Wrong-route checks come before content
checks so that a soft 404 is reported as ``soft_404`` rather than as ``too_short``.

Layout of the package: :mod:`.thresholds` (the default thresholds, each pinned by a test),
:mod:`.access` (bot challenges, sign-in and pay walls), :mod:`.interstitials` (soft 404s,
error templates, parked domains, empty searches, cookie walls, age gates), :mod:`.structure`
(headings, code fences and table shapes of the Markdown), :mod:`.validator`
(:class:`ValidationInput`, :class:`ValidationReport`, :func:`validate`) and :mod:`.describe`
(the one-line ``drop_detail``).
"""

from __future__ import annotations

from gatecrawl.core.validate.access import detect_bot_challenge, detect_login_wall
from gatecrawl.core.validate.describe import describe_drop
from gatecrawl.core.validate.interstitials import (detect_age_gate, detect_cookie_wall,
    detect_error_page, detect_no_results, detect_parked, detect_soft_404, lead_paragraph)
from gatecrawl.core.validate.structure import markdown_structure
from gatecrawl.core.validate.thresholds import (AGE_GATE_MAX_CONTENT_CHARS, AGE_GATE_MIN_CHOICES,
    CAPTCHA_ONLY_MAX_CONTENT_CHARS, CHALLENGE_MAX_PAGE_CHARS, COOKIE_WALL_MAX_OTHER_CHARS,
    DEFAULT_THRESHOLDS, EXTRACTION_FAILURE_PAGE_FACTOR, INTERSTITIAL_MAX_CONTENT_CHARS,
    LOGIN_DEMAND_MAX_CONTENT_CHARS, LOGIN_FORM_MAX_CONTENT_CHARS, PAYWALL_CONTAINER_MAX_SHARE,
    PAYWALL_SERVED_MIN_CHARS, PAYWALL_TEASER_MAX_CHARS, PAYWALL_TEASER_MAX_CONTENT_CHARS,
    SOFT_404_MAX_CONTENT_CHARS, SOFT_404_MAX_HEADING_CHARS, SOFT_404_MAX_OTHER_WORDS)
from gatecrawl.core.validate.validator import (LISTING_CONFIRMED_SHARE, ValidationInput,
    ValidationReport, validate)

__all__ = ["DEFAULT_THRESHOLDS", "describe_drop", "ValidationInput", "ValidationReport", "validate",
           "detect_bot_challenge", "detect_login_wall", "detect_soft_404",
           # also importable from here: the other detectors, the structure check, the thresholds
           "detect_age_gate", "detect_cookie_wall", "detect_error_page", "detect_no_results",
           "detect_parked", "lead_paragraph", "markdown_structure", "AGE_GATE_MAX_CONTENT_CHARS",
           "AGE_GATE_MIN_CHOICES", "CAPTCHA_ONLY_MAX_CONTENT_CHARS", "CHALLENGE_MAX_PAGE_CHARS",
           "COOKIE_WALL_MAX_OTHER_CHARS", "EXTRACTION_FAILURE_PAGE_FACTOR",
           "INTERSTITIAL_MAX_CONTENT_CHARS", "LISTING_CONFIRMED_SHARE",
           "LOGIN_DEMAND_MAX_CONTENT_CHARS", "LOGIN_FORM_MAX_CONTENT_CHARS",
           "PAYWALL_CONTAINER_MAX_SHARE", "PAYWALL_SERVED_MIN_CHARS", "PAYWALL_TEASER_MAX_CHARS",
           "PAYWALL_TEASER_MAX_CONTENT_CHARS", "SOFT_404_MAX_CONTENT_CHARS",
           "SOFT_404_MAX_HEADING_CHARS", "SOFT_404_MAX_OTHER_WORDS"]
