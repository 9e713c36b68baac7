"""The density scores taken in one document-order walk (``_Scores``) are the scores of the
stack walk they replace, and ``best`` reads them as the element-by-element lookup did."""

from __future__ import annotations

import copy
import gzip
from pathlib import Path

import lxml.html

from gatecrawl.core.extract.dom import _BLOCKS, _SENTENCE
from gatecrawl.core.extract.preclean import _preclean
from gatecrawl.core.extract.scoring import _BLOCK_COST, _long_cell, _Scores, _with_depths
from gatecrawl.core.htmlparse import parse_html

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]


def _plain_scores(body):
    """``(order, depths, {id: score}, positive total)`` by the explicit-stack walk."""
    plain: dict = {}
    link: dict = {}
    sent: dict = {}
    blocks: list = []
    order: list = []
    depths: list = []
    parents: list = []
    cells = {id(c) for c in body.iter("td", "th") if _long_cell(c)}

    def tally(text, blk, in_link):
        n = len(" ".join(text.split()))
        if n:
            if in_link:
                link[blk] = link.get(blk, 0) + n
            else:
                plain[blk] = plain.get(blk, 0) + n
                sent[blk] = sent.get(blk, 0) + len(_SENTENCE.findall(text))

    stack = [(body, -1, False, 0, -1)]
    while stack:
        el, blk, in_link, depth, parent = stack.pop()
        pos = len(order)
        order.append(el)
        depths.append(depth)
        parents.append(parent)
        tag = el.tag if isinstance(el.tag, str) else ""
        if blk < 0 or tag in _BLOCKS or id(el) in cells:
            blk = pos
            blocks.append(pos)
        if tag == "a":
            in_link = True
        if el.text:
            tally(el.text, blk, in_link)
        for child in reversed(el):
            stack.append((child, blk, in_link, depth + 1, pos))
            if child.tail:
                tally(child.tail, blk, in_link)
    value = [0.0] * len(order)
    total = 0.0
    for b in blocks:
        p, k = plain.get(b, 0), link.get(b, 0)
        if p + k:
            value[b] = v = p - 2 * max(0, k - p) - _BLOCK_COST + 10 * min(sent.get(b, 0), 5)
            total += v if v > 0 else 0
    score = [0.0] * len(order)
    for i in range(len(order) - 1, -1, -1):
        score[i] += value[i]
        if parents[i] >= 0:
            score[parents[i]] += score[i]
    return order, depths, dict(zip(map(id, order), score)), total


def _bodies(per_corpus: int = 40) -> list:
    raw = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    for corpus in CORPORA:
        if corpus.is_dir():
            raw += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:per_corpus]]
    out = []
    for b in raw:
        body = parse_html(b).find(".//body")
        if body is not None:
            out.append(body)
            clean = copy.deepcopy(body)
            _preclean(clean, set())
            out.append(clean)
    # comments and processing instructions among the nodes, a long cell, text in links
    out.append(lxml.html.fromstring(
        "<body><!-- c -->x<table><tr><td>" + "A long cell sentence. " * 12 + "</td><td>m</td></tr></table>"
        "<?pi x?>tail<div><a href='/'>link <b>bold</b></a> after. More.</div></body>"))
    return out


def test_scores_are_the_stack_walks():
    for body in _bodies():
        scores = _Scores(body)
        order, depths, by_id, total = _plain_scores(body)
        assert scores.order == order and scores.depths == depths
        assert scores.score == by_id and scores.positive_total == total
        assert scores.scores == [by_id[id(el)] for el in order]
        expected = None
        key = None
        for el, d in _with_depths(body):
            s = by_id.get(id(el), 0.0)
            if s > 0 and (key is None or (s, d) > key):
                key, expected = (s, d), el
        assert scores.best(body) is expected
        inner = next((c for c in body if isinstance(c.tag, str) and len(c)), None)
        if inner is not None:  # (a part of the tree scored: read element by element)
            expected = None
            key = None
            for el, d in _with_depths(inner):
                s = by_id.get(id(el), 0.0)
                if s > 0 and (key is None or (s, d) > key):
                    key, expected = (s, d), el
            assert scores.best(inner) is expected
