"""Plain or rendered (gatecrawl.core.capture.choose_capture) and the plain side's conversion."""

from __future__ import annotations

import json

from gatecrawl.core.capture import CaptureOutcome, choose_capture, outcome_of
from gatecrawl.core.convert import FetchInfo, convert


def o(ok, score=4, chars=1000, reason=None):
    return CaptureOutcome(ok=ok, drop_reason=None if ok else (reason or "too_short"), quality_score=score, chars_out=chars)


def test_both_pass_the_better_score_then_the_longer_wins_and_a_tie_keeps_the_render():
    assert choose_capture(o(True, 4), o(True, 3)).kept == "plain"
    assert choose_capture(o(True, 4), o(True, 3)).reason == "plain_better"
    assert choose_capture(o(True, 3), o(True, 4)).kept == "render"
    assert choose_capture(o(True, 4, 900), o(True, 4, 1200)).kept == "render"
    assert choose_capture(o(True, 4, 1300), o(True, 4, 1200)).kept == "plain"
    tie = choose_capture(o(True, 4, 1000), o(True, 4, 1000))
    assert (tie.kept, tie.reason) == ("render", "render_better")


def test_a_failed_render_never_loses_a_passing_plain_capture():
    for why in ("render_failed", "readiness_timeout", "size_exceeded", "too_short"):
        c = choose_capture(o(True, 3, 500), o(False, 0, 0, why))
        assert (c.kept, c.reason) == ("plain", "plain_passed"), why
        assert c.to_dict()["render"]["drop_reason"] == why


def test_render_kept_when_only_it_passes_or_neither_or_no_plain():
    assert choose_capture(o(False, reason="shell_page"), o(True)).to_dict()["reason"] == "render_passed"
    c = choose_capture(o(False, reason="shell_page"), o(False, reason="readiness_timeout"))
    assert (c.kept, c.reason, c.render.drop_reason) == ("render", "neither_passed", "readiness_timeout")
    c = choose_capture(None, o(False, reason="render_failed"))
    assert (c.kept, c.reason, c.to_dict()["plain"]) == ("render", "no_plain_capture", None)


ARTICLE = (
    "<html><head><title>River bridge approved</title></head><body><main><article><h1>River bridge approved</h1>"
    + "".join(f"<p>Paragraph {i}: the council voted to build a footbridge over the river, ending a decade of debate about "
              f"the crossing; work starts in spring and lasts eighteen months, said officer number {i}.</p>" for i in range(6))
    + "</article></main><div id='app'></div><script src='/bundle.js'></script></body></html>"
)


def test_plain_side_is_not_held_to_its_shell_signal_but_still_to_its_content():
    shell_verdict = {"needs_render": True, "fetch_presence_score": 0.25, "gate": {}, "shell_signals": ["empty_app_root"]}
    url = "https://news.test/bridge"
    as_http = convert(ARTICLE, url, fetch=FetchInfo(url_requested=url, fetch_presence=shell_verdict))
    assert as_http.drop_reason == "shell_page"  # unchanged for a page that was never rendered
    report = {"render_readiness_passed": False, "render_readiness_reason": "timeout:main_container"}
    plain = convert(ARTICLE, url, fetch=FetchInfo(url_requested=url, fetch_presence=shell_verdict, capture="plain", render=report,
                                                  escalated_from="http", escalation_reason="shell_page"))
    assert plain.ok, plain.drop_reason
    assert plain.evidence["reader"] == "http" and plain.evidence["render_readiness_reason"] == "timeout:main_container"
    empty = convert("<html><head><title>x</title></head><body><div id='app'></div></body></html>", url,
                    fetch=FetchInfo(url_requested=url, fetch_presence=shell_verdict, capture="plain"))
    assert not empty.ok and empty.drop_reason in ("extraction_empty", "too_short")


def test_outcome_of_a_packet(packet_validator):
    url = "https://news.test/bridge"
    r = convert(ARTICLE, url)
    oc = outcome_of(r.evidence, r.ok, r.drop_reason)
    assert oc.ok and oc.chars_out == len(r.markdown) and oc.quality_score == r.evidence["quality_score"]
    r.packet.capture_choice = choose_capture(oc, o(False, 0, 0, "readiness_timeout")).to_dict()
    assert not list(packet_validator.iter_errors(json.loads(json.dumps(r.evidence))))
