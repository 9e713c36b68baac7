"""Reads shared between the selection's rules give what each rule's own read gave: the caption
classes ``_clean_links`` takes from the pattern rules' walk (``kinds``), and the text nodes the
ad-label rule takes from the call-to-action rule when that removed nothing."""

from __future__ import annotations

import copy
import re
import gzip
from pathlib import Path

import lxml.etree

from gatecrawl.core.extract.blocks import _TEXT_NODES, _drop_ad_labels, _drop_calls_to_action
from gatecrawl.core.extract.links import _clean_links
from gatecrawl.core.extract.patterns import _protected_blocks
from gatecrawl.core.extract.preclean import _preclean
from gatecrawl.core.htmlparse import parse_html

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]

_CASES = [
    # captions named by class on the element, on its parent, on the root; a repeated caption
    "<body class='caption-x'><div><figure><div class='wp-caption'><p>" + "A caption of a photo here " * 2
    + "</p></div></figure><div class='credit'><span>" + "A caption of a photo here " * 2 + "</span></div>"
    "<p class='Caption'>" + "A caption of a photo here " * 2 + "</p><div>Advertisement</div>"
    "<p>Subscribe to our newsletter today</p><ul><li><a href='/a'>one</a></li><li><a href='/b'>two</a></li></ul>"
    "</div></body>",
    # paragraphs right under a root whose class names a caption: captions, kept once
    "<body class='photo-credit'><p>" + "Photograph by a staff photographer " * 2 + "one</p><p>"
    + "Photograph by a staff photographer " * 2 + "two</p></body>",
]


def _bodies(per_corpus: int = 30) -> list:
    raw = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    for corpus in CORPORA:
        if corpus.is_dir():
            raw += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:per_corpus]]
    raw += [("<html>" + c + "</html>").encode() for c in _CASES]
    out = []
    for b in raw:
        body = parse_html(b).find(".//body")
        if body is not None:
            body = copy.deepcopy(body)
            _preclean(body, set())
            out.append(body)
    return out


def _roots(body) -> list:
    """The body and its largest child holding elements (a selection below the walked tree)."""
    kids = [c for c in body if isinstance(c.tag, str) and len(c)]
    return [None] + ([max(range(len(kids)), key=lambda i: len(kids[i].text_content()))] if kids else [])


def test_clean_links_reads_caption_classes_from_the_walk():
    changed = 0
    for body in _bodies():
        for pick in _roots(body):
            trees = []
            for use_kinds in (False, True):
                b = copy.deepcopy(body)
                kinds: list = []
                _protected_blocks(b, set(), kinds=kinds)
                root = b if pick is None else [c for c in b if isinstance(c.tag, str) and len(c)][pick]
                fired: set = set()
                _clean_links(root, fired, kinds=kinds if use_kinds else None)
                trees.append((lxml.etree.tostring(root), sorted(fired)))
            assert trees[0] == trees[1]
            changed += bool(trees[0][1])
    assert changed >= 10


def test_ad_labels_read_the_text_nodes_the_calls_to_action_read():
    reused = 0
    for body in _bodies():
        plain = copy.deepcopy(body)
        fired_plain: set = set()
        _drop_calls_to_action(plain, {}, fired_plain)
        _drop_ad_labels(plain, {}, fired_plain)
        fired: set = set()
        texts = _drop_calls_to_action(body, {}, fired)
        if texts is not None:
            assert "exclude_call_to_action" not in fired
            assert list(texts) == list(_TEXT_NODES(body))
            assert [t.getparent() for t in texts] == [t.getparent() for t in _TEXT_NODES(body)]
            reused += 1
        _drop_ad_labels(body, {}, fired, texts)
        assert lxml.etree.tostring(body) == lxml.etree.tostring(plain) and fired == fired_plain
    assert reused >= 10


def test_words_policy_and_hints_are_the_patterns_they_stand_for():
    """``dom._words`` is ``_TOKEN_RX.findall``; the comment-policy search around its words is the
    search of the whole text; the bio classes' word test and the calls to action's hint tree
    keep every string their patterns match."""
    import random

    from gatecrawl.core.extract import blocks, dom

    bodies = _bodies(20)
    texts = [t for body in bodies for t in (el.text_content() for el in body.iter("p", "li", "div")) if t][:6000]
    texts += ["a_b-c d\x0b\x1f e\u00a0f \u00e9t\u00e9 x\u2014y 1.5", "", "   ", "__", "\u0130stanbul \u017fo"]
    for t in texts:
        assert dom._words(t) == dom._TOKEN_RX.findall(t)
        assert dom._words(t.lower()) == dom._TOKEN_RX.findall(t.lower())
    policies = ["Comments are moderated.", "We reserve the right to delete any comments that",
                "Os coment\u00e1rios s\u00e3o " + "x" * 70 + " aprovados", "COMMENTI SONO MODERATI",
                "Our commenting policy", "comments will be pre-moderated", "We may edit comments"]
    rnd = random.Random(5)
    filler = [t for t in texts if len(t) > 50][:200]
    checked = found = 0
    for k in range(400):
        parts = rnd.sample(filler, 3)
        if k % 2:
            parts.insert(rnd.randint(0, 3), rnd.choice(policies))
        if k % 3 == 0:
            parts.insert(0, "comment " * rnd.randint(1, 30))
        whole = rnd.choice(["", " ", "\n"]).join(parts)
        expected = blocks._COMMENT_POLICY_RX.search(whole) is not None
        assert blocks._holds_policy(whole) == expected, whole[:200]
        checked += 1
        found += expected
    assert found >= 100 and checked - found >= 100
    for a in _class_strings(bodies) + ["Author-Bio", "x__BIO", "b\u0131o", "AUTHOR_box", "bio", "biography"]:
        assert blocks._bio_attrs.__wrapped__(a) == (blocks._BIO_CLASS_RX.search(a) is not None), a
    plain = re.compile(r"subscri|sign up|newsletter|follow|mail|reach|write to|contact|tip|enjoy|"
                       r"like|inbox|letterbox|miss|full st|full ar")
    for t in texts:
        low = t.lower()
        assert (blocks._CTA_HINT_RX.search(low) is None) == (plain.search(low) is None)


def _class_strings(bodies) -> list[str]:
    from gatecrawl.core.extract import dom

    return list(dict.fromkeys(a for body in bodies for el in body.iter(lxml.etree.Element) if (a := dom._attrs(el))))


def test_legal_and_cookie_words_are_held_by_every_match():
    """``_clean_links`` tests a block's folded text for the legal and cookie words before the
    case-blind patterns: every text a pattern matches holds one of its words."""
    from gatecrawl.core.extract import links
    from gatecrawl.core.extract.dom import _fold

    texts = [el.text_content() for body in _bodies(30) for el in body.iter("p", "div", "small", "span")]
    texts += ["\u00a9 2024 ACME", "(C) 2019 x", "ALL R\u0130GHTS RESERVED", "Terms & Conditions", "We use cookies",
              "COOKIES help the SITE", "Registered Trademarks of", "privacy polıcy"]
    matched = 0
    for t in texts:
        folded = _fold(t)
        for rx, words in ((links._LEGAL_RX, links._LEGAL_WORDS), (links._STRONG_LEGAL_RX, links._STRONG_LEGAL_WORDS),
                          (links._COOKIE_TEXT_RX, links._COOKIE_WORDS)):
            if rx.search(t):
                matched += 1
                assert any(w in folded for w in words), t[:200]
    assert matched >= 20
