"""Per-host "not found" fingerprints: soft 404 pages that say nothing like "not found".

Before judging pages of a host, the crawl asks the host for one URL that cannot exist
(:func:`probe_path`). A host that answers it with 200 and a page shows what its "not found"
template looks like. :func:`fingerprint` reduces a page to two sets:

- ``text``: hashed word 3-shingles of the page's extracted main content (the Markdown), with
  the words of the page's own URL path left out (templates often echo the requested path);
- ``skeleton``: a multiset of DOM tag paths (``html/body/div/main/p``), the page's structure.

:func:`compare` gives both similarities (weighted Jaccard, 0..1). A page *matches* the host's
template when both reach their thresholds (:data:`TEXT_THRESHOLD`, :data:`SKELETON_THRESHOLD`):
a real page shares the template's chrome (header, menus, footer: the skeleton may be close)
but its main content is its own, so the text similarity stays low. The thresholds were
measured on the wcxb-dev corpus (``tests/test_soft404.py`` pins them): every real page against
a "not found" template wrapped in that page's own chrome.

A probe whose extracted text is almost empty (an SPA shell, a blank page) gives no usable
fingerprint (:func:`usable`): empty matches empty, and shells are the renderer's business.
Pure functions; no Scrapy.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any, Iterable, Mapping
from urllib.parse import unquote, urlsplit

from lxml.html import HtmlElement

__all__ = [
    "FINGERPRINT_VERSION",
    "TEXT_THRESHOLD",
    "SKELETON_THRESHOLD",
    "MIN_PROBE_WORDS",
    "probe_path",
    "fingerprint",
    "usable",
    "compare",
    "match",
    "fingerprint_page",
]

FINGERPRINT_VERSION = "1"
TEXT_THRESHOLD = 0.3  # weighted Jaccard of the main-content shingles (wcxb-dev: real pages <= 0.16, templates >= 0.38)
SKELETON_THRESHOLD = 0.6  # weighted Jaccard of the DOM tag paths
MIN_PROBE_WORDS = 4  # a probe with fewer words of main content gives no fingerprint
SHINGLE = 3
_MAX_ITEMS = 4000  # bound the work on huge pages: first N shingles / elements

_WORD = re.compile(r"\w+", re.U)
_SKIP_TAGS = {"script", "style", "noscript", "template", "svg", "path", "meta", "link"}


def probe_path(run_id: str, host: str) -> str:
    """A path that cannot exist on ``host``: stable for one run, different across runs."""
    digest = hashlib.sha256(f"gatecrawl-not-found-probe\x00{run_id}\x00{host.lower()}".encode("utf-8")).hexdigest()
    return f"/gatecrawl-probe-{digest[:12]}/{digest[12:28]}"


def _url_words(url: str) -> set[str]:
    path = unquote(urlsplit(url).path or "")
    return {w.lower() for w in _WORD.findall(path)}


def _h(s: str) -> str:
    return hashlib.blake2b(s.encode("utf-8"), digest_size=6).hexdigest()


def _shingles(words: list[str]) -> Counter:
    if len(words) < SHINGLE:
        return Counter(_h(" ".join(words)) for _ in [0]) if words else Counter()
    out: Counter = Counter()
    for i in range(min(len(words) - SHINGLE + 1, _MAX_ITEMS)):
        out[_h(" ".join(words[i : i + SHINGLE]))] += 1
    return out


def _skeleton(doc: HtmlElement) -> Counter:
    out: Counter = Counter()
    n = 0

    def walk(el: Any, prefix: str) -> None:
        nonlocal n
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else None
            if tag is None or tag.lower() in _SKIP_TAGS:
                continue
            if n >= _MAX_ITEMS:
                return
            n += 1
            path = f"{prefix}/{tag.lower()}"
            out[path] += 1
            walk(child, path)

    root = doc.getroottree().getroot() if hasattr(doc, "getroottree") else doc
    walk(root, root.tag.lower() if isinstance(root.tag, str) else "html")
    return out


def fingerprint(doc: HtmlElement, main_text: str, url: str) -> dict:
    """The fingerprint of one page: its main text (Markdown) shingles and its DOM skeleton.

    JSON-friendly (sorted lists of ``[item, count]``) so it can travel in stats or packets."""
    drop = _url_words(url)
    words = [w for w in (m.lower() for m in _WORD.findall(main_text)) if w not in drop]
    return {
        "version": FINGERPRINT_VERSION,
        "words": len(words),
        "text": sorted(_shingles(words).items()),
        "skeleton": sorted(_skeleton(doc).items()),
    }


def usable(fp: Mapping[str, Any] | None) -> bool:
    """A probe fingerprint can judge pages only when the template has some text of its own."""
    return bool(fp) and int(fp.get("words", 0)) >= MIN_PROBE_WORDS


def _wjaccard(a: Iterable, b: Iterable) -> float:
    ca, cb = Counter(dict(a)), Counter(dict(b))
    if not ca and not cb:
        return 1.0
    inter = sum((ca & cb).values())
    union = sum((ca | cb).values())
    return round(inter / union, 4) if union else 0.0


def compare(page: Mapping[str, Any], probe: Mapping[str, Any]) -> dict:
    """``{"text": s, "skeleton": s}``: the similarities of two fingerprints (0..1)."""
    return {"text": _wjaccard(page["text"], probe["text"]), "skeleton": _wjaccard(page["skeleton"], probe["skeleton"])}


def match(page: Mapping[str, Any], probe: Mapping[str, Any] | None) -> dict | None:
    """The comparison record when ``page`` matches the host's "not found" template, else None.

    The record holds both similarities and both thresholds (it goes to the drop detail)."""
    if not usable(probe):
        return None
    sim = compare(page, probe)  # type: ignore[arg-type]
    if sim["text"] >= TEXT_THRESHOLD and sim["skeleton"] >= SKELETON_THRESHOLD:
        return {
            "similarity": sim,
            "threshold": {"text": TEXT_THRESHOLD, "skeleton": SKELETON_THRESHOLD},
            "version": FINGERPRINT_VERSION,
        }
    return None


def fingerprint_page(body: bytes | str, url: str, content_type: str | None = None, recipe: Any = None) -> dict:
    """The fingerprint of a fetched HTML page, its main content selected as ``convert()`` does
    (the recipe's content selectors apply), so a probe and a page are measured alike."""
    from gatecrawl.core.extract import select_main
    from gatecrawl.core.htmlparse import parse_html
    from gatecrawl.core.markdown import to_markdown

    doc = parse_html(body, content_type=content_type)
    kw = {}
    if recipe is not None:
        kw = dict(
            main_selectors=recipe.main_selectors,
            exclude_selectors=recipe.exclude_selectors,
            keep_comments=recipe.keep_comments,
            keep_bylines=recipe.keep_bylines,
            keep_captions=recipe.keep_captions,
        )
    sel = select_main(doc, **kw)
    return fingerprint(doc, to_markdown(sel.root, base_url=url).text, url)
