"""Measurements of a parsed HTML page, shared by the gate, validation and evidence.

Everything here reads an lxml document and never mutates it.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from lxml.html import HtmlElement

from gatecrawl.core.memo import str_memo
from gatecrawl.core.pageindex import PageIndex, find_below, main_holders, tagged_with
# (the visible text of an element: re-exported, the page's readers import it from here)
from gatecrawl.core.pagetext import _INVISIBLE, _iter_text, norm_space, visible_text, visible_text_reaches

__all__ = [
    "PageMeasure",
    "chrome_candidates",
    "measure_page",
    "noscript_view",
    "visible_text_all",
    "visible_text",
    "visible_text_reaches",
    "find_fields",
    "shell_signals",
    "canonical_url",
    "norm_space",
    "css_path",
    "remove_keep_tail",
    "jsonld_documents",
]

# Structural chrome: always boilerplate when outside the main content.
_CHROME_TAGS = {"nav", "aside"}
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search"}
_BANNER_RE = re.compile(r"(^|[\s_\-])(cookie|consent|gdpr|cc-banner|onetrust|newsletter|share|social|related|breadcrumb)", re.I)
_BANNER_WORDS = ("cookie", "consent", "gdpr", "cc-banner", "onetrust", "newsletter", "share", "social", "related",
                 "breadcrumb")


_NEVER_CHROME = {"html", "body", "main", "article"}
_STRICT_CHROME_ROLES = {"navigation", "search"}
#: A chrome candidate holding more than this share of the page's visible text is a wrapper
#: (a page builder's outer <header>, a malformed tree that nested the page inside a banner),
#: not chrome: its text counts as content and its own nav/aside children stay chrome.
WRAPPER_SHARE = 0.5
#: ... and at least this many characters, mostly not link text (link text under this share).
WRAPPER_MIN_CHARS = 1000
WRAPPER_MAX_LINK_DENSITY = 0.5
#: When the visible body text (scripts, styles, noscript excluded) is under this many
#: characters and the page's <noscript> blocks hold more text than that, the noscript text is
#: what a plain client gets (a server-rendered crawler view): it counts as page text.
NOSCRIPT_FALLBACK_CHARS = 200


@str_memo(65536)
def _banner_ident(ident: str) -> bool:
    """``_BANNER_RE`` names a banner in ``ident`` (pure, cached: a page repeats its class strings).
    The pattern's words are looked for first, in ``ident`` folded as the case-blind pattern
    matches it (lower-cased; U+0130 and U+0131 as ``i``, U+017F as ``s``; U+212A lower-cases
    to ``k``): most idents hold none, and a substring test is cheaper than the pattern's scan."""
    folded = ident.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")
    if not any(w in folded for w in _BANNER_WORDS):
        return False
    return _BANNER_RE.search(ident) is not None


def _chrome_candidate(node) -> bool:
    tag = node.tag
    if not isinstance(tag, str):
        return False
    tag = tag.lower()
    if tag in _NEVER_CHROME:
        return False
    get = node.get
    role = get("role")
    if role:
        role = role.lower()
        if role == "main":
            return False
        if role in _CHROME_ROLES:
            return True
    if tag in _CHROME_TAGS:
        return True
    if tag in ("header", "footer"):
        # An article's own header (title, byline) or footer is content, not chrome.
        return not any(isinstance(a.tag, str) and a.tag.lower() in ("article", "main") for a in node.iterancestors())
    ident, cls = get("id"), get("class")  # "id class", either left out when missing or empty
    if cls:
        ident = f"{ident} {cls}" if ident else cls
    return bool(ident) and _banner_ident(ident)


_BANNER_WORD_RE = re.compile("|".join(_BANNER_WORDS))
#: words one of which a role that ``_chrome_candidate`` reads (``_CHROME_ROLES``) holds
_ROLE_WORD_RE = re.compile("|".join(sorted(_CHROME_ROLES)))


def chrome_candidates(index: PageIndex) -> frozenset:
    """The elements of ``index``'s document that ``_chrome_candidate`` holds for (kept on the
    index: taken once per document). It is asked only of those that can be one: a role value
    holding a chrome role's word, a chrome tag, an id or class holding a banner word."""
    if index.chrome is None:
        maybe = itertools.chain(index.roles.named(_ROLE_WORD_RE), index.chrome_tags, index.idents.named(_BANNER_WORD_RE))
        index.chrome = frozenset(el for el in maybe if _chrome_candidate(el))
    return index.chrome


def _holds_main(node) -> bool:
    for d in node.iterdescendants():
        if isinstance(d.tag, str) and (d.tag.lower() in ("main", "article") or (d.get("role") or "").lower() == "main"):
            return True
    return False


