"""Pattern rules: tags, roles, class/id words, heading texts, teaser lists; keep rules
(captions, bylines); recipe exclude selectors."""

from __future__ import annotations

import re

import lxml.etree

from gatecrawl.core.extract.classwords import (  # noqa: F401 (the names other modules read here)
    _ANY_BOUNDED_LRX, _ANY_LOOSE_LRX, _BYLINE_RX, _CAPTION_RX, _CONTENT_CLASS_RX, _EMBED_RX, _KEEP_ANY_LRX,
    _KEEP_ANY_RX, _KEEP_WORDS, _KINDS, _PATTERN_LRULES, _PATTERN_RULES, _RULE_NAMES, _attrs_code,
    _classify_attrs, _classify_word, _keep_kind, _names_content)
from gatecrawl.core.extract.dom import (_RemovedBlocks, _ancestors_of, _attr_matcher, _attrs, _drop, _rx, _squash,
    _text_len, collapsed_menu_chars)
from gatecrawl.core.extract.listing import _drop_teaser_lists


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
_DIALOG_ROLES = frozenset(("dialog", "alertdialog"))
_POSITIVE_RX = _rx(r"article|body|content|entry|main|post|story|text|blog|prose|rich-?text")
_NEGATIVE_RX = _rx(
    r"comment|footer|footnote|related|share|sidebar|widget|sponsor|promo|advert|popular|"
    r"newsletter|cookie|consent|menu|nav|breadcrumb|social|teaser|recommend|trending")
_SEMANTIC_SCHEMA = _rx(r"articlebody|(?:^|\s)text(?:$|\s)")


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
#: the generic tags whose leaf elements can be section labels (the others are headings)
_LABEL_TAGS = frozenset(("span", "div", "strong", "b", "p"))
_STRUCTURAL_KEEP = frozenset(["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "td",
                              "th", "tr", "li", "figcaption", "blockquote", "body", "html"])


