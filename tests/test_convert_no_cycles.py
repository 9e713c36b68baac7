"""convert() leaves no reference cycles behind: everything it builds (the parsed tree, the
candidates' copies, the Markdown writer) is freed by reference counting the moment the call
returns, so a crawl's memory does not wait for the garbage collector and the collector has no
trees to walk. (A nested function that calls itself, or a cache of bound methods on the object
that owns it, each makes such a cycle; both existed once.)"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from gatecrawl import convert

FIXTURES = Path(__file__).parent / "fixtures"
PAGES = sorted(p for p in FIXTURES.glob("*/input.html"))


@pytest.fixture
def no_automatic_gc():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def test_fixtures_found():
    assert len(PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_convert_leaves_no_cyclic_garbage(page, no_automatic_gc):
    body = page.read_bytes()
    url = f"https://example.org/{page.parent.name}"
    convert(body, url, content_type="text/html")  # warm: lazy imports and caches made once
    gc.collect()
    result = convert(body, url, content_type="text/html")
    assert result.markdown or result.evidence["outcome"] != "kept"
    del result
    assert gc.collect() == 0
