"""Checkers of the nested tables and lists: ``[settings]`` (security settings refused),
``render.browser``, ``[pdf]``, embedded JSON paths and ``[[render.rules]]``."""

from __future__ import annotations

import re
from typing import Any

from gatecrawl.core.recipes.checks import (Checker, _bool, _choice, _css, _float, _int, _list,
    _regex, _str)
from gatecrawl.core.recipes.model import RENDER_POLICIES, RecipeError, RenderRule

# Recipes are site configuration, not security policy (issue 15): settings of egress, robots,
# credentials, redaction, and of the component lists that carry them, are refused in [settings].
# GATECRAWL_EGRESS_ADMIT_START_URLS stays allowed: the demo recipe admits its own loopback server.
_SECURITY_PREFIXES = (
    "GATECRAWL_EGRESS_",
    "GATECRAWL_ROBOTS_",
    "ROBOTSTXT_",
    "GATECRAWL_REDACTION_",
    "GATECRAWL_S3_",
    "AWS_",
    "HTTPPROXY_",
    "HTTPAUTH_",
    "TELNETCONSOLE_",
    "REMOTE_CONTROL_",
    "DOWNLOADER_MIDDLEWARES",
    "SPIDER_MIDDLEWARES",
    "EXTENSIONS",
    "ITEM_PIPELINES",
    "DOWNLOAD_HANDLERS",
    "ADDONS",
    "PLAYWRIGHT_LAUNCH_OPTIONS",
    "PLAYWRIGHT_BROWSER_PROVIDER",
    "PLAYWRIGHT_PROCESS_REQUEST_HEADERS",
    "PLAYWRIGHT_CDP_",
    "PLAYWRIGHT_CONTEXTS",
)
_SECURITY_NAMES = frozenset({"TWISTED_DNS_RESOLVER", "DNS_RESOLVER", "COOKIES_DEBUG", "GCS_PROJECT_ID"})
_SECURITY_ALLOWED = frozenset({"GATECRAWL_EGRESS_ADMIT_START_URLS"})


def is_security_setting(name: str) -> bool:
    """True for settings a recipe may not set: egress, robots, credentials, redaction."""
    if name in _SECURITY_ALLOWED:
        return False
    return name in _SECURITY_NAMES or name.startswith(_SECURITY_PREFIXES)


