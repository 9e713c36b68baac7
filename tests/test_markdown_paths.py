"""The provenance's selectors (``CssPaths``, each ancestor's path made once per conversion) are
``css_path``'s, element by element, on every golden case's document and body."""

from __future__ import annotations

from pathlib import Path

from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown.dom import CssPaths, css_path

FIXTURES = Path(__file__).parent / "fixtures"


def test_css_paths_are_page_css_path():
    cases = sorted(p for p in FIXTURES.iterdir() if (p / "input.html").is_file())
    assert cases
    for case in cases:
        doc = parse_html((case / "input.html").read_bytes())
        for root in (doc, doc.find("body")):
            paths = CssPaths(root)
            for el in root.iter():
                assert paths.of(el) == css_path(el, root), (case.name, el.tag)
