"""Main-content selection.

``select_main(doc)`` returns a :class:`Selection`: a cleaned deep copy of the subtree that
holds the page's main content, the name of the rule that chose it, and the sorted names of
the removal/keep rules that fired. ``doc`` is never mutated; nothing depends on set or dict
iteration order (elements are visited in document order).

Pre-cleaning (always): scripts, styles, templates, forms controls, media and other
non-content elements are dropped; hidden blocks (``hidden``, ``aria-hidden=true``,
``display:none``/``visibility:hidden`` styles, screen-reader-only classes such as
``sr-only``, ``visually-hidden``, ``off-screen``, ``element-invisible``, and print-only
classes such as ``print-only``/``print-header``) are dropped (``exclude_hidden``).

Selection, first rule that yields a node wins:

1. ``recipe_selector``: each recipe CSS selector in priority order; for one selector the
   first matching node in document order with at least :data:`MIN_TEXT` visible
   characters wins. Recipe ``exclude_selectors`` and the pattern rules below are then
   applied inside it.
2. Otherwise ``exclude_selectors`` and the pattern rules are applied to the whole body and
   every element gets a *content score*: text is attributed to its nearest block-level
   ancestor (lists and tables count as one block); a block is worth
   ``plain - 2 * max(0, linked - plain) - 10 + 10 * sentences (max 5)`` where ``plain`` /
   ``linked`` are its characters outside / inside links; an element's score is the sum over
   the blocks inside it. The best element (highest score, deepest on ties, first in
   document order) is the density candidate. If it contains several ``<article>``
   elements, the one holding the page's first ``<h1>`` is taken instead.
3. ``semantic_article_body`` (``itemprop=articleBody``) / ``semantic_article`` /
   ``semantic_main`` / ``role_main``: when the candidate is, or lies inside, such a
   container whose score is at least 0.6 of the candidate's, the nearest one is chosen (it
   usually carries the headline and byline as well).
4. ``density_score``: otherwise the density candidate itself.
5. ``coverage_guard``: if the chosen node (not an article) holds less than
   :data:`COVERAGE_MIN` of the page's positive content score, the selection widens to the
   nearest ancestor that does, provided that ancestor keeps at least
   :data:`COVERAGE_KEEP` of the chosen node's score (little junk between the parts) and
   brings in no further ``<article>`` (one-page sites whose sections sit in sibling
   containers separated by navigation or link bars).
6. ``body_fallback``: no block has a positive score (empty or junk-only page).

Removal rules (each firing is recorded by name in ``Selection.removal_rules``):

* by tag/role/class/id words: ``exclude_nav`` (nav, menus, breadcrumbs, pagination),
  ``exclude_cookie_banner``, ``exclude_share_bar``, ``exclude_related``,
  ``exclude_newsletter``, ``exclude_comments`` (not when ``keep_comments``),
  ``exclude_ads``, ``exclude_sidebar``, ``exclude_footer``, ``exclude_author_bio``,
  ``exclude_tags``; class strings that name the content itself (``article-body``,
  ``entry-content``, ...) and embedded posts (tweets etc.) are never matched;
* by section heading text ("Related articles", "More from ...", "Comments", "Share this",
  "Sign up ..."): the section (or the heading and the block after it);
* ``exclude_related`` also for teaser lists: a container whose children are mostly
  teasers (a link plus a linked heading, a linked image, a date, or a summary cut with
  "..."; under 600 characters each);
* in the selection: ``exclude_link_dense`` (blocks under 1,500 characters with more than
  60% of their text in links), ``exclude_cookie_banner`` for short blocks whose *text* is a
  cookie/consent notice, ``exclude_footer`` for short copyright/legal lines, and
  ``exclude_duplicate`` for a caption or leaf block whose text repeats an earlier one
  (captions: same first 60 characters);
* ``recipe_exclude``: the recipe's exclude selectors;
* ``exclude_inline_teaser``: short blocks (under 300 characters, with a link) that only
  point elsewhere: a teaser prefix followed by ``:``/``»``/a dash ("READ MORE:",
  "Also on ...:", "Leia também:" ...), or a block that is one all-capitals link;
  also a block that is a list of headline links tagged with bracketed labels
  ("... [INSIGHT] | ... [VIDEO]", the label outside the links), a linked "Also on <site>
  <headline>", and a link standing alone as a block that matches the above;
* heading-text rules also apply to a bold/span label that is a whole paragraph ("DON'T
  MISS"): the paragraph goes, and so does the next paragraph when 60%+ of it is links;
* ``exclude_popover``: hover cards / tooltips (``rollover-*-block``, ``hovercard``,
  ``popover``, ``tooltip-content`` ...) inside running text (``p``/``li``/``td``/``dd``);
* ``exclude_author_bio`` (prose form): an author-bio-classed block (``author-bio``,
  ``author-box``, ``bio``, ...; 20-1,500 characters, no ``h1``/``time``) whose text has a
  verb ("X joined ... in 2017", "X is a reporter ..."), even when byline classes inside it
  would protect it; name/date-only bylines stay;
* ``exclude_ad_label``: a block whose whole text labels an ad slot ("Advertisement",
  "Story continues below advertisement", "Anzeige", "Publicidade", ...) and holds nothing else.
* ``exclude_call_to_action``: paragraphs/leaf blocks/headings under 400 characters, not in
  a quote or list, not protected, whose text is a call to action: newsletter sign-up,
  "subscribe to ...", "follow X on Twitter", "email/reach/write to X at", "have a tip?",
  "if you enjoyed this ...", "... delivered to your inbox", "to read the full story";
* ``exclude_press_boilerplate``: the tail of a press release: a heading/paragraph "About
  <Name>" or a paragraph opening with a company definition ("<Name> is a leading provider
  of ..."), after at least three paragraphs and once 65% of the selection's text is
  behind; it and everything after it (contacts) are removed;
* ``exclude_video_teaser``: video player blocks (class ``video``, ``video-player``,
  ``featured-video``, ``brightcove``, ...; under 600 characters, no paragraph of 300+)
  with their promotional title and description (captions included);
* ``exclude_comments`` (text form): comment-policy notices under 400 characters
  ("comments are moderated", "comment policy", Portuguese/Italian equivalents);
* ``exclude_reference_disagree`` (not when ``keep_comments``): trafilatura (fast mode, run
  on a copy of the selection) serves as a second opinion. When its text has at least
  40 tokens, at least :data:`REF_SUBSET_MIN` of its 4-token shingles occur in the
  selection and they cover at least :data:`REF_COVER_MIN` of the selection's shingles,
  every leaf unit (paragraph, list item, heading, leaf block) with fewer than
  :data:`REF_KEEP_MIN` of its shingles in the reference (units under 4 tokens: whose token
  run does not occur in it) is removed. Never removed: the first heading, ``h1``,
  ``blockquote``, embedded posts and units holding any of them; with the recipe's
  ``keep_bylines`` also bylines and ``time`` datelines, with ``keep_captions`` also captions
  (image credits alone are never shielded); list items stay when the reference keeps another
  item of the same list; a ``h2``-``h6`` heading stays when any unit of its section stays,
  except a *standfirst* (a heading of :data:`STANDFIRST_MIN_TOKENS`+ tokens straight after
  the title, nothing kept in between; shielded by ``keep_bylines``). Bylines, datelines,
  standfirsts and captions removed this way are listed in ``Selection.set_aside``
  (``(kind, text)``) for the evidence packet: the Markdown is the body, they are metadata.

Guards: a block holding more than half of the page's text, or at least a quarter of its
prose (paragraphs with 100+ plain characters), is never removed by a pattern rule.

Keep rules: ``keep_caption`` (``figcaption``, ``caption``, caption/credit classes) and
``keep_byline`` (byline/author/date classes, ``rel=author``) protect a block from pattern
removal (the class-word rules); they are recorded whenever such blocks are present in the
selection. Against the second opinion they hold only when the recipe asks
(``content.keep_bylines`` / ``content.keep_captions``).

``main_text_chars`` / ``page_text_chars`` count visible characters with XPath
``normalize-space`` (runs of ASCII whitespace count as one space; ends trimmed) in the
cleaned selection / the pre-cleaned ``<body>``.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.etree
import lxml.html

from gatecrawl.core import pagetype
from gatecrawl.core.agreement import UNIT_ATTR, Ballot, candidate_text, decide
from gatecrawl.core.page import css_path, remove_keep_tail

__all__ = ["EXTRACTOR_VERSION", "Selection", "select_main", "visible_text_chars"]

EXTRACTOR_VERSION = "extract/7"

MIN_TEXT = 20
_BLOCK_COST = 10
COVERAGE_MIN = 0.45
COVERAGE_KEEP = 0.8  # widening may cost at most 20% of the chosen node's score

_NON_CONTENT = (
    "script", "style", "noscript", "template", "svg", "math", "iframe", "frame", "frameset",
    "object", "embed", "applet", "canvas", "button", "input", "select", "textarea", "option",
    "optgroup", "datalist", "map", "area", "audio", "video", "source", "track", "dialog",
    "head", "title", "meta", "link", "base", "param",
)
#: controls that an unclosed tag can stretch over the whole page
_SWALLOWING = ("button", "dialog", "select", "textarea", "option", "map", "object", "canvas",
               "audio", "video", "iframe", "template", "noscript")
#: a control or hidden block holding more than this share of the page's text is kept (unwrapped)
DOMINANT_SHARE = 0.5
_BLOCKS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html listing main "
    "menu nav ol p pre section summary table ul".split()
)  # li, tr, td... are not blocks for scoring: a list or table is scored as one block

_HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
_HIDDEN_CLASS = re.compile(
    r"(?:^|\s)(?:hidden|hide|d-none|sr-only|visually-hidden|visuallyhidden|screen-reader-text|"
    r"screenreader|screen-reader-only|show-for-sr|element-invisible|element-hidden|a11y-hidden|"
    r"assistive-text|u-visually-hidden|is-visually-hidden|off-screen|"
    r"offscreen|is-hidden|u-hidden|print-only|print-header|visible-print|show-for-print|"
    r"d-print-block)(?:\s|$)", re.I)


def _rx(words: str) -> re.Pattern:
    return re.compile(words, re.I)


# (rule name, pattern on "class id" attributes). Order matters only for naming when
# several patterns match one element: the first listed wins.
_PATTERN_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("exclude_cookie_banner", _rx(r"cookie|consent|gdpr|onetrust|cmp-|truste|privacy-banner|cc-banner")),
    ("exclude_newsletter", _rx(r"newsletter|subscri|sign-?up|mailing-?list|optin|opt-in|inline-signup|email-capture")),
    ("exclude_share_bar", _rx(r"share|sharing|social|addthis|sharethis|shareaholic|sociable|follow-us|print-?button")),
    ("exclude_comments", _rx(r"comment|disqus|respond|discussion|replies|reactions")),
    ("exclude_related", _rx(
        r"related|recommend|most-?read|most-?popular|mostpopular|popular|trending|more-?stories|"
        r"more-?from|also-?read|read-?next|read-?also|up-?next|what-?to-?read|taboola|outbrain|"
        r"you-?may|suggested|further-?reading|more-?articles|more-?news|next-?article|prev-?next|"
        r"post-?nav|article-?nav|teaser-list|story-?list|headlines")),
    ("exclude_ads", _rx(
        r"(?:^|[\s_-])(?:ad|ads|adv|advert\w*|advertisement|adslot|adunit|ad-?container|"
        r"sponsor\w*|promo\w*|dfp|gpt|banner-?ad|native-?ad|affiliate)(?:$|[\s_-])")),
    ("exclude_nav", _rx(
        r"(?:^|[\s_-])(?:nav|navbar|navigation|breadcrumbs?|pagination|pager|menu|skip-?link|"
        r"site-?header|masthead|topbar|toolbar)(?:$|[\s_-])|breadcrumb")),
    ("exclude_sidebar", _rx(r"sidebar|side-?bar|widget|(?:^|[\s_-])rail(?:$|[\s_-])")),
    ("exclude_author_bio", _rx(r"author-?bio|about-?the-?author|author-?info|author-?box|bio-?box|contributor-?bio")),
    ("exclude_tags", _rx(r"(?:^|[\s_-])(?:tags?|tag-?list|tag-?cloud|post-?tags|categories|keywords|topics)(?:$|[\s_-])")),
    ("exclude_footer", _rx(r"(?:^|[\s_-])(?:footer|site-?footer|page-?footer|copyright|colophon)(?:$|[\s_-])")),
)
_TAG_RULES = {
    "nav": "exclude_nav",
    "aside": "exclude_sidebar",
    "footer": "exclude_footer",
    "menu": "exclude_nav",
}
_ROLE_RULES = {
    "navigation": "exclude_nav",
    "complementary": "exclude_sidebar",
    "contentinfo": "exclude_footer",
    "banner": "exclude_nav",
    "search": "exclude_nav",
    "menu": "exclude_nav",
    "menubar": "exclude_nav",
    "dialog": "exclude_cookie_banner",
    "alertdialog": "exclude_cookie_banner",
}
_CONTENT_CLASS_RX = _rx(
    r"(?:article|story|entry|post|main)[-_]?(?:body|content|text)|articlebody|(?:^|\s)(?:content|"
    r"article|story|entry-content|post-content)(?:\s|$)")
_CAPTION_RX = _rx(r"caption|credit|wp-caption-text")
_BYLINE_RX = _rx(r"byline|by-line|(?:^|[\s_-])author(?:$|[\s_-])|dateline|(?:^|[\s_-])date(?:$|[\s_-])|timestamp|published|posted-on|entry-meta|article-meta")
_KEEP_ANY_RX = re.compile(f"(?:{_CAPTION_RX.pattern})|(?:{_BYLINE_RX.pattern})", re.I)
_POSITIVE_RX = _rx(r"article|body|content|entry|main|post|story|text|blog|prose|rich-?text")
_NEGATIVE_RX = _rx(
    r"comment|footer|footnote|related|share|sidebar|widget|sponsor|promo|advert|popular|"
    r"newsletter|cookie|consent|menu|nav|breadcrumb|social|teaser|recommend|trending")
_SEMANTIC_SCHEMA = _rx(r"articlebody|(?:^|\s)text(?:$|\s)")


def _squash(text: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped (``re.sub(r"\\s+", " ", t).strip()``:
    ``str.split`` and the ``\\s`` class agree on every code point, and this is faster)."""
    return " ".join(text.split())


