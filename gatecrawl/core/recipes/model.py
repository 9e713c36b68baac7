"""The validated recipe (:class:`Recipe`, defaults in its fields), its render rules and the
loading error."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

RENDER_POLICIES = ("auto", "force", "skip")


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
