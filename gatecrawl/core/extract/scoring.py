"""The density candidate: per-element content scores, the semantic containers around it."""

from __future__ import annotations

import lxml.etree

from gatecrawl.core.extract.dom import _BLOCKS, _SENTENCE, _css_path, _is_el


_BLOCK_COST = 10
COVERAGE_MIN = 0.45
COVERAGE_KEEP = 0.8  # widening may cost at most 20% of the chosen node's score


#: a table cell with at least this many characters of text is scored as a block of its own
LONG_CELL_CHARS = 200


def _long_cell(cell) -> bool:
    text = cell.text_content() or ""
    # (squashing only shortens: a shorter text is not squashed)
    return len(text) >= LONG_CELL_CHARS and len(" ".join(text.split())) >= LONG_CELL_CHARS


class _Scores:
    """Per-element content score (sum of block values inside the element)."""

    def __init__(self, body: lxml.etree._Element) -> None:
        # Keys are ids of elements kept alive in ``self.order`` (lxml proxies are only
        # stable while referenced).
        self.order: list[lxml.etree._Element] = []
        self.score: dict[int, float] = {}
        self.scores: list[float] = []
        self.positive_total = 0.0
        self._compute(body)

    def _compute(self, body: lxml.etree._Element) -> None:
        # Attribute text to nearest block ancestor: one walk in document order (``iter()``: no
        # stack of Python tuples), each node's block, link state and depth taken from its
        # parent's, found by position. (The names the walk reads are bound locally: this runs
        # for every element and every text of the page.) An element is known by its position
        # in ``order`` (document order) while the walk runs: lists indexed by position, where
        # dicts keyed by ``id`` cost a hash at every access.
        blocks = _BLOCKS
        sentences = _SENTENCE.findall
        # (keyed by the block element's position)
        block_plain: dict[int, int] = {}
        block_link: dict[int, int] = {}
        block_sent: dict[int, int] = {}
        block_pos: list[int] = []  # the block elements' positions, in document order
        order: list[lxml.etree._Element] = []
        add_order = order.append
        depths: list[int] = []  # each element's depth below ``body``
        add_depth = depths.append
        parents: list[int] = []  # each element's parent's position (-1 for ``body``)
        add_parent = parents.append
        add_block = block_pos.append
        # each node's block (position) and whether it lies in a link: its text's, and its
        # children's tails'
        node_blk: list[int] = []
        add_blk = node_blk.append
        node_link: list[bool] = []
        add_link = node_link.append
        pos_of: dict = {}  # the position of each node with children (kept alive by ``order``)

        # A long table cell is a block of its own: a layout table's column (an old page's story
        # set as text and <br> in a cell) is not one block with the menu and the sidebar beside it.
        long_cells = [c for c in body.iter("td", "th") if _long_cell(c)]  # (alive: their ids are keys)
        cells = {id(c) for c in long_cells}
        pos = 0
        for el in body.iter():
            if pos:
                parent = pos_of[el.getparent()]
                blk = node_blk[parent]
                in_link = node_link[parent]
                depth = depths[parent] + 1
                text = el.tail  # (the parent's block's: a tail belongs to the element around it)
                if text:
                    n = len(" ".join(text.split()))  # (``_squash``)
                    if n:
                        if in_link:
                            block_link[blk] = block_link.get(blk, 0) + n
                        else:
                            block_plain[blk] = block_plain.get(blk, 0) + n
                            block_sent[blk] = block_sent.get(blk, 0) + len(sentences(text))
            else:  # (``body``: no block yet, and its tail is not its text)
                parent, blk, in_link, depth = -1, -1, False, 0
            add_order(el)
            add_depth(depth)
            add_parent(parent)
            tag = el.tag
            if tag.__class__ is not str:  # a comment or processing instruction
                tag = ""
            if blk < 0 or tag in blocks or (cells and id(el) in cells):
                blk = pos
                add_block(pos)
            if tag == "a":
                in_link = True
            add_blk(blk)
            add_link(in_link)
            if len(el):
                pos_of[el] = pos
            text = el.text
            if text:
                n = len(" ".join(text.split()))
                if n:
                    if in_link:
                        block_link[blk] = block_link.get(blk, 0) + n
                    else:
                        block_plain[blk] = block_plain.get(blk, 0) + n
                        block_sent[blk] = block_sent.get(blk, 0) + len(sentences(text))
            pos += 1
        # block values
        n = len(order)
        value: list = [0.0] * n
        for b in block_pos:
            plain = block_plain.get(b, 0)
            link = block_link.get(b, 0)
            if plain + link == 0:
                continue
            v = plain - 2 * max(0, link - plain) - _BLOCK_COST + 10 * min(block_sent.get(b, 0), 5)
            value[b] = v
            if v > 0:
                self.positive_total += v
        # propagate sums upward (reverse document order = children before parents)
        score = [0.0] * n
        for i in range(n - 1, -1, -1):
            s = score[i] + value[i]
            score[i] = s
            p = parents[i]
            if p >= 0:
                score[p] += s
        self.score = dict(zip(map(id, order), score))
        self.scores = score  # (each node's, in ``order``)
        self.order = order
        self.depths = depths
        self.root = body
        self.long_cells = long_cells

    def best(self, body: lxml.etree._Element) -> lxml.etree._Element | None:
        """The element of ``body`` with the highest positive score, the deepest one on a tie
        (the first in document order among equals), or None. For the tree just scored (not
        changed since), read from the walk that scored it: ``order`` is the document order
        (a node before its children, children in order) and ``depths`` each node's depth."""
        best_el = None
        best_s, best_d = 0.0, -1  # (the key ``(score, depth)`` of ``best_el``)
        if body is self.root:
            triples = zip(self.order, self.depths, self.scores)
        else:
            score_get = self.score.get
            triples = ((el, d, score_get(id(el), 0.0)) for el, d in _with_depths(body))
        for el, d, s in triples:
            if s <= 0 or el.tag.__class__ is not str:
                continue
            if s > best_s or s == best_s and d > best_d:
                best_s, best_d = s, d
                best_el = el
        return best_el


def _with_depths(body):
    """``(element, depth)`` for the elements of ``body`` in document order (``body`` at 0)."""
    depth_of = {id(body): 0}
    for el in body.iter():
        if not _is_el(el):
            continue
        d = depth_of.get(id(el.getparent()), 0) + 1 if el is not body else 0
        depth_of[id(el)] = d
        yield el, d


_SEMANTIC_ORDER = (
    ("semantic_article_body", lambda el: "articlebody" in (el.get("itemprop") or "").lower()),
    ("semantic_article", lambda el: el.tag == "article"),
    ("semantic_main", lambda el: el.tag == "main"),
    ("role_main", lambda el: (el.get("role") or "").lower() == "main"),
)


def _semantic_ancestor(el: lxml.etree._Element, stop: lxml.etree._Element):
    node = el
    while node is not None:
        for name, pred in _SEMANTIC_ORDER:
            if pred(node):
                return node, name
        if node is stop:
            break
        node = node.getparent()
    return None, None


def _selector_of(el: lxml.etree._Element, rule: str) -> str:
    if rule == "semantic_article_body":
        return f"{el.tag}[itemprop~=articleBody]" if el.tag else "[itemprop~=articleBody]"
    if rule == "semantic_article":
        return "article"
    if rule == "semantic_main":
        return "main"
    if rule == "role_main":
        return "[role=main]"
    return _css_path(el)
