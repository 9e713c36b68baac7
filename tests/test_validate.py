"""Each drop reason, produced through the one conversion path (convert())."""

from __future__ import annotations

import pytest

from gatecrawl import convert
from gatecrawl.core.convert import FetchInfo, page_type
from gatecrawl.core.recipes import load_recipe_text
from gatecrawl.core.validate import markdown_structure

URL = "https://site.example/articles/one"
PARAS = "".join(
    f"<p>Sentence {i}: retrieval pipelines need clean text, stable headings and honest evidence about every fetched page {i}.</p>"
    for i in range(8)
)


def page(body: str, title: str = "A good article", head: str = "") -> bytes:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()


ARTICLE = page(f"<article><h1>A good article</h1>{PARAS}</article>")


def recipe(extra: str = ""):
    return load_recipe_text(extra, source="<test>", default_name="test")


def test_good_article_is_kept():
    r = convert(ARTICLE, URL)
    assert r.ok and r.drop_reason is None
    assert r.markdown.startswith("# A good article\n")
    assert r.evidence["outcome"] == "kept"


@pytest.mark.parametrize(
    "body, kwargs, reason",
    [
        (page("<main></main>"), {}, "extraction_empty"),
        (page("<main><h1>Hello</h1><p>Too little.</p></main>"), {}, "too_short"),
        (page("<main><h1>Page not found</h1><p>Sorry, the page you are looking for does not exist.</p></main>", title="Page not found"), {}, "soft_404"),
        (page("<main><h1>Sign in</h1><form><input type='email'><input type='password'></form></main>", title="Sign in"), {}, "login_wall"),
        (b"<html><head><title>Just a moment...</title></head><body><div id='challenge-stage'></div><script src='/cdn-cgi/challenge-platform/x'></script></body></html>", {"status": 403}, "bot_challenge"),
        (page(f"<article><h1>A good article</h1>{PARAS}</article>"), {"status": 500}, "http_error"),
        (page(f"<article><h1>A good article</h1>{PARAS}</article>", head="<link rel='canonical' href='/404'>"), {}, "canonical_mismatch"),
        (page("<div id='root'></div><script src='/bundle.js'></script>", title="App"), {}, "shell_page"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", {"ctype": "image/png"}, "unsupported_type"),
        (b"", {"error": "TimeoutError: took too long"}, "fetch_failed"),
    ],
)
def test_each_drop_reason(body, kwargs, reason):
    fetch = FetchInfo(url_requested=URL, http_status=kwargs.get("status", 200), error=kwargs.get("error"))
    r = convert(body, URL, kwargs.get("ctype", "text/html"), fetch=fetch)
    assert not r.ok
    assert r.drop_reason == reason, r.evidence["validation_report"]
    assert r.evidence["outcome"] == "dropped" and r.evidence["drop_reason"] == reason


@pytest.mark.parametrize(
    "recipe_text, reason",
    [
        ("[validation]\nmin_headings = 3", "too_few_headings"),
        ('[validation]\nrequired_fields = ["title", "date"]', "missing_field"),
        ('[validation]\nexpected_heading_pattern = "^Overview"', "heading_mismatch"),
        ("[validation]\nmax_boilerplate_ratio = 0.0\nlinks_confirmed_are_content = false\n", None),
    ],
)
def test_recipe_thresholds_drive_drops(recipe_text, reason):
    body = page(f"<article><h1>A good article</h1>{PARAS}<p>See <a href='/x'>another page</a>.</p></article>")
    r = convert(body, URL, recipe=recipe(recipe_text))
    if reason is None:
        assert r.drop_reason == "boilerplate_heavy"
    else:
        assert r.drop_reason == reason


def test_wrong_route_wins_over_content_checks():
    body = page("<main><h1>404 - Not found</h1></main>", title="Not found")
    r = convert(body, URL)
    reasons = r.evidence["validation_report"]["reasons"]
    assert reasons[0] == "soft_404" and "too_short" in reasons
    assert r.evidence["validation_report"]["wrong_route_detected"] is True


def test_long_article_mentioning_captcha_is_not_a_challenge():
    body = page(f"<article><h1>How captcha walls work</h1>{PARAS * 4}<p>Sites add g-recaptcha widgets.</p></article>", title="How captcha walls work")
    assert convert(body, URL).ok


@pytest.mark.parametrize(
    "md, key, value",
    [
        ("```python\nx = 1\n", "fences_balanced", False),
        ("```python\nx = 1\n```\n", "fences_balanced", True),
        ("| a | b |\n| --- | --- |\n| 1 |\n", "bad_tables", 1),
        ("| a | b |\n| --- | --- |\n| 1 | 2 \\| 3 |\n", "bad_tables", 0),
        ("# A\n\n### C\n", "heading_level_skips", 1),
    ],
)
def test_structure_checks(md, key, value):
    assert markdown_structure(md)[key] == value


def test_broken_structure_is_dropped(monkeypatch):
    import gatecrawl.core.markdown as mdmod
    from gatecrawl.core import convert as conv

    real = mdmod.to_markdown

    def broken(root, *, base_url):
        res = real(root, base_url=base_url)
        return type(res)(text=res.text + "\n```\nunterminated\n", title=res.title, provenance=res.provenance)

    monkeypatch.setattr(mdmod, "to_markdown", broken)
    r = conv.convert(ARTICLE, URL)
    assert r.drop_reason == "broken_structure"
    assert "unbalanced_code_fence" in r.evidence["validation_report"]["detail"]["structure"]


def test_strict_heading_hierarchy_is_opt_in():
    body = page(f"<article><h1>A good article</h1>{PARAS}<h4>Deep</h4><p>More words here for the section body text.</p></article>")
    assert convert(body, URL).ok
    r = convert(body, URL, recipe=recipe("[validation]\nstrict_heading_hierarchy = true"))
    assert r.drop_reason == "broken_structure"


def test_converter_error_fails_closed(monkeypatch):
    import gatecrawl.core.extract as ex

    def boom(*a, **k):
        raise RuntimeError("bug with token=SECRET123 inside")

    monkeypatch.setattr(ex, "select_main", boom)
    r = convert(ARTICLE, URL)
    assert not r.ok and r.drop_reason == "converter_error"
    assert "SECRET123" not in r.evidence["drop_detail"]


@pytest.mark.parametrize(
    "body, ctype, url, expected",
    [
        (b"%PDF-1.7 ...", "application/octet-stream", "https://x/a", "pdf"),
        (b"%PDF-1.7 ...", "text/html", "https://x/a", "pdf"),
        (b"<html></html>", "application/pdf", "https://x/a", "pdf"),
        (b"<html></html>", "text/html; charset=utf-8", "https://x/a.pdf", "html"),
        (b"binary", "application/octet-stream", "https://x/a.pdf", "pdf"),
        (b"\x89PNG", "image/png", "https://x/a", "other"),
        (b"<!doctype html><html>", None, "https://x/a", "html"),
    ],
)
def test_page_type_routing(body, ctype, url, expected):
    assert page_type(body, ctype, url) == expected


def test_a_listing_the_reference_confirms_is_not_boilerplate_but_a_hub_is():
    def jobs(own: str) -> bytes:
        items = "".join(f"<li><a href='/job/{i}'>Senior engineer number {i} wanted at company {i} in city {i}"
                        f" for the platform team</a>{own}</li>" for i in range(25))
        return page(f"<main><h1>Jobs at our startups</h1><p>These are open roles at companies we fund, "
                    f"updated daily by the teams themselves.</p><ol>{items}</ol></main>", title="Jobs")

    # items with text of their own beside the link are a listing by structure: no reference needed
    dated = convert(jobs(" <span>2 hours ago</span>"), URL,
                    recipe=recipe("[validation]\nlinks_confirmed_are_content = false\n"))
    assert dated.ok, dated.evidence["validation_report"]
    assert dated.evidence["extraction"]["listing_item_link_chars"] > 1000
    # bare links need the reference's confirmation
    listing = jobs("")
    r = convert(listing, URL)
    assert r.ok, r.evidence["validation_report"]
    assert r.evidence["validation_report"]["detail"]["link_text_confirmed_by_reference"] >= 0.6
    # the same page with the rule off is dropped as boilerplate_heavy
    off = convert(listing, URL, recipe=recipe("[validation]\nlinks_confirmed_are_content = false\n"))
    assert off.drop_reason == "boilerplate_heavy"
    from gatecrawl.demo.site import _hub

    hub = convert(_hub().encode(), "http://127.0.0.1/")
    assert hub.drop_reason == "boilerplate_heavy"
    assert hub.evidence["validation_report"]["detail"]["reference_share"] < 0.6


_CHALLENGE_SAMPLES = [
    "var _CF_CHL_OPT = {};", "<div class='cf-browser-verification'>", "/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1",
    "<form id='challenge-form'>", "<div id=challenge-stage>", '<div id="Challenge-Running">', "<div id=cf-error-details>",
    "<title>  Attention Required! | Cloudflare</title>", "Access Denied. You don't have permission. Reference&#32;&#35;18.2f.1a2b",
    "https://geo.captcha-delivery.com/captcha/", "<div id='px-captcha'>", "Incapsula incident ID: 123", "aws-waf-token",
    "AwsWafCookieDomainList", "https://captcha.awswaf.com/x", "<div class='form g-recaptcha'>", '<div class="H-Captcha">',
    "<div class='cf-turnstile'>", "https://hcaptcha.com/1/api.js", "https://www.google.com/recaptcha/api.js",
    "https://challenges.cloudflare.com/turnstile/v0", "/_Incapsula_Resource?x=1", "AWSWAFINTEGRATION.getToken()",
    # letters a case-blind pattern matches as ASCII: dotless and dotted I, long s, Kelvin sign
    "Incapsula \u0131ncident ID", "\u0130NCAPSULA incident id", "aws-waf-token".replace("s", "\u017f"),
    "Access Denied. Reference #18.2f".replace("c", "C"), "<div id='px-captcha'>".replace("a", "A"),
    "\u212a" + "<div class='cf-turnstile'>",
]


@pytest.mark.parametrize("marker", _CHALLENGE_SAMPLES)
def test_bot_challenge_word_prefilter_misses_no_match(marker):
    """detect_bot_challenge skips a vendor pattern whose words the folded page lacks: each
    sample gives what the patterns alone find (vendor and marker), at both limits."""
    from gatecrawl.core.validate.access import _CAPTCHA_WIDGETS, _CHALLENGE_PAGE_MARKERS, detect_bot_challenge

    html = f"<html><body><p>Checking your browser.</p>{marker}</body></html>"
    plain = [(v, m.group(0)[:80]) for v, rx in _CHALLENGE_PAGE_MARKERS + _CAPTCHA_WIDGETS if (m := rx.search(html))]
    assert plain, marker  # (every sample is a match of some pattern)
    found = detect_bot_challenge(html, 403, 10)
    assert found is not None and (found["vendor"], found["marker"]) == plain[0]
    assert detect_bot_challenge(html.replace(marker, ""), 403, 10) is None
