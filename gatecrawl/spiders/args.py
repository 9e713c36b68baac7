"""Spider arguments and start URLs: what a run's ``-a`` options change in its recipe.

``parse_spider_args`` applies ``start_url``, ``max_pages`` and ``render`` to a recipe (bad values
raise ValueError naming the argument); ``split_userinfo`` takes the ``user:password@`` part off a
URL (it travels as an Authorization header, never in the URL).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from gatecrawl.core.recipes import RENDER_POLICIES, Recipe

__all__ = ["parse_spider_args", "split_userinfo"]


def split_userinfo(url: str) -> tuple[str, str | None]:
    """``url`` without its ``user:password@`` part, and that part decoded (``None`` if absent)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), f"{unquote(user)}:{unquote(password)}"


def parse_spider_args(recipe: Recipe, start_url: Any = None, max_pages: Any = None, render: Any = None) -> Recipe:
    """Apply spider arguments to a recipe; raise ValueError naming the argument on bad values."""
    changes: dict[str, Any] = {}
    if start_url:
        urls = start_url if isinstance(start_url, (list, tuple)) else str(start_url).split()
        for u in urls:
            p = urlsplit(u)
            if p.scheme not in ("http", "https") or not p.hostname:
                raise ValueError(f"spider argument start_url: not an absolute http(s) URL: {u!r}")
        changes["start_urls"] = tuple(urls)
        changes["sitemaps"] = ()
        hosts = {urlsplit(u).hostname for u in urls}
        changes["allowed_domains"] = tuple(sorted(set(recipe.allowed_domains) | {h for h in hosts if h}))
    if max_pages is not None:
        try:
            n = int(max_pages)
        except (TypeError, ValueError):
            raise ValueError(f"spider argument max_pages: expected a positive integer, got {max_pages!r}") from None
        if n < 1:
            raise ValueError(f"spider argument max_pages: expected a positive integer, got {max_pages!r}")
        changes["max_pages"] = n
    if render is not None:
        if render not in RENDER_POLICIES:
            raise ValueError(f"spider argument render: must be one of {', '.join(RENDER_POLICIES)}, got {render!r}")
        changes["render_policy"] = render
        changes["render_rules"] = ()
    return recipe.with_overrides(**changes) if changes else recipe
