"""A memo for pure functions of one string with an atomic result, that the garbage collector
never walks.

The class/id classifiers of the selection see a few hundred thousand distinct strings over a
crawl. Held in ``functools.lru_cache``, every entry is a node the cyclic collector visits at
each full collection (about 70 ms per collection once the caches are full, against under 10 ms
without them). A plain ``dict`` whose keys are ``str`` and whose values are ``None``, ``bool``,
``int`` or ``str`` holds nothing the collector tracks, and CPython leaves such a dict untracked:
it costs a collection nothing. The memo is cleared whole when it reaches its size (the results
do not change, only hits are lost), so it stays bounded without an eviction order to keep.
"""

from __future__ import annotations

import functools
import gc
from typing import Callable, TypeVar

R = TypeVar("R")

_MISS = object()


def str_memo(maxsize: int) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
    """Decorator: memoise ``fn(key: str)`` in a plain dict of at most ``maxsize`` entries.
    ``fn`` must be pure and return ``None``, a ``bool``, an ``int`` or a ``str`` (anything else
    would make the dict tracked again: :func:`memo_untracked` tells). The wrapper keeps the
    function as ``__wrapped__`` and the dict as ``memo``."""
    if maxsize < 1:
        raise ValueError("maxsize must be at least 1")

    def decorate(fn: Callable[[str], R]) -> Callable[[str], R]:
        memo: dict = {}
        get = memo.get

        def wrapper(key: str) -> R:
            r = get(key, _MISS)
            if r is _MISS:
                r = fn(key)
                if len(memo) >= maxsize:
                    memo.clear()
                memo[key] = r
            return r

        functools.update_wrapper(wrapper, fn)
        wrapper.memo = memo  # type: ignore[attr-defined]
        return wrapper

    return decorate


def memo_untracked(wrapper: Callable) -> bool:
    """Whether the collector leaves this memo's dict alone (what the tests hold each memo to)."""
    return not gc.is_tracked(wrapper.memo)  # type: ignore[attr-defined]