def _chrome_test(total_chars: int, *, noscript: bool = False):
    """The chrome predicate for one page: a candidate that wraps the main content (a main or
    article inside it) or most of the page's text (at least WRAPPER_MIN_CHARS, mostly not
    link text) is a wrapper, not chrome."""

    def skip(node) -> bool:
        if not _chrome_candidate(node) or _holds_main(node):
            return False
        return _chrome_span(node, len(_text_of(node, noscript)), total_chars, noscript)

    return skip


def _text_of(el, noscript: bool = False) -> str:
    if not noscript:
        return visible_text(el)
    return norm_space(" ".join(_iter_text(el, invisible=_INVISIBLE - {"noscript"})))


@dataclass(frozen=True)
class PageMeasure:
    """What the gate needs to know about a page's text."""

    body_text: str  # visible text outside boilerplate blocks
    total_chars: int  # visible text chars of the whole body
    boilerplate_chars: int  # visible text chars inside boilerplate blocks
    noscript_text: bool = False  # the page's text is its <noscript> crawler view
    #: ``visible_text(body)`` of the document as measured (None on a <noscript> view): read
    #: again by the shell signals, so the body is not walked twice
    plain_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def boilerplate_share(self) -> float:
        return self.boilerplate_chars / self.total_chars if self.total_chars else 0.0


def noscript_view(doc: HtmlElement) -> bool:
    """True when the page's visible text is (nearly) empty but its <noscript> blocks hold a
    server-rendered view of the content (a forum or shop crawler view)."""
    body = doc.find(".//body")
    if body is None:
        body = doc
    return _noscript_view(body, len(visible_text(body)))


def _noscript_view(body, plain: int) -> bool:
    if plain >= NOSCRIPT_FALLBACK_CHARS:
        return False
    held = sum(len(visible_text_all(el)) for el in body.iter("noscript"))
    return held > max(plain, NOSCRIPT_FALLBACK_CHARS)


def visible_text_all(el: HtmlElement) -> str:
    """Visible text of ``el`` counting <noscript> content."""
    return _text_of(el, noscript=True)


def measure_page(doc: HtmlElement, *, index: PageIndex | None = None) -> PageMeasure:
    """Visible text of the page and the part of it outside chrome (nav, banners, ...).

    Robust presence: an element that merely looks like chrome (a <header> the page builder
    wrapped the whole page in, a body whose class names a cookie or share plug-in) is not
    chrome when it holds the main content or most of the text, so a page whose article is in
    its HTML never measures 0 characters; a page whose only text is a <noscript> crawler view
    is measured on that view (``noscript_text``).

    One walk of the body: its text pieces, each chrome candidate's span of them; the chrome
    test (which needs the page's total) is then taken on the spans, outermost first.
    ``index``: the document's ``PageIndex`` when the caller has it."""
    body = find_below(doc, "body", index)
    if body is None:
        body = doc
    if not isinstance(body.tag, str) or body.tag.lower() in _INVISIBLE or _chrome_candidate(body):
        return _measure_two_walks(body)
    index = index or PageIndex(doc)
    pieces, spans = _text_and_spans(body, chrome_candidates(index))
    plain = norm_space(" ".join(pieces))
    if _noscript_view(body, len(plain)):
        return _measure_two_walks(body)
    total = len(plain)
    kept: list[str] = []
    pos = 0
    for el, start, end in spans:  # document order: an element before its descendants
        if start < pos:
            continue  # inside a span already left out
        if el in main_holders(index):  # (``_holds_main``, taken once for the document)
            continue
        if _chrome_span(el, len(norm_space(" ".join(pieces[start:end]))), total):
            kept.extend(pieces[pos:start])
            pos = end
    kept.extend(pieces[pos:])
    content = norm_space(" ".join(kept))
    return PageMeasure(body_text=content, total_chars=total, boilerplate_chars=max(0, total - len(content)),
                       plain_text=plain)


def _chrome_span(node, held: int, total: int, noscript: bool = False) -> bool:
    """The chrome test of a candidate that holds no main content and ``held`` characters of
    visible text (see ``_chrome_test``)."""
    if held < WRAPPER_MIN_CHARS or held <= WRAPPER_SHARE * total:
        return True
    # A real menu or footer is mostly link text; a wrapper around the page's paragraphs is not.
    links = sum(len(_text_of(a, noscript)) for a in node.iter("a"))
    return links >= WRAPPER_MAX_LINK_DENSITY * held


