"""Wrong-route and presence detectors on structure, table-driven (issue 14), through convert().

Each row is a small page built to show one structure: a real page that must be kept although
it carries a word or widget the old detectors keyed on, or a junk page that must be dropped
with a typed reason whose thresholds and measured values are in the packet."""

from __future__ import annotations

import json

import pytest

from gatecrawl import convert
from gatecrawl.core import page as page_mod
from gatecrawl.core import validate as val
from gatecrawl.core.convert import FetchInfo, default_recipe
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.page import measure_page
from gatecrawl.core.walls import find_paywall

URL = "https://news.example/2024/05/a-short-report"


def para(i: int) -> str:
    return (f"<p>Paragraph {i}: the council met on Tuesday and agreed to repair the bridge over the river "
            f"before winter, after residents asked for a safer crossing number {i}.</p>")


def doc(body: str, *, title: str = "Council agrees bridge repair", head: str = "", body_attrs: str = "") -> bytes:
    return f"<!doctype html><html><head><title>{title}</title>{head}</head><body {body_attrs}>{body}</body></html>".encode()


NAV = "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/subscribe'>Subscribe</a> <a href='/login'>Sign in</a></nav>"
SHORT_ARTICLE = f"<article><h1>Council agrees bridge repair</h1>{para(1)}{para(2)}{para(3)}</article>"  # ~480 chars
LONG_ARTICLE = "<article><h1>Council agrees bridge repair</h1>" + "".join(para(i) for i in range(14)) + "</article>"
LOGIN_FORM = "<form action='/login' method='post'><input type='email' name='e'><input type='password' name='p'><button>Sign in</button></form>"
CF_CHALLENGE = (b"<!doctype html><html><head><title>Just a moment...</title></head><body>"
                b"<div class='main-wrapper'><h1>news.example</h1><p>Verifying you are human. This may take a few seconds.</p>"
                b"<div id='challenge-stage'></div><noscript>Enable JavaScript and cookies to continue</noscript></div>"
                b"<script>window._cf_chl_opt={cvId:'3',cType:'managed'};</script>"
                b"<script src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=1'></script></body></html>")
PAYWALL_LD = ('<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":"False",'
              '"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":".paywall"}}</script>')


@pytest.mark.parametrize(
    "name, body, status, reason",
    [
        # kept: real pages with the words and widgets the old detectors keyed on
        ("subscribe link in nav on a short real article", doc(NAV + SHORT_ARTICLE), 200, None),
        ("subscribe link in nav, no nav tag, short article",
         doc("<div class='top'><a href='/subscribe'>Subscribe</a> | <a href='/login'>Log in</a></div>" + SHORT_ARTICLE), 200, None),
        ("newsletter subscribe box under a short article",
         doc(SHORT_ARTICLE + "<div><h3>Newsletter</h3><p>Subscribe to our weekly newsletter.</p></div>"), 200, None),
        ("comment form says you must be logged in to post",
         doc(SHORT_ARTICLE + "<section><h2>Leave a reply</h2><p>You must be logged in to post a comment.</p></section>"), 200, None),
        ("login form in the header of a long forum thread", doc("<header>" + LOGIN_FORM + "</header>" + LONG_ARTICLE), 200, None),
        ("captcha in a comment form on a real article",
         doc(LONG_ARTICLE + "<form id='comments'><textarea></textarea><div class='g-recaptcha' data-sitekey='x'></div></form>"
             "<script src='https://www.google.com/recaptcha/api.js'></script>"), 200, None),
        ("captcha in a comment form on a short real article",
         doc(SHORT_ARTICLE + "<form><textarea></textarea><div class='h-captcha' data-sitekey='x'></div></form>"), 200, None),
        ("cloudflare page tag on an ordinary short page",
         doc(SHORT_ARTICLE + "<script>var a=document.createElement('script');a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';</script>"), 200, None),
        ("perimeterx app id on an ordinary short page", doc(SHORT_ARTICLE + "<script>window._pxAppId='PX123';</script>"), 200, None),
        ("paywall markup with the paywalled part served",
         doc(f"<article><h1>Council agrees bridge repair</h1><div class='paywall'>{''.join(para(i) for i in range(6))}</div></article>", head=PAYWALL_LD), 200, None),
        ("an article about 404 errors", doc(LONG_ARTICLE.replace("Council agrees bridge repair", "Fixing 404 errors in WordPress"),
                                          title="Fixing 404 errors in WordPress"), 200, None),
        # dropped: junk, same reasons as before
        ("cloudflare challenge page", CF_CHALLENGE, 403, "bot_challenge"),
        ("cloudflare challenge page served 200", CF_CHALLENGE, 200, "bot_challenge"),
        ("datadome captcha page",
         b"<html><head><title>news.example</title></head><body><iframe src='https://geo.captcha-delivery.com/captcha/?initialCid=x'></iframe></body></html>", 403, "bot_challenge"),
        ("perimeterx press and hold page",
         doc("<div id='px-captcha'></div><p>Press and hold the button to confirm you are a human.</p>", title="Access to this page has been denied"), 403, "bot_challenge"),
        ("bare recaptcha wall", doc("<form method='post'><h1>One more step</h1><div class='g-recaptcha' data-sitekey='x'></div><button>Go</button></form>", title="One more step"), 200, "bot_challenge"),
        ("akamai access denied", doc("<h1>Access Denied</h1><p>You don't have permission to access this server.</p><p>Reference #18.5f2a1402.1700000000.2f1a2b3c</p>", title="Access Denied"), 403, "bot_challenge"),
        ("password form page", doc(NAV + "<main><h1>Sign in</h1>" + LOGIN_FORM + "</main>", title="Sign in"), 200, "login_wall"),
        ("paywall teaser: markup, part not served, short body",
         doc(f"<article><h1>Council agrees bridge repair</h1>{para(1)}<div class='snippet'><a href='/subscribe'>Subscribe now</a></div></article>", head=PAYWALL_LD), 200, "login_wall"),
        ("truncated body next to a sign-in demand",
         doc(f"<article><h1>Council agrees bridge repair</h1>{para(1)}<div class='gate'><p>Sign in or create a free account to continue reading.</p>"
             "<a href='/login'>Sign in</a></div></article>"), 200, "login_wall"),
        ("soft 404 title with site name", doc("<main><p>We could not find that.</p></main>", title="404 Not Found | Council News Daily"), 200, "soft_404"),
        ("soft 404 template", doc("<main><h1>Page not found</h1><p>Sorry, the page you are looking for does not exist.</p></main>", title="Page not found"), 200, "soft_404"),
    ],
)
def test_detector_table(name, body, status, reason):
    r = convert(body, URL, "text/html", fetch=FetchInfo(url_requested=URL, http_status=status))
    rep = r.evidence["validation_report"]
    assert r.drop_reason == reason, (name, rep)
    if reason is not None:
        assert r.evidence["drop_detail"] and r.evidence["drop_detail"].startswith(reason + ":"), r.evidence["drop_detail"]


