"""Settings that may come from the environment, and the list forms gatecrawl accepts.

``gatecrawl/settings.py`` takes the defaults of :data:`ENV_SETTINGS` from environment variables
of the same name when they are set (project priority: ``-s NAME=value``, spider arguments and
Scrapyd's ``setting=`` still win). ``GATECRAWL_EGRESS_ALLOW`` is not one of them: its variable
*adds* entries to the setting (:func:`gatecrawl.egress.policy.env_allow_entries`).

List settings accept what Scrapy users write for them: a Python list (settings module), a
comma-separated string (``-s NAME=a,b``) or a JSON list (``-s NAME='["a", "b"]'``).
"""

from __future__ import annotations

import json
import os
from typing import Any

# name -> kind ("str" or "dirs": a list of folders, also os.pathsep-separated)
ENV_SETTINGS = {
    "GATECRAWL_STORE_URI": "str",
    "GATECRAWL_SPOOL_DIR": "str",
    "GATECRAWL_RECIPES_DIRS": "dirs",
    "GATECRAWL_RUN_ID": "str",
    "GATECRAWL_REDIS_URL": "str",
    "GATECRAWL_CRAWL_ID": "str",
}


class SettingValueError(ValueError):
    """A setting's value cannot be read; the message names the setting."""


def parse_list(value: Any, name: str = "setting", *, separators: str = ",") -> list[str]:
    """A list setting's entries: a list/tuple as it is, a JSON list, or a string split on any of
    ``separators``; entries stripped, empty ones left out."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        items = list(value)
    elif isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SettingValueError(f"{name}: not a JSON list ({exc.msg} at character {exc.pos}): {value!r}") from None
            if not isinstance(items, list):
                raise SettingValueError(f"{name}: expected a JSON list of strings, got {value!r}")
        else:
            for sep in separators[1:]:
                text = text.replace(sep, separators[0])
            items = text.split(separators[0]) if separators else [text]
    else:
        raise SettingValueError(f"{name}: expected a list or a comma-separated string, got {type(value).__name__}")
    out = []
    for item in items:
        if not isinstance(item, str):
            raise SettingValueError(f"{name}: every entry must be a string, got {item!r}")
        if item.strip():
            out.append(item.strip())
    return out


def setting_list(settings: Any, name: str, *, separators: str = ",") -> list[str]:
    """``settings[name]`` as a list (see :func:`parse_list`)."""
    return parse_list(settings.get(name), name, separators=separators)


def env_default(name: str, default: Any, environ: Any = None) -> Any:
    """The default of setting ``name``: its environment variable when set and not empty."""
    env = os.environ if environ is None else environ
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    if ENV_SETTINGS.get(name) == "dirs":
        return parse_list(raw, name, separators="," + os.pathsep)
    return raw.strip()
