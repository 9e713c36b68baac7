"""Failure classes seen on corpora kept outside the repository (issue 13), one synthetic page
each: the whole convert() path, what the Markdown holds and what the packet says was removed."""

from __future__ import annotations

import pytest

from gatecrawl.core.convert import convert


def _wordpress_post(comments: int) -> str:
    """A WordPress-era blog post (Kubrick-style theme): the post, then its readers' comments in
    an ``ol.commentlist``, a reply form, a sidebar and a footer; no semantic containers."""
    post = "".join(f"<p>The old mill by the river was rebuilt in the spring, and paragraph {i} of this post "
                   "tells how the beams were raised by the neighbours over three long weekends.</p>"
                   for i in range(5))
    coms = "".join(
        f'<li class="alt" id="comment-{i}"><cite>Reader {i}</cite> Says:<br /><small class="commentmetadata">'
        f'<a href="#comment-{i}">May {i % 28 + 1}, 2007 at 3:{i % 60:02d} pm</a></small><p>What a lovely story '
        f"about the mill, comment {i} here: I remember walking past it as a child and wondering who had "
        "built it and why it stood empty for so long.</p></li>" for i in range(comments))
    side = "".join(f'<li><a href="/cat/{i}">Category {i}</a></li>' for i in range(15))
    return f"""<html><head><title>Raising the mill &laquo; A village blog</title>
<meta name="generator" content="WordPress 2.3.1" /></head><body>
<div id="page"><div id="header"><div id="headerimg"><h1><a href="/">A village blog</a></h1>
<div class="description">Notes from the valley</div></div></div><hr />
<div id="content" class="narrowcolumn">
<div class="navigation"><div class="alignleft"><a href="/prev">&laquo; Spring fair</a></div></div>
<div class="post" id="post-12"><h2>Raising the mill</h2><small>May 1st, 2007 by admin</small>
<div class="entry">{post}</div>
<p class="postmetadata alt"><small>This entry was posted on Tuesday, May 1st, 2007 at 9:12 am and is filed
under <a href="/cat/news">News</a>.</small></p></div>
<h3 id="comments">{comments} Responses to &#8220;Raising the mill&#8221;</h3>
<ol class="commentlist">{coms}</ol>
<h3 id="respond">Leave a Reply</h3><form action="/wp-comments-post.php" method="post" id="commentform">
<p><input type="text" name="author" id="author" /><label for="author"><small>Name (required)</small></label></p>
<p><textarea name="comment" id="comment"></textarea></p></form>
</div>
<div id="sidebar"><ul><li><h2>Categories</h2><ul>{side}</ul></li></ul></div>
<hr /><div id="footer"><p>A village blog is proudly powered by WordPress</p></div></div></body></html>"""


@pytest.mark.parametrize("comments", [5, 30, 80])
def test_a_wordpress_post_with_many_comments_keeps_the_post_and_leaves_the_comments(comments):
    # The comments hold most of the page's prose, so the size guard keeps the comment list from
    # the class-word rule; trafilatura (comments off) leaves it out and keeps the post: the
    # two agree and it goes (exclude_unconfirmed_guarded), listed in the packet. With 30+
    # comments the list looks like a listing's items: the listing rescue must not bring it back.
    res = convert(_wordpress_post(comments).encode(), "http://village.example/2007/05/01/raising-the-mill/",
                  content_type="text/html")
    assert res.ok
    md = res.markdown
    assert all(f"paragraph {i} of this post" in md for i in range(5))
    assert "What a lovely story" not in md
    assert "Category 3" not in md
    assert "exclude_unconfirmed_guarded" in res.packet.boilerplate_filter_rules_used
    removed = res.packet.extraction["removed"]
    assert any(r["rule"] == "exclude_unconfirmed_guarded" and "What a lovely story" in r["text"] for r in removed)


def test_a_blog_post_without_comments_is_not_touched_by_the_guarded_rule():
    res = convert(_wordpress_post(0).encode(), "http://village.example/2007/05/01/raising-the-mill/",
                  content_type="text/html")
    assert res.ok and "paragraph 4 of this post" in res.markdown
    assert "exclude_unconfirmed_guarded" not in res.packet.boilerplate_filter_rules_used


def _manual_page(options_class: str) -> str:
    """A documentation page (a Sphinx-like manual): prose, then an ``Options`` section whose
    definition list sits in a block whose class trafilatura discards, then a note."""
    prose = "".join(f"<p>The tool reads its configuration from the file named in the first argument, "
                    f"paragraph {i}, and then applies every option given on the command line in order.</p>"
                    for i in range(8))
    entries = "".join(f"<dt><code>--opt{i}</code></dt><dd>Sets the option number {i} for the tool; the "
                      f"default value is {3 * i} and it may be changed at any time.</dd>" for i in range(3))
    return f"""<html><head><title>tool(1) manual</title></head><body>
<header><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav></header>
<main><article><h1>tool command reference</h1>{prose}
<h2>Options</h2><div class="{options_class}"><dl>{entries}</dl></div>
<h2>Notes</h2><p>The manual of the configuration file format explains each key in detail with examples.</p>
</article></main><footer><p>Copyright 2020 Example</p></footer></body></html>"""