def test_wall_and_challenge_details_carry_threshold_and_value():
    r = convert(doc("<main><h1>Sign in</h1>" + LOGIN_FORM + "</main>", title="Sign in"), URL)
    wall = r.evidence["validation_report"]["detail"]["login_wall"]
    assert wall["signal"] == "password_form"
    assert wall["max_page_content_chars"] == val.LOGIN_FORM_MAX_CONTENT_CHARS
    assert 0 < wall["page_content_chars"] < val.LOGIN_FORM_MAX_CONTENT_CHARS
    r = convert(CF_CHALLENGE, URL, fetch=FetchInfo(http_status=403))
    ch = r.evidence["validation_report"]["detail"]["bot_challenge"]
    assert ch["vendor"] == "cloudflare" and ch["max_page_visible_chars"] == val.CHALLENGE_MAX_PAGE_CHARS
    assert ch["page_visible_chars"] <= val.CHALLENGE_MAX_PAGE_CHARS


@pytest.mark.parametrize(
    "name, body, reason, kept_when_page_holds",
    [
        # the page itself holds little: too_short
        ("short page", doc("<main><h1>Hello</h1><p>Too little.</p></main>"), "too_short", False),
        # the page holds plenty but the extraction is empty: an extraction failure
        ("empty main", doc("<main></main>"), "extraction_empty", False),
    ],
)
def test_length_relative_to_page(name, body, reason, kept_when_page_holds):
    r = convert(body, URL)
    assert r.drop_reason == reason
    length = r.evidence["validation_report"]["detail"]["length"]
    assert length["min_markdown_chars"] == 200
    assert length["markdown_chars"] == r.evidence["validation_report"]["markdown_chars"]
    assert "page_content_chars" in length and "extraction_failure_page_chars" in length
    assert r.evidence["drop_detail"].startswith(reason + ": markdown_chars=")


def test_short_markdown_on_a_page_that_holds_much_more_is_an_extraction_failure(monkeypatch):
    import gatecrawl.core.markdown as mdmod

    real = mdmod.to_markdown

    def sliver(root, *, base_url):
        res = real(root, base_url=base_url)
        return type(res)(text=res.text[:60], title=res.title, provenance=res.provenance)

    monkeypatch.setattr(mdmod, "to_markdown", sliver)
    r = convert(doc(LONG_ARTICLE), URL)
    length = r.evidence["validation_report"]["detail"]["length"]
    assert r.drop_reason == "extraction_empty", length
    assert length["page_content_chars"] >= length["extraction_failure_page_chars"] > length["markdown_chars"]


# --- presence measure ---------------------------------------------------------------------

PRESENCE = [
    ("body class names a cookie plug-in", doc(LONG_ARTICLE, body_attrs="class='single-post cookies-not-set has-share-buttons'")),
    ("page builder wraps the page in a header", doc("<header class='site'>" + NAV + LONG_ARTICLE.replace("article", "div") + "</header>")),
    ("malformed tree nests the page in a nav", doc("<nav class='navbar'><a href='/'>Home</a><div>" + "".join(para(i) for i in range(10)) + "</div></nav>")),
    ("article inside an element classed share", doc("<div class='social-share-wrap'>" + LONG_ARTICLE + "</div>")),
    ("noscript crawler view", doc("<div id='app'></div><noscript><div class='topic'>" + "".join(para(i) for i in range(6)) + "</div></noscript><script src='/app.js'></script>")),
]


