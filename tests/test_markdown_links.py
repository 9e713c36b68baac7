"""The page's link and image targets (``Targets``) are the ones ``_safe_url`` (``urljoin``) gives:
the two kinds written without ``urljoin`` (plain absolute http(s) URLs, plain root-relative
paths) and every other kind, on the benchmark pages' targets and on generated ones."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown.links import Targets, _find_base, _safe_url

CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]

BASES = [
    "", "https://a.example", "https://a.example/", "http://a.example/x/y.html?q=1#f", "https://[bad",
    "about:blank", "HTTPS://A.example/Dir/", "https://a.example/x;p", "file:///x", "http://",
    "https://u:p@a.example:8/", "https://h\u00e9.example/", "mailto:x@a.example", "//a.example/x",
    "https://a b.example/p (1)/q?x=<y>#z", "http://a.example/\\d\\e f?",
]
PIECES = list("/?#;.:@%&=+-_~()[]<>\\ \t\n\x00\x7f\xa0\u3000\u2028\u00e9aZ0") + [
    "//", "/./", "/../", "..", ".", "http://", "https://", "HTTP://", "mailto:", "javascript:", "data:",
]
PREFIXES = ["", "/", "https://h.example", "http://h.example", "https://[::1]", "//h.example",
            "https://h\u00e9.example", "https://h.example:80", " https://h.example", "/a/b"]


def _generated(n: int) -> list[str]:
    rng = random.Random(7)
    return [rng.choice(PREFIXES) + "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
            for _ in range(n)]


@pytest.mark.parametrize("base", BASES)
def test_generated_targets_match_urljoin(base):
    targets = Targets(base)
    for raw in _generated(4000) + [None, "", " ", "https://a.example/p?q#f", "/p?q#f", "/p?#", "/p#"]:
        assert targets.url(raw) == _safe_url(raw, base), (raw, base)


@pytest.mark.slow
def test_benchmark_page_targets_match_urljoin():
    files = [p for d in CORPORA if d.is_dir() for p in sorted(d.glob("*.html.gz"))[:150]]
    if not files:
        pytest.skip("benchmark corpora not present")
    seen = 0
    for path in files:
        doc = parse_html(gzip.decompress(path.read_bytes()))
        body = doc.find("body")
        for base in (_find_base(body, "https://site.example/a/b.html"), "http://site.example/"):
            targets = Targets(base)
            for el in doc.iter("a", "img"):
                for raw in (el.get("href"), el.get("src"), el.get("data-src")):
                    if raw is not None:
                        assert targets.url(raw) == _safe_url(raw, base), (raw, base)
                        seen += 1
    assert seen > 1000
