"""Link and image targets: the document's base URL and the safe (http, https, mailto) targets."""

from __future__ import annotations

import functools
import re
from urllib.parse import urljoin, urlparse, urlsplit, urlunparse

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


#: an http(s) target ``urljoin`` gives back as it is, whatever the base: an ASCII host without
#: brackets, a path without ``;``, a query and a fragment that are not empty when present, no
#: blank or control character (the first and last characters are ASCII: nothing to strip)
_PLAIN_ABSOLUTE = re.compile(
    r"https?://[A-Za-z0-9.\-_~!$&'()*+,=:@%]+(?:/[^?#;\x00-\x20\x7f]*)?"
    r"(?:\?[^#\x00-\x20\x7f]+)?(?:#[^\x00-\x20\x7f]+)?\Z")
#: a root-relative target ``urljoin`` appends to the base's ``scheme://host`` as it is (the same
#: conditions; no ``.`` or ``..`` segment)
_PLAIN_ROOTED = re.compile(
    r"/(?!/)[^?#;\x00-\x20\x7f]*(?:\?[^#\x00-\x20\x7f]+)?(?:#[^\x00-\x20\x7f]+)?\Z")
_DOT_SEGMENT = re.compile(r"/\.\.?(?=[/?#]|\Z)")
#: a same-document target: ``urljoin`` puts it on the base without its fragment
_PLAIN_FRAGMENT = re.compile(r"#[^\x00-\x20\x7f]+\Z")


class Targets:
    """The safe targets of one page (base URL ``base``): :func:`_safe_url`, with the three common
    kinds of target, a plain absolute http(s) URL, a plain root-relative path and a fragment,
    written without ``urljoin`` (the same string: ``tests/test_markdown_links.py``)."""

    __slots__ = ("base", "_plain", "_root", "_here")

    def __init__(self, base: str) -> None:
        self.base = base
        self._root = self._here = None
        try:
            parts = urlparse(base) if base else None
        except ValueError:
            self._plain = False  # urljoin raises on this base: every target is refused
            return
        self._plain = True
        if parts is not None and parts.scheme in ("http", "https") and parts.netloc:
            self._root = parts.scheme + "://" + parts.netloc
            self._here = urlunparse(parts._replace(fragment=""))

    def url(self, raw: str | None) -> str | None:
        """``_safe_url(raw, base)``."""
        if raw and self._plain and not raw[-1].isspace():
            if _PLAIN_ABSOLUTE.match(raw):
                url = raw
            elif self._root is None:
                return _safe_url(raw, self.base)
            elif _PLAIN_ROOTED.match(raw) and not _DOT_SEGMENT.search(raw):
                url = self._root + raw
            elif _PLAIN_FRAGMENT.match(raw):
                url = self._here + raw
            else:
                return _safe_url(raw, self.base)
            return (url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
                    .replace("<", "%3C").replace(">", "%3E").replace("\\", "%5C"))
        return _safe_url(raw, self.base)


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
