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

__all__ = ["DEFAULT_THRESHOLDS", "describe_drop", "ValidationInput", "ValidationReport", "validate", "detect_bot_challenge", "detect_login_wall", "detect_soft_404"]


# --- default thresholds (each pinned by tests/test_validate.py) ---------------------------

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


# --- wrong-route detectors ---------------------------------------------------------------

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


def detect_bot_challenge(html_text: str, status: int | None, visible_chars: int, content_chars: int | None = None) -> dict | None:
    """The challenge evidence when the served page *is* a bot challenge, else None.

    A challenge page carries a vendor's challenge-page markup and little else (visible text
    at most ``CHALLENGE_MAX_PAGE_CHARS``); a generic captcha widget or a vendor's page tag
    counts only when the page holds almost no content (``CAPTCHA_ONLY_MAX_CONTENT_CHARS``):
    a real page that embeds a captcha in its comment form is not a challenge.
    """
    held = visible_chars if content_chars is None else content_chars
    head = html_text[:200_000]
    if visible_chars <= CHALLENGE_MAX_PAGE_CHARS:
        for vendor, rx in _CHALLENGE_PAGE_MARKERS:
            m = rx.search(head)
            if m:
                return {"vendor": vendor, "marker": m.group(0)[:80], "page_visible_chars": visible_chars,
                        "max_page_visible_chars": CHALLENGE_MAX_PAGE_CHARS}
    if held <= CAPTCHA_ONLY_MAX_CONTENT_CHARS:
        for vendor, rx in _CAPTCHA_WIDGETS:
            m = rx.search(head)
            if m:
                return {"vendor": vendor, "marker": m.group(0)[:80], "page_content_chars": held,
                        "max_page_content_chars": CAPTCHA_ONLY_MAX_CONTENT_CHARS}
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


_NOT_FOUND = re.compile(
    r"\b404\b|\bnot found\b|\bpage (you|you're|you are) looking for\b|\b(doesn't|does not|no longer) exists?\b|"
    r"\bno longer available\b|\bpage (is )?missing\b|\bnothing (was )?found\b|\bpage not available\b|"
    r"\b(can't|can’t|cannot|can not|couldn't|couldn’t|could not|unable to) find\b|\b(link|page|url) (seems |appears )?(to be |is )?broken\b|"
    # the same message in a few more languages (de, fr, es, it, nl, pt, pl, sv)
    r"\bnicht gefunden\b|\bgibt es nicht\b|\bintrouvable\b|\bnon trouvée?\b|\bno (se ha )?encontrad[ao]\b|\bnon trovat[ao]\b|"
    r"\bniet gevonden\b|\bnão encontrad[ao]\b|\bnie znaleziono\b|\bhittades inte\b|\bp[aá]gina\b[^.!?]{0,30}\b(no existe|bestaat niet)\b",
    re.I,
)


def detect_soft_404(title: str, first_heading: str, content_chars: int, extra_markers: Sequence[str], document_title: str | None = None) -> str | None:
    """Return the marker that identifies a "not found" template served with 200, else None.

    The title or first heading must *be* the message (at most ``SOFT_404_MAX_HEADING_CHARS``)
    on a page whose content is at most ``SOFT_404_MAX_CONTENT_CHARS``; when the title *and*
    the first heading are both the message, the page is a soft 404 at any length (a long
    "most read" list under the message does not make it a page). ``document_title`` is the
    page's ``<title>`` (``title`` may be taken from the first heading itself)."""
    if content_chars > SOFT_404_MAX_CONTENT_CHARS:
        head, tit = _is_message(first_heading, _NOT_FOUND), _is_message(document_title or "", _NOT_FOUND)
        return head if head and tit else None
    for text in (first_heading, title, document_title or ""):
        if not text:
            continue
        low = text.lower()
        for marker in extra_markers:
            if marker.lower() in low:
                return marker
        if len(text.strip()) > SOFT_404_MAX_HEADING_CHARS:
            continue
        # The heading *is* the message: in one segment of it (titles carry " | Site name"),
        # the not-found phrase leaves at most SOFT_404_MAX_OTHER_WORDS other words.
        for segment in _TITLE_SEP.split(text):
            m = _NOT_FOUND.search(segment)
            if m and len(_WORD.findall(_NOT_FOUND.sub(" ", segment))) <= SOFT_404_MAX_OTHER_WORDS:
                return m.group(0)
    return None


