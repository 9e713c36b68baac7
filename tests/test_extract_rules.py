"""One table-driven case per selection rule (gatecrawl.core.extract.rules.RULES): a small page
that fires the rule and one that must not. The table must cover the registry, and the registry
every rule name the code can record."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gatecrawl.core.extract import select_main
from gatecrawl.core.extract.rules import RULES
from gatecrawl.core.htmlparse import parse_html

EXTRACT = Path(__file__).resolve().parent.parent / "gatecrawl" / "core" / "extract"

PARA = ("This is a sentence of real article prose with enough words to count as content. "
        "It continues with a second sentence, so that the block looks like a paragraph. ")


def prose(n: int = 3) -> str:
    return "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(n))


def art(inner: str = "", n: int = 4) -> str:
    return f"<article><h1>Headline</h1>{prose(n)}{inner}</article>"


NAV = "<nav><ul>" + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(8)) + "</ul></nav>"
LINKS = "<div class='box'>" + "".join(f"<a href='/t{i}'>entry {i}</a> " for i in range(12)) + "</div>"
EXTRA = "".join(f"<p>Further real paragraph number {i} of this very story goes on here with words. "
                "It has a second sentence too, and it keeps going.</p>" for i in range(2))
HERO = ("<div class='hero'><p>Shop the summer range of cups today. We ship every order for free, and "
        "each cup is made by hand in our small workshop by the sea.</p></div>")


def cards(n: int) -> str:
    return ("<div class='grid'><ul class='products'>" + "".join(
        f"<li class='card'><a href='/p/{i}'>A rather long product title number {i} for the cup</a>"
        "<span>$2.95</span></li>" for i in range(n)) + "</ul></div>")


BYLINE = ("<article><h1>Headline</h1><div class='byline'>By Jane Doe, 1 May 2020</div>"
          "<figure><img src='/a.jpg' alt='x'><figcaption>Photo caption: the river at dawn</figcaption>"
          f"</figure>{prose(4)}</article>")
PRODUCT_LD = ('<script type="application/ld+json">{"@context": "https://schema.org", '
              '"@type": "Product", "name": "Widget"}</script>')
PRODUCT = ("<div id='page'><div class='product'><h1>Widget</h1>" + prose(4) + "</div>"
           "<div class='legal'><h2>Notes</h2><ol>" + "".join(
               f"<li>Financing is available to qualified customers, subject to credit approval and a credit "
               f"limit set by the lender, number {i}.</li>" for i in range(4)) + "</ol></div></div>")
REVIEWED = ("<div class='product'><h1>Widget</h1>" + prose(4) + "<div class='product-reviews'><h2>Reviews</h2>"
            "<p>Arrived late, and the handle broke after a week of daily use.</p></div></div>")

def blog(comment_class: str, n: int = 6) -> str:
    """An old blog post with its readers' comments below it: the comments hold most of the prose."""
    post = "".join(f"<p>The old mill by the river was rebuilt in the spring, and part {i} of this post tells how "
                   "the beams were raised by the neighbours over three long weekends.</p>" for i in range(4))
    coms = "".join(f"<li id='comment-{i}'><cite>Reader {i}</cite> Says:<p>Lovely story about the mill, comment {i} "
                   "here: I remember walking past it as a child and wondering who had built it and why it stood "
                   "empty for so many years.</p></li>" for i in range(n))
    return (f"<div id='content'><div class='post'><h2>Raising the mill</h2><div class='entry'>{post}</div></div>"
            f"<h3>{n} Responses</h3><ol class='{comment_class}'>{coms}</ol></div>")


def landing(aside_class: str) -> str:
    """A landing page's feature rows (trafilatura's text), one dense block of another class and a
    list of figures Readability takes (trafilatura leaves ``slide`` blocks out)."""
    def feature(i: int) -> str:
        return " ".join(f"The feature{i} plan number {k} gives every team a clear view of the work ahead."
                        for k in range(2))
    links = "".join(f"<a href='/l{j}'>Learn more about it</a> " for j in range(12))
    rows = "".join(f"<div class='row'><h2>Feature {i} for teams</h2><p>{feature(i)}</p><div>{links}</div></div>"
                   for i in range(4))
    story = "".join("<p>" + " ".join(f"Our {w} story {k} began when four friends rented a garage near the "
                                     "harbour in spring." for k in range(3)) + "</p>" for w in ("archive", "ledger"))
    figures = "".join("<p>" + ", ".join(f"{w} {k}" for k in range(25)) + "</p>" for w in ("lake", "heron"))
    return (f"<div class='page'><h1>Plan the work</h1>{rows}</div><div class='aux'><div class='{aside_class}'>"
            f"{story}</div></div><div class='more'><div class='slide'>{figures}</div></div>")


