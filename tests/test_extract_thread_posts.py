"""On a thread the replies are content: a run of short replies, each with its poster's linked
avatar and a time, is not removed as a list of teasers (``exclude_related``'s teaser-list
test does not run where the comment rules are skipped). Elsewhere the same items (under a
class no comment rule reads) are a list of teasers and go. (wcxb 4312, a XenForo thread: the
replies' container went as a teaser list before the vote.)"""

from __future__ import annotations

from gatecrawl.core.extract import PROFILES, select_main
from gatecrawl.core.extract.patterns import _clean_patterns
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.pagetype import detect_page_type


def _reply(k: int, cls: str) -> str:
    return (f"<article class='{cls}'><div class='user'><a href='/members/u{k}'>"
            f"<img src='/a{k}.png' alt='u{k}'></a><a href='/members/u{k}'>member{k}</a></div>"
            f"<a href='/posts/{k}'><time datetime='2024-11-{k:02d}'>Nov {k}, 2024</time></a>"
            f"<div class='message-body'>Reply {k}: take the cheaper card with quieter fans.</div></article>")


def _page(cls: str = "message message--post") -> bytes:
    first = ("<article class='message message--post'><div class='user'><a href='/members/op'>"
             "<img src='/op.png' alt='op'></a><a href='/members/op'>starter</a></div>"
             "<time datetime='2024-11-01'>Nov 1, 2024</time><div class='message-body'>"
             + " ".join(["I am planning to buy a new graphics card for an upgrade, and I am confused by "
                         "the many brands that sell the same chip, so which one should I take?"] * 9)
             + "</div></article>")
    replies = "".join(_reply(k, cls) for k in range(2, 14))
    return (f"<html><head><title>Which card?</title></head><body>"
            f"<nav><a href='/'>Forums</a> <a href='/new'>New posts</a></nav>"
            f"<main><h1>Which card?</h1><div class='block-body'>{first}</div>"
            f"<div class='block-body second'>{replies}</div></main>"
            f"<footer><p>Copyright 2026 Example forums</p></footer></body></html>").encode()


def _replies_after_patterns(skip, cls: str = "message message--post") -> tuple[str, set]:
    doc = parse_html(_page(cls), content_type="text/html")
    body = doc.find(".//body")
    fired: set = set()
    _clean_patterns(body, keep_comments=False, fired=fired, skip=skip)
    return body.text_content(), fired


def test_a_thread_keeps_its_short_replies():
    assert detect_page_type(parse_html(_page(), content_type="text/html")).type == "forum"
    text, fired = _replies_after_patterns(PROFILES["forum"])
    assert "planning to buy" in text
    assert all(f"Reply {k}:" in text for k in range(2, 14))
    assert "exclude_related" not in fired


def test_the_same_items_on_an_article_are_a_teaser_list():
    # (with a class no comment rule reads: on an article those rules take posts first)
    text, fired = _replies_after_patterns(PROFILES["article"], cls="entry")
    assert "planning to buy" in text
    assert not any(f"Reply {k}:" in text for k in range(2, 14))
    assert "exclude_related" in fired


def test_select_main_on_the_thread_records_no_teaser_list():
    sel = select_main(parse_html(_page(), content_type="text/html"))
    assert sel.page_type.type == "forum"
    assert "exclude_related" not in sel.removal_rules
    assert "Reply 7:" in sel.root.text_content()


def _qa_page(comment_class: str) -> bytes:
    """A Q&A thread (QAPage): a question and two answers, each with its readers' comments below it."""
    def post(k: int, kind: str) -> str:
        text = " ".join(f"Answer text {k} sentence {j}: back up the home folder with rsync to a second disk."
                        for j in range(6))
        comments = "".join(f"<li class='comment'><span class='comment-copy'>Comment {k}-{j}: did that work on "
                           "an encrypted home folder too, or did you need anything else?</span></li>"
                           for j in range(3))
        return (f"<div class='{kind}'><div class='postcell'><p>{text}</p></div>"
                f"<div class='{comment_class}'><ul>{comments}</ul></div></div>")
    posts = "".join(post(k, kind) for k, kind in enumerate(("question", "answer", "answer")))
    return ('<html><head><title>Back up my system</title><script type="application/ld+json">'
            '{"@context": "https://schema.org", "@type": "QAPage"}</script></head><body>'
            f"<main><h1>How do I back up my system?</h1>{posts}</main></body></html>").encode()


def test_a_q_and_a_thread_keeps_its_posts_and_leaves_the_comments_under_them():
    # (the own candidate alone: on a thread the vote may bring a removed unit back when
    # trafilatura, asked with comments, keeps it; wcxb's StackExchange pages show both stages)
    doc = parse_html(_qa_page("comments js-comments-container"), content_type="text/html")
    assert detect_page_type(doc).type == "forum"
    sel = select_main(doc, agreement=False)
    text = sel.root.text_content()
    assert all(f"Answer text {k} sentence 5" in text for k in range(3))
    assert "Comment 1-2" not in text
    assert "exclude_post_comments" in sel.removal_rules


def test_a_threads_replies_under_a_comment_class_are_still_its_posts():
    # the replies of a thread are siblings under a comment class, not inside one post: they stay
    first = "<div class='topic'><p>" + " ".join(["Which projector should replace my old one for a dark room?"] * 8)
    replies = "".join(f"<div class='comment'><p>Reply {k}: get the one with the brighter lamp, it is worth it.</p>"
                      "</div>" for k in range(8))
    page = ('<html><head><title>Projectors</title><script type="application/ld+json">{"@context": '
            '"https://schema.org", "@type": "DiscussionForumPosting"}</script></head><body><main>'
            f"<h1>Projectors</h1>{first}</p></div><div class='comments'>{replies}</div></main></body></html>")
    sel = select_main(parse_html(page.encode(), content_type="text/html"))
    assert "Reply 7: get the one" in sel.root.text_content()
    assert "exclude_post_comments" not in sel.removal_rules
