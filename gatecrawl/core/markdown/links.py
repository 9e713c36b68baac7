"""Link and image targets: the document's base URL and the safe (http, https, mailto) targets."""

from __future__ import annotations

import functools
import re
from urllib.parse import urljoin, urlsplit

import lxml.etree

_SAFE_SCHEMES = ("http", "https", "mailto")


_CONTROL_RUNS = re.compile(r"[\x00-\x20\x7f]+")


@functools.lru_cache(maxsize=4096)
def _safe_url(raw: str | None, base: str) -> str | None:
    """The target written for ``raw`` (an href or src) on a page whose base URL is ``base``, or
    None when it is not an http, https or mailto target. Pure, cached: a page repeats links."""
    if not raw:
        return None
    raw = _CONTROL_RUNS.sub(lambda m: "" if m.start() == 0 else " ", raw.strip())
    raw = raw.strip()
    if not raw:
        return None
    try:
        url = urljoin(base, raw) if base else raw
        scheme = urlsplit(url).scheme.lower()
    except (ValueError, TypeError):
        return None
    if scheme not in _SAFE_SCHEMES:
        return None
    return (
        url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
        .replace("<", "%3C").replace(">", "%3E").replace("\\", "%5C")
    )


def _find_base(root: lxml.etree._Element, base_url: str) -> str:
    href = root.get("data-gc-base")
    if not href:
        for b in root.getroottree().getroot().iter("base"):
            if b.get("href"):
                href = b.get("href")
                break
    if href:
        try:
            return urljoin(base_url or "", href.strip())
        except ValueError:
            return base_url or ""
    return base_url or ""
