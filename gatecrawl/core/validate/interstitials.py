"""Wrong-route pages served with a success status: soft 404s, error templates, parked domains,
empty searches, cookie walls and age gates."""

from __future__ import annotations

import re
from typing import Sequence
from urllib.parse import urlsplit

from gatecrawl.core.validate.thresholds import (AGE_GATE_MAX_CONTENT_CHARS, AGE_GATE_MIN_CHOICES,
    COOKIE_WALL_MAX_OTHER_CHARS, INTERSTITIAL_MAX_CONTENT_CHARS, SOFT_404_MAX_CONTENT_CHARS,
    SOFT_404_MAX_HEADING_CHARS, SOFT_404_MAX_OTHER_WORDS)

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
    return _message_signal("error", _ERROR_MESSAGE, first_heading, title, content_chars)


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
    return _message_signal("parked", _PARKED_MESSAGE, first_heading, title, content_chars)


def _message_signal(kind: str, rx: re.Pattern[str], first_heading: str, title: str, content_chars: int) -> dict | None:
    """The first heading, else the title, when it is the ``rx`` message: the ``<kind>_heading`` or
    ``<kind>_title`` signal."""
    for where, text in (("heading", first_heading), ("title", title)):
        m = _is_message(text, rx)
        if m:
            return {"signal": f"{kind}_{where}", "marker": m.strip()[:80], "content_chars": content_chars,
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