def manual(definitions: list[str]) -> str:
    """A manual page: its prose, then an ``Options`` section whose ``<dl>`` sits in a block classed
    ``options`` (a class trafilatura discards), then a note."""
    entries = "".join(f"<dt><code>--opt{i}</code></dt><dd>{d}</dd>" for i, d in enumerate(definitions))
    text = "".join(f"<p>The tool reads its configuration from the file named in the first argument, paragraph "
                   f"{i}, and then applies every option given on the command line in order.</p>" for i in range(8))
    return (f"<main><article><h1>tool command reference</h1>{text}<h2>Options</h2><div class='options'><dl>"
            f"{entries}</dl></div><h2>Notes</h2><p>The manual of the configuration file format explains each key "
            "in detail with examples for typical setups.</p></article></main>")


OPTION_DEFS = [f"Sets the option number {i} for the tool; the default value is {3 * i} and it may be changed."
               for i in range(3)]


def gazette(closed: bool) -> str:
    """A news page whose header leaves a ``<div>`` open (``closed=False``): the parser then nests
    the whole page in the header. A dense "about us" blurb beats the story in the density score."""
    menu = "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(12))
    blurb = " ".join(f"The Valley Gazette has served readers since 1921 and fact {i} about the paper is that "
                     "it is owned by its staff." for i in range(14))
    story = "".join(f"<p>The council met on Tuesday to discuss the new bridge, and point {i} of the debate was "
                    "whether the old ferry should keep running through the winter months.</p>" for i in range(6))
    tags = "".join(f"<a href='/t{j}'>Topic number {j}</a> " for j in range(30))
    return (f"<header><div class='branding'><h1><a href='/'>The Valley Gazette</a></h1><div class='menu-wrap'>"
            f"<ul>{menu}</ul>{'</div></div>' if closed else ''}</header><div class='about'><p>{blurb}</p></div>"
            f"<div class='links'>{tags}</div><div class='story'><h2>Council debates the new bridge</h2>{story}</div>"
            "<footer><p>Copyright 2009 The Valley Gazette</p></footer>")


def layout_table(story_in_cell: bool) -> str:
    """An old news page laid out in a table: menu, story, "more news" columns. The story is text
    and ``<br>`` straight in its cell, or (``story_in_cell=False``) a data table of short cells."""
    menu = "".join(f"<a href='/s{i}'>Section {i}</a><br>" for i in range(15))
    story = "".join(f"The harbour board voted on Monday to extend the pier, and point {i} of the plan is that "
                    "the fishing fleet keeps its berths during the works.<br><br>" for i in range(6))
    more = "".join(f"<p><a href='/n{i}'>Other headline number {i} from the region today</a></p>" for i in range(8))
    if story_in_cell:
        return (f"<table><tr><td>{menu}</td><td><b>Pier to be extended</b><br>{story}</td><td>{more}</td></tr>"
                "<tr><td colspan='3'>Copyright 2004 Coast Herald.</td></tr></table>")
    rows = "".join(f"<tr><td>Berth {i}</td><td>{i * 3} m</td><td>open</td></tr>" for i in range(20))
    return f"<h1>Berths</h1>{prose(4)}<table>{rows}</table>"


def qa_thread(comment_class: str) -> str:
    """A Q&A thread (QAPage): a question and two answers, each with its comments below it."""
    def comments(k: int) -> str:
        return (f"<div class='{comment_class}'><ul>" + "".join(
            f"<li>Did you try restarting it first, note {k}-{j}? That often helps here.</li>" for j in range(2))
            + "</ul></div>")
    posts = "".join(f"<div class='{kind}'><div class='postcell'>{prose(3)}</div>{comments(k)}</div>"
                    for k, kind in enumerate(("question", "answer", "answer")))
    return ('<script type="application/ld+json">{"@context": "https://schema.org", "@type": "QAPage"}</script>'
            f"<div id='content'><h1>How do I back up my system?</h1>{posts}</div>")


