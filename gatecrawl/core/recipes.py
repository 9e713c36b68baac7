"""Site recipes: one TOML file per site, validated strictly when loaded.

A recipe says where to start, what to follow, where the main content is and how strict
to be. Every key has a default, so a recipe can be as short as::

    start_urls = ["https://example.com/"]

Loading is fail-closed: an unknown key, a wrong type, a bad regex, a bad URL or a bad
CSS selector raises :class:`RecipeError` naming the file, the dotted key and the reason.
The schema below (``_SCHEMA``) is the single source of truth; the README's recipe
reference table is checked against it by the tests.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

__all__ = [
    "Recipe",
    "RecipeError",
    "RenderRule",
    "load_recipe_file",
    "load_recipe_text",
    "iter_recipe_sources",
    "RECIPE_KEYS",
    "RENDER_BROWSER_KEYS",
]

RENDER_POLICIES = ("auto", "force", "skip")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,62}$")


class RecipeError(ValueError):
    """A recipe could not be loaded. The message names the file, the key and the reason."""

    def __init__(self, source: str, key: str | None, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        where = f"{source}: key '{key}'" if key else source
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class RenderRule:
    """A render policy applied to URLs matching ``pattern`` (a regex searched in the URL)."""

    pattern: str
    policy: str


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """A validated site recipe. Build it with :func:`load_recipe_file` / :func:`load_recipe_text`."""

    name: str
    source: str
    digest: str
    start_urls: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    # [follow]
    follow_enabled: bool = True
    follow_allow: tuple[str, ...] = ()
    follow_deny: tuple[str, ...] = ()
    max_depth: int = 5
    max_pages: int = 1000
    sitemap_lastmod: bool = False
    # [content]
    main_selectors: tuple[str, ...] = ()
    exclude_selectors: tuple[str, ...] = ()
    keep_comments: bool = False
    page_type: str | None = None
    keep_bylines: bool = False
    keep_captions: bool = False
    # [render]
    render_policy: str = "auto"
    render_rules: tuple[RenderRule, ...] = ()
    render: dict[str, Any] = field(default_factory=dict)
    # [embedded]
    embedded_enabled: bool = True
    embedded_paths: tuple[str, ...] = ()
    # [gate]
    gate_min_chars: int = 200
    gate_min_unique_word_ratio: float = 0.3
    gate_max_boilerplate_share: float = 0.6
    gate_required_fields: tuple[str, ...] = ("title",)
    gate_min_score: int = 3
    # [validation]
    min_markdown_chars: int = 200
    min_headings: int = 0
    max_boilerplate_ratio: float = 0.5
    links_confirmed_are_content: bool = True
    required_fields: tuple[str, ...] = ("title",)
    expected_heading_pattern: str | None = None
    wrong_route_markers: tuple[str, ...] = ()
    canonical_check: str = "error_routes"
    not_found_probe: bool = True
    strict_heading_hierarchy: bool = False
    # [pdf]
    pdf: dict[str, Any] = field(default_factory=dict)
    # [settings]
    settings: dict[str, Any] = field(default_factory=dict)

    def render_policy_for(self, url: str) -> tuple[str, str]:
        """Return ``(policy, origin)`` for ``url``: the first matching rule wins, else the recipe default."""
        for rule in self.render_rules:
            if re.search(rule.pattern, url):
                return rule.policy, f"rule:{rule.pattern}"
        return self.render_policy, "recipe"

    def with_overrides(self, **changes: Any) -> "Recipe":
        """A copy with some fields replaced (spider arguments for one run)."""
        from dataclasses import replace

        return replace(self, **changes)


# ---------------------------------------------------------------------------
# Schema: dotted key -> (checker, dataclass field, default, description)
# ---------------------------------------------------------------------------

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


_FIELDS = ("title", "date", "author", "description")


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


# dotted key: (checker, field name, description). Defaults come from the dataclass.
_SCHEMA: dict[str, tuple[Checker, str, str]] = {
    "name": (_str, "name", "Spider name; defaults to the file stem and must equal it."),
    "start_urls": (_list(_url), "start_urls", "Absolute http(s) URLs to start from."),
    "sitemaps": (_list(_url), "sitemaps", "Sitemap URLs (XML, sitemap index or robots.txt) whose URLs are crawled."),
    "allowed_domains": (_list(_domain), "allowed_domains", "Hosts the crawl may visit; default: the hosts of the start URLs and sitemaps."),
    "follow.enabled": (_bool, "follow_enabled", "Follow links found on pages."),
    "follow.allow": (_list(_regex), "follow_allow", "Regexes; when set, only matching URLs are followed."),
    "follow.deny": (_list(_regex), "follow_deny", "Regexes; matching URLs are never followed."),
    "follow.max_depth": (_int(0, 100), "max_depth", "Maximum link depth from a start URL (0: start URLs only)."),
    "follow.max_pages": (_int(1, 10_000_000), "max_pages", "Maximum number of pages requested in one run."),
    "follow.sitemap_lastmod": (_bool, "sitemap_lastmod", "Changed-only recrawls: a sitemap URL whose lastmod is not after the stored copy's last check is not fetched (its stored objects stand, recorded as unchanged)."),
    "content.main_selectors": (_list(_css), "main_selectors", "CSS selectors for the main content, in priority order."),
    "content.exclude_selectors": (_list(_css), "exclude_selectors", "CSS selectors removed from the main content."),
    "content.keep_comments": (_bool, "keep_comments", "Keep comment sections in the main content."),
    "content.page_type": (_choice("article", "documentation", "forum", "listing", "product", "service"), "page_type", "Pin the page type that chooses the extraction profile (default: detected per page from structured data and structure)."),
    "content.keep_bylines": (_bool, "keep_bylines", "Keep byline, dateline and standfirst blocks in the Markdown even where the second-opinion extractor leaves them out (default: such blocks go to the packet's set_aside)."),
    "content.keep_captions": (_bool, "keep_captions", "Keep image captions in the Markdown even where the second-opinion extractor leaves them out (default: such captions go to the packet's set_aside)."),
    "render.policy": (_choice(*RENDER_POLICIES), "render_policy", "auto: render shells only; force: always render; skip: never render."),
    "render.rules": (_render_rules, "render_rules", "Per-URL overrides: [[render.rules]] pattern = regex, policy = auto|force|skip."),
    "render.browser": (_browser_table, "render", "Browser and readiness options, validated key by key (RENDER_BROWSER_KEYS; see the browser section of the README)."),
    "embedded.enabled": (_bool, "embedded_enabled", "Read a shell's content from the data embedded in its first response (__NEXT_DATA__, __NUXT_DATA__, window.__*__ assignments, JSON-LD) before rendering it; the render is skipped only when that content passes the gate and validation."),
    "embedded.paths": (_list(_json_path), "embedded_paths", "JSON paths of the content in the embedded data (e.g. props.pageProps.post or items[0][\"Post:1\"]), tried in order instead of the structural choice."),
    "gate.min_chars": (_int(0, 10_000_000), "gate_min_chars", "Check 1: minimum body text characters after boilerplate removal."),
    "gate.min_unique_word_ratio": (_float(0.0, 1.0), "gate_min_unique_word_ratio", "Check 2: minimum unique words / words."),
    "gate.max_boilerplate_share": (_float(0.0, 1.0), "gate_max_boilerplate_share", "Check 3: maximum share of page text inside nav/header/footer/aside and banners."),
    "gate.required_fields": (_list(_choice(*_FIELDS)), "gate_required_fields", "Check 4: fields that must be present (title, date, author, description)."),
    "gate.min_score": (_int(0, 4), "gate_min_score", "Score (0-4) below which a page fails the gate."),
    "validation.min_markdown_chars": (_int(0, 10_000_000), "min_markdown_chars", "Minimum characters of Markdown for a page to be kept."),
    "validation.min_headings": (_int(0, 10_000), "min_headings", "Minimum number of headings in the Markdown."),
    "validation.max_boilerplate_ratio": (_float(0.0, 1.0), "max_boilerplate_ratio", "Maximum share of the extraction's text that is link text (menus, link lists, hubs)."),
    "validation.links_confirmed_are_content": (_bool, "links_confirmed_are_content", "A link-heavy extraction is a listing, not boilerplate, when the independent extractor keeps at least 60% of its text as main content."),
    "validation.required_fields": (_list(_choice(*_FIELDS)), "required_fields", "Fields that must be found for a page to be kept."),
    "validation.expected_heading_pattern": (_regex, "expected_heading_pattern", "Regex that at least one heading must match (case-insensitive)."),
    "validation.wrong_route_markers": (_list(_str), "wrong_route_markers", "Extra phrases that mark a wrong route (soft 404) when found in the title or first heading."),
    "validation.canonical_check": (_choice("off", "error_routes", "strict"), "canonical_check", "off; error_routes: drop when the canonical URL points at an error/login route; strict: drop on any canonical path mismatch."),
    "validation.not_found_probe": (_bool, "not_found_probe", "Fetch one made-up URL per host and drop pages that match its answer (the host's 'not found' template) as soft_404."),
    "validation.strict_heading_hierarchy": (_bool, "strict_heading_hierarchy", "Drop pages whose headings skip levels (e.g. # then ###)."),
    "pdf": (_pdf_table, "pdf", "PDF reader limits: timeout_s, max_pages, max_memory_mb, max_bytes, min_text_page_share, ocr, allow_partial, min_confidence (see the PDF section of the README)."),
    "settings": (_settings_table, "settings", "Per-site Scrapy settings (politeness, concurrency), applied at spider priority."),
}

_TABLES = {"follow", "content", "render", "embedded", "gate", "validation"}
_OPEN_TABLES = {"pdf", "settings"}

RECIPE_KEYS: dict[str, str] = {k: v[2] for k, v in _SCHEMA.items() if k not in ("render.browser", "pdf")}
RECIPE_KEYS.update({f"render.browser.{k}": v[2] for k, v in RENDER_BROWSER_KEYS.items()})
RECIPE_KEYS.update({f"pdf.{k}": "PDF reader limit" for k in _PDF_KEYS})


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