@pytest.mark.parametrize("name, body", PRESENCE)
def test_presence_measure_never_zero_on_a_page_with_an_article(name, body):
    m = measure_page(parse_html(body))
    assert len(m.body_text) > 500, (name, m)
    r = convert(body, URL)
    assert r.ok, (name, r.evidence["validation_report"], r.evidence["fetch_gate"])
    assert r.drop_reason is None and not r.evidence["needs_render"]


def test_real_nav_and_footer_stay_chrome():
    body = doc(NAV + "<main><h1>Short</h1><p>One line of text.</p></main><footer><p>" + "Footer words. " * 5 + "</p></footer>")
    m = measure_page(parse_html(body))
    assert "Subscribe" not in m.body_text and "Footer words" not in m.body_text
    assert m.boilerplate_share > 0.3


def test_spa_shell_still_needs_render():
    body = b"<html><head><title>App</title></head><body>" + NAV.encode() + b"<div id='root'></div><script src='/bundle.js'></script></body></html>"
    r = convert(body, URL)
    assert r.drop_reason == "shell_page", r.evidence["validation_report"]


def test_find_paywall_reads_selector_and_served_text():
    served = parse_html(doc("<div class='paywall'>" + para(1) + "</div>", head=PAYWALL_LD))
    pw = find_paywall(served)
    assert pw is not None and pw.selectors == (".paywall",) and pw.paywalled_chars > 100
    absent = find_paywall(parse_html(doc(para(1), head=PAYWALL_LD)))
    assert absent is not None and absent.paywalled_chars == 0
    free = '<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":true}</script>'
    assert find_paywall(parse_html(doc(para(1), head=free))) is None
    broken = '<script type="application/ld+json">{not json</script>'
    assert find_paywall(parse_html(doc(para(1), head=broken))) is None


# --- default thresholds, pinned -------------------------------------------------------------

def test_default_detector_thresholds_are_pinned():
    assert val.DEFAULT_THRESHOLDS == {
        "challenge_max_page_chars": 1500,
        "captcha_only_max_content_chars": 300,
        "login_form_max_content_chars": 1000,
        "login_demand_max_content_chars": 1000,
        "paywall_served_min_chars": 200,
        "paywall_teaser_max_chars": 1500,
        "paywall_teaser_max_content_chars": 3000,
        "paywall_container_max_share": 0.5,
        "soft_404_max_content_chars": 3000,
        "soft_404_max_heading_chars": 80,
        "soft_404_max_other_words": 3,
        "extraction_failure_page_factor": 5,
        "cookie_wall_max_other_chars": 200,
        "age_gate_max_content_chars": 600,
        "age_gate_min_choices": 2,
        "interstitial_max_content_chars": 3000,
    }
    assert (page_mod.WRAPPER_SHARE, page_mod.WRAPPER_MIN_CHARS, page_mod.WRAPPER_MAX_LINK_DENSITY, page_mod.NOSCRIPT_FALLBACK_CHARS) == (0.5, 1000, 0.5, 200)


def test_default_recipe_thresholds_are_pinned():
    r = default_recipe()
    got = {
        "gate_min_chars": r.gate_min_chars,
        "gate_min_unique_word_ratio": r.gate_min_unique_word_ratio,
        "gate_max_boilerplate_share": r.gate_max_boilerplate_share,
        "gate_required_fields": r.gate_required_fields,
        "gate_min_score": r.gate_min_score,
        "min_markdown_chars": r.min_markdown_chars,
        "min_headings": r.min_headings,
        "max_boilerplate_ratio": r.max_boilerplate_ratio,
        "required_fields": r.required_fields,
        "expected_heading_pattern": r.expected_heading_pattern,
        "wrong_route_markers": r.wrong_route_markers,
        "canonical_check": r.canonical_check,
        "strict_heading_hierarchy": r.strict_heading_hierarchy,
    }
    assert got == {
        "gate_min_chars": 200,
        "gate_min_unique_word_ratio": 0.3,
        "gate_max_boilerplate_share": 0.6,
        "gate_required_fields": ("title",),
        "gate_min_score": 3,
        "min_markdown_chars": 200,
        "min_headings": 0,
        "max_boilerplate_ratio": 0.5,
        "required_fields": ("title",),
        "expected_heading_pattern": None,
        "wrong_route_markers": (),
        "canonical_check": "error_routes",  # on by default; strict drops 39 of 749 good pages with a canonical
        "strict_heading_hierarchy": False,
    }


def test_detail_is_json_and_deterministic():
    a = convert(CF_CHALLENGE, URL, fetch=FetchInfo(http_status=403)).evidence
    b = convert(CF_CHALLENGE, URL, fetch=FetchInfo(http_status=403)).evidence
    assert json.dumps(a["validation_report"], sort_keys=True) == json.dumps(b["validation_report"], sort_keys=True)
    assert a["drop_detail"] == b["drop_detail"]
