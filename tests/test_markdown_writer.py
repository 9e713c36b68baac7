"""The Markdown writer walks lxml's tree as the BeautifulSoup + markdownify stage it replaced
did (issue 13, speed): blank strings, line starts, lists; and the parser's fast path for
documents without XML-invalid characters."""

from __future__ import annotations

import pytest

from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.markdown import to_markdown

URL = "https://site.example/a/page"


def _md(body_html: str) -> str:
    doc = parse_html(f"<html><body>{body_html}</body></html>".encode())
    return to_markdown(doc.find("body"), base_url=URL).text


def test_blank_strings_between_inline_elements_are_one_space():
    assert _md("<p><b>x</b>\n\t <b>y</b></p>") == "**x** **y**\n"
    assert _md("<p><em>x</em> \r\n <em>y</em></p>") == "*x* *y*\n"


def test_a_form_feed_never_reaches_the_walk():
    # bs4 made a blank string holding a form feed one space; the walk does not collapse form
    # feeds, and does not need to: the parser and the preparation remove them
    assert _md("<p><b>x</b>\x0c<b>y</b></p>") == "**x****y**\n"
    assert _md("<p><b>x</b> \x0c <b>y</b></p>") == "**x** **y**\n"


def test_blanks_next_to_blocks_are_dropped_and_text_after_a_break_starts_a_line():
    assert _md("<div>\n  <p>one</p>\n  <p>two<br>  - three</p>\n</div>") == "one\n\ntwo\\\n\\- three\n"


def test_ordered_list_numbers_from_its_start_and_nested_lists_indent():
    md = _md("<ol start='3'><li>a</li><li>b<ul><li>c</li></ul></li></ol><p>after</p>")
    assert md == "3. a\n4. b\n   - c\n\nafter\n"


@pytest.mark.parametrize("body, content_type, gone", [
    (b"<p>one\x01two</p>", "text/html; charset=utf-8", "\x01"),
    (b"<p>one\xef\xbf\xbetwo</p>", "text/html; charset=utf-8", "\ufffe"),
    (b"<p>one\xef\xbf\xbftwo\xe2\x80\x94</p>", "text/html; charset=utf-8", "\uffff"),
    (b"<p>one\x0btwo\xe9</p>", "text/html; charset=windows-1252", "\x0b"),
])
def test_xml_invalid_characters_are_removed_on_every_decoding_path(body, content_type, gone):
    doc = parse_html(body, content_type=content_type)
    text = doc.find("body").text_content()
    assert "onetwo" in text and gone not in text


def test_a_clean_utf8_page_parses_unchanged():
    doc = parse_html("<p>caf\u00e9 \u2014 \ufffd ok</p>".encode(), content_type="text/html; charset=utf-8")
    assert doc.find("body").text_content() == "caf\u00e9 \u2014 \ufffd ok"


@pytest.mark.parametrize("tag", ["soup", "tree", "write", "fn-cache", "list"])
def test_a_tag_named_like_a_method_is_written_as_its_text(tag):
    # The rule of a tag is the method ``convert_<tag>``: a tag named after another method must
    # not call it (markdownify's ``convert_soup`` made a <soup> element a converter_error).
    md = _md(f"<p>before <{tag}>inside</{tag}> after</p>")
    assert "inside" in md and "before" in md and "after" in md


@pytest.mark.parametrize("body_html", [
    "<ul><li>ax<td>y</td>b</li></ul>",
    "<p>a<th>head</th>b</p>",
    "<div><tr><td>one</td><td>two</td></tr></div><p>after</p>",
])
def test_table_parts_outside_a_table_leave_no_private_marker(body_html):
    md = _md(body_html)
    assert md.strip(), md
    assert not any("\ue000" <= ch <= "\ue00f" for ch in md), repr(md)
    for word in ("y", "head", "one", "two"):
        if f">{word}<" in body_html:
            assert word in md, repr(md)


@pytest.mark.parametrize("text", [
    "<meta charset='iso-8859-1'><p>caf\u00e9 \u2014 \u20ac na\u00efve</p>",
    "<meta http-equiv='Content-Type' content='text/html; charset=shift_jis'><p>\u3042 \u4e2d\u6587</p>",
    "<p>astral \U0001F600, latin-1 \u00ff, &eacute; &#233; &#x20AC; &amp;</p>",
    "<p>a \ufeff mid-text U+FEFF, \u2028 \u2029 \x85 \u00a0</p>",
    "\ufeff<p>a leading U+FEFF (given as the str)</p>",
    "<table><tr><td>a<td>b</table><svg><foreignObject><p>x</p></foreignObject></svg>",
    "<div>" * 300 + "deep" + "</div>" * 300,
])
def test_the_parse_of_utf8_bytes_gives_the_tree_of_the_str(text):
    """htmlparse hands libxml2 the decoded text as UTF-8 bytes (faster): the tree must be the
    one the str gives, a <meta charset> naming another encoding included."""
    import lxml.etree
    import lxml.html

    from gatecrawl.core.htmlparse import _parse_text, _parser

    expected = lxml.etree.tostring(lxml.html.document_fromstring(text, parser=_parser()))
    assert lxml.etree.tostring(_parse_text(text)) == expected