def _is_message(text: str, rx: re.Pattern[str], max_other_words: int = SOFT_404_MAX_OTHER_WORDS) -> str | None:
    """The phrase of ``rx`` when ``text`` (a title or heading) *is* that message: at most
    SOFT_404_MAX_HEADING_CHARS long, and in one of its segments the phrase leaves at most
    ``max_other_words`` other words."""
    if not text or len(text.strip()) > SOFT_404_MAX_HEADING_CHARS:
        return None
    for segment in _TITLE_SEP.split(text):
        m = rx.search(segment)
        if m and len(_WORD.findall(rx.sub(" ", segment))) <= max_other_words:
            return m.group(0)
    return None


# An error template's heading: an HTTP status line or a server/application error message.
_ERROR_MESSAGE = re.compile(
    r"\bhttp (status|error) [45]\d\d\b|\berror [45]\d\d\b|\b[45]\d\d (error|internal server error|service unavailable|bad gateway|forbidden)\b|"
    r"\b(internal server|server|runtime|application|database|fatal|unexpected) error\b|\ban error (has )?occurred\b|"
    r"\bservice (temporarily )?unavailable\b|\bbad gateway\b|\bgateway time-?out\b|\btoo many requests\b|\bsomething went wrong\b|"
    r"\b(we('|’)ll|we will) be (right )?back\b|\b(down for|under|scheduled) maintenance\b|\bmaintenance mode\b|"
    r"\bunavailable (for|due to) legal reasons\b|\berror establishing a database connection\b",
    re.I,
)
# A parked, expired or server-default page's heading.
_PARKED_MESSAGE = re.compile(
    r"\b(web ?server|web ?site|server) default page\b|\bdefault (web ?site |web ?server )?page\b|\bit works!?|\bwelcome to nginx\b|"
    r"\bdomain( name)? (has expired|is expired|is parked|(is|may be) for sale)\b|\bfuture home of\b|\bbuy this domain\b|"
    r"\bdomain (is )?(for sale|parked)\b",
    re.I,
)
# Domain-parking services' lander scripts and frames.
_PARKING_MARKUP = re.compile(r"<(script|iframe)[^>]+src=[\"']?[^\"'>]*(sedoparking\.com|parkingcrew\.net|bodis\.com|parklogic\.com|above\.com/marketplace)", re.I)
# A result count of zero in a heading: "0 results for ...", "0 jobs in ...", "No results found".
_ZERO_RESULTS = re.compile(r"^\W*0\s+\w|\b(no|0|zero) (results?|matches|hits|items|products|jobs|articles|entries)\b(?! \w+ than)", re.I)
_SEARCH_ROUTE = re.compile(r"(^|/)(search|suche|recherche|buscar|busca|cerca|zoeken|sok|szukaj)(/|\.|\?|$)|[?&](q|query|s|search|keywords?|k)=[^&]", re.I)
_AGE = re.compile(r"\b(1[3-9]|2[01])\b")


