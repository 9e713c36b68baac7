"""The identity of a stored packet: per-run facts are left out, the page's result is not."""

from __future__ import annotations

import copy
import json

from gatecrawl.store.identity import identity_sha256, run_facts

KEY = "demo/quarantine/abc.json"


def _packet() -> dict:
    return {
        "url_requested": "http://127.0.0.1/dyn/ticker", "run_id": "run-1", "fetched_at": "2026-12-02T01:00:00Z",
        "latency_ms": 7000, "outcome": "dropped", "drop_reason": "readiness_timeout", "markdown_sha256": "aa",
        "render": {
            "render_readiness_passed": False, "render_readiness_reason": "timeout:stability",
            "main_selector": "main", "main_found": True, "main_text_chars": 936, "main_text_hash": "43c799bb",
            "polls": 55, "scroll_steps": 5, "requests": 3, "aborted_requests": 0, "bytes_in": 2363,
            "bytes_received": 3415, "context": "gatecrawl:demo:0", "render_elapsed_ms": 6000,
        },
    }


def _identity(packet: dict) -> str:
    return identity_sha256(KEY, json.dumps(packet).encode())


def test_what_a_render_observed_on_the_way_is_not_identity():
    """A page that never settles (the demo's ticker) is read differently by the readiness probe on
    every run, and its request count and scroll steps follow timing: the packet is not rewritten
    for that, and the run manifest gets those readings."""
    a, b = _packet(), _packet()
    b["run_id"], b["latency_ms"] = "run-2", 6900
    b["render"].update(main_text_hash="40c79502", main_text_chars=937, polls=54, scroll_steps=6, requests=4,
                       bytes_in=2400, bytes_received=3500, context="gatecrawl:demo:1", render_elapsed_ms=6001)
    assert _identity(a) == _identity(b)
    facts = run_facts(b)
    assert facts["main_text_hash"] == "40c79502" and facts["requests"] == 4 and facts["context"] == "gatecrawl:demo:1"


def test_a_changed_result_is_a_new_identity():
    base = _identity(_packet())
    for path, value in (
        (("markdown_sha256",), "bb"),
        (("drop_reason",), "thin_content"),
        (("render", "render_readiness_reason"), "timeout:selector"),
        (("render", "render_readiness_passed"), True),
        (("render", "main_found"), False),
    ):
        p = copy.deepcopy(_packet())
        target = p
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
        assert _identity(p) != base, path


def test_non_packet_objects_are_identified_by_their_bytes():
    data = json.dumps(_packet()).encode()
    other = json.dumps(dict(_packet(), run_id="run-2")).encode()
    assert identity_sha256("demo/pages/abc.md", data) != identity_sha256("demo/pages/abc.md", other)


def test_markdown_front_matter_fetched_at_is_not_identity():
    body = b"# Title\n\nText.\n"
    head = b'---\nurl: "http://127.0.0.1/a"\nfetched_at: "%s"\nmarkdown_sha256: "x"\n---\n\n'
    a, b = head % b"2026-12-01T00:00:00Z" + body, head % b"2026-12-02T00:00:00Z" + body
    assert identity_sha256("demo/pages/a.md", a) == identity_sha256("demo/pages/a.md", b)
    assert identity_sha256("demo/pages/a.md", a) != identity_sha256("demo/pages/a.md", a.replace(b"Text.", b"Text!"))
    # Only the front matter's line: the same words in the body are content.
    plain = b"# T\n\nfetched_at: 1\n"
    assert identity_sha256("demo/pages/a.md", plain) != identity_sha256("demo/pages/a.md", plain.replace(b"1", b"2"))
