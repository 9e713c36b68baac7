"""``classwords._attrs_code`` (one lower-casing and one memo for a class/id string's removal rule
and keep kind, whole strings no any-rule pattern matches not split, the first rule found with
each rule's pattern as a tree) gives what the classifiers it replaces gave: the first rule whose
pattern matches one of the lower-cased words, none when a content or embed pattern matches a
word, and the keep kind of the lower-cased string."""

from __future__ import annotations

from gatecrawl.core.extract import classwords as cw

from test_extract_class_word_trees import _bodies, _class_strings, _generated


def _plain_rule(a: str):
    words = a.lower().split()
    n = len(cw._PATTERN_LRULES)
    first = n
    for word in words:
        k = next((k for k, (_name, rx) in enumerate(cw._PATTERN_LRULES) if rx.search(word)), n)
        first = min(first, k)
    if first == n or any(cw._CONTENT_CLASS_LRX.search(w) or cw._EMBED_LRX.search(w) for w in words):
        return None
    return cw._PATTERN_LRULES[first][0]


def _plain_kind(a: str):
    if not a:
        return None
    a = a.lower()
    if not cw._KEEP_ANY_LRX.search(a):
        return None
    if cw._CAPTION_LRX.search(a):
        return "caption"
    return "byline" if cw._BYLINE_LRX.search(a) else None


def test_attrs_code_gives_the_plain_rule_and_kind():
    texts = _class_strings(_bodies(20)) + _generated(20000) + ["", " ", "Nav", "ad\u00a0box", "\u0130nav x"]
    named = kinds = 0
    for a in texts:
        code = cw._attrs_code.__wrapped__(a)  # (computed, not read from the memo)
        rule, kind = _plain_rule(a), _plain_kind(a)
        assert (cw._RULE_NAMES[code // 3], cw._KINDS[code % 3]) == (rule, kind), a
        assert (cw._classify_attrs(a), cw._keep_kind(a)) == (rule, kind), a
        named += rule is not None
        kinds += kind is not None
    assert named > 1000 and kinds > 300


def test_the_rules_trees_find_the_first_rule_of_a_word():
    words = {w for a in _generated(20000) for w in a.lower().split()}
    n = len(cw._PATTERN_LRULES)
    for w in words:
        plain = next((k for k, (_name, rx) in enumerate(cw._PATTERN_LRULES) if rx.search(w)), n)
        assert cw._classify_word.__wrapped__(w) == plain, w
