"""Fail closed: an internal error inside the Markdown conversion is never a kept page.

``to_markdown`` catches nothing; ``convert()`` turns the error into the typed drop
``converter_error`` (logged, packet kept, no Markdown). Each inner step of the conversion is
made to raise in turn; the same page converts and is kept when nothing is patched, so these
tests fail if an error is swallowed and the page is kept (or converted some other way).
"""

from __future__ import annotations

import logging

import pytest

import gatecrawl.core.markdown as mdmod
import gatecrawl.core.markdown.conversion as mdconversion
import gatecrawl.core.markdown.prepare as mdprepare
from gatecrawl import convert
from gatecrawl.core.htmlparse import parse_html

URL = "https://site.example/docs/page"
PARAS = "".join(
    f"<p>Paragraph {i}: a documentation page explains options, defaults and examples for readers {i}.</p>"
    for i in range(8)
)
PAGE = (
    "<html><head><title>Options</title></head><body><main><h1>Options</h1>"
    f"{PARAS}<dl><dt>--verbose</dt><dd>Print more detail about every step.</dd></dl>"
    "<div class='admonition note'><p class='admonition-title'>Note</p><p>Defaults apply.</p></div>"
    "<details><summary>More</summary><p>Hidden text.</p></details>"
    "<figure><img src='/a.png' alt='A'><figcaption>A caption.</figcaption></figure>"
    "</main></body></html>"
).encode()


class InjectedFault(RuntimeError):
    pass


def _boom(*args, **kwargs):
    raise InjectedFault("injected fault in the Markdown conversion")


# (attribute owner, attribute name): the inner steps of to_markdown, in order, patched in the
# module that calls them.
INNER_STEPS = [
    (mdconversion, "_find_base"),
    (mdconversion, "_prepare"),
    (mdprepare, "_prepare_admonitions"),
    (mdprepare, "_prepare_definition_lists"),
    (mdprepare, "_prepare_details_and_figures"),
    (mdmod.GatecrawlConverter, "write"),
    (mdmod.GatecrawlConverter, "convert_li"),
    (mdconversion, "_normalise"),
    (mdconversion, "_title"),
]


def test_page_is_kept_without_a_fault():
    r = convert(PAGE, URL)
    assert r.ok and r.drop_reason is None, r.evidence["validation_report"]
    assert "- **--verbose**" in r.markdown and "> **Note**" in r.markdown


@pytest.mark.parametrize("owner, name", INNER_STEPS, ids=[n for _, n in INNER_STEPS])
def test_to_markdown_propagates_inner_errors(monkeypatch, owner, name):
    monkeypatch.setattr(owner, name, _boom)
    body = parse_html(PAGE).find("body")
    with pytest.raises(InjectedFault):
        mdmod.to_markdown(body, base_url=URL)


@pytest.mark.parametrize("owner, name", INNER_STEPS, ids=[n for _, n in INNER_STEPS])
def test_inner_error_ends_as_converter_error(monkeypatch, caplog, owner, name):
    monkeypatch.setattr(owner, name, _boom)
    with caplog.at_level(logging.ERROR, logger="gatecrawl"):
        r = convert(PAGE, URL)
    assert r.ok is False
    assert r.drop_reason == "converter_error"
    assert r.markdown == ""
    assert r.evidence["outcome"] == "dropped"
    assert r.evidence["drop_reason"] == "converter_error"
    assert "InjectedFault" in r.evidence["drop_detail"]
    assert any("converter error" in rec.getMessage() for rec in caplog.records)


@pytest.mark.parametrize("ref", ["&#1;", "&#x1F;", "&#65535;", "&#xFFFE;", "&#011;", "&#xD800;"])
def test_character_references_to_xml_invalid_characters_are_dropped_not_a_converter_error(ref):
    # The parser decodes "&#1;" into the tree; lxml then refuses to write such text back (the
    # hypothesis run found b"&#1;" as a converter_error). The characters go; the page converts.
    body = f"<html><body><article><h1>Title{ref}</h1><p>{'Plain words in a sentence here. ' * 12}x{ref}y</p><pre>a{ref}b</pre></article></body></html>"
    r = convert(body.encode(), "https://example.test/a", content_type="text/html")
    assert r.drop_reason != "converter_error"
    assert "xy" in r.markdown and "ab" in r.markdown and "# Title\n" in r.markdown
    assert not any(ord(c) < 32 and c not in "\t\n\r" for c in r.markdown)
