"""The validator's default thresholds (each pinned by tests/test_validate.py and
tests/test_detectors.py) and ``DEFAULT_THRESHOLDS``, their names in the packet."""

from __future__ import annotations

#: A bot-challenge page holds little else: vendor challenge markup counts only when the
#: page's visible text is at most this long.
CHALLENGE_MAX_PAGE_CHARS = 1500
#: A generic captcha widget (reCAPTCHA, hCaptcha, Turnstile) or a vendor's ordinary page tag
#: counts only when the page's content text is at most this long (the widget is the page).
CAPTCHA_ONLY_MAX_CONTENT_CHARS = 300
#: A password form is a login wall when the page's content text is under this.
LOGIN_FORM_MAX_CONTENT_CHARS = 1000
#: A sign-in/subscribe demand ("sign in to continue reading") outside the page chrome is a
#: wall when the page's content text is under this (a truncated body next to the demand).
LOGIN_DEMAND_MAX_CONTENT_CHARS = 1000
#: Paywall markup (isAccessibleForFree false) whose paywalled part is not served (absent or
#: under PAYWALL_SERVED_MIN_CHARS) is a wall when the Markdown is under PAYWALL_TEASER_MAX_CHARS
#: and the page's content text under PAYWALL_TEASER_MAX_CONTENT_CHARS.
PAYWALL_SERVED_MIN_CHARS = 200
PAYWALL_TEASER_MAX_CHARS = 1500
PAYWALL_TEASER_MAX_CONTENT_CHARS = 3000
#: A paywall/purchase container (class or id) is a wall on a page holding under
#: LOGIN_DEMAND_MAX_CONTENT_CHARS when the container holds at most this share of the content
#: (an offer box; a container that holds the article is the served paywalled part).
PAYWALL_CONTAINER_MAX_SHARE = 0.5
#: A "not found" title or first heading marks a soft 404 only when the extracted content is
#: at most this long and the heading is at most SOFT_404_MAX_HEADING_CHARS (the heading is
#: the message, not an article about 404 errors).
SOFT_404_MAX_CONTENT_CHARS = 3000
SOFT_404_MAX_HEADING_CHARS = 80
SOFT_404_MAX_OTHER_WORDS = 3
#: Cookie wall: consent-dialog markup holding text while the page outside the dialog and its
#: chrome holds under this many characters.
COOKIE_WALL_MAX_OTHER_CHARS = 200
#: Age gate: an age question (heading ending in "?" with an age of 13-21 in the text, and at
#: least AGE_GATE_MIN_CHOICES links/buttons) or a date-of-birth form, on a page holding at most this.
AGE_GATE_MAX_CONTENT_CHARS = 600
AGE_GATE_MIN_CHOICES = 2
#: Error template, parked/default page, empty search: the title or first heading *is* the
#: message (the soft-404 rule: at most SOFT_404_MAX_HEADING_CHARS, at most
#: SOFT_404_MAX_OTHER_WORDS other words in its segment) on a page whose content is at most this.
INTERSTITIAL_MAX_CONTENT_CHARS = 3000
#: Markdown under validation.min_markdown_chars is an extraction failure (extraction_empty),
#: not a short page (too_short), when the page's content text is at least this many times
#: validation.min_markdown_chars.
EXTRACTION_FAILURE_PAGE_FACTOR = 5

DEFAULT_THRESHOLDS: dict[str, int] = {
    "challenge_max_page_chars": CHALLENGE_MAX_PAGE_CHARS,
    "captcha_only_max_content_chars": CAPTCHA_ONLY_MAX_CONTENT_CHARS,
    "login_form_max_content_chars": LOGIN_FORM_MAX_CONTENT_CHARS,
    "login_demand_max_content_chars": LOGIN_DEMAND_MAX_CONTENT_CHARS,
    "paywall_served_min_chars": PAYWALL_SERVED_MIN_CHARS,
    "paywall_teaser_max_chars": PAYWALL_TEASER_MAX_CHARS,
    "paywall_teaser_max_content_chars": PAYWALL_TEASER_MAX_CONTENT_CHARS,
    "paywall_container_max_share": PAYWALL_CONTAINER_MAX_SHARE,
    "soft_404_max_content_chars": SOFT_404_MAX_CONTENT_CHARS,
    "soft_404_max_heading_chars": SOFT_404_MAX_HEADING_CHARS,
    "soft_404_max_other_words": SOFT_404_MAX_OTHER_WORDS,
    "extraction_failure_page_factor": EXTRACTION_FAILURE_PAGE_FACTOR,
    "cookie_wall_max_other_chars": COOKIE_WALL_MAX_OTHER_CHARS,
    "age_gate_max_content_chars": AGE_GATE_MAX_CONTENT_CHARS,
    "age_gate_min_choices": AGE_GATE_MIN_CHOICES,
    "interstitial_max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS,
}
