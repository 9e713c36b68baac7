"""The presence screen (``core.presence.plainly_complete``): a page it lets by has its fetch
verdict taken by conversion instead of the downloader, so it must never let by a page whose verdict
is a shell or a bot challenge, on every page of the junk corpus and on pages built to sit at
each of its edges."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.presence import PLAINLY_COMPLETE_CHARS, assess_fetch, plainly_complete
from gatecrawl.core.recipes import load_recipe_text

JUNK = Path(__file__).resolve().parent.parent / "bench" / "junk"
RECIPE = load_recipe_text('start_urls = ["https://example.test/"]\n', source="<test>", default_name="t")

PARAGRAPHS = "".join(f"<p>Paragraph {i} tells how the tide rises twice a day on most coasts of the world, "
                     f"pulled by the moon and, less, by the sun ({i}).</p>" for i in range(40))


def _page(body: str, head: str = "") -> bytes:
    return f"<!doctype html><html><head><title>T</title>{head}</head><body>{body}</body></html>".encode()


def _verdict(body: bytes) -> dict:
    return assess_fetch(parse_html(body, content_type="text/html"), RECIPE, "https://example.test/p", status=200, body=body)[1]


def _screen(body: bytes, min_chars: int = PLAINLY_COMPLETE_CHARS) -> bool:
    return plainly_complete(parse_html(body, content_type="text/html"), body, min_chars)


def test_a_long_article_passes_and_its_verdict_is_no_shell():
    body = _page(f"<main><article>{PARAGRAPHS}</article></main>", head='<script src="/app.js"></script>')
    assert _screen(body)
    assert _verdict(body)["needs_render"] is False
    assert not _screen(body, 0)  # 0: the screen is off


@pytest.mark.parametrize("name, body", [
    # the text is all inside a script (a JSON state blob): no text outside it
    ("state_in_script", _page('<div id="app"></div><script>window.__STATE__ = "' + "word " * 2000 + '"</script>')),
    # an empty app root beside long text (a widget mount point): the verdict reads it
    ("empty_app_root", _page(f'<div id="ROOT"></div><article>{PARAGRAPHS}</article>')),
    ("empty_react_root", _page(f'<div data-reactroot=""></div><article>{PARAGRAPHS}</article>')),
    # a noscript notice asking for JavaScript
    ("noscript_notice", _page(f"<noscript>Please enable JavaScript to view this site.</noscript><article>{PARAGRAPHS}</article>")),
    # short text
    ("short", _page("<article><p>Loading the tide tables, please wait.</p></article>")),
    ("no_body", b"<html><head><title>x</title></head></html>"),
])
def test_pages_at_the_screens_edges_are_measured(name, body):
    assert not _screen(body), name


def test_a_filled_app_root_does_not_stop_the_screen():
    body = _page(f'<div id="__next"><main>{PARAGRAPHS}</main></div>', head='<script src="/_next/app.js"></script>')
    assert _screen(body)
    assert _verdict(body)["needs_render"] is False


def test_no_shell_or_challenge_of_the_junk_corpus_passes_the_screen():
    pages = sorted(JUNK.glob("*/*.html"))
    assert len(pages) >= 150
    shells = passed = 0
    for path in pages:
        body = path.read_bytes()
        verdict = _verdict(body)
        flagged = verdict["needs_render"] or bool(verdict["bot_challenge"])
        shells += flagged
        if _screen(body):
            passed += 1
            assert not flagged, (path.name, verdict)
    assert shells >= 20  # the corpus holds shells and challenges for this to mean something
    assert passed >= 1  # and a page the screen lets by (junk is mostly short)
