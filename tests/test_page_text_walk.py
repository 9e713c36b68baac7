"""page._iter_text, iterative (issue 19: it was the largest cost of the presence gate), gives
the pieces the recursive walk gave, on every element of real pages, with and without a skip."""

from __future__ import annotations

import gzip
from pathlib import Path

from gatecrawl.core import page
from gatecrawl.core.htmlparse import parse_html

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path("/work/shared/bench/article-extraction/html")
JUNK = Path(__file__).resolve().parent.parent / "bench" / "junk"


def _recursive(el, skip, invisible=page._INVISIBLE) -> list[str]:
    """The walk as it was written before (the reference)."""
    out: list[str] = []

    def walk(node) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag.lower() in invisible or skip(node):
            return
        if node.text and isinstance(node.tag, str):
            out.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                out.append(child.tail)

    walk(el)
    return out


def _docs():
    bodies = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    bodies += [p.read_bytes() for p in sorted(JUNK.glob("*/*.html"))]
    if CORPUS.is_dir():
        bodies += [gzip.decompress(p.read_bytes()) for p in sorted(CORPUS.glob("*.html.gz"))[:40]]
    bodies.append(b"<html><body><p>a<!-- c -->b<?pi x?>c<script>no</script>d<noscript>ns</noscript>e</p></body></html>")
    return [parse_html(b) for b in bodies]


def test_iterative_walk_equals_the_recursive_one_on_every_element():
    checked = 0
    for doc in _docs():
        body = doc.find("body")
        total = len(page.visible_text(body))
        chrome = page._chrome_test(total)
        chrome_ns = page._chrome_test(total, noscript=True)
        for el in doc.iter():
            assert page._iter_text(el) == _recursive(el, lambda n: False)
            no_ns = page._INVISIBLE - {"noscript"}
            assert page._iter_text(el, invisible=no_ns) == _recursive(el, lambda n: False, no_ns)
            checked += 1
        assert page._iter_text(body, chrome) == _recursive(body, chrome)
        assert page._iter_text(body, chrome_ns, invisible=page._INVISIBLE - {"noscript"}) == _recursive(body, chrome_ns, page._INVISIBLE - {"noscript"})
    assert checked > 10_000
