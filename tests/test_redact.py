"""Redaction: headers, URL credentials, secret parameters, free text, log records and stats."""

from __future__ import annotations

import logging

import pytest

from gatecrawl.core.redact import REDACTED, is_secret_name, redact_headers, redact_obj, redact_text, redact_url
from gatecrawl.extensions.redaction import RedactingFilter, _redact_settings_dump, redact_stats

CANARY = "CANARY-7f3a9"


@pytest.mark.parametrize(
    "name",
    ["Cookie", "set-cookie", "Authorization", "Proxy-Authorization", "X-Api-Key", "api_key", "X-Auth-Token",
     "x-amz-security-token", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "client_secret",
     "password", "X-CSRF-Token", "refresh_token", "private-key"],
)
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["content-type", "url_key", "markdown_key", "author", "etag", "keywords", "monkey", "server"])
def test_ordinary_names_are_kept(name):
    assert not is_secret_name(name)


def test_headers():
    out = redact_headers({"Cookie": "a=1", "X-Api-Key": CANARY, "Content-Type": "text/html"})
    assert out == {"Cookie": REDACTED, "X-Api-Key": REDACTED, "Content-Type": "text/html"}


@pytest.mark.parametrize(
    "url",
    [
        f"http://user:{CANARY}@proxy.example:8080/",
        f"http://{CANARY}@proxy.example/",
        f"https://example.com/a?token={CANARY}&page=2",
        f"https://example.com/a?x=1&access_token={CANARY}",
        f"https://example.com/a?key={CANARY}",
        f"https://example.com/a?X-Amz-Signature={CANARY}&X-Amz-Credential={CANARY}",
        f"https://example.com/cb#access_token={CANARY}&state=x",
        f"s3://AKIA:{CANARY}@bucket/prefix",
    ],
)
def test_urls(url):
    out = redact_url(url)
    assert CANARY not in out and REDACTED in out
    assert redact_url(out) == out


def test_url_without_secrets_is_unchanged():
    url = "https://example.com/a/b?page=2&q=x+y#frag"
    assert redact_url(url) == url
    assert redact_text(f"Crawled (200) <GET {url}>") == f"Crawled (200) <GET {url}>"


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {CANARY}",
        f"proxy-authorization: Basic {CANARY}",
        f"sent Cookie: sid={CANARY}; theme=dark",
        f"{{'Authorization': 'Bearer {CANARY}', 'Cookie': 'a={CANARY}', 'X-Api-Key': '{CANARY}'}}",
        f'{{"X-Api-Key": "{CANARY}", "Accept": "text/html"}}',
        f"{{b'Cookie': [b'demo_session={CANARY}']}}",
        f"AWS_SECRET_ACCESS_KEY={CANARY} AWS_SESSION_TOKEN={CANARY}",
        f"Credential=AKIA/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature={CANARY}",
        f"<GET http://127.0.0.1:8000/?token={CANARY}> (referer: http://u:{CANARY}@h/)",
    ],
)
def test_free_text(text):
    out = redact_text(text)
    assert CANARY not in out, out
    assert redact_text(out) == out


def test_obj_redacts_by_key_and_value():
    obj = {"headers": {"Authorization": CANARY}, "url": f"http://h/?token={CANARY}", "list": [f"Bearer {CANARY}"], "n": 3}
    out = redact_obj(obj)
    assert CANARY not in repr(out)
    assert out["n"] == 3 and out["headers"]["Authorization"] == REDACTED


def test_settings_dump_split_over_lines():
    # pprint splits long strings into adjacent literals; the dump is parsed back, not regex-matched.
    import pprint

    long_value = '{"Authorization": "Bearer ' + CANARY + ' ' + "x" * 80 + '", "Accept": "text/html"}'
    dump = "Overridden settings:\n" + pprint.pformat({"DEFAULT_REQUEST_HEADERS": long_value, "AWS_SECRET_ACCESS_KEY": CANARY, "BOT_NAME": "gatecrawl"})
    out = _redact_settings_dump(dump)
    assert CANARY not in out and "gatecrawl" in out


def test_log_filter_redacts_message_args_and_traceback():
    rec = logging.LogRecord("x", logging.ERROR, __file__, 1, "fetch %s failed: %s", (f"http://h/?token={CANARY}", f"Cookie: a={CANARY}"), None)
    try:
        raise ValueError(f"bad url http://u:{CANARY}@proxy/")
    except ValueError:
        import sys

        rec.exc_info = sys.exc_info()
    assert RedactingFilter().filter(rec) is True
    formatted = logging.Formatter().format(rec)
    assert CANARY not in formatted
    assert "fetch http://h/?token=" in formatted


def test_stats_are_redacted():
    stats = {f"odd/http://h/?token={CANARY}": 1, "gatecrawl/exit/x": f"Bearer {CANARY}", "n": 2}
    out = redact_stats(stats)
    assert CANARY not in repr(out) and out["n"] == 2


