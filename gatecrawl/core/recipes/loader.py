"""Loading: TOML text or a file to a :class:`Recipe` (fail-closed), and the recipe sources
(packaged recipes, then extra folders)."""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

from gatecrawl.core.recipes.model import Recipe, RecipeError
from gatecrawl.core.recipes.schema import _SCHEMA, _TABLES

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,62}$")


def _flatten(src: str, data: dict) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key in _TABLES:
            if not isinstance(value, dict):
                raise RecipeError(src, key, "expected a table")
            for sub, subval in value.items():
                dotted = f"{key}.{sub}"
                if dotted not in _SCHEMA:
                    raise RecipeError(src, dotted, "unknown key")
                flat[dotted] = subval
        elif key in _SCHEMA:
            flat[key] = value
        else:
            raise RecipeError(src, key, "unknown key")
    return flat


def load_recipe_text(text: str, *, source: str, default_name: str | None = None) -> Recipe:
    """Parse and validate recipe TOML ``text``; ``source`` names the file in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(source, None, f"invalid TOML: {exc}") from None
    flat = _flatten(source, data)
    values: dict[str, Any] = {}
    for dotted, raw in flat.items():
        checker, fname, _ = _SCHEMA[dotted]
        values[fname] = checker(source, dotted, raw)
    name = values.get("name", default_name)
    if name is None:
        raise RecipeError(source, "name", "missing (and no file name to default to)")
    if not _NAME_RE.match(name):
        raise RecipeError(source, "name", f"must be lowercase letters, digits, '_' or '-': {name!r}")
    if default_name is not None and name != default_name:
        raise RecipeError(source, "name", f"must equal the file name {default_name!r}, got {name!r}")
    values["name"] = name
    if not values.get("allowed_domains"):
        hosts = sorted({urlsplit(u).hostname or "" for u in values.get("start_urls", ()) + values.get("sitemaps", ())} - {""})
        values["allowed_domains"] = tuple(hosts)
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    digest = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return Recipe(source=source, digest=digest, **values)


def load_recipe_file(path: str | Path) -> Recipe:
    """Load one recipe file; its stem is the spider name."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeError(str(p), None, f"cannot read: {exc}") from None
    return load_recipe_text(text, source=str(p), default_name=p.stem)


def iter_recipe_sources(extra_dirs: tuple[str, ...] = ()) -> Iterator[tuple[str, str, str]]:
    """Yield ``(name, source, text)`` for every recipe: the packaged recipes first
    (read with importlib.resources, so a zipped Scrapyd egg works), then each extra directory."""
    pkg = None
    # Installed (wheel or Scrapyd egg): the package gatecrawl.recipes; in the checkout: the
    # top-level recipes/ folder (setup.py maps one onto the other).
    for package in ("gatecrawl.recipes", "recipes"):
        try:
            pkg = importlib.resources.files(package)
            break
        except ModuleNotFoundError:
            continue
    if pkg is not None:
        for entry in sorted(pkg.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml"):
                yield entry.name[: -len(".toml")], f"recipes/{entry.name}", entry.read_text(encoding="utf-8")
    for d in extra_dirs:
        for p in sorted(Path(d).glob("*.toml")):
            yield p.stem, str(p), p.read_text(encoding="utf-8")