def _text_and_spans(el: HtmlElement, marked, invisible=_INVISIBLE) -> tuple[list[str], list[list]]:
    """``_iter_text(el)`` (el visible) and, for every element under ``el`` that the walk reaches
    and that is in ``marked`` (a set), ``[element, start, end]``: its own pieces are
    ``pieces[start:end]`` (its tail after them), in document order."""
    out: list[str] = []
    spans: list[list] = []
    append = out.append
    if el.text:
        append(el.text)
    stack = [(iter(el), None, None)]
    while stack:
        children, tail, span = stack[-1]
        for child in children:
            tag = child.tag
            if isinstance(tag, str):
                if tag.lower() in invisible:
                    if child.tail:
                        append(child.tail)
                    continue
                mine = None
                if child in marked:
                    mine = [child, len(out), 0]
                    spans.append(mine)
                if child.text:
                    append(child.text)
                if len(child):
                    stack.append((iter(child), child.tail, mine))
                    break
                if mine is not None:
                    mine[2] = len(out)
            if child.tail:
                append(child.tail)
        else:
            stack.pop()
            if span is not None:
                span[2] = len(out)
            if tail:
                append(tail)
    return out, spans


def _measure_two_walks(body) -> PageMeasure:
    """``measure_page`` as two walks (the <noscript> view, a body that is itself chrome)."""
    plain = visible_text(body)  # read once: the noscript test and the total share it
    ns = _noscript_view(body, len(plain))
    total = len(_text_of(body, ns)) if ns else len(plain)
    invisible = _INVISIBLE - {"noscript"} if ns else _INVISIBLE
    content = norm_space(" ".join(_iter_text(body, _chrome_test(total, noscript=ns), invisible=invisible)))
    return PageMeasure(body_text=content, total_chars=total, boilerplate_chars=max(0, total - len(content)), noscript_text=ns,
                       plain_text=None if ns else plain)


_META_ATTRIBUTES = ("property", "name", "itemprop")


def _meta(doc: HtmlElement, *names: str, metas: list | None = None, named: dict | None = None) -> str | None:
    """The first non-blank ``content`` of a ``<meta>`` named ``names[0]`` in its ``property``,
    ``name`` or ``itemprop`` attribute (tried in that order, without case), else of one named
    ``names[1]``, ...; ``metas``: the document's ``<meta>`` elements when the caller has them,
    ``named``: ``_metas_named(metas)``, when the caller has it (several lookups share it)."""
    if named is None:
        if metas is None:
            metas = [el for el in doc.iter("meta") if el is not doc]
        named = _metas_named(metas)
    for name in names:
        for attr in _META_ATTRIBUTES:
            for el in named.get((attr, name), ()):
                val = norm_space(el.get("content") or "")
                if val:
                    return val
    return None


def _metas_named(metas: list) -> dict:
    """``(attribute, value in lower case)``: the ``<meta>`` elements of ``metas`` (in their order)
    whose ``property``, ``name`` or ``itemprop`` holds that value; each attribute read once."""
    named: dict = {}
    for el in metas:
        for attr in _META_ATTRIBUTES:
            value = el.get(attr)
            if value is not None:
                key = (attr, value.lower())
                held = named.get(key)
                if held is None:
                    named[key] = [el]
                else:
                    held.append(el)
    return named


def jsonld_documents(doc: HtmlElement, index: PageIndex | None = None) -> Iterator[Any]:
    """The parsed JSON of each ``<script type="application/ld+json">`` below ``doc`` (the type
    compared without case or surrounding blanks), in document order; a script that is not
    valid JSON is skipped. ``index``: the document's ``PageIndex`` when the caller has it."""
    for el in tagged_with(doc, "script", index):
        if el is doc or (el.get("type") or "").strip().lower() != "application/ld+json" or not el.text:
            continue
        try:
            data = json.loads(el.text)
        except ValueError:
            continue
        yield data


def _jsonld_values(doc: HtmlElement, key: str, documents: list | None = None) -> str | None:
    for data in (jsonld_documents(doc) if documents is None else documents):
        stack = [data]
        while stack:
            cur = stack.pop(0)
            if isinstance(cur, list):
                stack.extend(cur)
            elif isinstance(cur, dict):
                val = cur.get(key)
                if isinstance(val, str) and val.strip():
                    return norm_space(val)
                if isinstance(val, dict) and isinstance(val.get("name"), str):
                    return norm_space(val["name"])
                stack.extend(v for v in cur.values() if isinstance(v, (list, dict)))
    return None


