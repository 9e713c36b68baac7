"""The independent candidates read the page without changing it, script source muted while they run."""

import lxml.html
import pytest

from gatecrawl.core import candidates as agreement
from gatecrawl.core.candidates import candidate_text
from gatecrawl.core.htmlparse import parse_html

PROSE = " ".join(f"Sentence {i} of the report says something plain about the harbour works." for i in range(40))
PAGE = f"""<html><head><title>Harbour</title>
<script>var html = "<p>not content</p>"; window.x = 1;</script>
<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "Harbour"}}</script>
<style>p {{ color: red }}</style></head>
<body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Harbour works</h1><p>{PROSE}</p><script>track("read")</script>tail text stays</article>
</body></html>"""


def _scripts(doc):
    return [(el.get("type"), el.text, el.tail) for el in doc.iter("script", "style")]


@pytest.mark.parametrize("name", agreement.CANDIDATES)
def test_candidate_leaves_the_document_as_it_was(name):
    doc = parse_html(PAGE)
    before = lxml.html.tostring(doc)
    text = candidate_text(doc, name)
    assert "Sentence 39 of the report" in text
    assert "not content" not in text and "track(" not in text
    assert lxml.html.tostring(doc) == before


def test_muting_restores_script_text_when_the_candidate_raises(monkeypatch):
    doc = parse_html(PAGE)
    before = _scripts(doc)

    def boom(*args, **kwargs):
        raise RuntimeError("candidate failed")

    import trafilatura
    monkeypatch.setattr(trafilatura, "extract", boom)
    with pytest.raises(RuntimeError):
        candidate_text(doc, "trafilatura")
    assert _scripts(doc) == before


def test_muted_while_running_json_ld_and_styles_kept():
    doc = parse_html(PAGE)
    before = _scripts(doc)
    with agreement._code_muted(doc):
        plain = [el.text for el in doc.iter("script") if el.get("type") is None]
        ld = [el.text for el in doc.iter("script") if el.get("type") == "application/ld+json"]
        styles = [el.text for el in doc.iter("style")]
        tails = [el.tail for el in doc.iter("script")]
    assert plain == [None, None]
    assert len(ld) == 1 and '"NewsArticle"' in ld[0]
    assert styles == ["p { color: red }"]
    assert any(t and "tail text stays" in t for t in tails)
    assert _scripts(doc) == before


@pytest.mark.parametrize("name", agreement.CANDIDATES)
def test_same_text_as_with_the_scripts_in_place(name):
    """Muting is a speed measure only: the candidate's text is what it reads from the page
    with its scripts (the unmuted call made here by hand)."""
    import copy

    import trafilatura
    from trafilatura.external import try_readability

    doc = parse_html(PAGE)
    if name == "trafilatura":
        expected = trafilatura.extract(doc, fast=True, include_comments=False, include_tables=True,
                                       deduplicate=False) or ""
    else:
        art = try_readability(copy.deepcopy(doc))
        expected = art.text_content() if art is not None and len(art) else ""
    assert candidate_text(doc, name) == expected
