"""The string memo (core/memo.py): same results as the function, bounded, and never walked by
the garbage collector, including every memo the core uses once a page has been converted."""

import gc
import random

import pytest

from gatecrawl.core.convert import convert
from gatecrawl.core.memo import memo_untracked, str_memo


def _memos():
    """Every str_memo wrapper of the loaded core modules (found by their ``memo`` dict)."""
    found = []
    for o in gc.get_objects():
        if callable(o) and isinstance(getattr(o, "memo", None), dict) and \
                getattr(o, "__module__", "").startswith("gatecrawl.core"):
            found.append(o)
    return found


def test_results_match_the_function_and_the_size_stays_bounded():
    def classify(s: str):
        return None if not s else (len(s) if s[0] == "a" else s.upper() if s[0] == "b" else "x" in s)

    memo = str_memo(8)(classify)
    rng = random.Random(7)
    words = ["".join(rng.choice("abxy") for _ in range(rng.randint(0, 4))) for _ in range(500)]
    for w in words:
        assert memo(w) == classify(w)
        assert len(memo.memo) <= 8
    assert memo.__wrapped__ is classify
    assert memo.__name__ == "classify"
    assert memo_untracked(memo)


def test_a_repeat_is_not_recomputed():
    n = []

    def f(s: str) -> bool:
        n.append(s)
        return s.startswith("k")

    m = str_memo(100)(f)
    assert [m("ka"), m("ka"), m("b"), m("ka")] == [True, True, False, True]
    assert n == ["ka", "b"]


def test_a_full_memo_is_cleared_and_answers_the_same():
    n = []

    def f(s: str) -> int:
        n.append(s)
        return len(s)

    m = str_memo(2)(f)
    assert [m("a"), m("bb"), m("ccc"), m("a")] == [1, 2, 3, 1]
    assert n == ["a", "bb", "ccc", "a"]  # "a" went with the clear at the third key
    assert len(m.memo) == 2


def test_maxsize_must_be_positive():
    with pytest.raises(ValueError):
        str_memo(0)


def test_a_tracked_result_would_be_seen():
    m = str_memo(4)(lambda s: [s])
    m("a")
    assert not memo_untracked(m)


def test_the_core_memos_stay_untracked_after_conversions():
    classes = ["post-content", "article-body", "sidebar widget", "cookie-banner", "byline author",
               "wp-caption", "share-buttons", "comments-area", "related-posts", "nav menu", "entry-meta"]
    items = "".join(f'<div class="{c} x{i}"><p>Paragraph {i} about the subject at hand, with words '
                    f'enough to be read as text by every candidate.</p></div>'
                    for i, c in enumerate(classes * 3))
    html = (f'<html><head><title>A page</title></head><body><header class="site-header">Site</header>'
            f'<article class="post"><h1>A heading</h1>{items}</article>'
            f'<footer class="footer">© 2026</footer></body></html>')
    result = convert(html.encode(), "https://example.test/a", content_type="text/html")
    assert result.markdown or result.evidence
    memos = _memos()
    names = {m.__qualname__ for m in memos}
    # the classifiers that see a crawl's class strings are all memos of this kind
    assert {"_classify_attrs", "_classify_word", "_keep_kind", "_names_content", "_banner_ident",
            "_post_ident", "_consent_ident", "_attr_matcher.<locals>.match"} <= names
    assert sum(len(m.memo) for m in memos) > 0
    tracked = [m.__qualname__ for m in memos if not memo_untracked(m)]
    assert tracked == []