# --- issue 15: one redaction for every sink, linear in the input ------------------------------

import json as _json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecrawl.core.evidence import dumps as _packet_dumps
from gatecrawl.report.record import build_record as _build_record
from gatecrawl.report.record import dump_json as _dump_json
from gatecrawl.report.record import page_entry as _page_entry

SECRET = "S3CR3Tcanary42"
# Each form carries SECRET as the secret part (issue 15: the report path kept these in clear).
CANARY_FORMS = [
    "https://api.example/cb?accessToken={s}&page=2",
    "https://api.example/cb?clientSecret={s}",
    "https://api.example/x?sessionToken={s}#top",
    "https://bucket.s3.example/o?AWSAccessKeyId={s}&Expires=1",
    "https://shop.example/cart;jsessionid={s}?item=3",
    "https://shop.example/cart;JSESSIONID={s}",
    "http://admin:{s}@intranet.example/private",
    "https://{s}@intranet.example/private",
    "accessToken={s}",
    "clientSecret: {s}",
    "Authorization: Basic {s}",
    "{{'sessionToken': '{s}'}}",
]


def _sinks(text: str) -> dict[str, str]:
    """The same text through every sink: packet, report record, log line, stats."""
    packet = {"url_requested": text, "url_final": text, "drop_detail": text, "title": text, "links": [text], "outcome": "dropped"}
    out = {"packet": _packet_dumps(packet).decode()}
    entry = _page_entry({**packet, "drop_reason": "x"}, None)
    out["record"] = _dump_json(_build_record(site="s", run_id="r", pages=[entry], recipe={"name": text}, stats={"gatecrawl/x": text}, finish_reason=text)).decode()
    rec = logging.LogRecord("x", logging.ERROR, __file__, 1, "fetch %s failed", (text,), None)
    RedactingFilter().filter(rec)
    out["log"] = logging.Formatter().format(rec)
    out["stats"] = repr(redact_stats({f"k/{text}": text, "gatecrawl/a": [text]}))
    return out


@pytest.mark.parametrize("form", CANARY_FORMS)
def test_every_sink_redacts_the_same_canaries(form):
    text = form.format(s=SECRET)
    for sink, written in _sinks(text).items():
        assert SECRET not in written, (sink, written)


_filler = st.text(alphabet=st.sampled_from(list("ab=:;&?/ .-_'\"\n@")), max_size=30)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_filler, form=st.sampled_from(CANARY_FORMS), after=_filler)
def test_canaries_in_any_surroundings_never_reach_a_sink(before, form, after):
    text = before + " " + form.format(s=SECRET) + " " + after
    for sink, written in _sinks(text).items():
        assert SECRET not in written, (sink, text, written)
    # idempotent: redacting redacted text changes nothing
    once = redact_text(text)
    assert redact_text(once) == once


def test_secret_names_in_camel_case():
    for name in ["accessToken", "clientSecret", "sessionToken", "AWSAccessKeyId", "jsessionid", "JSESSIONID", "PHPSESSID"]:
        assert is_secret_name(name), name
    assert redact_obj({"clientSecret": "v"}) == {"clientSecret": REDACTED}


ADVERSARIAL = {
    "token_like": "A" * 20_000,
    "secret_word_run": "tokentoken" * 2_000,
    "dotted": "a." * 10_000,
    "dashed_scheme": "a-" * 10_000 + "://",
    "header_spaces": "Cookie:" + " " * 20_000 + "'",
    "quoted_open": "'token': '" + "x" * 20_000,
    "pairs_no_value": "token:" * 4_000,
    "urls": "http://a@" * 2_000,
    "escapes": "{'token': '" + "\\'" * 10_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_redact_text_finishes_on_adversarial_input(name):
    """A hang guard, not a speed target (that is ``python -m bench.hostile``: 1 MB under 0.5 s):
    the super-linear version needed over 20 s for 40 KB of such input; the 8x inputs here
    (16-160 KB) must finish inside a 10 s watchdog, and redaction must be idempotent."""
    import signal

    def hung(signum, frame):
        raise TimeoutError(f"{name}: redact_text did not finish in 10 s")

    big = ADVERSARIAL[name] * 8
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        out = redact_text(big)
        again = redact_text(out)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert again == out


def test_drop_reason_names_are_not_secrets():
    """Per-reason counts keep their values: ``cookie_wall`` is a drop reason, not a cookie
    (a run manifest showed ``"cookie_wall": "[REDACTED]"``); real secret keys still go."""
    from gatecrawl.core.redact import redact_obj

    got = redact_obj({"dropped_by_reason": {"cookie_wall": 7, "login_wall": 2},
                      "cookie": "sid=abc", "session_id": "s3cr3t"})
    assert got["dropped_by_reason"] == {"cookie_wall": 7, "login_wall": 2}
    assert got["cookie"] == "[REDACTED]" and got["session_id"] == "[REDACTED]"
