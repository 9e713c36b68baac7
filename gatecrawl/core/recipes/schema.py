"""The recipe schema: dotted key -> (checker, ``Recipe`` field, description); defaults come from
the dataclass. ``RECIPE_KEYS`` (key -> description) is what the README's reference is checked
against."""

from __future__ import annotations

from gatecrawl.core.recipes.checks import (Checker, _bool, _choice, _css, _domain, _float, _int,
    _list, _regex, _str, _url)
from gatecrawl.core.recipes.model import RENDER_POLICIES
from gatecrawl.core.recipes.tables import (_PDF_KEYS, RENDER_BROWSER_KEYS, _browser_table,
    _json_path, _pdf_table, _render_rules, _settings_table)

_FIELDS = ("title", "date", "author", "description")


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
