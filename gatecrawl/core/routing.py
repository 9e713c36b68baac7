"""Render routing learned per URL template, from validated outcomes only.

A page's *template* is its host and path with the variable parts generalised (numbers ``{n}``,
identifiers ``{id}``, slugs ``{slug}``; the query left out): ``/p/3/17`` and ``/p/5/2`` are both
``/p/{n}/{n}``; ``/blog/choosing-a-reader`` is ``/blog/{slug}``.

What is learned, per template, from the pages a run **kept** (validated; a drop, a fetch failure, a
timeout or a render that did not get ready teaches nothing):

- ``browser``: kept through the browser because the plain fetch was a shell (escalated for a shell,
  or routed straight to the browser);
- ``plain``: kept from the plain fetch (never flagged, or escalated while the plain capture passed).
  Pages rendered because the recipe forces it teach nothing.

After each run, for each template the run observed: any ``plain`` page sets ``browser`` to 0 and
``plain`` to the larger of its count and this run's ``plain`` pages; otherwise ``browser`` becomes
the larger of its count and this run's ``browser`` pages, and ``plain`` goes to 0. Both are capped at
``min_observations``. Taking the larger (not the sum) keeps the model unchanged on an unchanged site
(and on a recrawl whose pages mostly answered 304, which teach nothing). A template whose
``browser`` count reached ``min_observations`` (and ``plain`` is 0) is **render-only**: its pages go
straight to the browser, with no plain fetch, except a share (``recheck_share``, chosen by a hash of
the URL's path and query, so the same pages every run) that still takes the plain path and the shell
check: a template that turned static is noticed there (a ``plain`` observation ends the routing, and
counts as a misprediction).

Pure: no Scrapy imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Mapping
from urllib.parse import urlsplit

from gatecrawl.store.keys import routing_key  # noqa: F401 - re-exported: keys live in store.keys
from gatecrawl.core.reasons import SHELL_ESCALATIONS

__all__ = ["ROUTING_VERSION", "RoutingModel", "observation", "routing_key", "url_template"]

ROUTING_VERSION = "gatecrawl.routing/1"
_NUM = re.compile(r"^\d+$")
_HEXID = re.compile(r"^(?=.*\d)[0-9a-fA-F]{8,}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HAS_DIGIT = re.compile(r"\d")
_SLUG = re.compile(r"^[^\W_]+(?:[-_][^\W_]+)+$")


def _segment(seg: str) -> str:
    if not seg:
        return seg
    stem, dot, ext = seg.rpartition(".")
    if not dot or not re.fullmatch(r"[A-Za-z0-9]{1,5}", ext) or not stem:
        stem, ext = seg, ""
    if _NUM.match(stem):
        out = "{n}"
    elif _HEXID.match(stem) or (_HAS_DIGIT.search(stem) and not _SLUG.match(stem)):
        out = "{id}"
    elif _SLUG.match(stem) or len(stem) >= 24:
        out = "{slug}"
    else:
        out = stem
    return out + (f".{ext}" if ext else "")


def url_template(url: str) -> str:
    """``host/path`` with numbers, identifiers and slugs generalised (see the module docstring)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    host = (parts.hostname or "").lower()
    path = "/".join(_segment(s) for s in (parts.path or "/").split("/"))
    return host + (path if path.startswith("/") else "/" + path)


def observation(packet: Mapping[str, Any]) -> str | None:
    """What a stored page teaches: ``browser``, ``plain`` or None (not validated, or forced)."""
    if packet.get("outcome") != "kept":
        return None
    reader = packet.get("reader")
    reason = packet.get("escalation_reason")
    if reader == "render":
        return "browser" if reason in SHELL_ESCALATIONS else None
    if reader in ("pdf", None):
        return None  # PDFs never go to the browser
    # Kept from the plain fetch (reader http, or a reader of its body such as embedded data):
    # the browser was not needed, unless the capture kept is not the plain one.
    choice = packet.get("capture_choice") or {}
    if packet.get("escalated_from") and choice.get("kept") != "plain":
        return None
    return "plain"


class RoutingModel:
    def __init__(self, templates: Mapping[str, Mapping[str, int]] | None = None, *, min_observations: int = 5, recheck_share: float = 0.1) -> None:
        self.min_observations = max(1, int(min_observations))
        self.recheck_share = min(1.0, max(0.0, float(recheck_share)))
        self.templates: dict[str, dict[str, int]] = {
            str(t): {"browser": int(v.get("browser", 0) or 0), "plain": int(v.get("plain", 0) or 0)}
            for t, v in (templates or {}).items()
            if isinstance(v, Mapping)
        }
        self._run: dict[str, list[int]] = {}

    @classmethod
    def loads(cls, data: bytes | None, **kw: Any) -> "RoutingModel":
        doc: Any = None
        if data:
            try:
                doc = json.loads(data)
            except ValueError:
                doc = None
        templates = doc.get("templates") if isinstance(doc, dict) and doc.get("schema_version") == ROUTING_VERSION else None
        return cls(templates if isinstance(templates, dict) else None, **kw)

    def render_only(self, url: str) -> bool:
        """True when the URL's template always needed the browser (as the run started)."""
        t = self.templates.get(url_template(url))
        return bool(t) and t["browser"] >= self.min_observations and t["plain"] == 0  # type: ignore[index]

    def plain_only(self, url: str) -> bool:
        """True when the URL's template never needed the browser (``min_observations`` pages read
        plain, none through the browser): the downloader need not score its pages, the converter
        computes the same fetch verdict off the reactor thread."""
        t = self.templates.get(url_template(url))
        return bool(t) and t["plain"] >= self.min_observations and t["browser"] == 0  # type: ignore[index]

    def recheck(self, url: str) -> bool:
        """True for the share of URLs that take the plain path although their template is
        render-only (the same URLs every run: a hash of the path and query)."""
        try:
            parts = urlsplit(url)
            tail = parts.path + ("?" + parts.query if parts.query else "")
        except ValueError:
            tail = url
        h = int(hashlib.sha256(tail.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16)
        return (h % 10_000) < round(self.recheck_share * 10_000)

    def observe(self, url: str, kind: str | None) -> None:
        if kind not in ("browser", "plain"):
            return
        counts = self._run.setdefault(url_template(url), [0, 0])
        counts[0 if kind == "browser" else 1] += 1

    def updated(self) -> "RoutingModel":
        """The model after this run's observations (see the module docstring)."""
        cap = self.min_observations
        templates = {t: dict(v) for t, v in self.templates.items()}
        for t, (b, p) in self._run.items():
            old = templates.get(t, {"browser": 0, "plain": 0})
            if p:
                templates[t] = {"browser": 0, "plain": min(cap, max(old["plain"], p))}
            else:
                templates[t] = {"browser": min(cap, max(old["browser"], b)), "plain": 0}
        return RoutingModel(templates, min_observations=self.min_observations, recheck_share=self.recheck_share)

    def dumps(self) -> bytes:
        doc = {"schema_version": ROUTING_VERSION, "min_observations": self.min_observations, "templates": dict(sorted(self.templates.items()))}
        return (json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