_SENTENCE = re.compile(r"[.!?。！？][\"'”’)]?(?:\s|$)")


@dataclass(frozen=True)
class Selection:
    root: lxml.html.HtmlElement
    rule: str
    selector: str | None
    removal_rules: tuple[str, ...]
    main_text_chars: int
    page_text_chars: int
    #: bylines, datelines, standfirsts and captions taken out of the body by the second opinion, as
    #: ``(kind, text)`` in document order (kept for the evidence packet, not the Markdown)
    set_aside: tuple[tuple[str, str], ...] = ()
    #: text units of the own selection that the candidates' vote removed, as ``(rule, text)``
    removed: tuple[tuple[str, str], ...] = ()
    #: the vote: mode, each candidate's size and agreement with the own selection (or None)
    agreement: dict | None = None
    #: share of the selection's text the independent extractor (trafilatura) keeps too, or
    #: None when it was not consulted
    reference_share: float | None = None
    #: the page type that chose the extraction profile (detected, or pinned by the recipe)
    page_type: "pagetype.PageTypeGuess | None" = None


# --------------------------------------------------------------------------- helpers


def _attrs(el: lxml.etree._Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def _is_el(el) -> bool:
    return isinstance(el.tag, str)


def _drop(el: lxml.etree._Element) -> None:
    remove_keep_tail(el, keep_blank_tail=False)


_STRLEN = lxml.etree.XPath("string-length(normalize-space(.))")


def visible_text_chars(el: lxml.etree._Element) -> int:
    """Characters of visible text: the element's text with runs of ASCII whitespace counted
    as one space and the ends trimmed (XPath ``normalize-space``). Callers pass cleaned
    trees (no scripts/styles/templates)."""
    try:
        return int(_STRLEN(el))
    except Exception:
        return 0


def _text_len(el: lxml.etree._Element) -> int:
    return visible_text_chars(el)


def collapsed_menu_chars(root: lxml.etree._Element) -> int:
    """Characters held by collapsed menus: closed ``<details>`` (no ``open``) whose content
    besides the summary is mostly links (a language or date picker of hundreds of entries).
    The page does not show them until asked, so they are left out of the page-size measures
    that decide whether a block is "most of the page"; their text still goes through every
    rule as before. (A closed FAQ answer is prose, not links, and stays counted.)"""
    n = 0
    for d in root.iter("details"):
        if d.get("open") is not None or any(a.tag == "details" and a.get("open") is None for a in d.iterancestors()):
            continue
        inner = _text_len(d) - sum(_text_len(s) for s in d.iter("summary"))
        if inner >= 200 and sum(_text_len(a) for a in d.iter("a")) >= 0.8 * inner:
            n += inner
    return n


@functools.lru_cache(maxsize=16384)
def _attr_match(rx: re.Pattern, a: str) -> bool:
    """``rx.search(a)``, cached (class/id strings repeat many times on a page)."""
    return rx.search(a) is not None


def _is_hidden(el: lxml.etree._Element) -> bool:
    if el.get("hidden") is not None:
        return True
    if (el.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = el.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    cls = el.get("class")
    if cls and _attr_match(_HIDDEN_CLASS, cls):
        return True
    return False


def _css_path(el: lxml.etree._Element) -> str:
    return css_path(el, stop_at_id=True)


_HIDDEN_CANDIDATES = lxml.etree.XPath(
    ".//*[@hidden or @aria-hidden or contains(@style, 'none') or contains(@style, 'hidden') "
    "or contains(@class, 'hid') or contains(@class, 'sr-only') or contains(@class, 'd-none') "
    "or contains(@class, 'offscreen') or contains(@class, 'screen') or contains(@class, 'print') or contains(@class, 'invisible') or contains(@class, 'assistive') "
    "or contains(@class, 'show-for-sr')]")


def _preclean(body: lxml.etree._Element, fired: set[str], *, defer_aria: bool = False) -> list:
    """Remove non-content and hidden elements from the working copy.

    A control or hidden block that holds most of the page's text is the page, not chrome:
    an unclosed ``<button>`` or ``<dialog>`` swallows the rest of the document, and streamed
    pages park their content in a ``hidden`` block that a script reveals. Such an element
    is unwrapped (its text stays) instead of removed (``keep_dominant_block``).

    With ``defer_aria``, blocks hidden only by ``aria-hidden="true"`` (hidden from screen
    readers, shown on screen: carousel slides, decorative copies) are returned instead of
    removed, so the candidates' vote can still see them."""
    deferred: list = []
    total = None
    for el in body.iter(*_SWALLOWING):
        if total is None:
            total = _text_len(body)
        if total and _text_len(el) > DOMINANT_SHARE * total:
            el.tag = "div"
            fired.add("keep_dominant_block")
    # C-level removal; the text after a removed element (its tail) is kept
    lxml.etree.strip_elements(body, *_NON_CONTENT, lxml.etree.Comment,
                              lxml.etree.ProcessingInstruction, with_tail=False)
    total = None
    for el in _HIDDEN_CANDIDATES(body):
        if el is body or not _is_el(el) or el.getparent() is None:
            continue
        if _is_hidden(el):
            if total is None:
                total = _text_len(body)
            if total and _text_len(el) > DOMINANT_SHARE * total:
                fired.add("keep_dominant_block")
                continue
            if defer_aria and _aria_hidden_only(el):
                deferred.append(el)
                continue
            _drop(el)
            fired.add("exclude_hidden")
    return deferred


def _aria_hidden_only(el: lxml.etree._Element) -> bool:
    if (el.get("aria-hidden") or "").strip().lower() != "true" or el.get("hidden") is not None:
        return False
    style, cls = el.get("style"), el.get("class")
    return not (style and _HIDDEN_STYLE.search(style)) and not (cls and _attr_match(_HIDDEN_CLASS, cls))


# --------------------------------------------------------------------------- scoring


class _Scores:
    """Per-element content score (sum of block values inside the element)."""

    def __init__(self, body: lxml.etree._Element) -> None:
        # Keys are ids of elements kept alive in ``self.order`` (lxml proxies are only
        # stable while referenced).
        self.order: list[lxml.etree._Element] = []
        self.score: dict[int, float] = {}
        self.text: dict[int, int] = {}
        self.positive_total = 0.0
        self._compute(body)

    def _compute(self, body: lxml.etree._Element) -> None:
        # Attribute text to nearest block ancestor: iterative walk with explicit stack.
        block_plain: dict[int, int] = {}
        block_link: dict[int, int] = {}
        block_sent: dict[int, int] = {}
        block_el: dict[int, lxml.etree._Element] = {}
        parent_of: dict[int, int | None] = {}
        order: list[lxml.etree._Element] = []
        # stack entries: (element, nearest block id, inside link)
        stack = [(body, None, False)]
        while stack:
            el, blk, in_link = stack.pop()
            key = id(el)
            order.append(el)
            tag = el.tag if _is_el(el) else ""
            if tag in _BLOCKS or blk is None:
                blk_here = key
                block_el[key] = el
            else:
                blk_here = blk
            link_here = in_link or tag == "a"
            if el.text:
                self._add(block_plain, block_link, block_sent, blk_here, el.text, link_here)
            for child in reversed(el):
                parent_of[id(child)] = key
                stack.append((child, blk_here, link_here))
                if child.tail:  # a child's tail belongs to this element's block
                    self._add(block_plain, block_link, block_sent, blk_here, child.tail,
                              link_here)
        # block values
        value: dict[int, float] = {}
        for key, el in block_el.items():
            plain = block_plain.get(key, 0)
            link = block_link.get(key, 0)
            if plain + link == 0:
                continue
            v = plain - 2 * max(0, link - plain) - _BLOCK_COST + 10 * min(block_sent.get(key, 0), 5)
            value[key] = v
            if v > 0:
                self.positive_total += v
        # propagate sums upward (reverse document order = children before parents)
        score: dict[int, float] = {}
        text: dict[int, int] = {}
        for el in reversed(order):
            key = id(el)
            s = score.get(key, 0.0) + value.get(key, 0.0)
            t = text.get(key, 0) + block_plain.get(key, 0) + block_link.get(key, 0)
            score[key] = s
            text[key] = t
            pk = parent_of.get(key)
            if pk is not None:
                score[pk] = score.get(pk, 0.0) + s
                text[pk] = text.get(pk, 0) + t
        self.score = score
        self.text = text
        self.order = order
        self.block_el = block_el

    @staticmethod
    def _add(plain, link, sent, blk, text, in_link) -> None:
        n = len(_squash(text))
        if not n:
            return
        if in_link:
            link[blk] = link.get(blk, 0) + n
        else:
            plain[blk] = plain.get(blk, 0) + n
            sent[blk] = sent.get(blk, 0) + len(_SENTENCE.findall(text))

    def best(self, body: lxml.etree._Element) -> lxml.etree._Element | None:
        best_el = None
        best_key = None
        depth_of = {id(body): 0}
        for el in body.iter():
            if not _is_el(el):
                continue
            p = el.getparent()
            d = depth_of.get(id(p), 0) + 1 if el is not body else 0
            depth_of[id(el)] = d
            s = self.score.get(id(el), 0.0)
            if s <= 0:
                continue
            k = (s, d)
            if best_key is None or k > best_key:
                best_key = k
                best_el = el
        return best_el


# --------------------------------------------------------------------------- cleaning


_ANY_PATTERN_RX = re.compile("|".join(f"(?:{rx.pattern})" for _, rx in _PATTERN_RULES), re.I)
# Embedded posts (tweets, Instagram, ...) are content even inside "social" wrappers.
_EMBED_RX = _rx(r"embed|twitter-tweet|instagram-media|tiktok-embed")


def _lower_rx(rx: re.Pattern) -> re.Pattern:
    """``rx`` without IGNORECASE, for lower-cased input (its patterns are lower case; the
    case-insensitive engine is about three times slower on these long alternations)."""
    return re.compile(rx.pattern)


_ANY_PATTERN_LRX = _lower_rx(_ANY_PATTERN_RX)
_CONTENT_CLASS_LRX = _lower_rx(_CONTENT_CLASS_RX)
_EMBED_LRX = _lower_rx(_EMBED_RX)
_PATTERN_LRULES = tuple((name, _lower_rx(rx)) for name, rx in _PATTERN_RULES)
_KEEP_ANY_LRX = _lower_rx(_KEEP_ANY_RX)
_CAPTION_LRX = _lower_rx(_CAPTION_RX)
_BYLINE_LRX = _lower_rx(_BYLINE_RX)


@functools.lru_cache(maxsize=65536)
def _classify_attrs(a: str) -> str | None:
    """Removal rule named by a class/id string (pure, cached: strings repeat on a page)."""
    a = a.lower()
    if not _ANY_PATTERN_LRX.search(a) or _CONTENT_CLASS_LRX.search(a) or _EMBED_LRX.search(a):
        return None
    for name, rx in _PATTERN_LRULES:
        if rx.search(a):
            return name
    return None


@functools.lru_cache(maxsize=65536)
def _keep_kind(a: str) -> str | None:
    if not a:
        return None
    a = a.lower()
    if not _KEEP_ANY_LRX.search(a):
        return None
    if _CAPTION_LRX.search(a):
        return "caption"
    return "byline" if _BYLINE_LRX.search(a) else None


_HEADING_TEXT_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("exclude_related", _rx(
        r"^(?:related(?: \w+)?|more (?:\w+ ){0,2}(?:stories|articles|reads)|"
        r"more (?:from|in|on|stories|news|articles|like this|to read|"
        r"to explore|headlines)\b.*|you (?:may|might|will) (?:also )?(?:like|enjoy|be interested)"
        r".*|read (?:more|next|also)|recommended(?: for you| stories| articles| reading)?|"
        r"(?:most )?(?:popular|read|viewed|shared|commented)(?: now| stories| articles)?|"
        r"trending(?: now| stories)?|also read|don'?t miss|further reading|what to read next|"
        r"top stories|latest (?:news|stories|posts|articles|headlines)|see also|"
        r"(?:other|similar|recent) (?:stories|articles|posts|news)|editor'?s picks?)"
        r"[\s.:!…]*$")),
    ("exclude_comments", _rx(
        r"^(?:\d+\s+)?(?:comments?|responses?|replies)(?:\s*\(\d+\))?|leave a (?:reply|comment)"
        r"|join the (?:discussion|conversation)|post a comment|add a comment"
        r"|(?:\d+\s+)?thoughts? on\b.*$")),
    ("exclude_share_bar", _rx(r"^(?:share(?: this)?(?: article| story| post| page)?|share on \w+|"
                              r"follow us(?: on \w+)?)[\s.:!]*$")),
    ("exclude_newsletter", _rx(r"^(?:sign up|subscribe|newsletter|get our newsletter|"
                               r"stay (?:informed|updated|in touch))\b.{0,60}$")),
)
_ANY_HEADING_RX = re.compile("|".join(f"(?:{rx.pattern})" for _, rx in _HEADING_TEXT_RULES), re.I)
_STRUCTURAL_KEEP = frozenset(["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "td",
                              "th", "tr", "li", "figcaption", "blockquote", "body", "html"])


def _protected_blocks(root: lxml.etree._Element, fired: set[str]) -> dict:
    """Captions and bylines (keep rules). Returns the protected elements, each mapped to
    its kind (``"caption"`` or ``"byline"``), in document order."""
    protected: dict = {}  # element (hashed by identity, kept alive by the dict) -> kind
    for el in root.iter("figcaption", "caption"):
        protected[el] = "caption"
        fired.add("keep_caption")
    for el in _ATTR_CANDIDATES(root):
        if el is root:
            continue
        kind = _keep_kind(_attrs(el))
        if kind is None:
            continue
        if kind == "caption" and _text_len(el) < 600:
            protected.setdefault(el, "caption")
            fired.add("keep_caption")
        elif kind == "byline" and _text_len(el) < 200:
            protected.setdefault(el, "byline")
            fired.add("keep_byline")
    for el in root.iter("a"):
        if el.get("rel") == "author":
            protected.setdefault(el, "byline")
            fired.add("keep_byline")
    return protected


_ATTR_CANDIDATES = lxml.etree.XPath(".//*[@class or @id]")
_RULE_CANDIDATES = lxml.etree.XPath(
    ".//*[@class or @id or @role or self::nav or self::aside or self::footer or self::menu]")


def _clean_patterns(root: lxml.etree._Element, *, keep_comments: bool, fired: set[str],
                    skip: frozenset = frozenset()) -> None:
    """Pattern rules: tags, roles, class/id words, heading texts, teaser lists. Rules named
    in ``skip`` (the page type's profile) do not apply."""
    total = max(1, _text_len(root) - collapsed_menu_chars(root))
    protected = _protected_blocks(root, fired)
    # "Prose mass": plain (non-link) text of paragraphs with at least 100 such characters.
    prose: dict = {}
    for p in root.iter("p"):
        n = _text_len(p) - sum(_text_len(a) for a in p.iter("a"))
        if n >= 100:
            prose[p] = n
    prose_total = sum(prose.values())
    holds_protected: set = set()  # ancestors of protected elements
    for el in protected:
        holds_protected.update(el.iterancestors())

    def removable(el, rule) -> bool:
        if rule == "exclude_comments" and keep_comments or rule in skip:
            return False
        n = _text_len(el)
        if n > 0.5 * total and n > 400:
            return False  # a page-level wrapper carrying a boilerplate-looking word
        if rule != "exclude_cookie_banner" and prose_total:
            mass = sum(prose.get(p, 0) for p in el.iter("p"))
            if mass >= 0.25 * prose_total and mass >= 300:
                return False  # holds a large share of the page's prose: not boilerplate
        if rule not in ("exclude_cookie_banner", "exclude_comments") and el in holds_protected:
            return False
        return True

    for el in _RULE_CANDIDATES(root):
        if el is root or not _is_el(el) or el.getparent() is None:
            continue
        if el in protected or el.tag in _STRUCTURAL_KEEP:
            continue
        anc = el.getparent()
        rule = _TAG_RULES.get(el.tag)
        role = (el.get("role") or "").strip().lower()
        if rule is None and role in _ROLE_RULES:
            rule = _ROLE_RULES[role]
        if rule is None:
            a = _attrs(el)
            if a:
                rule = _classify_attrs(a)
        if rule is None or anc is None:
            continue
        if removable(el, rule):
            _drop(el)
            fired.add(rule)

    # Section headings that announce boilerplate ("Related articles", "Comments", ...):
    # drop the smallest enclosing container that is clearly just that section, else the
    # heading and the block right after it.
    for h in list(root.iter("h2", "h3", "h4", "h5", "h6", "strong", "b", "span", "div", "p")):
        if h.getparent() is None or h is root:
            continue
        if h.tag in ("span", "div", "strong", "b", "p"):
            if len(h):
                continue  # only leaf labels for generic tags
            txt = h.text
            if not txt or len(txt) > 120:
                continue
            txt = _squash(txt)
        else:
            txt = _squash(h.text_content())
        if not txt or len(txt) > 60 or not _ANY_HEADING_RX.match(txt):
            continue
        rule = None
        for name, rx in _HEADING_TEXT_RULES:
            if rx.match(txt):
                rule = name
                break
        if rule is None or (rule == "exclude_comments" and keep_comments) or rule in skip:
            continue
        label = h.tag in ("span", "strong", "b")
        if label:
            # a label that is the whole of its paragraph ("<p><strong>DON'T MISS</strong></p>")
            # announces the block after the paragraph
            par = h.getparent()
            if par is not None and par is not root and par.tag == "p" and \
                    _squash(par.text_content()) == txt:
                h = par
        container = h.getparent()
        while container is not None and container is not root and len(container) == 1:
            container = container.getparent()  # climb wrappers around the lone heading
        if container is not None and container is not root and \
                _text_len(container) < 0.3 * total and not label:
            if removable(container, rule):
                _drop(container)
                fired.add(rule)
                continue
        nxt = h.getnext()
        if rule in ("exclude_related", "exclude_comments") and nxt is not None and \
                _text_len(nxt) < 0.3 * total and (
                    nxt.tag not in ("p", "h1", "h2", "h3", "h4", "h5", "h6")
                    or nxt.tag == "p" and _link_share(nxt) >= 0.6):
            _drop(nxt)
        _drop(h)
        fired.add(rule)

    if "exclude_related" not in skip:
        _drop_teaser_lists(root, total, protected, fired)


def _link_share(el: lxml.etree._Element) -> float:
    n = _text_len(el)
    return sum(_text_len(a) for a in el.iter("a")) / n if n else 0.0


def _looks_like_teaser(item: lxml.etree._Element) -> bool:
    n = _text_len(item)
    if n == 0 or n > 600:
        return False
    links = [a for a in item.iter("a") if a.get("href")]
    if not links:
        return False
    headed = any(True for h in item.iter("h2", "h3", "h4", "h5", "h6")
                 if any(True for _ in h.iter("a")) or h.getparent().tag == "a")
    pictured = any(True for a in links if any(True for _ in a.iter("img")))
    text = item.text_content().rstrip()
    truncated = text.endswith(("...", "…", "[…]", "[...]")) and bool(links)
    if not (headed or pictured or truncated or any(True for _ in item.iter("time"))):
        return False
    link_chars = sum(_text_len(a) for a in links)
    return headed or truncated or link_chars >= 0.2 * n or n < 120


def _drop_teaser_lists(root, total, protected, fired) -> None:
    """Containers whose children are mostly teasers (link + heading/image/date, short)."""
    for el in list(root.iter("div", "section", "ul", "ol")):
        if el is root or el.getparent() is None or el in protected:
            continue
        items = [c for c in el if _is_el(c)]
        if len(items) < 3:
            continue
        n = _text_len(el)
        if n > 0.5 * total:
            continue
        teasers = sum(1 for c in items if _looks_like_teaser(c))
        if teasers >= 3 and teasers >= 0.6 * len(items):
            _drop(el)
            fired.add("exclude_related")


_LEGAL_RX = _rx(r"©|\(c\) \d{4}|all rights reserved|terms (?:&|and) conditions|terms of (?:use|service)"
                r"|privacy policy|cookie policy")


_STRONG_LEGAL_RX = _rx(r"all rights reserved|registered trademarks? of|for your personal, non-commercial use"
                      r"|have not been evaluated by the food and drug")


_COOKIE_TEXT_RX = _rx(r"\bcookies?\b.{0,120}\b(?:website|site|browsing|experience|consent|accept|agree|"
                      r"settings|opt-?out)\b|\b(?:website|site|we) uses? cookies\b"
                      r"|processing of my personal data")


def _clean_links(root: lxml.etree._Element, fired: set[str], skip: frozenset = frozenset()) -> None:
    """Link-dense lists and blocks (menus, tag clouds, "related" link lists), legal lines,
    repeated blocks (a caption or teaser that appears twice is kept once)."""
    seen: set[str] = set()
    for el in list(root.iter("figcaption", "div", "span", "p")):
        if el is root or el.getparent() is None:
            continue
        captionish = el.tag == "figcaption" or any(
            _keep_kind(_attrs(x)) == "caption" for x in (el, el.getparent()) if x is not None)
        if el.tag != "figcaption" and not captionish:
            if el.tag != "div" or any(True for c in el if _is_el(c) and c.tag in _BLOCKS):
                continue
        t = _squash(el.text_content())
        if len(t) < 30:
            continue
        # captions often come twice (full and truncated, or page and lightbox copies):
        # the key is the first 60 characters for them, the whole text otherwise
        key = ("c:" + t[:60]) if captionish else ("t:" + t)
        if key in seen:
            _drop(el)
            fired.add("exclude_duplicate")
        else:
            seen.add(key)
    total = max(1, _text_len(root))
    for el in list(root.iter("p", "div", "small", "span")):
        if el is root or el.getparent() is None:
            continue
        n = _text_len(el)
        if not 0 < n < 700:
            continue
        txt = el.text_content()
        if n < 500 and _COOKIE_TEXT_RX.search(txt):
            if el.tag == "div" and any(True for _ in el.iter("div", "ul", "table")):
                continue
            _drop(el)
            fired.add("exclude_cookie_banner")
            continue
        if n < 200 and _LEGAL_RX.search(txt) or _STRONG_LEGAL_RX.search(txt):
            if el.tag == "div" and any(True for _ in el.iter("p", "div", "ul", "table")):
                continue
            _drop(el)
            fired.add("exclude_footer")
    for el in list(root.iter("ul", "ol", "div", "section", "dl", "table")):
        if el is root or el.getparent() is None:
            continue
        n = _text_len(el)
        if n == 0:
            continue
        if n > 0.5 * total and n > 400:
            continue
        if any(True for _ in el.iter("figcaption")):
            continue
        if "exclude_link_dense" in skip:
            break
        link = sum(_text_len(a) for a in el.iter("a"))
        if link / n > 0.6 and (n < 1500):
            nlinks = sum(1 for _ in el.iter("a"))
            if nlinks >= 2 or el.tag in ("ul", "ol"):
                _drop(el)
                fired.add("exclude_link_dense")


_TEASER_PREFIX_RX = _rx(
    r"^\W*(?:read more|see more|more|related|related stories|related articles|also read|read also|"
    r"also on|also see|see also|watch|watch now|click here|don'?t miss|recommended|must read|"
    r"further reading|leggi anche(?: su)?|lesen sie auch|mehr zum thema|ver tamb[ié]n|lee tambi[ée]n|"
    r"veja tamb[ée]m|leia tamb[ée]m|lire aussi|[àa] lire aussi)\b\s*[:»>\-–—|]")
_UPPER_LINK_MAX = 200
_HEADINGS_P = frozenset(["p", "h1", "h2", "h3", "h4", "h5", "h6"])
_LABEL_TAG_RX = re.compile(r"\[\s*[A-Z][A-Z ]{2,20}\s*\]")
_ALSO_ON_RX = _rx(r"^\W*(?:also on|more on|more from|read more on) [\w.-]+\b")


def _unlinked_text(el: lxml.etree._Element) -> str:
    """Text of ``el`` outside its links."""
    out: list[str] = []

    def walk(e, in_link: bool) -> None:
        here = in_link or e.tag == "a"
        if e.text and not here:
            out.append(e.text)
        for c in e:
            if _is_el(c):
                walk(c, here)
            if c.tail and not here:
                out.append(c.tail)

    walk(el, False)
    return "".join(out)


def _drop_inline_teasers(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_inline_teaser``: short paragraphs inside the article that only point to
    other pages: "READ MORE: <link>", "Also on site: <link>" (a teaser prefix followed by
    a colon or arrow, with a link), or a paragraph that is one all-capitals link
    ("CLICK HERE TO GET THE APP", promoted headlines)."""
    for el in list(root.iter("p", "div", "h3", "h4", "h5", "h6", "li", "a")):
        if el is root or el.getparent() is None or el in protected:
            continue
        if el.tag in ("div", "li", "a") and any(True for c in el.iterdescendants() if _is_el(c) and c.tag in _BLOCKS):
            continue
        if el.tag == "a" and (el.getparent().tag not in _BLOCKS or el.getparent().tag in _HEADINGS_P):
            continue  # only a link standing as a block of its own
        links = [a for a in el.iter("a") if a.get("href")]
        if not links:
            continue
        t = _squash(el.text_content())
        if not t or len(t) > 300:
            continue
        if _TEASER_PREFIX_RX.match(t):
            _drop(el)
            fired.add("exclude_inline_teaser")
            continue
        link_chars = sum(len(_squash(a.text_content())) for a in links)
        # headline links tagged with a bracketed label ("... [INSIGHT] | ... [VIDEO]") or
        # a linked "Also on <site> <headline>"
        if link_chars >= 0.6 * len(t) and (_LABEL_TAG_RX.search(_unlinked_text(el))
                                           or _ALSO_ON_RX.match(t)):
            _drop(el)
            fired.add("exclude_inline_teaser")
            continue
        letters = [c for c in t if c.isalpha()]
        if len(t) <= _UPPER_LINK_MAX and link_chars >= 0.8 * len(t) and len(letters) >= 12 \
                and all(not c.islower() for c in letters) and any(c.isupper() for c in letters):
            _drop(el)
            fired.add("exclude_inline_teaser")


_POPOVER_RX = _rx(
    r"hover-?card|popover|tooltip-?(?:content|body|inner|box)|"
    r"(?:rollover|hover|popup|tooltip)[\w-]*?[-_](?:block|card|content|box|panel|body|inner)")


_POPOVER_CANDIDATES = lxml.etree.XPath(
    ".//*[contains(@class, 'over') or contains(@class, 'card') or contains(@class, 'tip') "
    "or contains(@class, 'popup') or contains(@class, 'Over') or contains(@class, 'Card')]")


def _drop_popovers(root: lxml.etree._Element, fired: set[str]) -> None:
    """``exclude_popover``: hover cards and tooltips embedded in running text (a person's
    photo, name and latest headlines shown on mouse-over) are not part of the sentence."""
    for el in list(_POPOVER_CANDIDATES(root)):
        if el is root or el.getparent() is None or not _attr_match(_POPOVER_RX, _attrs(el)):
            continue
        if not any(True for a in el.iterancestors("p", "li", "td", "dd")):
            continue
        _drop(el)
        fired.add("exclude_popover")


_BIO_CLASS_RX = _rx(r"author-?bio|about-?the-?author|author-?info|author-?box|bio-?box|"
                    r"contributor-?bio|author-?desc|(?:^|[\s_-])bio(?:$|[\s_-])|__bio")
_BIO_TEXT_RX = _rx(r"\b(?:is|was|has|have|joined|covers|writes|reports|am|are|lives)\b")


def _drop_author_bios(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_author_bio`` (prose form): a block with an author-bio class whose text is a
    sentence about the writer ("X joined the magazine in 2017.", "X is a reporter for ...")
    goes even when byline classes inside it would protect it; short name/date bylines (no
    verb) stay."""
    for el in list(_ATTR_CANDIDATES(root)):
        if el is root or el.getparent() is None or not _attr_match(_BIO_CLASS_RX, _attrs(el)):
            continue
        if el.tag in ("h1", "time") or any(True for _ in el.iter("h1", "time")):
            continue
        t = _squash(el.text_content())
        if not (20 <= len(t) <= 1500) or not _BIO_TEXT_RX.search(t):
            continue
        _drop(el)
        fired.add("exclude_author_bio")
        protected.pop(el, None)


# Calls to action that are not part of the story: newsletter sign-ups, subscriptions,
# "follow us", "email the writer", "if you enjoyed this ...".
_CTA_RX = _rx(
    r"^\W*(?:(?:click|tap) here to (?:subscribe|sign up|register|join)|sign up (?:here|now|today)"
    r"|subscribe (?:to|for|now|today|here)|get (?:the|our) (?:\w+ ){0,3}newsletters?"
    r"|follow (?:us|him|her|them|\w+(?: \w+)?) on (?:twitter|facebook|instagram|linkedin)"
    r"|(?:email|e-mail|reach|write to|contact) (?:\w+ ){0,3}(?:at|on twitter|via)\b"
    r"|follow @?\w+|have a (?:news )?tip\b|got a (?:news )?tip\b"
    r"|(?:if you|did you) (?:enjoyed?|liked?|like) (?:this|reading)\b|like this (?:story|article)\?"
    r"|get (?:the latest|more)\b.{0,60}\b(?:inbox|newsletter)"
    r"|(?:don'?t|never) miss (?:a|an|another) (?:story|update|issue))"
    r"|\b(?:sign up|subscribe) (?:for|to) (?:\w+ ){0,4}(?:newsletter|daily|weekly|email|updates)"
    r"|delivered (?:straight |directly )?(?:to|through|in) your (?:inbox|letterbox|door)"
    r"|\bsubscribe (?:to|for) (?:our|the) (?:[\w-]+ ){0,3}(?:magazine|title|edition|podcast|channel)\b"
    r"|\b(?:click|tap) to subscribe\b|^\W*to (?:read|continue reading) the full (?:story|article)\W*$")


_CTA_HINT_RX = re.compile(r"subscri|sign up|newsletter|follow|mail|reach|write to|contact|tip|enjoy|"
                         r"like|inbox|letterbox|miss|full st|full ar")  # on lower-cased text


_TEXT_NODES = lxml.etree.XPath(".//text()")
_CTA_UNITS = frozenset(["p", "div", "h2", "h3", "h4", "h5", "h6"])


def _drop_calls_to_action(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_call_to_action``: short paragraphs (under 400 characters, no quote or
    embedded post) whose text is a call to action (see :data:`_CTA_RX`)."""
    # candidates: the nearest p/div/heading around each text node holding a hint word
    cands: list = []
    seen: set = set()
    for txt in _TEXT_NODES(root):
        if not _CTA_HINT_RX.search(txt.lower()):
            continue
        el = txt.getparent()
        while el is not None and el is not root and el.tag not in _CTA_UNITS:
            el = el.getparent()
        if el is None or el is root or el in seen:
            continue
        seen.add(el)
        cands.append(el)
    for el in cands:
        if el.getparent() is None or el in protected:
            continue
        t = el.text_content()
        if len(t) > 1200:
            continue
        t = _squash(t)
        if not t or len(t) > 400 or not _CTA_RX.search(t):
            continue
        if not any(True for a in el.iterancestors() if a is root):
            continue  # inside a block removed earlier
        if el.tag == "div" and any(True for c in el.iterdescendants() if _is_el(c) and c.tag in _BLOCKS):
            continue
        if any(True for _ in el.iterancestors("blockquote", "li")):
            continue
        if any(True for d in el.iterdescendants() if d in protected):
            continue
        _drop(el)
        fired.add("exclude_call_to_action")


# A block that only labels an ad slot ("Advertisement", "Story continues below advertisement").
_AD_LABEL_RX = re.compile(
    r"^[\W_]*(?:advertisements?|advertising|sponsored(?: content)?|ad|anzeige|publicidade|publicit[eé]|"
    r"pubblicit[aà]|(?:the )?(?:story|article) continues below(?: (?:this )?advertisement)?|"
    r"continue reading (?:the )?(?:main story|below)|scroll to continue(?: with content)?)[\W_]*$",
    re.I,
)
_AD_UNITS = frozenset(["p", "div", "span", "aside", "section", "figure", "h2", "h3", "h4", "h5", "h6"])


def _drop_ad_labels(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_ad_label``: the largest block around a text node whose whole text is an ad-slot
    label, as long as that block holds nothing else."""
    for txt in _TEXT_NODES(root):
        if len(txt) > 80 or not _AD_LABEL_RX.match(txt.strip() or "x"):
            continue
        el = txt.getparent()
        unit = None
        while el is not None and el is not root and el.tag in _AD_UNITS | {"strong", "b", "em", "i", "small"}:
            if _AD_LABEL_RX.match(_squash(el.text_content()) or "x"):
                unit = el
                el = el.getparent()
            else:
                break
        if unit is None or unit in protected or unit.getparent() is None:
            continue
        if not any(True for a in unit.iterancestors() if a is root):
            continue
        _drop(unit)
        fired.add("exclude_ad_label")


_ABOUT_HEADING_RX = re.compile(r"^about (?:the )?[A-Z0-9][\w&.,'’ -]{1,60}[:.]?$", re.I)
_COMPANY_PARA_RX = re.compile(
    r"^(?:about [^.]{1,60}?[:\s]\s*)?(?:founded in \d{4},? )?[A-Z][\w&.'’-]*(?: [A-Z&][\w&.'’-]*){0,5}"
    r"(?: \([^)]{1,40}\))?,? (?:is|are) (?:a|an|the|one of the) (?:[\w-]+,? ){0,7}?"
    r"(?:provider|company|leader|manufacturer|developer|firm|organi[sz]ation|group|supplier|"
    r"platform|publisher|agency|bank|network|producer|operator|retailer|brand|business|"
    r"corporation|institution|maker|specialist|pioneer|innovator|distributor|solutions?)s?\b")


def _drop_press_boilerplate(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_press_boilerplate``: the "About <company>" tail of a press release. Trigger:
    a heading or paragraph reading "About <Name>", or a paragraph that opens by defining a
    company ("<Name> is a leading provider of ..."); it must come after at least three
    paragraphs and start the last 35% of the selection's text. The trigger and everything
    after it (boilerplate, media contacts) are removed."""
    total = _text_len(root)
    if total < 400:
        return
    units = [el for el in root.iter("p", "h2", "h3", "h4", "h5", "h6", "div")
             if el.tag != "div" or not any(True for c in el if _is_el(c) and c.tag in _BLOCKS)]
    seen_paras = 0
    before = 0
    for el in units:
        t = _squash(el.text_content())
        if not t:
            continue
        if any(True for _ in el.iterancestors("blockquote", "li", "table")):
            before += len(t)
            continue
        trigger = (len(t) <= 80 and _ABOUT_HEADING_RX.match(t)) or (
            el.tag in ("p", "div") and _COMPANY_PARA_RX.match(t))
        if trigger and seen_paras >= 3 and before >= 0.65 * total and el not in protected:
            _drop_from(root, el)
            fired.add("exclude_press_boilerplate")
            return
        before += len(t)
        if el.tag == "p" and len(t) >= 40:
            seen_paras += 1


def _drop_from(root: lxml.etree._Element, el: lxml.etree._Element) -> None:
    """Remove ``el`` and everything after it in document order inside ``root``."""
    node = el
    while node is not None and node is not root:
        parent = node.getparent()
        for sib in list(node.itersiblings()):
            sib.tail = None
            _drop(sib)
        node = parent
    el.tail = None
    _drop(el)


_VIDEO_CLASS_RX = _rx(r"(?:^|[\s_-])(?:video|videos|video-?player|video-?container|video-?wrap\w*|"
                      r"video-?embed|video-?teaser|video-?promo|featured-?video|jw-?player|"
                      r"brightcove\w*|vjs\w*)(?:$|[\s_-])")
_COMMENT_POLICY_RX = _rx(
    r"comment(?:ing)? (?:policy|guidelines|rules)|comments? (?:are|is|will be) (?:moderated|reviewed|"
    r"pre-?moderated|closed)|we (?:reserve the right to|may) (?:remove|delete|edit) (?:any )?comments"
    r"|coment[aá]rios? (?:com|que|ser[aã]o|s[aã]o|est[aã]o) .{0,80}\b(?:aprovados?|moderados?|"
    r"moderador|publicados?|removidos?)|commenti? (?:sono|saranno) moderat")


_VIDEO_CANDIDATES = lxml.etree.XPath(
    ".//*[contains(@class, 'ideo') or contains(@class, 'rightcove') or contains(@class, 'layer') "
    "or contains(@class, 'vjs') or contains(@id, 'ideo')]")


def _drop_media_and_policy(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_video_teaser``: a video player block (class ``video``, ``video-player``,
    ``featured-video``, ...; under 600 characters of text, no long paragraph) with its
    title and teaser text; its caption is the video's promotion, not an image caption.
    ``exclude_comments`` (text form): short comment-policy notices."""
    for el in list(_VIDEO_CANDIDATES(root)):
        if el is root or el.getparent() is None or not _attr_match(_VIDEO_CLASS_RX, _attrs(el)):
            continue
        if el.tag in ("p", "h1") or any(True for _ in el.iter("h1")):
            continue
        n = _text_len(el)
        if n > 600 or any(_text_len(p) >= 300 for p in el.iter("p")):
            continue
        _drop(el)
        fired.add("exclude_video_teaser")
    if not _COMMENT_POLICY_RX.search(root.text_content()):
        return
    for el in list(root.iter("p", "div", "small", "span", "em")):
        if el is root or el.getparent() is None:
            continue
        if el.tag == "div" and any(True for c in el.iterdescendants() if _is_el(c) and c.tag in _BLOCKS):
            continue
        n = _text_len(el)
        if 0 < n < 400 and _COMMENT_POLICY_RX.search(el.text_content()):
            _drop(el)
            fired.add("exclude_comments")


def _recipe_exclude(root: lxml.etree._Element, exclude_selectors, fired: set[str]) -> None:
    for sel in exclude_selectors:
        try:
            matches = root.cssselect(sel)
        except Exception:
            continue
        for el in matches:
            if el is root or el.getparent() is None:
                continue
            _drop(el)
            fired.add("recipe_exclude")


# --------------------------------------------------------------------------- selection

_SEMANTIC_ORDER = (
    ("semantic_article_body", lambda el: "articlebody" in (el.get("itemprop") or "").lower()),
    ("semantic_article", lambda el: el.tag == "article"),
    ("semantic_main", lambda el: el.tag == "main"),
    ("role_main", lambda el: (el.get("role") or "").lower() == "main"),
)


def _semantic_ancestor(el: lxml.etree._Element, stop: lxml.etree._Element):
    node = el
    while node is not None:
        for name, pred in _SEMANTIC_ORDER:
            if pred(node):
                return node, name
        if node is stop:
            break
        node = node.getparent()
    return None, None


def _selector_of(el: lxml.etree._Element, rule: str) -> str:
    if rule == "semantic_article_body":
        return f"{el.tag}[itemprop~=articleBody]" if el.tag else "[itemprop~=articleBody]"
    if rule == "semantic_article":
        return "article"
    if rule == "semantic_main":
        return "main"
    if rule == "role_main":
        return "[role=main]"
    return _css_path(el)


def select_main(doc: lxml.html.HtmlElement, *, main_selectors: Sequence[str] = (),
                exclude_selectors: Sequence[str] = (), keep_comments: bool = False,
                keep_bylines: bool = False, keep_captions: bool = False,
                agreement: bool = True, page_type: str | None = None, url: str = "") -> Selection:
    """Select the main content of ``doc`` (see the module docstring).

    An internal error propagates: ``convert()`` turns it into a ``converter_error`` drop.
    Falling back to the whole body here would keep navigation and footers as a success."""
    return _select_main(doc, main_selectors=main_selectors,
                        exclude_selectors=exclude_selectors, keep_comments=keep_comments,
                        keep_bylines=keep_bylines, keep_captions=keep_captions,
                        agreement=agreement, page_type=page_type, url=url)


def _select_main(doc, *, main_selectors, exclude_selectors, keep_comments,
                 keep_bylines=False, keep_captions=False, agreement=True, page_type=None,
                 url="") -> Selection:
    fired: set[str] = set()
    if page_type is None:
        guess = pagetype.detect_page_type(doc, url)
    else:
        guess = pagetype.PageTypeGuess(page_type, ("recipe",), pinned=True)
    skip = PROFILES.get(guess.type, frozenset())
    comments_are_content = "exclude_comments" in skip
    src_body = None
    if doc is not None and _is_el(doc):
        if doc.tag == "body":
            src_body = doc
        else:
            src_body = doc.find("body")
            if src_body is None:
                src_body = doc.find(".//body")
    if src_body is None:
        src_body = lxml.html.Element("body")
        if doc is not None and _is_el(doc):
            src_body.append(copy.deepcopy(doc))
    body = copy.deepcopy(src_body)
    body.tail = None
    base_href = None
    try:
        for b in doc.getroottree().getroot().iter("base"):
            if b.get("href"):
                base_href = b.get("href").strip()
                break
    except Exception:
        base_href = None
    vote = agreement and not keep_comments
    aria_hidden = _preclean(body, fired, defer_aria=vote)
    # The candidates' vote sees the page before the own pattern rules (and with the blocks
    # hidden from screen readers only): a unit those rules removed can come back when both
    # other candidates keep it.
    vote_units: list = []
    vote_body = body
    if vote:
        _wrap_loose_text(body, fired)
        for i, u in enumerate(_leaf_units(body, _VOTE_UNITS)):
            u.set(UNIT_ATTR, str(i))
        vote_body = copy.deepcopy(body)
        vote_units = _leaf_units(vote_body, _VOTE_UNITS)
        for el in aria_hidden:
            if el.getparent() is not None:
                _drop(el)
                fired.add("exclude_hidden")
    page_chars = _text_len(body)

    chosen = None
    rule = "body_fallback"
    selector: str | None = "body"

    for sel in main_selectors or ():
        try:
            matches = body.cssselect(sel)
        except Exception:
            continue
        for el in matches:
            if _text_len(el) >= MIN_TEXT:
                chosen, rule, selector = el, "recipe_selector", sel
                break
        if chosen is not None:
            break

    if chosen is None:
        _recipe_exclude(body, exclude_selectors, fired)
        _clean_patterns(body, keep_comments=keep_comments, fired=fired, skip=skip)
        scores = _Scores(body)
        best = scores.best(body)
        if best is not None:
            chosen, rule = best, "density_score"
            # Several <article> elements inside the candidate (the post plus "more posts"
            # cards): the one holding the page's first <h1> is the main one.
            arts = [a for a in best.iter("article") if a is not best]
            if len(arts) >= 2:
                h1 = next(iter(body.iter("h1")), None)
                if h1 is not None:
                    for a in arts:
                        if any(h is h1 for h in a.iter("h1")) and _text_len(a) >= MIN_TEXT:
                            best = a
                            break
            sem, sem_rule = _semantic_ancestor(best, body)
            if sem is not None and sem is not body:
                if scores.score.get(id(sem), 0) >= 0.6 * scores.score.get(id(best), 0):
                    chosen, rule = sem, sem_rule
            # coverage guard
            total = scores.positive_total
            if total > 0 and rule not in ("semantic_article", "semantic_article_body"):
                node = chosen
                while (node is not None and node is not body
                       and scores.score.get(id(node), 0) < COVERAGE_MIN * total):
                    node = node.getparent()
                if node is not None and node is not chosen:
                    # only widen when the wider node is not dominated by junk
                    n_art = sum(1 for _ in chosen.iter("article"))
                    if scores.score.get(id(node), 0) >= COVERAGE_KEEP * scores.score.get(id(chosen), 0) and \
                            sum(1 for _ in node.iter("article")) == n_art:
                        chosen, rule = node, "coverage_guard"
            selector = _selector_of(chosen, rule)

    if chosen is None:
        chosen = body
        rule, selector = "body_fallback", "body"

    units = vote_units if rule != "recipe_selector" else []
    root = copy.deepcopy(chosen)
    root.tail = None
    if rule == "recipe_selector":
        _recipe_exclude(root, exclude_selectors, fired)
        _clean_patterns(root, keep_comments=keep_comments, fired=fired, skip=skip)
    _clean_links(root, fired, skip)
    protected = _protected_blocks(root, fired)  # also records the keep rules that apply
    _drop_popovers(root, fired)
    _drop_author_bios(root, protected, fired)
    if "exclude_inline_teaser" not in skip:
        _drop_inline_teasers(root, protected, fired)
    _drop_calls_to_action(root, protected, fired)
    _drop_ad_labels(root, protected, fired)
    _drop_press_boilerplate(root, protected, fired)
    _drop_media_and_policy(root, protected, fired)
    set_aside: list[tuple[str, str]] = []
    removed: list[tuple[str, str]] = []
    agreement_info = None
    ref_cache: dict = {}

    def page_text(name: str) -> str:
        if name not in ref_cache:
            ref_cache[name] = candidate_text(doc, name, include_comments=comments_are_content)
        return ref_cache[name]

    shared = bool(units)
    if not keep_comments:  # the reference extractor leaves comments out
        _prune_by_reference(root, protected, fired, keep_bylines=keep_bylines,
                            keep_captions=keep_captions, set_aside=set_aside, removed=removed,
                            page_ref=(lambda: page_text("trafilatura")) if shared else None)
    if units:
        own_idx = frozenset(int(e.get(UNIT_ATTR)) for e in root.iter() if _is_el(e) and e.get(UNIT_ATTR))
        region = frozenset(int(e.get(UNIT_ATTR)) for e in chosen.iter() if _is_el(e) and e.get(UNIT_ATTR))
        ballots = [Ballot(i, _TOKEN_RX.findall(u.text_content().lower()), i in own_idx, u.tag,
                          in_region=i in region)
                   for i, u in enumerate(units)]
        res = decide(ballots, page_text)
        agreement_info = res.to_dict()
        if res.keep is not None:
            kept_units = [units[i] for i in sorted(res.keep)]
            container = _common_ancestor(kept_units, vote_body) if kept_units else chosen
            if container is not chosen:
                rule = "agreement"
                selector = _selector_of(container, rule)
            root = copy.deepcopy(container)
            root.tail = None
            protected = _protected_blocks(root, fired)
            keep_set = res.keep

            def votes(el) -> bool:
                idx = el.get(UNIT_ATTR)
                if idx is not None:
                    return int(idx) in keep_set
                inner = [int(d.get(UNIT_ATTR)) for d in el.iter() if _is_el(d) and d.get(UNIT_ATTR)]
                return not inner or any(i in keep_set for i in inner)

            set_aside = []
            removed = [("exclude_no_agreement", _squash(units[i].text_content())[:SET_ASIDE_MAX_CHARS])
                       for i in res.removed]
            _prune_by_reference(root, protected, fired, keep_bylines=keep_bylines,
                                keep_captions=keep_captions, set_aside=set_aside, votes=votes)
            fired.add("agreement")
        for e in root.iter():
            if _is_el(e) and e.get(UNIT_ATTR) is not None:
                del e.attrib[UNIT_ATTR]
    if vote and rule != "recipe_selector":
        rescued = _listing_rescue(vote_body, _text_len(root))
        if rescued is not None:
            root = copy.deepcopy(rescued)
            root.tail = None
            for e in root.iter():
                if _is_el(e) and e.get(UNIT_ATTR) is not None:
                    del e.attrib[UNIT_ATTR]
            _clean_links(root, fired, skip)
            _drop_popovers(root, fired)
            rule, selector = "listing_items", _selector_of(rescued, "listing_items")
            fired.add("listing_items")
            set_aside, removed = [], []
    reference_share = None
    if "trafilatura" in ref_cache:
        reference_share = _shared_share(root, ref_cache["trafilatura"])
    if base_href:
        root.set("data-gc-base", base_href)
    return Selection(
        root=root,
        rule=rule,
        selector=selector,
        removal_rules=tuple(sorted(fired)),
        main_text_chars=_text_len(root),
        page_text_chars=page_chars,
        set_aside=tuple(set_aside),
        removed=tuple(removed),
        agreement=agreement_info,
        reference_share=reference_share,
        page_type=guess,
    )


#: listing rescue: the page's largest group of repeated linked items has at least this many items
LISTING_RESCUE_MIN_ITEMS = 8
#: ... holding at least this share of the page's text
LISTING_RESCUE_MIN_SHARE = 0.1
#: ... and the selection holds less than this share of the group's text
LISTING_RESCUE_MAX_RATIO = 0.15


def _listing_rescue(body: lxml.etree._Element, selected_chars: int):
    """The container of the page's repeated items when the selection missed them: a group of
    at least ``LISTING_RESCUE_MIN_ITEMS`` cards (siblings with a link and text of their own,
    outside navigation, header, footer and aside) holding ``LISTING_RESCUE_MIN_SHARE``
    of the page's text, next to which the selection is tiny (under
    ``LISTING_RESCUE_MAX_RATIO`` of the group's text): a product grid or a result list whose
    density score lost to a banner or a single paragraph. None otherwise."""
    parent, n, share = pagetype.largest_card_group(body)
    if parent is None or n < LISTING_RESCUE_MIN_ITEMS or share < LISTING_RESCUE_MIN_SHARE:
        return None
    if selected_chars >= LISTING_RESCUE_MAX_RATIO * _text_len(parent):
        return None
    return parent


# --------------------------------------------------------------------------- reference pruning

_TOKEN_RX = re.compile(r"\w+", re.UNICODE)
_CREDIT_ONLY_RX = _rx(r"credit")
_CAPTION_WORD_RX = _rx(r"caption")
_LEAF_UNITS = frozenset(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "pre",
                         "table", "blockquote", "figcaption", "caption", "address"])
#: removal rules that cut the content of a page type (its extraction profile)
PROFILES: dict[str, frozenset] = {
    "article": frozenset(),
    "documentation": frozenset(),
    "service": frozenset(),
    "product": frozenset(),
    "forum": frozenset({"exclude_comments"}),
    "listing": frozenset({"exclude_related", "exclude_link_dense", "exclude_inline_teaser"}),
}

#: atomic units of the candidates' vote (tables and cells are split: layout tables hold whole columns)
_VOTE_UNITS = frozenset(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "pre",
                         "figcaption", "caption", "address"])
#: the reference must cover at least this share of its own shingles inside our selection
REF_SUBSET_MIN = 0.9
#: with the whole page's reference text, at least this share of it must lie in our selection
REF_PAGE_SUBSET_MIN = 0.5
#: a unit is kept when this share of its shingles occurs in the reference
REF_KEEP_MIN = 0.5
#: and must cover at least this share of the selection's shingles
REF_COVER_MIN = 0.55


class _QuietReference(logging.Filter):
    """The second opinion often finds nothing to say; its "discarding data" warnings are
    expected, not a problem worth a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "discarding data" not in record.getMessage()


_QUIET = _QuietReference()


def _reference_text(root: lxml.etree._Element) -> str | None:
    """Text of the selection according to an independent extractor (trafilatura, fast mode,
    run on a copy of the selection), or None when it is not available."""
    try:
        import trafilatura  # runtime dependency; optional here
    except Exception:
        return None
    tlog = logging.getLogger("trafilatura.core")
    if _QUIET not in tlog.filters:
        tlog.addFilter(_QUIET)
    html = lxml.html.Element("html")
    body = copy.deepcopy(root)
    body.tag = "body"
    body.tail = None
    html.append(body)
    try:
        return trafilatura.extract(html, fast=True, include_comments=False, include_tables=True,
                                   deduplicate=False)
    except Exception:
        return None


def _leaf_units(root: lxml.etree._Element, atomic: frozenset = _LEAF_UNITS) -> list:
    """The text units under ``root`` in document order: leaf blocks (paragraphs, list items,
    headings, tables, code, ...: the ``atomic`` tags) and elements holding no block element."""
    units: list = []
    # elements holding a block element, marked bottom-up in one pass (each ancestor once)
    holds_block: set = set()
    for d in root.iter(*_BLOCKS):
        if d is root:
            continue
        for anc in d.iterancestors():
            if anc in holds_block:
                break
            holds_block.add(anc)
            if anc is root:
                break

    def collect(el) -> None:
        for child in el:
            if not _is_el(child):
                continue
            if child.tag in atomic or child not in holds_block:
                units.append(child)
            else:
                collect(child)

    collect(root)
    return units


def _wrap_loose_text(root: lxml.etree._Element, fired: set[str]) -> None:
    """Wrap runs of loose text (a container's own text, inline children and tails between
    its block children) in ``<p>`` elements, so that every piece of text belongs to a unit
    the candidates can vote on (``wrap_loose_text``). Text-only and inline-only elements are
    left as they are."""
    holds_block: set = set()
    for d in root.iter(*_BLOCKS):
        for anc in d.iterancestors():
            if anc in holds_block:
                break
            holds_block.add(anc)
            if anc is root:
                break
    for el in [e for e in root.iter() if e in holds_block]:
        if el.tag in ("table", "tr", "tbody", "thead", "tfoot", "ul", "ol", "dl", "pre", "select"):
            continue
        # is there a run of loose text next to a block child?
        loose = bool((el.text or "").strip())
        mixed = False
        for child in el:
            is_block = _is_el(child) and (child.tag in _BLOCKS or child in holds_block)
            if is_block:
                mixed = True
                if (child.tail or "").strip():
                    loose = True
            elif _is_el(child) and (child.text_content() or "").strip():
                loose = True
        if not (mixed and loose):
            continue
        # rebuild: walk the children again, replacing each run by a <p>
        fired.add("wrap_loose_text")
        new_children: list = []
        text = el.text or ""
        inline: list = []
        for child in list(el):
            is_block = _is_el(child) and (child.tag in _BLOCKS or child in holds_block)
            if is_block:
                new_children.extend(_make_run(text, inline))
                tail = child.tail or ""
                child.tail = None
                new_children.append(child)
                text, inline = tail, []
            else:
                inline.append(child)
        new_children.extend(_make_run(text, inline))
        for child in list(el):
            el.remove(child)
        el.text = None
        for child in new_children:
            if isinstance(child, str):
                if len(el):
                    el[-1].tail = (el[-1].tail or "") + child
                else:
                    el.text = (el.text or "") + child
            else:
                el.append(child)


def _make_run(text: str, inline: list) -> list:
    """A run of loose text and inline elements as a new <p> (or as plain whitespace)."""
    has_text = text.strip() or any(_is_el(c) and (c.text_content() or "").strip() for c in inline)
    if not has_text:
        out: list = [text] if text else []
        for c in inline:
            tail = c.tail
            c.tail = None
            out.append(c)
            if tail:
                out.append(tail)
        return out
    p = lxml.html.Element("p")
    p.text = text
    for c in inline:
        p.append(c)  # tails travel with their element
    return [p]


def _common_ancestor(els: list, stop: lxml.etree._Element) -> lxml.etree._Element:
    """The deepest element holding every element of ``els`` (``stop`` at most)."""
    chain = [els[0], *els[0].iterancestors()]
    pos = {id(e): k for k, e in enumerate(chain)}
    best = 0
    for el in els[1:]:
        k = next((pos[id(a)] for a in (el, *el.iterancestors()) if id(a) in pos), None)
        if k is None:
            return stop
        best = max(best, k)
    stop_k = pos.get(id(stop))
    if stop_k is not None and best > stop_k:
        return stop
    return chain[best]


def _shared_share(root: lxml.etree._Element, ref: str) -> float | None:
    """Share of ``root``'s 4-token shingles that occur in ``ref``."""
    ours = _shingle_set(_TOKEN_RX.findall(root.text_content().lower()))
    if not ours:
        return None
    theirs = _shingle_set(_TOKEN_RX.findall((ref or "").lower()))
    return round(len(ours & theirs) / len(ours), 4)


def _shingle_set(tokens: list[str]) -> set:
    """The set of 4-token windows (``tuple(tokens[i:i + 4])`` for every i), built by zip."""
    return set(zip(tokens, tokens[1:], tokens[2:], tokens[3:]))


#: a heading right after the title with at least this many tokens can be a standfirst
STANDFIRST_MIN_TOKENS = 8
#: longest text recorded for one set-aside byline/dateline/caption
SET_ASIDE_MAX_CHARS = 300


def _prune_by_reference(root: lxml.etree._Element, protected: dict, fired: set[str], *,
                        keep_bylines: bool = False, keep_captions: bool = False,
                        set_aside: list | None = None, votes=None,
                        removed: list | None = None, page_ref=None) -> None:
    """``exclude_reference_disagree``: when an independent extractor's text (see
    :func:`_reference_text`) is (nearly) a subset of our selection and covers most of it,
    text units (paragraphs, list items, leaf blocks) it leaves out are removed. Never
    removed: the first heading, ``h1``, quotes, embedded posts, or units holding them;
    bylines and ``time`` datelines only with ``keep_bylines``, captions only with
    ``keep_captions``; a list keeps all its items when the reference keeps any of them; a
    heading stays when anything of its section stays, except a standfirst (see the module
    docstring). Removed bylines, datelines, standfirsts and captions are appended to
    ``set_aside`` as ``(kind, text)``."""
    if votes is None:
        ref = page_ref() if page_ref is not None else _reference_text(root)
        if not ref:
            return
        ref_tokens = _TOKEN_RX.findall(ref)
        if len(ref_tokens) < 40:
            return
        ref_sh = _shingle_set(ref_tokens)
        ours_sh = _shingle_set(_TOKEN_RX.findall(root.text_content()))
        common = len(ref_sh & ours_sh)
        subset_min = REF_SUBSET_MIN if page_ref is None else REF_PAGE_SUBSET_MIN
        if not ref_sh or common < subset_min * len(ref_sh) or common < REF_COVER_MIN * len(ours_sh):
            return
        ref_joined = " " + " ".join(ref_tokens) + " "
    rule_name = "exclude_reference_disagree" if votes is None else "exclude_no_agreement"
    first_heading = next(iter(root.iter("h1")), None)
    if first_heading is None:
        first_heading = next(iter(root.iter("h2", "h3")), None)
    keep_kind = {"byline": keep_bylines, "caption": keep_captions}
    shield = []
    meta_kind: dict = {}  # element inside / holding an unshielded byline/caption -> kind

    def mark(el, kind: str) -> None:
        for x in (*el.iter(), *el.iterancestors()):
            meta_kind.setdefault(x, kind)

    for el, kind in protected.items():
        if el.getparent() is None:
            continue
        credit_only = el.tag not in ("figcaption", "caption") and _CREDIT_ONLY_RX.search(
            _attrs(el)) and not _CAPTION_WORD_RX.search(_attrs(el))
        if keep_kind[kind] and not credit_only:  # image credits alone are never shielded
            shield.append(el)
        else:
            mark(el, kind)
    for el in root.iter("time"):
        if keep_bylines:
            shield.append(el)
        else:
            mark(el, "dateline")
    if first_heading is not None:
        shield.append(first_heading)
    shield.extend(root.iter("h1", "blockquote"))
    shield.extend(el for el in _ATTR_CANDIDATES(root) if _attr_match(_EMBED_RX, _attrs(el)))
    covered: set = set()  # inside a shielded element
    holds: set = set()  # holds a shielded element
    for el in shield:
        if el in covered:
            continue
        covered.update(el.iter())
        holds.update(el.iterancestors())

    units = _leaf_units(root)

    def in_ref(el) -> bool:
        if votes is not None:
            return votes(el)
        toks = _TOKEN_RX.findall(el.text_content())
        if not toks:
            return True
        if len(toks) >= 4:
            sh = _shingle_set(toks)
            return sum(1 for s in sh if s in ref_sh) >= REF_KEEP_MIN * len(sh)
        return (" " + " ".join(toks) + " ") in ref_joined

    keep = [u in covered or u in holds or in_ref(u) for u in units]
    # lists: all items stay when the reference keeps any of them
    # (with votes, each item was voted on: no expansion)
    kept_lists = set() if votes is not None else {u.getparent() for u, k in zip(units, keep) if k and u.tag == "li"}
    for i, u in enumerate(units):
        if not keep[i] and u.tag == "li" and u.getparent() in kept_lists:
            keep[i] = True
    # A standfirst: a sentence-long h2-h6 straight after the title (nothing kept between
    # them) that the reference leaves out is a summary line of the header, not a section
    # heading; it is set aside like a byline (with keep_bylines it stays).
    standfirst = set()
    if first_heading is not None and not keep_bylines:
        seen_title = False
        title_units = {first_heading, *first_heading.iterancestors()}
        for i, u in enumerate(units):
            if u in title_units:
                seen_title = True
                continue
            if not seen_title:
                continue
            if u.tag in ("h2", "h3", "h4", "h5", "h6") and not keep[i] and \
                    len(_TOKEN_RX.findall(u.text_content())) >= STANDFIRST_MIN_TOKENS:
                standfirst.add(u)
                meta_kind.setdefault(u, "standfirst")
                continue
            if keep[i] and _TOKEN_RX.search(u.text_content() or ""):
                break
    # headings: stay when anything up to the next heading stays
    for i, u in enumerate(units):
        if not keep[i] and u.tag in ("h2", "h3", "h4", "h5", "h6") and u not in standfirst:
            for j in range(i + 1, len(units)):
                if units[j].tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                    break
                if keep[j] and _TOKEN_RX.search(units[j].text_content() or ""):
                    keep[i] = True
                    break
    for u, k in zip(units, keep):
        if not k and u.getparent() is not None:
            kind = meta_kind.get(u)
            if kind is not None and set_aside is not None:
                text = _squash(u.text_content())
                if text:
                    set_aside.append((kind, text[:SET_ASIDE_MAX_CHARS]))
            elif removed is not None:
                text = _squash(u.text_content())
                if text:
                    removed.append((rule_name, text[:SET_ASIDE_MAX_CHARS]))
            _drop(u)
            fired.add(rule_name)
