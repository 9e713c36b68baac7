"""Pages that stand between the crawler and the content: bot challenges, sign-in and pay walls."""

from __future__ import annotations

import re

from gatecrawl.core.validate.thresholds import (CAPTCHA_ONLY_MAX_CONTENT_CHARS,
    CHALLENGE_MAX_PAGE_CHARS, LOGIN_DEMAND_MAX_CONTENT_CHARS, LOGIN_FORM_MAX_CONTENT_CHARS,
    PAYWALL_CONTAINER_MAX_SHARE, PAYWALL_SERVED_MIN_CHARS, PAYWALL_TEASER_MAX_CHARS,
    PAYWALL_TEASER_MAX_CONTENT_CHARS)

# Markup that only a vendor's challenge or block *page* carries (not the tags those vendors
# add to every page they protect).
_CHALLENGE_PAGE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("cloudflare", re.compile(r"_cf_chl_opt|cf-browser-verification|/cdn-cgi/challenge-platform/(h/[a-z]/)?orchestrate/|"
                              r"id=[\"']?(challenge-form|challenge-stage|challenge-running|cf-error-details)\b|<title>\s*attention required! \| cloudflare", re.I)),
    ("akamai", re.compile(r"access denied.{0,2000}?reference(\s|&#32;)+(#|&#35;)[0-9a-f]+\.[0-9a-f.]+", re.I | re.S)),
    ("datadome", re.compile(r"(geo|interstitial)\.captcha-delivery\.com", re.I)),
    ("perimeterx", re.compile(r"id=[\"']?px-captcha\b", re.I)),
    ("imperva", re.compile(r"incapsula incident id", re.I)),
    ("aws_waf", re.compile(r"aws-waf-token|awswafcookiedomainlist|captcha\.awswaf\.com", re.I)),
)
# Widgets and tags that ordinary pages carry too: they make a challenge only when the page
# holds nothing else.
_CAPTCHA_WIDGETS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("captcha", re.compile(r"class=[\"'][^\"']*\b(g-recaptcha|h-captcha|cf-turnstile)\b|hcaptcha\.com/1/api|recaptcha/api\.js|challenges\.cloudflare\.com/turnstile", re.I)),
    ("imperva", re.compile(r"_incapsula_resource", re.I)),
    ("aws_waf", re.compile(r"awswafintegration", re.I)),
)


#: for each pattern of ``_CHALLENGE_PAGE_MARKERS`` and ``_CAPTCHA_WIDGETS`` (same order), words
#: one of which every match of it holds (in lower case): a page's markup folded as the
#: case-blind patterns match it (see ``_fold``) that holds none of them cannot match, and the
#: substring tests are much cheaper than the patterns' scans of up to 200,000 characters
_MARKER_WORDS: tuple[tuple[str, ...], ...] = (
    ("_cf_chl_opt", "cf-browser-verification", "/cdn-cgi/challenge-platform/", "challenge-form",
     "challenge-stage", "challenge-running", "cf-error-details", "attention required! | cloudflare"),
    ("access denied",),
    ("captcha-delivery.com",),
    ("px-captcha",),
    ("incapsula incident id",),
    ("aws-waf-token", "awswafcookiedomainlist", "captcha.awswaf.com"),
)
_WIDGET_WORDS: tuple[tuple[str, ...], ...] = (
    ("g-recaptcha", "h-captcha", "cf-turnstile", "hcaptcha.com/1/api", "recaptcha/api.js",
     "challenges.cloudflare.com/turnstile"),
    ("_incapsula_resource",),
    ("awswafintegration",),
)


def _fold(text: str) -> str:
    """``text`` lower-cased, with the non-ASCII letters a case-blind pattern matches as ASCII
    ones written as those (U+0130 and U+0131 as ``i``, U+017F as ``s``; U+212A lower-cases to
    ``k``): every character a case-blind match of an ASCII letter covers becomes that letter."""
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")


