"""The class-word patterns written as trees (``dom._union``) match where the alternations they
replace match; the removed-block and protected-ancestor sets of ``_clean_patterns``
(``dom._RemovedBlocks``, ``dom._ancestors_of``) tell what the sets they replace told; and the
class/id strings ``_protected_blocks`` reads once per page give the rules and kinds a plain walk
gives."""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import lxml.etree

from gatecrawl.core.extract import dom, patterns
from gatecrawl.core.extract.dom import (_RemovedBlocks, _alternatives, _ancestors_of, _flat_alternatives,
                                        _literal_forms, _literal_trie, _union)
from gatecrawl.core.htmlparse import parse_html

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = [Path("/work/shared/bench/article-extraction/html"), Path("/work/shared/bench/wcxb-dev/html")]


def _bodies(per_corpus: int = 40) -> list:
    raw = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    for corpus in CORPORA:
        if corpus.is_dir():
            raw += [gzip.decompress(p.read_bytes()) for p in sorted(corpus.glob("*.html.gz"))[:per_corpus]]
    bodies = []
    for b in raw:
        doc = parse_html(b)
        body = doc.find(".//body")
        if body is not None:
            bodies.append(body)
    return bodies


def _class_strings(bodies) -> list[str]:
    out: dict = {}
    for body in bodies:
        for el in body.iter(lxml.etree.Element):
            a = dom._attrs(el)
            if a:
                out[a] = None
    return list(out)


def _generated(n: int = 20000) -> list[str]:
    """Strings made of the rules' words, cut, cased and joined in the ways class lists are."""
    pats = [rx.pattern for _name, rx in patterns._PATTERN_LRULES] + [patterns._KEEP_ANY_LRX.pattern]
    frags = sorted({w for p in pats for w in re.findall(r"[a-z]+", p)})
    seps = ["", "-", "_", " ", "  ", "\t", ":", "--", "x", "\u017f", "K", "\u0130", "\u0131"]
    rnd = random.Random(7)
    out = []
    for _ in range(n):
        s = ""
        for _k in range(rnd.randint(1, 4)):
            f = rnd.choice(frags)
            if rnd.random() < 0.3:
                f = f[rnd.randint(0, len(f) - 1):]
            if rnd.random() < 0.3:
                f = f[:rnd.randint(1, len(f))]
            if rnd.random() < 0.2:
                f = f.upper()
            s += f + rnd.choice(seps)
        out.append(s if rnd.random() < 0.5 else s.strip())
    return out


def test_literal_pieces():
    assert _literal_forms(r"sign-?up") == ["signup", "sign-up"]
    assert _literal_forms(r"tags?") == ["tag", "tags"]
    assert _literal_forms(r"cmp\-") == ["cmp-"]
    for piece in (r"advert\w*", r"a.b", r"(?:a|b)", r"a+", r"a{2}", r"[ab]", r"a??", r"\bx", "^a", "a$"):
        assert _literal_forms(piece) is None, piece
    assert _flat_alternatives(r"a|(?:b|(?:c|d))|(?:e)f|[|]") == ["a", "b", "c", "d", "(?:e)f", "[|]"]
    trie = _literal_trie(["ad", "ads", "adv", "b"])
    assert re.fullmatch(trie, "ad") and re.fullmatch(trie, "adv") and not re.fullmatch(trie, "a")
    assert _union([r"x\w*|ab", r"(?:ac|b-?c)"]) == r"(?:a(?:b|c)|b(?:\-c|c))|(?:x\w*)"


def test_trees_match_where_the_alternations_match():
    texts = _class_strings(_bodies()) + _generated()
    words = list(dict.fromkeys(w for a in texts for w in a.lower().split()))
    lowered = [a.lower() for a in texts]
    # each pattern as a tree, and the rules' bounded and other alternatives as the two patterns
    # ``_any_pattern`` made before (one branch per alternative)
    pats = [rx.pattern for _name, rx in patterns._PATTERN_LRULES] + [patterns._KEEP_ANY_LRX.pattern]
    start, end = dom._CLASS_WORD_START, dom._CLASS_WORD_END
    bounded, loose = [], []
    for p in pats[:-1]:
        for alt in _alternatives(p):
            if alt.startswith(start) and alt.endswith(end) and len(alt) > len(start + end):
                bounded.append(alt[len(start):-len(end)])
            else:
                loose.append(alt)
    plain_bounded = re.compile(start + "(?:" + "|".join(f"(?:{b})" for b in bounded) + ")" + end)
    plain_loose = re.compile("|".join(f"(?:{a})" for a in loose))
    trees = [(re.compile(p), re.compile(_union([p]))) for p in pats]
    matched = 0
    for text in words + lowered:
        for plain, tree in trees:
            assert bool(plain.search(text)) == bool(tree.search(text)), (plain.pattern, text)
        b = bool(plain_bounded.search(text))
        assert b == bool(patterns._ANY_BOUNDED_LRX.search(text)), text
        lo = bool(plain_loose.search(text))
        assert lo == bool(patterns._ANY_LOOSE_LRX.search(text)), text
        matched += b or lo
    assert matched > 1000
    # the keep rules' prefilter: the words' tree finds what the substring tests found
    keep_words = ("caption", "credit", "byline", "by-line", "author", "date", "timestamp", "published",
                  "posted-on", "entry-meta", "article-meta")
    for text in lowered:
        assert bool(patterns._KEEP_WORDS.search(text)) == any(w in text for w in keep_words), text


def test_removed_blocks_and_protected_ancestors_are_the_sets_they_replace():
    rnd = random.Random(3)
    asked = 0
    for body in _bodies(25):
        els = list(body.iterdescendants(lxml.etree.Element))
        some = rnd.sample(els, min(len(els), 12))
        expected: set = set()
        for el in some:
            expected.update(el.iterancestors())
        assert _ancestors_of(some) == expected
        # in document order, drop about one element in twenty; ask about a third of them
        removed = _RemovedBlocks(body)
        inside: set = set()
        for el in els:
            if rnd.random() < 0.33:
                assert removed.holds(el) == (el in inside)
                asked += 1
            if rnd.random() < 0.05:
                inside.update(el.iterdescendants())
                removed.add(el)
                if el.getparent() is not None:
                    dom._drop(el)
    assert asked > 1000


def test_protected_blocks_read_each_string_once_as_a_plain_walk_reads_it():
    for body in _bodies(25):
        fired: set = set()
        candidates: list = []
        kinds: list = []
        protected = patterns._protected_blocks(body, fired, candidates, kinds)
        assert candidates == patterns._rule_candidates(body)
        plain = [(el, patterns._keep_kind(dom._attrs(el))) for el in body.iterdescendants(lxml.etree.Element)
                 if el.get("class") is not None or el.get("id") is not None]
        assert kinds == [(el, k) for el, k in plain if k is not None]
        again: dict = {}
        for el in body.iter("figcaption", "caption"):
            again[el] = "caption"
        for el, kind in kinds:
            patterns._protect(el, kind, again, set())
        patterns._protect_authors(body, again, set())
        assert list(protected.items()) == list(again.items())
