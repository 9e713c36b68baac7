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


# --- interstitials served instead of the content (issue 14, junk corpus) ----------------------

SEARCH_URL = "https://shop.example/search?q=gorp+trousers"
CONSENT_BUTTONS = "<button>Accept all</button><button>Reject all</button><a href='/privacy'>Settings</a>"
VENDORS = "".join(f"<li><label><input type='checkbox' checked> Vendor {i}</label> Store and access information on a device</li>" for i in range(40))
POPULAR = "<section><h2>Most read</h2>" + "".join(
    f"<article><h3><a href='/story/{i}'>Story number {i} about the harbour ferry and the council budget</a></h3>"
    f"<p>A teaser sentence for story {i} that explains why readers clicked on it so often this week.</p></article>" for i in range(30)) + "</section>"
RECOMMENDED = "<h2>Recommended for you</h2>" + "".join(f"<div class='card'><h3><a href='/p/{i}'>Trail jacket model {i}</a></h3><span>$129.00</span></div>" for i in range(8))
AGE_LINKS = "<a href='?age=ok'>Yes</a> <a href='https://elsewhere.example/'>No</a>"


@pytest.mark.parametrize(
    "name, body, url, reason",
    [
        # cookie_wall: the consent dialog is the page
        ("consent dialog alone", doc(f"<div class='cmp'><h1>Your privacy matters</h1><p>We and our partners use cookies to measure and personalise ads.</p>{CONSENT_BUTTONS}</div>", title="Privacy"), URL, "cookie_wall"),
        ("consent dialog with a long vendor list", doc(f"<div class='cmp-fullscreen'><h1>We value your privacy</h1>{CONSENT_BUTTONS}<ul>{VENDORS}</ul></div>", title="Privacy"), URL, "cookie_wall"),
        ("consent gate between chrome", doc(NAV + f"<div class='cookie-gate'><h2>Cookies</h2><p>Accept cookies to see this page.</p>{CONSENT_BUTTONS}</div><footer><a href='/about'>About</a></footer>"), URL, "cookie_wall"),
        ("consent banner over a long article", doc(LONG_ARTICLE + f"<div id='onetrust-consent-sdk'><p>We use cookies.</p>{CONSENT_BUTTONS}</div>"), URL, None),
        ("consent banner over a short article", doc(SHORT_ARTICLE + f"<div class='cookie-banner'><p>We use cookies.</p>{CONSENT_BUTTONS}</div>"), URL, None),
        ("article wrapped in a div named for a consent plug-in", doc("<div class='cookie-consent-wrapper'><h1>Council agrees bridge repair</h1>"
                                                                     + "".join(para(i) for i in range(14)) + "<a href='/more'>More</a></div>"), URL, None),
        ("page builder components named cmp-*", doc(f"<div class='cmp-container'><div class='cmp-text'>{SHORT_ARTICLE}</div><a href='/more'>More</a></div>"), URL, None),
        # age_gate
        ("age question with two choices", doc(f"<div class='overlay'><h1>Are you of legal drinking age?</h1><p>You must be 21 or older to enter.</p>{AGE_LINKS}</div>", title="Winery"), URL, "age_gate"),
        ("date of birth form", doc("<form><h1>Enter your birth date</h1><select name='dob_day'><option>1</option></select><button>Go</button></form>"
                                   "<p>This content may not be appropriate for all ages; we need your date to continue with this page.</p>", title="Game"), URL, "age_gate"),
        ("short page whose heading asks a question with a number", doc(SHORT_ARTICLE.replace("Council agrees bridge repair</h1>", "Will the bridge reopen in 2025?</h1>")), URL, None),
        ("long article asking an age question", doc(LONG_ARTICLE.replace("Council agrees bridge repair</h1>", "Should the voting age drop to 16?</h1>") + AGE_LINKS), URL, None),
        # error_page
        ("servlet error template served 200", doc("<h1>HTTP Status 500 – Internal Server Error</h1><p><b>Type</b> Exception Report</p><pre>java.lang.NullPointerException\n\tat a.B.c(B.java:88)</pre>",
                                                  title="HTTP Status 500 – Internal Server Error"), URL, "error_page"),
        ("maintenance page", doc("<article><h1>We'll be back soon!</h1><p>Sorry for the inconvenience, we are performing maintenance at the moment and will be back shortly.</p></article>", title="Maintenance"), URL, "error_page"),
        ("legal-reasons block served 200", doc("<div><h1>451: Unavailable due to legal reasons</h1><p>Access from your country cannot be granted at this time, sorry for that.</p></div>", title="Unavailable"), URL, "error_page"),
        ("article about fixing server errors", doc(SHORT_ARTICLE.replace("Council agrees bridge repair</h1>", "How to fix a 500 internal server error in WordPress</h1>")), URL, None),
        ("article whose title mentions server errors", doc(SHORT_ARTICLE, title="Server error rates fell after the council migration"), URL, None),
        # parked_domain
        ("web server welcome page", doc("<h1>Welcome to nginx!</h1><p>If you see this page, the web server is installed and working. Further configuration is required.</p>", title="Welcome to nginx!"), URL, "parked_domain"),
        ("expired domain page", doc("<div><h1>This domain name has expired</h1><p>If you are the owner, log in to your registrar account to renew it before someone else registers it.</p></div>", title="Expired"), URL, "parked_domain"),
        ("parking service lander", doc("<div id='content'><p>Related searches: cheap flights, hotels, car hire and travel insurance deals for this summer.</p></div>"
                                       "<script src='https://www.parkingcrew.net/lander.js'></script>", title="bluefin.example"), URL, "parked_domain"),
        ("article whose heading starts with It works", doc(SHORT_ARTICLE.replace("Council agrees bridge repair</h1>", "It works! How the new tram line changed the morning commute</h1>")), URL, None),
        # no_results
        ("zero results with recommended items", doc(f"<main><h1>0 results for “gorp trousers”</h1><p>We couldn't find anything matching your search.</p>{RECOMMENDED}</main>", title="Search"), SEARCH_URL, "no_results"),
        ("zero count, query echoed in the search box", doc(f"<form role='search'><input type='search' name='q' value='underwater welder'></form><h1>0 underwater welder jobs in Leeds</h1>{RECOMMENDED}", title="Jobs"), URL, "no_results"),
        ("search with results", doc("<main><h1>3 results for “trail jacket”</h1>" + "".join(f"<h2><a href='/p/{i}'>Jacket {i}</a></h2>{para(i)}" for i in range(3)) + "</main>", title="Search"), SEARCH_URL, None),
        ("search page whose lead says it returned no records", doc("<main><h1>Library search</h1><p>Your search — <strong>author: Quillfeather</strong> — returned no records.</p>"
                                                                  "<p>Ask a librarian.</p></main>", title="Catalogue"), "https://example.test/library/search?author=Quillfeather", "no_results"),
        ("search page whose lead says nothing matched", doc("<main><h1>Search results</h1><p>Your search for “ferry 1987” did not match any articles.</p><h2>Suggestions</h2>"
                                                          "<ul><li>Try different keywords.</li><li>Try fewer keywords.</li></ul></main>", title="Search"), SEARCH_URL, "no_results"),
        ("article (not a search) whose lead reports a search that found nothing", doc(SHORT_ARTICLE.replace("<p>", "<p>The search for the missing boat returned no results on Sunday. ", 1)), URL, None),
        ("search page with results whose long lead mentions a past empty search", doc("<main><h1>Search results</h1><p>" + "Last week the same query returned no results, but the archive has grown since. " * 6
                                                                                    + "</p>" + "".join(f"<h2><a href='/p/{i}'>Story {i}</a></h2>{para(i)}" for i in range(3)) + "</main>", title="Search"), SEARCH_URL, None),
        ("zero-count heading on a page that is not a search", doc(SHORT_ARTICLE.replace("Council agrees bridge repair</h1>", "0 complaints about the bridge this year</h1>")), URL, None),
        # paywall containers
        ("abstract next to a purchase box", doc("<article><h1>Sediment transport in braided rivers</h1><section><h2>Abstract</h2>" + para(1) + para(2) + "</section>"
                                                "<div class='access-box'><h2>Access options</h2><ul><li>Buy article PDF: $39.95</li></ul><a href='/login'>Log in</a></div></article>"), URL, "login_wall"),
        ("long article with a small offer box", doc(LONG_ARTICLE + "<div class='piano-offer'><p>Subscribe for $1 a week.</p></div>"), URL, None),
        # soft 404: the message in title and heading, a long list of popular links under it
        ("not-found title and heading over a long most-read list", doc(f"<main><h1>We can't find the page you're looking for</h1><p>Try the search.</p>{POPULAR}</main>",
                                                                       title="Page not found – The Daily Ledger"), URL, "soft_404"),
        ("not-found heading alone over a long list", doc(f"<main><h1>We can't find the page you're looking for</h1><p>Try the search.</p>{POPULAR}</main>", title="The Daily Ledger"), URL, None),
        ("broken-link heading", doc("<article><h1>Hmm, that link seems to be broken</h1><p>This page may have been moved or renamed. Check the changelog or use the search.</p></article>", title="Docs"), URL, "soft_404"),
        ("Spanish not-found heading over a most-read list", doc("<main><h1>Lo sentimos, la página que buscas no existe</h1><p>Es posible que la noticia se haya eliminado.</p>"
                                                               + "".join(f"<h3><a href='/n/{i}'>El pantano alcanza su nivel más alto en {i} años</a></h3>" for i in range(10)) + "</main>",
                                                               title="Página no encontrada | Diario Sierra"), URL, "soft_404"),
        ("Dutch not-found heading, site name as title", doc("<main><h1>Deze pagina bestaat niet (meer)</h1><p>Het product dat je zoekt is mogelijk uit het assortiment gehaald.</p></main>",
                                                           title="Fietsplein"), URL, "soft_404"),
        ("German not-found heading", doc("<div><h1>Hoppla! Diese Seite gibt es nicht.</h1><p>Vielleicht wurde das Rezept umbenannt oder entfernt.</p></div>", title="Seite nicht gefunden – Küchenwerk"), URL, "soft_404"),
    ],
)
def test_interstitial_table(name, body, url, reason):
    r = convert(body, url, "text/html", fetch=FetchInfo(url_requested=url, http_status=200))
    rep = r.evidence["validation_report"]
    assert r.drop_reason == reason, (name, rep, r.evidence.get("drop_detail"))
    if reason is not None:
        detail = r.evidence["drop_detail"]
        assert detail and detail.startswith(reason + ":"), detail
        assert "max_" in detail, detail  # the threshold is in the drop detail, next to the measured value


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
