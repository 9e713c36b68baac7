"""Reads shared between the selection's rules give what each rule's own read gave: the caption
classes ``_clean_links`` takes from the pattern rules' walk (``kinds``), and the text nodes the
ad-label rule takes from the call-to-action rule when that removed nothing."""

from __future__ import annotations

import copy
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