def find_fields(doc: HtmlElement, *, jsonld: list | None = None, index: PageIndex | None = None) -> dict[str, str | None]:
    """Title, date, author and description from the page's markup, first source wins.
    ``jsonld``: ``list(jsonld_documents(doc))``, ``index``: the document's ``PageIndex`` (its
    rel=author elements), when the caller has them (read, never changed)."""
    title_el = find_below(doc, "title", index)
    h1 = find_below(doc, "h1", index)
    # (one lookup table of the metas for every _meta below)
    metas = _metas_named([el for el in tagged_with(doc, "meta", index) if el is not doc])
    title = (
        _meta(doc, "og:title", named=metas)
        or (visible_text(h1) if h1 is not None else None)
        or (norm_space(title_el.text_content()) if title_el is not None else None)
    ) or None
    date = _meta(doc, "article:published_time", "datepublished", "date", "dc.date", "pubdate", named=metas) or _jsonld_values(doc, "datePublished", jsonld)
    if not date:
        t = next((el for el in tagged_with(doc, "time", index) if el is not doc and el.get("datetime") is not None), None)
        if t is not None:
            date = norm_space(t.get("datetime") or "") or None
    author = _meta(doc, "author", "article:author", named=metas) or _jsonld_values(doc, "author", jsonld)
    if not author:
        if index is None:
            a = doc.find(".//*[@rel='author']")
        else:  # (the same element: the first below ``doc`` whose rel is "author")
            a = next((el for el in index.authors if el is not doc), None)
        if a is not None:
            author = visible_text(a) or None
    description = _meta(doc, "description", "og:description", named=metas)
    return {"title": title, "date": date, "author": author, "description": description}


_JS_HINT = re.compile(r"(enable|turn on|requires?)\s+javascript|javascript\s+(is\s+)?(required|disabled)", re.I)
_LOADING = re.compile(r"^\s*(loading|please wait)\W*\s*$", re.I)


def shell_signals(doc: HtmlElement, body_text_chars: int, *, body_visible_text: str | None = None,
                  index: PageIndex | None = None) -> list[str]:
    """Named signs that a page's content is built by JavaScript (an SPA shell).
    ``body_visible_text``: ``visible_text`` of the body when the caller has it already;
    ``index``: the document's ``PageIndex`` when the caller has it."""
    signals: list[str] = []
    index = index or PageIndex(doc)
    for el in index.app_roots:
        if not visible_text_reaches(el, 200):  # (``len(visible_text(el)) < 200``)
            signals.append("empty_app_root")
            break
    for el in index.tagged["noscript"]:  # (``doc.iter("noscript")``: the tag as it is now)
        if el.tag == "noscript" and _JS_HINT.search(el.text_content() or ""):
            signals.append("noscript_javascript_hint")
            break
    script_chars = 0
    external = 0
    # (the scripts are read only when one of the two signals below can hold: under 1000 chars)
    for el in index.tagged["script"] if body_text_chars < 1000 else ():
        typ = (el.get("type") or "").lower()
        if typ and "javascript" not in typ and typ != "module":
            continue
        if el.get("src"):
            external += 1
        script_chars += len(el.text or "")
    if external >= 1 and body_text_chars < 500:
        signals.append("script_bundle_little_text")
    elif script_chars > 4 * max(body_text_chars, 1) and body_text_chars < 1000:
        signals.append("inline_script_heavy")
    body = find_below(doc, "body", index)
    if body is not None and body_visible_text is None:
        body_visible_text = visible_text(body)
    if body is not None and _LOADING.match(body_visible_text or "x"):
        signals.append("loading_placeholder")
    return signals


def canonical_url(doc: HtmlElement, *, index: PageIndex | None = None) -> str | None:
    for el in tagged_with(doc, "link", index):  # (the links below ``doc`` with a rel)
        if el is not doc and "canonical" in (el.get("rel") or "").lower().split():
            href = (el.get("href") or "").strip()
            if href:
                return href
    return None


_PLAIN_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def css_path(el, root=None, *, stop_at_id: bool = False) -> str:
    """CSS path of ``el``: ``tag:nth-of-type(k)`` steps up to ``root`` (written as its bare tag)
    or the document root; with ``stop_at_id`` the path starts at the nearest ancestor that has a
    plain id (``tag#id``)."""
    parts: list[str] = []
    node = el
    while node is not None:
        tag = node.tag
        name = tag if isinstance(tag, str) else "*"
        parent = node.getparent()
        if node is root or parent is None:
            parts.append(name)
            break
        if stop_at_id:
            ident = node.get("id")
            if ident and _PLAIN_ID.fullmatch(ident):
                parts.append(f"{name}#{ident}")
                break
        # (the siblings before it whose tag is ``node.tag``, counted by lxml's tag match)
        k = 1
        for _ in node.itersiblings(tag, preceding=True):
            k += 1
        parts.append(f"{name}:nth-of-type({k})")
        node = parent
    return " > ".join(reversed(parts))


def remove_keep_tail(el, *, keep_blank_tail: bool = True) -> None:
    """Remove ``el`` and its content but keep the text that follows it (its tail), moved to the
    previous sibling or the parent. ``keep_blank_tail=False`` drops a whitespace-only tail."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail and (keep_blank_tail or tail.strip()):
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)
