"""Value checkers: ``checker(source, dotted_key, value)`` returns the value (normalised) or raises
:class:`RecipeError` naming the key and the reason."""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import urlsplit

from gatecrawl.core.recipes.model import RecipeError

Checker = Callable[[str, str, Any], Any]


def _str(src: str, key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise RecipeError(src, key, f"expected a string, got {type(v).__name__}")
    return v


def _bool(src: str, key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise RecipeError(src, key, f"expected true or false, got {type(v).__name__}")
    return v


def _int(lo: int, hi: int) -> Checker:
    def check(src: str, key: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise RecipeError(src, key, f"expected an integer, got {type(v).__name__}")
        if not lo <= v <= hi:
            raise RecipeError(src, key, f"must be between {lo} and {hi}, got {v}")
        return v

    return check


def _float(lo: float, hi: float) -> Checker:
    def check(src: str, key: str, v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise RecipeError(src, key, f"expected a number, got {type(v).__name__}")
        if not lo <= float(v) <= hi:
            raise RecipeError(src, key, f"must be between {lo} and {hi}, got {v}")
        return float(v)

    return check


def _list(item: Checker) -> Checker:
    def check(src: str, key: str, v: Any) -> tuple:
        if not isinstance(v, list):
            raise RecipeError(src, key, f"expected a list, got {type(v).__name__}")
        return tuple(item(src, f"{key}[{i}]", x) for i, x in enumerate(v))

    return check


def _url(src: str, key: str, v: Any) -> str:
    v = _str(src, key, v)
    parts = urlsplit(v)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RecipeError(src, key, f"not an absolute http(s) URL: {v!r}")
    return v


def _regex(src: str, key: str, v: Any) -> str:
    v = _str(src, key, v)
    try:
        re.compile(v)
    except re.error as exc:
        raise RecipeError(src, key, f"bad regular expression {v!r}: {exc}") from None
    return v


def _css(src: str, key: str, v: Any) -> str:
    v = _str(src, key, v)
    try:
        from cssselect import GenericTranslator, SelectorError

        GenericTranslator().css_to_xpath(v)
    except SelectorError as exc:
        raise RecipeError(src, key, f"bad CSS selector {v!r}: {exc}") from None
    return v


def _domain(src: str, key: str, v: Any) -> str:
    v = _str(src, key, v)
    if not re.fullmatch(r"[A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]", v) or v.startswith("."):
        raise RecipeError(src, key, f"not a host name: {v!r}")
    return v.lower()


def _choice(*choices: str) -> Checker:
    def check(src: str, key: str, v: Any) -> str:
        v = _str(src, key, v)
        if v not in choices:
            raise RecipeError(src, key, f"must be one of {', '.join(choices)}; got {v!r}")
        return v

    return check