#: rule -> (body that fires it, body that must not, select_main keyword arguments)
CASES: dict[str, tuple[str, str, dict]] = {
    "keep_dominant_block": (f"<button>{art()}", f"<button>Go</button>{art()}", {}),
    "exclude_hidden": (art("<div style='display:none'>secret</div>"), art("<div style='color:red'>shown</div>"), {}),
    "wrap_loose_text": (f"<div>Loose words beside a block<p>{PARA}</p>{prose(3)}</div>", art(), {}),
    "recipe_exclude": (art("<div class='promo-x'>Buy things now</div>"), art("<div class='other'>Kept</div>"),
                       {"exclude_selectors": [".promo-x"]}),
    "exclude_cookie_banner": (art("<div class='cookie-banner'>We use cookies.</div>"),
                              art("<div class='cook-book'>Recipes follow.</div>"), {}),
    "exclude_newsletter": (art("<div class='newsletter-signup'>Get our newsletter.</div>"),
                           art("<div class='news-item'>News follows.</div>"), {}),
    "exclude_share_bar": (art("<div class='share-bar'><a href='/fb'>Facebook</a></div>"),
                          art("<div class='shard'><a href='/fb'>Facebook</a></div>"), {}),
    "exclude_comments": (art("<div id='comments'><p>I disagree, first commenter.</p></div>"),
                         art("<div class='discuss'><p>I disagree, first commenter.</p></div>"), {}),
    "exclude_post_comments": (qa_thread("comments"), qa_thread("follow-ups"), {}),
    "exclude_related": (art("<section class='related-articles'><ul><li><a href='/r1'>Other story</a></li></ul></section>"),
                        art("<section class='relative'><ul><li><a href='/r1'>Other story</a></li></ul></section>"), {}),
    "exclude_ads": (art("<div class='ad-slot'>Buy</div>"), art("<div class='adopt'>Buy</div>"), {}),
    "exclude_nav": (NAV + art(), art(), {}),
    "exclude_sidebar": (art() + "<aside>Side words</aside>", art() + "<section>Side words</section>", {}),
    "exclude_author_bio": (art("<div class='author-bio'>Jane is a reporter for the paper since 2017.</div>"),
                           art("<div class='author-name'>Jane</div>"), {}),
    "exclude_tags": (art("<div class='tags'><a href='/t'>Topic</a></div>"),
                     art("<div class='tagline'><a href='/t'>Topic</a></div>"), {}),
    "exclude_footer": (art() + "<footer>Footer words</footer>", art() + "<div>Footer words</div>", {}),
    "exclude_signature": (art("<div class='post-signature'>Sent from my phone. Mac mini, 32 GB</div>"),
                          art("<div class='signatory'>Sent from my phone. Mac mini, 32 GB</div>"), {}),
    "exclude_poster_stats": (art("<div class='message-userExtras'>Joined Jun 29, 2016 Messages 11</div>"),
                             art("<div class='message-user'>Joined Jun 29, 2016 Messages 11</div>"), {}),
    "exclude_reviews": (PRODUCT_LD + REVIEWED, REVIEWED, {"url": "https://shop.example/widget"}),
    "keep_caption": (BYLINE, art(), {}),
    "keep_byline": (BYLINE, art(), {}),
    "layout_cell_block": (layout_table(True), layout_table(False), {}),
    "exclude_duplicate": (art("<figure><figcaption>The same caption of the photo, twice over.</figcaption></figure>"
                              "<figure><figcaption>The same caption of the photo, twice over.</figcaption></figure>"),
                          art("<figure><figcaption>The first caption of the photo, said once.</figcaption></figure>"
                              "<figure><figcaption>The second caption of the photo, said once.</figcaption></figure>"),
                          {}),
    "exclude_link_dense": (art(LINKS), art(), {}),
    "exclude_popover": (art("<p>The senator <span class='rollover-people-block'><a href='/p'>Ann</a></span> "
                            "spoke on Monday.</p>"),
                        art("<p>The senator <span class='people'><a href='/p'>Ann</a></span> spoke on Monday.</p>"),
                        {}),
    "exclude_inline_teaser": (art("<p>READ MORE: <a href='/o'>Another story about something else</a></p>", 3),
                              art("<p>Read more about it in <a href='/o'>another story</a> of ours.</p>", 3), {}),
    "exclude_call_to_action": (art("<p><em>Follow Jane Doe on Twitter <a href='/x'>@jane</a>.</em></p>"),
                               art("<p><em>Jane Doe wrote this on Twitter first.</em></p>"), {}),
    "exclude_ad_label": (art("<div class='slot'><p>Advertisement</p></div>"),
                         art("<p>An advertisement is mentioned here, but this is a sentence.</p>"), {}),
    "exclude_press_boilerplate": (
        art("<h3>About Acme</h3><p>Acme is a leading global provider of widgets for hospitals.</p>", 5),
        "<article><h1>Acme</h1><p>Acme is a leading global provider of widgets, and this is what it did.</p>"
        f"{prose(5)}</article>", {}),
    "exclude_video_teaser": (art("<div class='featured-video'><a href='/v'>watch</a><p>Video teaser.</p></div>"),
                             art("<div class='featured'><a href='/v'>watch</a><p>Teaser.</p></div>"), {}),
    "exclude_unconfirmed_guarded": (blog("commentlist"), blog("responselist"), {}),
    "keep_definition_list": (manual(OPTION_DEFS), manual(["Jane Doe", "May 1, 2020", "Staff"]), {}),
    "exclude_reference_disagree": (BYLINE, art(), {}),
    "vote_both_reject": (landing("banner"), landing("panel"), {}),
    "agreement": (f"<div class='wrap'><h1>Title</h1>{prose(3)}<div class='headlines'>{EXTRA}</div></div>",
                  f"<div class='wrap'><h1>Title</h1>{prose(3)}<div class='body'>{EXTRA}</div></div>", {}),
    "chrome_holds_page": (gazette(closed=False), gazette(closed=True), {}),
    "exclude_no_agreement": (
        f"<div class='wrap'><h1>Title</h1>{prose(3)}<div class='headlines'>{EXTRA}</div>"
        "<div class='newsletter-box'><p>Get the daily mail in your inbox every day</p></div></div>",
        f"<div class='wrap'><h1>Title</h1>{prose(3)}<div class='headlines'>{EXTRA}</div></div>", {}),
    "exclude_unvoted_tail": (PRODUCT_LD + PRODUCT, PRODUCT, {"url": "https://shop.example/widget"}),
    "listing_items": (HERO + cards(30), HERO + cards(5), {}),
    "separate_items": (art(f"<p>{PARA} Released <span>2026</span><span>1h 43m</span>.</p>"),
                       art(f"<p>{PARA} Released <span>2026</span> <span>1h 43m</span>.</p>"), {}),
}