def _protected_blocks(root: lxml.etree._Element, fired: set[str], rule_candidates: list | None = None,
                      kinds: list | None = None, known: list | None = None) -> dict:
    """Captions and bylines (keep rules). Returns the protected elements, each mapped to
    its kind (``"caption"`` or ``"byline"``), in document order. ``rule_candidates``: a list
    that receives ``_rule_candidates(root)`` from the same walk (the caller's next pass): the
    class/id strings this walk builds name the rules, and the elements no rule names (most of
    a page) are not handed over.

    ``kinds``: a list that receives ``(element, kind)`` for each element below ``root`` whose
    class/id words name a kind (protected or not: its size decides), in document order.
    ``known``: such a list from an earlier call on a tree that ``root`` is a part of, changed
    since by removals only: the elements' class and id words are read from it, for those still
    below ``root``, instead of walking ``root`` (sizes are measured again: a removal can make
    a block small enough)."""
    protected: dict = {}  # element (hashed by identity, kept alive by the dict) -> kind
    if known is not None:
        # the captions and the author links from one walk (protected in that order, with the
        # known kinds between them)
        authors = []
        for el in root.iter("figcaption", "caption", "a"):
            if el.tag == "a":
                if el.get("rel") == "author":
                    authors.append(el)
            else:
                protected[el] = "caption"
                fired.add("keep_caption")
        for el, kind in known:
            if any(a is root for a in el.iterancestors()):
                _protect(el, kind, protected, fired)
        for el in authors:
            protected.setdefault(el, "byline")
            fired.add("keep_byline")
        return protected
    attrs_code = _attrs_code
    rule_names, kind_names = _RULE_NAMES, _KINDS
    rule_tags = _TAG_RULES
    named = _named_rule
    structural = _STRUCTURAL_KEEP
    collect = rule_candidates.append if rule_candidates is not None else None
    # The figcaptions, the class/id words' kinds and the author links are found in this one
    # walk, and protected in that order afterwards (the order of ``protected``, and a first
    # kind found for an element stands).
    captions = [root] if root.tag in _CAPTION_TAGS else []
    authors = [root] if root.tag == "a" and root.get("rel") == "author" else []
    named_kinds: list = []
    # each class/id string met: ``(_attrs, its rule, its kind)`` (a page repeats its strings),
    # keyed by ``_attrs`` before the strip: the class alone or the id alone need no new string
    seen: dict = {}
    for el in root.iterdescendants(lxml.etree.Element):  # (``_ATTR_CANDIDATES``, inlined)
        tag = el.tag
        get = el.get
        if tag in _CAPTION_OR_LINK:
            if tag == "a":
                if get("rel") == "author":
                    authors.append(el)
            else:
                captions.append(el)
        cls, ident = get("class"), get("id")
        if cls is None:
            if ident is None:
                if collect is not None and (tag in rule_tags or get("role") is not None):
                    rule = named(el, "")
                    if rule is not None and tag not in structural:
                        collect((el, rule))
                continue
            key = ident
        else:
            key = cls if ident is None else f"{cls} {ident}"
        known_ = seen.get(key)
        if known_ is None:
            a = key.strip()  # (``_attrs``)
            code = attrs_code(a)
            known_ = seen[key] = (a, rule_names[code // 3], kind_names[code % 3])
        if collect is not None:
            if tag in rule_tags or get("role"):
                rule = named(el, known_[0])
            else:  # (``_named_rule`` without a tag rule or a role, inlined: most elements)
                rule = known_[1]
            if rule is not None and tag not in structural:
                collect((el, rule))
        kind = known_[2]
        if kind is not None:
            named_kinds.append((el, kind))
    if kinds is not None:
        kinds.extend(named_kinds)
    for el in captions:
        protected[el] = "caption"
    if captions:
        fired.add("keep_caption")
    for el, kind in named_kinds:
        _protect(el, kind, protected, fired)
    for el in authors:
        protected.setdefault(el, "byline")
    if authors:
        fired.add("keep_byline")
    return protected


_CAPTION_TAGS = frozenset(("figcaption", "caption"))
#: (the tags the walk of ``_protected_blocks`` looks at for the captions and the author links)
_CAPTION_OR_LINK = frozenset(("figcaption", "caption", "a"))


def _protect(el: lxml.etree._Element, kind: str, protected: dict, fired: set[str]) -> None:
    """A block whose class/id words name a caption (under 600 characters) or a byline (under
    200) is protected, unless it is already."""
    if kind == "caption" and _text_len(el) < 600:
        protected.setdefault(el, "caption")
        fired.add("keep_caption")
    elif kind == "byline" and _text_len(el) < 200:
        protected.setdefault(el, "byline")
        fired.add("keep_byline")


def _protect_authors(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """Links to the author (``rel="author"``) are bylines."""
    for el in root.iter("a"):
        if el.get("rel") == "author":
            protected.setdefault(el, "byline")
            fired.add("keep_byline")


def _rule_candidates(root: lxml.etree._Element) -> list:
    """The elements below ``root`` a pattern rule names (see :func:`_named_rule`), in document
    order, each as ``(element, rule)``; structural elements (paragraphs, headings, list items,
    cells ...: ``_STRUCTURAL_KEEP``) left out, as the rules never remove them. (What
    ``_protected_blocks`` collects in its walk; this is its plain statement.)"""
    out = []
    for el in root.iterdescendants(lxml.etree.Element):
        rule = _named_rule(el, _attrs(el))
        if rule is not None and el.tag not in _STRUCTURAL_KEEP:
            out.append((el, rule))
    return out


def _named_rule(el: lxml.etree._Element, a: str) -> str | None:
    """The pattern rule that names ``el`` (``a``: its ``_attrs`` string), or None: its tag's
    rule (nav, aside, footer, menu), else its ARIA role's, else its class/id words' (see
    :func:`_classify_attrs`). A dialog the page declares non-modal (``aria-modal="false"``:
    a drawer or sheet in the page, such as a product's details panel) is no overlay: its
    role names no rule and its class words decide. Pure: the same element and string give
    the same answer."""
    rule = _TAG_RULES.get(el.tag)
    if rule is not None:
        return rule
    role = el.get("role")
    if role:
        role = role.strip().lower()
        if role in _ROLE_RULES and not (
                role in _DIALOG_ROLES and (el.get("aria-modal") or "").strip().lower() == "false"):
            return _ROLE_RULES[role]
    return _classify_attrs(a) if a else None


#: the class/id words of a thread's post (a question, an answer, a message)
_THREAD_POST_RX = _rx(r"(?:^|[\s_-])(?:answer|question|post|message)(?:$|[\s_-])")
_thread_post_attrs = _attr_matcher(_THREAD_POST_RX)


def _under_post(el, root) -> bool:
    """``el`` lies inside one post of a thread (an ancestor below ``root`` whose class or id names
    a question, an answer, a post or a message, and no comment): the comments under a post of a
    Q&A thread are not its posts."""
    for a in el.iterancestors():
        if a is root:
            return False
        attrs = _attrs(a)
        if attrs and _thread_post_attrs(attrs) and "comment" not in attrs.lower():
            return True
    return False


def _modal(el) -> bool:
    """A dialog the page declares modal (``aria-modal="true"``): an overlay, never the page."""
    return (el.get("role") or "").strip().lower() in _DIALOG_ROLES and \
        (el.get("aria-modal") or "").strip().lower() == "true"


def _clean_patterns(root: lxml.etree._Element, *, keep_comments: bool, fired: set[str],
                    skip: frozenset = frozenset(), text_chars: int | None = None,
                    guarded: list | None = None, kinds: list | None = None) -> None:
    """Pattern rules: tags, roles, class/id words, heading texts, teaser lists. Rules named
    in ``skip`` (the page type's profile) do not apply. ``text_chars``: ``root``'s visible
    characters when the caller has measured them. ``guarded`` collects ``(element, rule)``
    for the class-word matches that stayed only because of their size (the prose and
    half-page guards): the second opinion decides on them later (``exclude_unconfirmed_guarded``).
    ``kinds`` receives the keep rules' class-word matches (see :func:`_protected_blocks`)."""
    total = max(1, (_text_len(root) if text_chars is None else text_chars) - collapsed_menu_chars(root))
    candidates: list = []  # (``_rule_candidates(root)``: nothing changes the tree before the rules' loop)
    protected = _protected_blocks(root, fired, candidates, kinds)
    # "Prose mass": plain (non-link) text of paragraphs with at least 100 such characters.
    prose: dict = {}
    for p in root.iter("p"):
        n = _text_len(p)
        if n < 100:
            continue  # under 100 with its links, under 100 without
        n -= sum(_text_len(a) for a in p.iter("a"))
        if n >= 100:
            prose[p] = n
    prose_total = sum(prose.values())
    holds_protected = _ancestors_of(protected)

    def removable(el, rule) -> bool:
        return _kept_by(el, rule) is None

    def _kept_by(el, rule) -> str | None:
        """Why ``el`` stays (``"profile"``, ``"protected"``, ``"size"``), or None: it goes."""
        # (pure tests, the cheapest first)
        if rule == "exclude_comments" and keep_comments or rule in skip and not (
                rule == "exclude_comments" and _under_post(el, root)):
            return "profile"
        if rule not in ("exclude_cookie_banner", "exclude_comments") and el in holds_protected:
            return "protected"
        if rule != "exclude_cookie_banner" and prose_total:
            mass = sum(prose.get(p, 0) for p in el.iter("p"))
            if mass >= 0.25 * prose_total and mass >= 300:
                return "size"  # holds a large share of the page's prose: not boilerplate
        n = _text_len(el)
        if n > 0.5 * total and n > 400 and not _modal(el):
            return "size"  # a page-level wrapper carrying a boilerplate-looking word
        return None

    # An element inside a block removed so far: its removal changes nothing the rest of this
    # function reads (later candidates are not inside the block, or inside it too, and the
    # heading and teaser rules walk ``root``), so such an element is judged only for the rule
    # name it would record (see below). (The candidates come in document order.)
    removed = _RemovedBlocks(root)
    for el, rule in candidates:
        if el.getparent() is None or el in protected:
            continue
        if ("exclude_post_comments" if rule in skip else rule) in fired and removed.holds(el):
            continue  # (the one effect its judgement could have: the name is recorded already)
        why = _kept_by(el, rule)
        if why is None:
            removed.add(el)
            _drop(el)
            if rule in skip:  # (only comments under one post of a thread get here)
                fired.add("exclude_post_comments")
            else:
                fired.add(rule)
        elif why == "size" and guarded is not None:
            guarded.append((el, rule))

    # Section headings that announce boilerplate ("Related articles", "Comments", ...):
    # drop the smallest enclosing container that is clearly just that section, else the
    # heading and the block right after it.
    for h in list(root.iter("h2", "h3", "h4", "h5", "h6", "strong", "b", "span", "div", "p")):
        if h.tag in _LABEL_TAGS:
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
        # (after the text tests, which are pure and settle most elements)
        if h.getparent() is None or h is root:
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

    # On a thread (comment rules skipped: the posts are the content), a run of short posts,
    # each with its poster's linked avatar and a time, looks like a list of teasers: the
    # teaser-list test does not run there.
    if "exclude_related" not in skip and "exclude_comments" not in skip:
        _drop_teaser_lists(root, total, protected, fired)


def _link_share(el: lxml.etree._Element) -> float:
    """Share of ``el``'s visible characters in its links (0.0 when it has none, or no text:
    then ``el`` itself is not measured, as for most of the vote units)."""
    links = list(el.iter("a"))
    if not links:
        return 0.0
    n = _text_len(el)
    return sum(_text_len(a) for a in links) / n if n else 0.0


#: class/id words of a product page's reviews block (and ``itemprop="review"``)
_REVIEWS_RX = _rx(r"(?:^|[\s_-])(?:reviews?|user-?reviews|customer-?reviews|product-?reviews|"
                  r"review-?list|reviews-?list|ratings-?reviews)(?:$|[\s_-])")
_REVIEW_CANDIDATES = lxml.etree.XPath(".//*[@class or @id or @itemprop]")


def _drop_reviews(root: lxml.etree._Element, fired: set[str]) -> None:
    """``exclude_reviews`` (product pages only): the shoppers' reviews are the comments of a
    product page, not its description; a block holding more than half of ``root``'s text
    stays (a wrapper that names the page's reviews)."""
    total = max(1, _text_len(root))
    for el in _REVIEW_CANDIDATES(root):
        if el is root or el.getparent() is None:
            continue
        if (_REVIEWS_RX.search(_attrs(el)) is not None or (el.get("itemprop") or "").strip().lower() == "review") \
                and _text_len(el) <= 0.5 * total:
            _drop(el)
            fired.add("exclude_reviews")


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