def detect_bot_challenge(html_text: str, status: int | None, visible_chars: int, content_chars: int | None = None) -> dict | None:
    """The challenge evidence when the served page *is* a bot challenge, else None.

    A challenge page carries a vendor's challenge-page markup and little else (visible text
    at most ``CHALLENGE_MAX_PAGE_CHARS``); a generic captcha widget or a vendor's page tag
    counts only when the page holds almost no content (``CAPTCHA_ONLY_MAX_CONTENT_CHARS``):
    a real page that embeds a captcha in its comment form is not a challenge.
    """
    held = visible_chars if content_chars is None else content_chars
    head = html_text[:200_000]
    folded = None
    for markers, needles, chars, limit, name in (
        (_CHALLENGE_PAGE_MARKERS, _MARKER_WORDS, visible_chars, CHALLENGE_MAX_PAGE_CHARS, "page_visible_chars"),
        (_CAPTCHA_WIDGETS, _WIDGET_WORDS, held, CAPTCHA_ONLY_MAX_CONTENT_CHARS, "page_content_chars"),
    ):
        if chars > limit:
            continue
        if folded is None:
            folded = _fold(head)
        for (vendor, rx), words in zip(markers, needles):
            if not any(w in folded for w in words):
                continue  # (no match possible)
            m = rx.search(head)
            if m:
                return {"vendor": vendor, "marker": m.group(0)[:80], name: chars, "max_" + name: limit}
    return None


# A demand that ties access to signing in or paying: "sign in to continue reading", "subscribe
# to read the full story", "for subscribers only", "you must be logged in to view".
_ACCESS_DEMAND = re.compile(
    r"\b((sign|log)\s?(in|on|up)|subscribe|register|create (a free |an )?account|become a (member|subscriber))\b[^.!?\n]{0,40}?"
    r"\bto (continue|keep|read|view|access|unlock|see|download|watch)\b|"
    r"\b(subscribers?|members?)[ -]only\b|\bsubscription required\b|\bfor (paying )?subscribers\b|\balready (a )?subscriber\b|"
    r"\byou must be logged in to (view|read|access|see|continue)\b",
    re.I,
)


def detect_login_wall(
    has_password_field: bool,
    text: str,
    content_chars: int,
    *,
    markdown_chars: int | None = None,
    paywall: dict | None = None,
    paywall_container: dict | None = None,
) -> dict | None:
    """The wall evidence when the page is a sign-in or pay wall, else None.

    ``text`` is the page's content text (outside nav, header, footer and banners) and
    ``content_chars`` its length: what the page really holds. A wall is (1) a password form
    on a page holding under ``LOGIN_FORM_MAX_CONTENT_CHARS``; (2) paywall markup whose
    paywalled part was not served, next to a teaser-sized body; (3) a demand to sign in or
    subscribe *to read/continue/view* in the content text of a page holding under
    ``LOGIN_DEMAND_MAX_CONTENT_CHARS``; (4) a paywall or purchase container (class/id
    ``paywall``, ``access-box``, ``buybox``, ...) on such a page, holding at most
    ``PAYWALL_CONTAINER_MAX_SHARE`` of its content (an offer box, not the served article). A "Subscribe" link in the
    navigation is none of these.
    """
    if has_password_field and content_chars < LOGIN_FORM_MAX_CONTENT_CHARS:
        return {"signal": "password_form", "page_content_chars": content_chars, "max_page_content_chars": LOGIN_FORM_MAX_CONTENT_CHARS}
    if paywall is not None:
        served = paywall.get("paywalled_chars")
        md = content_chars if markdown_chars is None else markdown_chars
        if (served is None or served < PAYWALL_SERVED_MIN_CHARS) and md < PAYWALL_TEASER_MAX_CHARS and content_chars < PAYWALL_TEASER_MAX_CONTENT_CHARS:
            return {"signal": "paywall_markup", **paywall, "paywall_served_min_chars": PAYWALL_SERVED_MIN_CHARS,
                    "markdown_chars": md, "max_markdown_chars": PAYWALL_TEASER_MAX_CHARS,
                    "page_content_chars": content_chars, "max_page_content_chars": PAYWALL_TEASER_MAX_CONTENT_CHARS}
    served = paywall is not None and (paywall.get("paywalled_chars") or 0) >= PAYWALL_SERVED_MIN_CHARS
    if (paywall_container and not served and content_chars < LOGIN_DEMAND_MAX_CONTENT_CHARS
            and paywall_container["container_chars"] <= PAYWALL_CONTAINER_MAX_SHARE * content_chars):
        return {"signal": "paywall_container", **paywall_container, "max_container_share": PAYWALL_CONTAINER_MAX_SHARE,
                "page_content_chars": content_chars, "max_page_content_chars": LOGIN_DEMAND_MAX_CONTENT_CHARS}
    if content_chars < LOGIN_DEMAND_MAX_CONTENT_CHARS:
        m = _ACCESS_DEMAND.search(text)
        if m:
            return {"signal": "access_demand", "marker": m.group(0)[:80], "page_content_chars": content_chars,
                    "max_page_content_chars": LOGIN_DEMAND_MAX_CONTENT_CHARS}
    return None