@pytest.mark.parametrize("options_class", ["options", "cli-options", "meta", "plain"])
def test_the_second_opinion_does_not_remove_a_documentation_pages_options_list(options_class):
    # trafilatura discards blocks classed "options" or "meta" by their class word; its second
    # opinion (exclude_reference_disagree) used to take every term and definition of the list
    # out, and the section's heading with them.
    res = convert(_manual_page(options_class).encode(), "https://docs.example.org/tool.html",
                  content_type="text/html")
    assert res.ok
    md = res.markdown
    assert "## Options" in md
    assert all(f"`--opt{i}`" in md and f"Sets the option number {i} for the tool" in md for i in range(3))
    assert not any("option number" in r["text"] for r in res.packet.extraction["removed"])


def _gazette_page(closed: bool) -> str:
    menu = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    blurb = " ".join(f"The Valley Gazette has served readers since 1921 and fact {i} about the paper is that it "
                     "is owned by its staff." for i in range(14))
    story = "".join(f"<p>The council met on Tuesday to discuss the new bridge, and point {i} of the debate was "
                    "whether the old ferry should keep running through the winter months.</p>" for i in range(6))
    tags = "".join(f'<a href="/t{j}">Topic number {j}</a> ' for j in range(30))
    return f"""<html><head><title>Bridge debate - The Valley Gazette</title></head><body>
<header id="top"><div class="branding"><h1 class="site-title"><a href="/">The Valley Gazette</a></h1>
<div class="menu-wrap"><ul>{menu}</ul>{"</div></div>" if closed else ""}
</header>
<div class="about"><p>{blurb}</p></div>
<div class="links">{tags}</div>
<div class="story"><h2>Council debates the new bridge</h2><p class="meta">By Ann Smith, 3 March 2009</p>{story}</div>
<footer><p>Copyright 2009 The Valley Gazette</p></footer></body></html>"""


def test_a_page_nested_in_its_header_by_an_unclosed_div_keeps_its_story():
    # The header leaves a <div> open: the parser nests the whole page in <header>, every unit is
    # chrome by markup, and the density candidate (a dense "about the paper" blurb) lies in the
    # header. trafilatura keeps the story and none of the blurb; Readability is silent. The
    # story used to be lost (the lead alone may not bring chrome back, so the blurb stood).
    res = convert(_gazette_page(closed=False).encode(), "http://gazette.example/2009/03/bridge.html",
                  content_type="text/html")
    assert res.ok
    md = res.markdown
    assert all(f"point {i} of the debate" in md for i in range(6))
    assert "fact 2 about the paper" not in md and "Section 3" not in md
    assert "chrome_holds_page" in res.packet.boilerplate_filter_rules_used
    assert res.packet.extraction["agreement"]["mode"] == "own_outvoted"


def test_a_well_formed_header_is_still_chrome():
    res = convert(_gazette_page(closed=True).encode(), "http://gazette.example/2009/03/bridge.html",
                  content_type="text/html")
    assert res.ok and "point 5 of the debate" in res.markdown and "Section 3" not in res.markdown
    assert "chrome_holds_page" not in res.packet.boilerplate_filter_rules_used


def _table_news_page() -> str:
    """An old news page laid out in one table (menu, story, "more news" columns, a copyright row),
    its story set as text and ``<br><br>`` inside ``<font>`` in its cell (no paragraphs)."""
    nav = "".join(f'<a href="/s{i}">Section {i}</a><br>' for i in range(15))
    story = "".join(f"The harbour board voted on Monday to extend the pier, and point {i} of the plan is that the "
                    "fishing fleet keeps its berths during the works.<br><br>" for i in range(6))
    side = "".join(f'<p><a href="/n{i}">Other headline number {i} from the region today</a></p>' for i in range(8))
    return f"""<html><head><title>Pier to be extended - Coast Herald</title></head><body bgcolor="#ffffff">
<table width="780" border="0" cellpadding="0" cellspacing="0"><tr><td colspan="3"><img src="/logo.gif"
alt="Coast Herald"><font size="1">Tuesday, 4 May 2004</font></td></tr>
<tr><td width="150" valign="top"><font face="Arial" size="2">{nav}</font></td>
<td width="480" valign="top"><font face="Arial"><b><font size="4">Pier to be extended</font></b><br><i>By Tom
Reed</i><br>{story}</font></td>
<td width="150" valign="top"><b>More news</b>{side}</td></tr>
<tr><td colspan="3"><font size="1">Copyright 2004 Coast Herald. All rights reserved.
<a href="/privacy">Privacy</a></font></td></tr></table></body></html>"""


def test_an_old_table_layout_page_keeps_its_story_column_not_the_whole_table():
    # Scored as one block, the layout table won the density score whole and the coverage guard
    # took the body: menu and copyright in the Markdown. A long cell is now a block of its own.
    res = convert(_table_news_page().encode(), "http://www.coastherald.example/news/2004/05/04/pier.html",
                  content_type="text/html")
    assert res.ok
    md = res.markdown
    assert all(f"point {i} of the plan" in md for i in range(6))
    assert "Section 3" not in md and "Copyright 2004" not in md
    assert "layout_cell_block" in res.packet.boilerplate_filter_rules_used
