"""Site recipes: one TOML file per site, validated strictly when loaded.

A recipe says where to start, what to follow, where the main content is and how strict
to be. Every key has a default, so a recipe can be as short as::

    start_urls = ["https://example.com/"]

Loading is fail-closed: an unknown key, a wrong type, a bad regex, a bad URL or a bad
CSS selector raises :class:`RecipeError` naming the file, the dotted key and the reason.
The schema (``_SCHEMA`` in :mod:`.schema`) is the single source of truth; the README's recipe
reference table is checked against it by the tests.

Layout of the package: :mod:`.model` (:class:`Recipe`, :class:`RenderRule`,
:class:`RecipeError`), :mod:`.checks` (value checkers: strings, numbers, lists, URLs, regexes,
CSS selectors, choices), :mod:`.tables` (the nested tables: ``[settings]`` with the security
settings a recipe may not set, ``render.browser``, ``[pdf]``, embedded paths, render rules),
:mod:`.schema` (``_SCHEMA`` and ``RECIPE_KEYS``) and :mod:`.loader` (TOML text and files to a
:class:`Recipe`, the packaged and extra recipe folders).
"""

from __future__ import annotations

from gatecrawl.core.recipes.loader import iter_recipe_sources, load_recipe_file, load_recipe_text
from gatecrawl.core.recipes.model import RENDER_POLICIES, Recipe, RecipeError, RenderRule
from gatecrawl.core.recipes.schema import RECIPE_KEYS
from gatecrawl.core.recipes.tables import (READINESS_CONDITIONS, RENDER_BROWSER_KEYS,
    RESOURCE_TYPES, is_security_setting)

__all__ = [
    "Recipe",
    "RecipeError",
    "RenderRule",
    "load_recipe_file",
    "load_recipe_text",
    "iter_recipe_sources",
    "RECIPE_KEYS",
    "RENDER_BROWSER_KEYS",
    # also importable from here
    "READINESS_CONDITIONS",
    "RENDER_POLICIES",
    "RESOURCE_TYPES",
    "is_security_setting",
]
