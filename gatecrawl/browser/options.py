"""Browser options for one site: launch flags, context arguments and the readiness spec.

Everything that changes how a page renders is pinned here (viewport, locale, time zone,
device scale, reduced motion, colour scheme, blocked service workers), so that two renders
of the same page state give the same DOM.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import Any, Mapping

from gatecrawl.core.recipes import RENDER_BROWSER_KEYS, RESOURCE_TYPES

__all__ = ["BrowserOptions", "CHROMIUM_ARGS", "SYSTEM_CHROMIUM_PATHS", "SYSTEM_HEADLESS_SHELL_PATHS", "find_system_chromium", "launch_args"]

# Flags for a headless Chromium on a closed network: no background traffic to Google
# services, no component or field-trial downloads, no GPU, no QUIC.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-gpu",
    # The (software) GPU service as a thread of the browser process, not a process of its own
    # (~85 MB RSS less for the crawl's process tree, bench.crawl).
    "--in-process-gpu",
    "--disable-quic",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-dev-shm-usage",
    "--disable-field-trial-config",
    "--metrics-recording-only",
    "--no-pings",
    "--mute-audio",
    "--password-store=basic",
    "--use-mock-keychain",
    # T31: WebRTC may send no UDP that does not go through the proxy. The egress proxy carries no
    # UDP, so STUN/TURN over UDP, host candidates and their mDNS names are never sent; only TCP
    # through the proxy (checked by the egress policy) is left.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enforce-webrtc-ip-permission-check",
)
# (No --disable-features here: Playwright passes its own list, and a second flag would replace it.)

SYSTEM_CHROMIUM_PATHS: tuple[str, ...] = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/usr/bin/google-chrome",
)

_DEFAULT_MAIN = "main, article, [role=main], #root, #app, #__next, #__nuxt"


def launch_args(extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Launch flags: the pinned set, ``--no-sandbox`` when running as root (Chromium refuses
    to start its sandbox as root), then ``extra`` without duplicates."""
    args = list(CHROMIUM_ARGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    for a in extra:
        if a not in args:
            args.append(a)
    return args


#: Chromium's headless shell (Debian's ``chromium-headless-shell``): the headless-only build, with
#: no browser UI processes behind it; a headless crawl uses it when it is installed (bench.crawl,
#: 1,000 pages: the crawl's process tree peaks at about 0.97 GB RSS with it, 1.56 GB with the full
#: browser). The real binary, not Debian's /usr/bin wrapper script (a script between Playwright
#: and the browser would outlive a kill as an orphan).
SYSTEM_HEADLESS_SHELL_PATHS: tuple[str, ...] = (
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/lib/chromium-headless-shell/chromium-headless-shell",
)


def find_system_chromium(headless: bool = False) -> str | None:
    """The system Chromium to launch, else None: for a headless launch Chromium's headless shell
    when it is installed, then Debian's ``chromium`` package and the other usual places."""
    if headless:
        for p in SYSTEM_HEADLESS_SHELL_PATHS:
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    for p in SYSTEM_CHROMIUM_PATHS:
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return found


def _default(name: str) -> Any:
    value = RENDER_BROWSER_KEYS[name][1]
    return list(value) if isinstance(value, list) else value


@dataclass(frozen=True, kw_only=True)
class BrowserOptions:
    """The ``[render.browser]`` table of a recipe with every default filled in."""

    conditions: tuple[str, ...]
    main_selector: str
    min_main_text_chars: int
    pending_selector: str
    pending_heading_regex: str
    required_heading_regex: str | None
    network_idle_ms: int
    network_idle_cap_ms: int
    stability_window_ms: int
    readiness_poll_interval_ms: int
    scroll_max_steps: int
    scroll_step_wait_ms: int
    max_render_time_ms: int
    give_up_after_quiet_ms: int
    viewport_width: int
    viewport_height: int
    locale: str
    timezone: str
    allow_resources: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_table(cls, table: Mapping[str, Any] | None, main_selectors: tuple[str, ...] = ()) -> BrowserOptions:
        """Options from a validated ``[render.browser]`` table (``Recipe.render``)."""
        t = dict(table or {})
        values = {name: t.get(name, _default(name)) for name in RENDER_BROWSER_KEYS}
        if not values["main_selector"]:
            values["main_selector"] = ", ".join(main_selectors) if main_selectors else _DEFAULT_MAIN
        values["conditions"] = tuple(values["conditions"])
        values["allow_resources"] = tuple(values["allow_resources"])
        return cls(**values)

    @classmethod
    def from_recipe(cls, recipe: Any) -> BrowserOptions:
        return cls.from_table(getattr(recipe, "render", None), tuple(getattr(recipe, "main_selectors", ()) or ()))

    @property
    def blocked_resources(self) -> frozenset[str]:
        return frozenset(RESOURCE_TYPES) - set(self.allow_resources)

    def context_kwargs(self) -> dict[str, Any]:
        """Arguments for ``browser.new_context``: pinned for reproducible renders."""
        return {
            "viewport": {"width": self.viewport_width, "height": self.viewport_height},
            "screen": {"width": self.viewport_width, "height": self.viewport_height},
            "device_scale_factor": 1,
            "locale": self.locale,
            "timezone_id": self.timezone,
            "color_scheme": "light",
            "reduced_motion": "reduce",
            "service_workers": "block",
            "java_script_enabled": True,
            "accept_downloads": False,
        }

    def summary(self) -> dict[str, Any]:
        """What the packet records about the browser setup."""
        return {
            "conditions": list(self.conditions),
            "main_selector": self.main_selector,
            "viewport": [self.viewport_width, self.viewport_height],
            "locale": self.locale,
            "timezone": self.timezone,
            "max_render_time_ms": self.max_render_time_ms,
            "give_up_after_quiet_ms": self.give_up_after_quiet_ms,
            "stability_window_ms": self.stability_window_ms,
            "blocked_resources": sorted(self.blocked_resources),
        }
