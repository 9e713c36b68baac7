"""Checks a command runs before it starts a crawl, each returning the message of the first
problem (or None): spider name, recipe, spider arguments, settings."""

from __future__ import annotations

import difflib
from typing import Any

from gatecrawl.core.recipes import RecipeError
from gatecrawl.envsettings import SettingValueError, setting_list


def spider_problem(loader: Any, name: str) -> str | None:
    """An unknown spider (with the closest names) or the error of its broken recipe."""
    broken = getattr(loader, "broken", {})
    if name in broken:
        return str(broken[name])
    names = sorted(loader.list())
    if name in names:
        return None
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    else:
        hint = "spiders: " + (", ".join(names) if names else "none")
    return f"no spider named {name!r} ({hint}); `scrapy list` shows them, one per recipe file (recipes/ and GATECRAWL_RECIPES_DIRS)"


def spider_args_problem(spidercls: Any, spargs: dict[str, Any]) -> str | None:
    recipe = getattr(spidercls, "recipe", None)
    if recipe is None:
        return None
    from gatecrawl.spiders.args import parse_spider_args

    try:
        parse_spider_args(recipe, spargs.get("start_url"), spargs.get("max_pages"), spargs.get("render"))
    except ValueError as exc:
        return str(exc)
    return None


def settings_problem(settings: Any) -> str | None:
    """List settings that cannot be read, allow-list entries and a resolver that do not parse."""
    from gatecrawl.egress.policy import EgressPolicy, load_resolver

    try:
        allow = setting_list(settings, "GATECRAWL_EGRESS_ALLOW")
        setting_list(settings, "GATECRAWL_RECIPES_DIRS", separators=",")
    except SettingValueError as exc:
        return str(exc)
    try:
        EgressPolicy(allow, include_env=True)
    except ValueError as exc:
        return f"GATECRAWL_EGRESS_ALLOW (setting or environment variable): {exc}"
    problem = store_problem(settings)
    if problem:
        return problem
    resolver = settings.get("GATECRAWL_EGRESS_RESOLVER")
    if resolver:
        try:
            load_resolver(resolver)
        except Exception as exc:  # noqa: BLE001 - any import problem is the setting's
            return f"GATECRAWL_EGRESS_RESOLVER: cannot load {resolver!r}: {exc}"
    return None


def store_problem(settings: Any) -> str | None:
    """A store URI that names no known store (a typo such as ``s4://`` became a local folder of
    that name), or an ``s3://`` URI or S3 option that does not parse. Nothing is contacted."""
    from urllib.parse import urlsplit

    from gatecrawl.store.config import StoreConfig

    config = StoreConfig.from_settings(settings)
    uri = config.uri
    if not uri:
        return "GATECRAWL_STORE_URI is empty: give file://PATH, a folder, or s3://bucket/prefix"
    scheme = urlsplit(uri).scheme.lower() if "://" in uri else ""
    if scheme not in ("", "file", "s3"):
        return f"GATECRAWL_STORE_URI: unknown store {scheme + '://'!r}: give file://PATH, a folder, or s3://bucket/prefix"
    if scheme == "s3":
        from gatecrawl.store import StoreError
        from gatecrawl.store.s3 import S3Config

        try:
            S3Config.from_options(uri, config.options)
        except StoreError as exc:
            return f"GATECRAWL_STORE_URI: {exc}"
    return None


__all__ = ["RecipeError", "spider_problem", "spider_args_problem", "settings_problem", "store_problem"]