def _page(body: str):
    return parse_html(f"<html><head><title>t</title></head><body>{body}</body></html>".encode())


def test_every_registered_rule_has_a_case_and_every_case_a_rule():
    assert sorted(CASES) == sorted(RULES)


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule(name):
    fires, quiet, kwargs = CASES[name]
    assert name in select_main(_page(fires), **kwargs).removal_rules
    assert name not in select_main(_page(quiet), **kwargs).removal_rules


def _recorded_names() -> set[str]:
    """Every rule name the selection code can record: ``fired.add("...")`` literals, the
    rule tables of the pattern rules and the two names of the reference pruning."""
    from gatecrawl.core.extract import patterns

    names = {name for name, _rx in patterns._PATTERN_RULES}
    names |= set(patterns._TAG_RULES.values()) | set(patterns._ROLE_RULES.values())
    names |= {name for name, _rx in patterns._HEADING_TEXT_RULES}
    names |= {"exclude_reference_disagree", "exclude_no_agreement"}
    for path in sorted(EXTRACT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "add" and getattr(node.func.value, "id", "") == "fired" and \
                    node.args and isinstance(node.args[0], ast.Constant):
                names.add(node.args[0].value)
    return names


def test_every_recorded_rule_name_is_registered():
    missing = _recorded_names() - set(RULES)
    assert not missing, f"rule names recorded but not in rules.RULES: {sorted(missing)}"


def test_protected_blocks_collects_the_rule_candidates_of_its_walk():
    """``_clean_patterns`` reads the pattern rules' candidates from the keep rules' walk: the
    list must be ``_rule_candidates`` of the same tree: the elements a rule names (by tag, role,
    or class/id words), but no structural element, each with its rule."""
    import lxml.html

    from gatecrawl.core.extract.patterns import _protected_blocks, _rule_candidates

    body = lxml.html.fromstring(
        "<body><div class='byline'>By A</div><nav><a href='/'>Home</a></nav><p id='x'>Text</p>"
        "<section role='search'><menu><li>one</li></menu></section><aside>side</aside>"
        "<footer class=''>f</footer><span>plain</span><figure><figcaption>c</figcaption></figure>"
        "<div role='dialog' aria-modal='false' class='drawer'>d</div><div role='dialog'>m</div>"
        "<div class='share-tools'>s</div><li class='share-item'>i</li></body>")
    got: list = []
    _protected_blocks(body, set(), got)
    assert got == _rule_candidates(body)
    assert [(el.tag, rule) for el, rule in got] == [
        ("nav", "exclude_nav"), ("section", "exclude_nav"), ("menu", "exclude_nav"), ("aside", "exclude_sidebar"),
        ("footer", "exclude_footer"), ("div", "exclude_cookie_banner"), ("div", "exclude_share_bar")]


def test_the_any_rule_prefilter_matches_where_a_rule_does():
    """``_classify_word`` asks two alternations (the rules' bounded words, their other
    alternatives) before the rules one by one: between them they match exactly the words some
    rule's pattern matches."""
    from gatecrawl.core.extract.dom import _alternatives
    from gatecrawl.core.extract.patterns import _ANY_BOUNDED_LRX, _ANY_LOOSE_LRX, _PATTERN_LRULES

    assert _alternatives(r"a|(?:b|c)|[|\]]|\|d") == ["a", "(?:b|c)", r"[|\]]", r"\|d"]
    words = ["ad", "ads-top", "header", "my_ad", "load", "nav", "canvas", "sidebar", "rail", "trail", "x-rail",
             "footer", "site-footer", "signature", "signatures", "tags", "tagline", "sign-up", "advertorial",
             "promo_box", "share", "user-stats", "breadcrumb", "article", "author-bio", "menu-item", "comment"]
    for w in words:
        any_rule = any(rx.search(w) for _name, rx in _PATTERN_LRULES)
        assert bool(_ANY_BOUNDED_LRX.search(w) or _ANY_LOOSE_LRX.search(w)) == any_rule, w


def test_a_rule_named_inside_a_removed_block_is_still_recorded():
    """``_clean_patterns`` does not judge again the elements inside a block it removed once
    their rule name is recorded; a name not recorded yet (a share bar inside a removed menu)
    still is, and the elements it names are out of the page with their block."""
    import lxml.html

    from gatecrawl.core.extract.patterns import _clean_patterns

    body = lxml.html.fromstring(
        "<body><div>" + prose(4) + "</div><div class='site-nav'><ul>"
        + "".join(f"<li class='menu-item'><a href='/s{i}'>Section {i}</a></li>" for i in range(5))
        + "</ul><div class='share-buttons'><a href='/s'>Share</a></div></div></body>")
    fired: set = set()
    _clean_patterns(body, keep_comments=False, fired=fired)
    assert {"exclude_nav", "exclude_share_bar"} <= fired
    assert "Section" not in body.text_content() and "Share" not in body.text_content()


def test_protected_blocks_read_from_an_earlier_walk_are_the_walked_ones():
    """``_protected_blocks(root, known=kinds)`` (the class words of an earlier walk of a larger
    tree, which has lost elements since) gives what a walk of ``root`` gives: the same blocks in
    the same order, sizes measured again (a byline grown small by a removal is protected now),
    nothing outside ``root`` or removed, never ``root`` itself."""
    import lxml.html

    from gatecrawl.core.extract.patterns import _protected_blocks

    long_ = "a long line of words " * 12
    body = lxml.html.fromstring(
        "<body><div class='byline'>By A</div><div id='main' class='author'>"
        "<p class='caption'>cap</p><div class='byline'>By B<span class='ad'>" + long_ + "</span></div>"
        "<figure><figcaption>c</figcaption></figure><a rel='author' href='/a'>A</a>"
        "<div class='dateline'><span class='credit'>gone</span></div></div></body>")
    kinds: list = []
    fired: set = set()
    _protected_blocks(body, fired, kinds=kinds)
    assert [el.get("class") for el, _k in kinds] == ["byline", "author", "caption", "byline", "dateline", "credit"]
    root = body.get_element_by_id("main")
    root.getparent().remove(root)
    for el in root.iter("span"):
        el.getparent().remove(el)  # the ad goes (By B is short now), the credit too
    walked_fired: set = set()
    walked = _protected_blocks(root, walked_fired)
    known_fired: set = set()
    known = _protected_blocks(root, known_fired, known=kinds)
    assert list(known.items()) == list(walked.items()) and known_fired == walked_fired
    assert [el.text_content() for el in known] == ["c", "cap", "By B", "", "A"]