def detect_error_page(title: str, first_heading: str, content_chars: int) -> dict | None:
    """An error template served with a success status: the title or first heading is an HTTP
    status line or a server error / maintenance message, on a page holding at most
    ``INTERSTITIAL_MAX_CONTENT_CHARS``."""
    if content_chars > INTERSTITIAL_MAX_CONTENT_CHARS:
        return None
    for where, text in (("heading", first_heading), ("title", title)):
        m = _is_message(text, _ERROR_MESSAGE)
        if m:
            return {"signal": f"error_{where}", "marker": m.strip()[:80], "content_chars": content_chars,
                    "max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS}
    return None


def detect_parked(title: str, first_heading: str, content_chars: int, html_text: str) -> dict | None:
    """A parked, expired or web-server default page: a parking service's lander markup, or a
    title/first heading that is the parked/default message, on a page holding at most
    ``INTERSTITIAL_MAX_CONTENT_CHARS``."""
    if content_chars > INTERSTITIAL_MAX_CONTENT_CHARS:
        return None
    m = _PARKING_MARKUP.search(html_text[:200_000])
    if m:
        return {"signal": "parking_markup", "marker": m.group(2), "content_chars": content_chars,
                "max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS}
    for where, text in (("heading", first_heading), ("title", title)):
        m2 = _is_message(text, _PARKED_MESSAGE)
        if m2:
            return {"signal": f"parked_{where}", "marker": m2.strip()[:80], "content_chars": content_chars,
                    "max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS}
    return None


# A sentence reporting an empty search: "returned no records", "did not match any articles",
# "found 0 items", "no results were found". Only read on a search page's lead paragraph.
_ZERO_STATEMENT = re.compile(
    r"\b(returned|found|matched|produced|yielded) (no|0|zero)\b|\bdid(?: not|n't) match any\b"
    r"|\bno (results?|matches|records|hits|items|products|articles|entries|documents|pages) (were |was )?(found|matched|returned)\b",
    re.I)
_LEAD_MAX_CHARS = 400


def lead_paragraph(markdown: str) -> str:
    """The first paragraph of plain text in ``markdown`` (not a heading, list, quote, table or
    image line), with link targets and emphasis markers removed."""
    for block in re.split(r"\n\s*\n", markdown or ""):
        b = block.strip()
        if not b or b[0] in "#-*>|!`" or re.match(r"\d+[.)] ", b):
            continue
        b = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", b)
        return re.sub(r"[*_]{1,2}", "", b)
    return ""


def detect_no_results(title: str, first_heading: str, content_chars: int, url: str, search_shown: bool,
                      lead: str = "") -> dict | None:
    """A search or listing page with zero results: the page is a search (its URL is a search
    route or carries a query, or it echoes the query in a search box) and its title or first
    heading states a zero count ("0 results for ...", "No results") or its lead paragraph (at
    most ``_LEAD_MAX_CHARS``) reports an empty search, on a page holding at most
    ``INTERSTITIAL_MAX_CONTENT_CHARS``. Recommended items listed under it do not count."""
    if content_chars > INTERSTITIAL_MAX_CONTENT_CHARS:
        return None
    p = urlsplit(url)
    search = search_shown or bool(_SEARCH_ROUTE.search(p.path + ("?" + p.query if p.query else "")))
    if not search:
        return None
    for where, text in (("heading", first_heading), ("title", title)):
        if text and len(text.strip()) <= SOFT_404_MAX_HEADING_CHARS:
            m = _ZERO_RESULTS.search(text)
            if m:
                return {"signal": f"zero_count_{where}", "marker": text.strip()[:80], "content_chars": content_chars,
                        "max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS}
    # the lead paragraph under the heading reports the empty search ("Your search ... returned
    # no records"): a short lead only, so an article that mentions such a sentence is not one
    if lead and len(lead) <= _LEAD_MAX_CHARS:
        m = _ZERO_STATEMENT.search(lead)
        if m:
            return {"signal": "zero_count_lead", "marker": lead[:80], "content_chars": content_chars,
                    "max_content_chars": INTERSTITIAL_MAX_CONTENT_CHARS}
    return None


def detect_cookie_wall(consent: dict | None) -> dict | None:
    """The page is a consent dialog: consent-management markup holds text and the page outside
    the dialog and its chrome holds under ``COOKIE_WALL_MAX_OTHER_CHARS``."""
    if not consent or consent.get("consent_chars", 0) <= 0:
        return None
    if consent.get("other_chars", 0) >= COOKIE_WALL_MAX_OTHER_CHARS:
        return None
    return {"signal": "consent_dialog", **consent, "max_other_chars": COOKIE_WALL_MAX_OTHER_CHARS}


def detect_age_gate(first_heading: str, text: str, content_chars: int, choices: int, birth_form: bool) -> dict | None:
    """An age check instead of the content: a date-of-birth form, or an age question (a first
    heading ending in "?", an age of 13-21 in the text, at least ``AGE_GATE_MIN_CHOICES``
    links or buttons), on a page holding at most ``AGE_GATE_MAX_CONTENT_CHARS``."""
    if content_chars > AGE_GATE_MAX_CONTENT_CHARS:
        return None
    base = {"content_chars": content_chars, "max_content_chars": AGE_GATE_MAX_CONTENT_CHARS}
    if birth_form:
        return {"signal": "birth_date_form", **base}
    if first_heading.strip().endswith("?") and choices >= AGE_GATE_MIN_CHOICES:
        m = _AGE.search(text)
        if m:
            return {"signal": "age_question", "age": int(m.group(1)), "choices": choices, "min_choices": AGE_GATE_MIN_CHOICES, **base}
    return None


_TITLE_SEP = re.compile(r"\s+[|\-\u2013\u2014\u00b7:]\s+|\s*[|\u2013\u2014\u00b7]\s*")
_WORD = re.compile(r"\w+")


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
    signals: dict = field(default_factory=dict)  # structural interstitial signals (gatecrawl.core.walls.page_signals)
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
    wall = detect_login_wall(v.has_password_field, f"{v.title}\n{v.page_text}", held, markdown_chars=md_chars, paywall=v.paywall,
                             paywall_container=sig.get("paywall_container"))
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
            (Reason.AGE_GATE, detect_age_gate(v.first_heading, v.page_text, held, int(sig.get("choice_controls") or 0),
                                              bool(sig.get("birth_date_form")))),
            (Reason.NO_RESULTS, detect_no_results(v.title, v.first_heading, v.content_chars, v.url_final, bool(sig.get("search_query_shown")),
                                                             lead_paragraph(v.markdown))),
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


_DETAIL_KEY = {
    "bot_challenge": "bot_challenge",
    "login_wall": "login_wall",
    "soft_404": "soft_404",
    "error_page": "error_page",
    "parked_domain": "parked_domain",
    "cookie_wall": "cookie_wall",
    "age_gate": "age_gate",
    "no_results": "no_results",
    "shell_page": "shell_page",
    "gate_failed": "gate_failed",
    "extraction_empty": "length",
    "too_short": "length",
}
_FLAT_KEYS = {
    "http_error": ("http_status",),
    "canonical_mismatch": ("canonical",),
    "too_few_headings": ("heading_count", "min_headings"),
    "boilerplate_heavy": ("boilerplate_ratio", "max_boilerplate_ratio"),
    "missing_field": ("missing_fields",),
    "broken_structure": ("structure",),
}


def describe_drop(reason: str, detail: dict) -> str | None:
    """One line for ``drop_detail``: the drop reason's measured values and thresholds, as
    ``key=value`` pairs in a fixed order (the full detail is in ``validation_report.detail``)."""
    key = _DETAIL_KEY.get(reason)
    if key and isinstance(detail.get(key), dict):
        items = list(detail[key].items())
    else:
        items = [(k, detail[k]) for k in _FLAT_KEYS.get(reason, ()) if k in detail]
    if not items:
        return None
    parts = []
    for k, val in items:
        if isinstance(val, (list, tuple)):
            val = ",".join(str(x) for x in val)
        elif isinstance(val, dict) and "value" in val:
            val = f"{val['value']} (threshold {val.get('threshold')})"
        elif isinstance(val, dict):
            val = "{" + ", ".join(f"{a}={b}" for a, b in val.items()) + "}"
        parts.append(f"{k}={val}")
    return f"{reason}: " + "; ".join(parts)
