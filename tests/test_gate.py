"""The quality gate: each check on its own, the score, and the shell decision (table-driven)."""

from __future__ import annotations

import pytest

from gatecrawl.core.gate import GateThresholds, score
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.presence import assess_presence

T = GateThresholds(min_chars=50, min_unique_word_ratio=0.5, max_boilerplate_share=0.4, required_fields=("title", "date"), min_score=3)
GOOD_TEXT = "Crawlers decide page by page whether the text they found is worth keeping for retrieval systems."
REPEATED = "menu " * 40


@pytest.mark.parametrize(
    "name, text, share, fields, failed, points",
    [
        ("all pass", GOOD_TEXT, 0.1, {"title": "t", "date": "d"}, [], 4),
        ("too short", "Short text here.", 0.1, {"title": "t", "date": "d"}, ["length"], 3),
        ("repeated words", REPEATED, 0.1, {"title": "t", "date": "d"}, ["unique_words"], 3),
        ("boilerplate heavy", GOOD_TEXT, 0.9, {"title": "t", "date": "d"}, ["boilerplate"], 3),
        ("missing date", GOOD_TEXT, 0.1, {"title": "t", "date": None}, ["required_fields"], 3),
        ("boundary share equal passes", GOOD_TEXT, 0.4, {"title": "t", "date": "d"}, [], 4),
        ("empty text", "", 0.0, {}, ["length", "unique_words", "required_fields"], 1),
        ("two failures", "tiny", 0.8, {"title": "t", "date": "d"}, ["length", "boilerplate"], 2),
    ],
)
def test_checks_and_score(name, text, share, fields, failed, points):
    v = score(text, boilerplate_share=share, fields=fields, thresholds=T)
    assert v.failed_checks == failed, name
    assert v.score == points
    assert v.passed is (points >= T.min_score)
    assert set(v.checks) == {"length", "unique_words", "boilerplate", "required_fields"}
    for c in v.checks.values():
        assert {"value", "threshold", "passed"} <= set(c)


def test_min_score_threshold_is_respected():
    strict = GateThresholds(min_chars=50, min_unique_word_ratio=0.5, max_boilerplate_share=0.4, required_fields=("title", "date"), min_score=4)
    v = score(GOOD_TEXT, boilerplate_share=0.1, fields={"title": "t"}, thresholds=strict)
    assert v.score == 3 and not v.passed


def test_measured_values_are_reported():
    v = score("a b c a", boilerplate_share=0.123456, fields={}, thresholds=T)
    assert v.checks["length"]["value"] == 7
    assert v.checks["unique_words"]["value"] == 0.75
    assert v.checks["boilerplate"]["value"] == 0.1235
    assert v.checks["required_fields"]["missing"] == ["title", "date"]


_ARTICLE = "<html><head><title>T</title></head><body><nav><a href='/'>Home</a></nav><article><h1>Title</h1>" + "".join(
    f"<p>Paragraph {i} about crawling, gates, Markdown, packets and validation number {i * 7}.</p>" for i in range(12)
) + "</article></body></html>"
_SHELL = "<html><head><title>App</title></head><body><div id='root'></div><script src='/app.js'></script></body></html>"
_NOSCRIPT = "<html><head><title>App</title></head><body><noscript>Please enable JavaScript to use this site.</noscript><div id='app'></div></body></html>"
_SHORT_STATIC = "<html><head><title>Note</title></head><body><main><h1>Closed today</h1><p>The office is closed.</p></main></body></html>"
_LOADING = "<html><head><title>x</title></head><body><div>Loading...</div><script>fetch('/api')</script></body></html>"


@pytest.mark.parametrize(
    "html, needs_render, signal",
    [
        (_ARTICLE, False, None),
        (_SHELL, True, "empty_app_root"),
        (_NOSCRIPT, True, "noscript_javascript_hint"),
        (_SHORT_STATIC, False, None),  # short but complete, no scripts: never escalate
        (_LOADING, True, "loading_placeholder"),
    ],
)
def test_shell_decision_on_plain_fetch(html, needs_render, signal):
    p = assess_presence(parse_html(html.encode()), GateThresholds())
    assert p.needs_render is needs_render
    if signal:
        assert signal in p.signals
    assert 0.0 <= p.presence_score <= 1.0
    assert p.to_dict()["fetch_presence_score"] == p.presence_score