def _settings_table(src: str, key: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise RecipeError(src, key, "expected a table")
    for name in v:
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            raise RecipeError(src, f"{key}.{name}", "Scrapy setting names are UPPER_SNAKE_CASE")
        if name.startswith("GATECRAWL_STORE") or name in ("SPIDER_LOADER_CLASS", "TWISTED_REACTOR"):
            raise RecipeError(src, f"{key}.{name}", "this setting cannot be set per recipe")
        if is_security_setting(name):
            raise RecipeError(src, f"{key}.{name}", "a security setting (egress, robots, credentials, redaction) cannot be set per recipe; set it for the run (-s or settings.py)")
    return dict(v)


def _open_table(src: str, key: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise RecipeError(src, key, "expected a table")
    return dict(v)


# [render.browser]: browser and readiness options. key -> (checker, default, description).
# Only the keys a recipe sets are stored in ``Recipe.render``; gatecrawl.browser merges the defaults.
READINESS_CONDITIONS = ("selector", "heading", "network_idle", "stability", "scroll")
RESOURCE_TYPES = ("image", "font", "media")
RENDER_BROWSER_KEYS: dict[str, tuple[Checker, Any, str]] = {
    "conditions": (_list(_choice(*READINESS_CONDITIONS)), ["selector", "stability"], "Readiness conditions that must all hold: selector (A), heading (B), network_idle (C), stability (D), scroll (E)."),
    "main_selector": (_css, None, "CSS selector of the main container watched by readiness; default: content.main_selectors, else main/article/[role=main]/app roots."),
    "min_main_text_chars": (_int(0, 10_000_000), 200, "A: the main container's visible text must have at least this many characters."),
    "pending_selector": (_css, '[aria-busy="true"], .skeleton, .loading, [data-loading]', "A: while the main container holds a match (a loading skeleton), it is not ready."),
    "pending_heading_regex": (_regex, r"^\s*(404\b|page not found|not found\b|loading\b|please wait)", "A: while the main container's first heading or first words match (a 404 template or a spinner), it is not ready."),
    "required_heading_regex": (_regex, None, "B: an h1-h3 must match this regex (case-insensitive); needed when conditions has heading."),
    "network_idle_ms": (_int(50, 60_000), 500, "C: no request started or finished for this long."),
    "network_idle_cap_ms": (_int(0, 600_000), 3000, "C: after this long the condition counts as met (recorded as capped): never requires a fully idle network."),
    "stability_window_ms": (_int(0, 60_000), 500, "D: the main container's text hash must stay unchanged this long."),
    "readiness_poll_interval_ms": (_int(10, 10_000), 100, "How often the readiness probe runs in the page."),
    "scroll_max_steps": (_int(1, 1000), 10, "E: at most this many scroll steps."),
    "scroll_step_wait_ms": (_int(10, 60_000), 300, "E: wait after each scroll step before measuring growth."),
    "max_render_time_ms": (_int(500, 600_000), 10_000, "Budget for navigation plus readiness; when exceeded the page fails with readiness_timeout."),
    "give_up_after_quiet_ms": (_int(0, 600_000), 3000, "A/B: when the content is still missing and the page has gone quiet (no request in flight, none started or finished, the container's text unchanged) for this long, readiness ends early (settled:<conditions>, readiness_timeout) instead of waiting out max_render_time_ms; 0: never."),
    "viewport_width": (_int(200, 10_000), 1280, "Browser viewport width (CSS pixels)."),
    "viewport_height": (_int(200, 10_000), 800, "Browser viewport height (CSS pixels)."),
    "locale": (_str, "en-US", "Browser locale (navigator.language, Accept-Language)."),
    "timezone": (_str, "UTC", "Browser time zone (IANA name)."),
    "allow_resources": (_list(_choice(*RESOURCE_TYPES)), [], "Resource types to load; image, font and media requests are aborted unless listed."),
}


def _browser_table(src: str, key: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise RecipeError(src, key, "expected a table")
    out: dict[str, Any] = {}
    for name, raw in v.items():
        if name not in RENDER_BROWSER_KEYS:
            raise RecipeError(src, f"{key}.{name}", "unknown key")
        checked = RENDER_BROWSER_KEYS[name][0](src, f"{key}.{name}", raw)
        out[name] = list(checked) if isinstance(checked, tuple) else checked
    conds = out.get("conditions", RENDER_BROWSER_KEYS["conditions"][1])
    if "heading" in conds and not out.get("required_heading_regex"):
        raise RecipeError(src, f"{key}.conditions", "'heading' needs render.browser.required_heading_regex")
    if not conds:
        raise RecipeError(src, f"{key}.conditions", "at least one readiness condition is needed")
    return out


_PDF_KEYS: dict[str, Checker] = {
    "timeout_s": _float(0.1, 3600.0),
    "max_pages": _int(1, 1_000_000),
    "max_memory_mb": _int(16, 1_000_000),
    "max_bytes": _int(1, 2**40),
    "min_text_page_share": _float(0.0, 1.0),
    "ocr": _bool,
    "allow_partial": _bool,
    "min_confidence": _float(0.0, 1.0),
}


def _pdf_table(src: str, key: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise RecipeError(src, key, "expected a table")
    out = {}
    for name, value in v.items():
        if name not in _PDF_KEYS:
            raise RecipeError(src, f"{key}.{name}", "unknown key")
        out[name] = _PDF_KEYS[name](src, f"{key}.{name}", value)
    return out


def _json_path(src: str, key: str, v: Any) -> str:
    from gatecrawl.core.embedded import PathError, parse_path

    v = _str(src, key, v)
    try:
        parse_path(v)
    except PathError as exc:
        raise RecipeError(src, key, f"bad JSON path {v!r}: {exc}") from None
    return v


def _render_rules(src: str, key: str, v: Any) -> tuple:
    if not isinstance(v, list):
        raise RecipeError(src, key, "expected an array of tables ([[render.rules]])")
    rules = []
    for i, r in enumerate(v):
        k = f"{key}[{i}]"
        if not isinstance(r, dict):
            raise RecipeError(src, k, "expected a table with 'pattern' and 'policy'")
        unknown = sorted(set(r) - {"pattern", "policy"})
        if unknown:
            raise RecipeError(src, f"{k}.{unknown[0]}", "unknown key")
        if "pattern" not in r or "policy" not in r:
            raise RecipeError(src, k, "needs both 'pattern' and 'policy'")
        rules.append(
            RenderRule(
                _regex(src, f"{k}.pattern", r["pattern"]),
                _choice(*RENDER_POLICIES)(src, f"{k}.policy", r["policy"]),
            )
        )
    return tuple(rules)
