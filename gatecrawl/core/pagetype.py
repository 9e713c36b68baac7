"""Page type from structure: article, documentation, forum, listing, product or service.

``detect_page_type(doc, url)`` reads signals that sites publish or cannot avoid, strongest
first, and returns the type with the signals that decided it:

1. structured data: JSON-LD ``@type`` (``Product``, ``DiscussionForumPosting``, ``QAPage``,
   ``TechArticle``, ``ItemList``/``CollectionPage``, ``NewsArticle``/``BlogPosting``, ...)
   and microdata ``itemtype``; ``og:type`` (``product``, ``article``); ``Question`` and
   ``Answer`` do not make a thread on a page that also has an ``FAQPage`` (an FAQ block);
2. structure: repeated post containers each with an author and a time (a thread); a price
   next to a buy/cart control (a product); code blocks in a documentation layout or a
   documentation generator (a doc page); many repeated sibling items each holding a link
   (a listing);
3. otherwise ``article`` when the page has a run of prose paragraphs, else ``service``
   (landing and service pages: short sections, calls to action).

The type selects the extraction profile (``gatecrawl.core.extract``): which removal rules
would cut the content of that kind of page (comment-like posts of a thread, teaser-like
items of a listing). A recipe may pin the type (``content.page_type``). No Scrapy imports;
the same document always gives the same answer.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.etree
import lxml.html

from gatecrawl.core.memo import str_memo
from gatecrawl.core.page import jsonld_documents
from gatecrawl.core.pageindex import PageIndex, find_below, jsonld_of, tagged_with, tagged_within

__all__ = ["PAGE_TYPES", "PageTypeGuess", "detect_page_type", "item_link_chars", "largest_card_group"]

PAGE_TYPES = ("article", "documentation", "forum", "listing", "product", "service")

_LD_TYPES: dict[str, str] = {}
for _t, _names in {
    "product": "product productgroup individualproduct productmodel offer aggregateoffer vehicle car book",
    "forum": "discussionforumposting qapage question answer socialmediaposting",
    "documentation": "techarticle apireference softwaresourcecode",
    "listing": "itemlist collectionpage searchresultspage offercatalog",
    "article": "article newsarticle blogposting reportagenewsarticle analysisnewsarticle "
               "opinionnewsarticle report scholarlyarticle review liveblogposting",
    "service": "service professionalservice financialservice legalservice",
}.items():
    for _n in _names.split():
        _LD_TYPES[_n] = _t

#: types an FAQPage is made of: on a page with an FAQPage they do not make it a thread
_FAQ_PARTS = frozenset(("question", "answer"))
#: JSON-LD types that describe the site, not the page: they never decide
_SITE_TYPES = frozenset("website organization corporation webpage breadcrumblist imageobject person "
                        "searchaction sitenavigationelement wpheader wpfooter localbusiness".split())

_POST_CLASS = re.compile(r"(?:^|[\s_-])(?:post|message|comment|reply|answer|topic-post|postbody|"
                         r"bbwrapper|forum-post|thread-post|cooked)(?:$|[\s_-]|s\b)", re.I)
#: a word every ``_POST_CLASS`` match holds, matched on the lower-cased text (the non-ASCII
#: letters the case-blind pattern takes for these words' letters: U+212A lower-cases to ``k``,
#: U+017F is written ``s``): a cheap test before the pattern
_POST_HINT = re.compile(r"post|message|comment|reply|answer|bbwrapper|cooked")
#: a thread: at least this many post containers, holding at least this share of the page's text
FORUM_MIN_POSTS = 3
FORUM_POST_SHARE = 0.5
_DATE_CLASS = re.compile(r"date|time|posted|ago", re.I)
#: ``_DATE_CLASS``'s words, for the index's search (which folds the letters the case-blind
#: pattern matches as these)
_DATE_WORDS = re.compile(r"date|time|posted|ago")
_PRICE_CLASS = re.compile(r"price|amount|cost", re.I)
_CURRENCY = re.compile(r"[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|EUR|USD|GBP|kr|zł|CHF)\b")
_CART = re.compile(r"add[\s_-]?to[\s_-]?(?:cart|bag|basket)|buy[\s_-]?now|in den warenkorb|ajouter au panier|"
                   r"añadir al carrito|checkout|add-to-cart|addtocart", re.I)
_DOC_GENERATOR = re.compile(r"sphinx|mkdocs|docusaurus|gitbook|docsify|vuepress|hugo-book|readthedocs|"
                            r"antora|jekyll-doc|mintlify|starlight|nextra", re.I)
_DOC_PATH = re.compile(r"/(?:docs?|documentation|reference|api|manual|guides?|handbook|kb|"
                       r"knowledge-?base|help|tutorials?|learn)(?:/|$)", re.I)
_FORUM_PATH = re.compile(r"/(?:forums?|threads?|topics?|t|questions|discussions?|community|boards?|"
                         r"viewtopic\.php|showthread\.php)(?:/|$|\?)", re.I)


@dataclass(frozen=True)
class PageTypeGuess:
    type: str
    signals: tuple[str, ...] = field(default_factory=tuple)
    pinned: bool = False

    def to_dict(self) -> dict:
        return {"type": self.type, "signals": list(self.signals), "pinned": self.pinned}


def _ld_types(documents) -> list[str]:
    """The ``@type`` names (stripped, in lower case) of the parsed JSON-LD ``documents``."""
    out: list[str] = []
    for data in documents:
        stack = [data]
        seen = 0
        while stack and seen < 500:
            cur = stack.pop(0)
            seen += 1
            if isinstance(cur, list):
                stack.extend(cur)
            elif isinstance(cur, dict):
                t = cur.get("@type")
                for name in (t if isinstance(t, list) else [t]):
                    if isinstance(name, str):
                        out.append(name.strip().lower())
                for key in ("@graph", "mainEntity", "mainEntityOfPage", "itemListElement"):
                    if key in cur and isinstance(cur[key], (list, dict)):
                        stack.append(cur[key])
    return out


def _meta(doc, prop: str, index: PageIndex | None = None) -> str:
    for el in tagged_with(doc, "meta", index):
        if (el.get("property") or el.get("name") or "").strip().lower() == prop:
            return (el.get("content") or "").strip().lower()
    return ""


def _text_len(el) -> int:
    # (an element without children holds its text only: no text_content() call for it)
    text = (el.text or "") if not len(el) else el.text_content()
    return len(" ".join(text.split()))


#: the class values of an element and its descendants, as plain strings
_CLASSES = lxml.etree.XPath("descendant-or-self::*/@class", smart_strings=False)


@str_memo(65536)
def _post_ident(ident: str) -> bool:
    """``_POST_CLASS`` names a post container in ``ident`` ("class id"), its hint words looked for
    first (pure, cached: a page repeats its class strings)."""
    return _POST_HINT.search(ident.lower().replace("\u017f", "s")) is not None and _POST_CLASS.search(ident) is not None


_POST_TAGS = ("article", "div", "li", "section")


def _post_like(body, index: PageIndex | None):
    """The elements of ``body.iter(*_POST_TAGS)`` that ``_post_ident`` can hold for, in document
    order: with the document's ``PageIndex``, only those whose class or id holds a
    ``_POST_HINT`` word (the index's search folds as ``_post_ident`` does on every letter those
    words hold, and no word holds the space that joins class and id), ``body`` or below it."""
    if index is None:
        return body.iter(*_POST_TAGS)
    return _in_body((el for el in index.idents.named(_POST_HINT) if el.tag in _POST_TAGS), body)


def _in_body(els, body) -> list:
    """The elements of ``els`` that are ``body`` or lie below it, in their order."""
    below = {body}  # elements known to lie in ``body`` (itself included)
    out = []
    for el in els:
        path = []
        a = el
        while a is not None and a not in below:
            path.append(a)
            a = a.getparent()
        if a is not None:
            below.update(path)
            out.append(el)
    return out


def _time_test(index: PageIndex | None):
    """Whether a post candidate holds a time element or a class naming a date or time (on it or
    a descendant). With the document's ``PageIndex``: the elements that do, taken once (the
    ancestors of its time elements; the elements whose class ``_DATE_CLASS`` matches, among those
    whose class or id holds one of its words, and their ancestors), instead of two scans of each
    candidate's subtree."""
    if index is None:
        # (one search over all the classes: the pattern's words hold no line break, so no match
        # spans two values)
        return lambda el: el.find(".//time") is not None or _DATE_CLASS.search("\n".join(_CLASSES(el))) is not None
    held: set = set()  # (each element's ancestors are held with it)

    def hold(chain) -> None:
        for a in chain:
            if a in held:
                break
            held.add(a)

    for t in index.tagged["time"]:
        hold(t.iterancestors())
    for el in index.idents.named(_DATE_WORDS):
        if _DATE_CLASS.search(el.get("class") or ""):
            hold(itertools.chain((el,), el.iterancestors()))
    return held.__contains__


def _repeated_posts(body, index: PageIndex | None = None) -> tuple[int, float]:
    """Containers that look like posts of a thread (a post-like class, a time or date, some
    text), outermost only, and the share of the page's text they hold (0.0 for fewer than
    FORUM_MIN_POSTS: no thread); ``index``: the document's ``PageIndex`` when the caller has it."""
    n = 0
    chars = 0
    # The last container taken: the candidates come in document order, and a taken container
    # lies in none taken before it, so the one a later candidate can lie in is the last one.
    last = None
    has_time = None  # (taken at the first post-like container)
    for el in _post_like(body, index):
        if last is not None and (el is last or any(a is last for a in el.iterancestors())):
            continue
        if not _post_ident(f"{el.get('class') or ''} {el.get('id') or ''}"):
            continue
        if has_time is None:
            has_time = _time_test(index)
        if not has_time(el):
            continue
        size = _text_len(el)
        if size < 40:
            continue
        last = el
        n += 1
        chars += size
    # (the page's text is measured only for a count that can make a thread)
    return n, (chars / max(1, _text_len(body)) if chars and n >= FORUM_MIN_POSTS else 0.0)


def _repeated_items(body, min_items: int = 0) -> tuple[int, float]:
    """The largest group of sibling items with the same tag and class that each hold a link,
    and the share of the page's text those items hold (collapsed menus left out of the
    page's text: they are not shown); a share of 0.0 for a group of fewer than ``min_items``."""
    from gatecrawl.core.extract import collapsed_menu_chars

    # (the group holding the most text holds the largest share: the page's text is measured for
    # that group only, and only when it has items enough to make a listing)
    best_n, best_chars = 0, 0
    for _parent, items in _sibling_groups(body, ("ul", "ol", "div", "section", "main", "tbody")):
        linked = [it for it in items if next(it.iterdescendants("a"), None) is not None]
        if len(linked) < 0.8 * len(items):
            continue
        chars = sum(_text_len(it) for it in linked)
        if chars > best_chars:
            best_n, best_chars = len(items), chars
    if best_n < min_items:
        return best_n, 0.0
    return best_n, best_chars / max(1, _text_len(body) - collapsed_menu_chars(body))


#: a listing: a group of at least this many items (see ``_repeated_items``)
LISTING_MIN_ITEMS = 8
#: a listing item: at least this many siblings of one tag and class, each holding a link
ITEM_MIN_SIBLINGS = 6
#: ... and text of its own beside the link (a price, an author, a date, a summary)
ITEM_OWN_TEXT_MIN = 3


def _sibling_groups(root, parent_tags):
    """``(parent, siblings)`` for every group of at least ``ITEM_MIN_SIBLINGS`` element
    children of one tag and class under a ``parent_tags`` element of ``root``."""
    for parent in root.iter(*parent_tags):
        if len(parent) < ITEM_MIN_SIBLINGS:
            continue  # (fewer children than a group needs: most parents)
        groups: dict[tuple, list] = {}
        for child in parent:
            if isinstance(child.tag, str):
                groups.setdefault((child.tag, child.get("class") or ""), []).append(child)
        for items in groups.values():
            if len(items) >= ITEM_MIN_SIBLINGS:
                yield parent, items


def _card_groups(root, measure, skip=None):
    """Groups of at least ``ITEM_MIN_SIBLINGS`` siblings of one tag and class where at least
    80% of the siblings are cards (a link and text of their own beside it): ``(parent,
    siblings, cards)``, each card given as its list of links; a parent for which ``skip``
    says true is passed over."""
    for parent, items in _sibling_groups(root, ("ul", "ol", "div", "section", "main", "table", "tbody")):
        if skip is not None and skip(parent):
            continue
        cards = []
        for it in items:
            links = list(it.iter("a"))
            if not links:
                continue
            if _text_len(it) - sum(measure(a) for a in links) >= ITEM_OWN_TEXT_MIN:
                cards.append(links)
        if len(cards) >= 0.8 * len(items):
            yield parent, items, cards


def item_link_chars(root, text_len=None) -> int:
    """Link text that titles the items of a listing: links inside a group of at least
    ``ITEM_MIN_SIBLINGS`` siblings of one tag and class where at least 80% of the siblings
    hold a link *and* text of their own beside it. A menu's items are bare links and do not
    count; a product grid's or a reading list's titles do. ``text_len`` measures an element's
    link text (default: whitespace-collapsed ``text_content``)."""
    measure = text_len or _text_len
    counted: set = set()
    total = 0
    for _parent, _items, cards in _card_groups(root, measure):
        for links in cards:
            for a in links:
                if a not in counted and not any(p in counted for p in a.iterancestors("a")):
                    counted.add(a)
                    total += measure(a)
    return total


_CHROME_TAGS = frozenset(("nav", "header", "footer", "aside"))


def _in_chrome_tags(el) -> bool:
    return el.tag in _CHROME_TAGS or any(a.tag in _CHROME_TAGS for a in el.iterancestors())


def largest_card_group(body):
    """The listing a page is about: the group of cards (see ``item_link_chars``) holding the
    most text, outside navigation, header, footer and aside. ``(parent, item count, share of
    the page's text the group holds)``, or ``(None, 0, 0.0)``."""
    total = max(1, _text_len(body))
    best_parent, best_n, best_share = None, 0, 0.0
    for parent, items, _cards in _card_groups(body, _text_len, skip=_in_chrome_tags):
        share = sum(_text_len(it) for it in items) / total
        if share > best_share:
            best_parent, best_n, best_share = parent, len(items), share
    return best_parent, best_n, best_share


#: elements with an itemtype, in document order (the microdata test reads nothing else)
_WITH_ITEMTYPE = lxml.etree.XPath("descendant-or-self::*[@itemtype]")
#: the only elements the price test can count: a class to match, or itemprop="price"
_PRICE_CANDIDATES = lxml.etree.XPath("descendant-or-self::*[@class or @itemprop='price']")


#: the elements with itemprop="price", in document order
_ITEMPROP_PRICE = lxml.etree.XPath("descendant-or-self::*[@itemprop='price']")
_PRICE_WORDS = ("price", "amount", "cost")


def _price_candidates(body, index: PageIndex | None = None) -> list:
    """``_PRICE_CANDIDATES(body)``, or only its itemprop="price" elements when no class of the
    page holds a ``_PRICE_CLASS`` word (one search over all the class values, folded as the
    case-blind pattern matches: U+0130 and U+0131 are ``i``, U+017F is ``s``). With the
    document's ``PageIndex`` its id and class values, folded the same way, are searched first:
    a word none of them holds no class of ``body`` holds."""
    if index is not None and not any(w in index.idents.text for w in _PRICE_WORDS):
        return _ITEMPROP_PRICE(body)
    classes = "\n".join(_CLASSES(body)).replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")
    if any(w in classes for w in _PRICE_WORDS):
        return _PRICE_CANDIDATES(body)
    return _ITEMPROP_PRICE(body)


#: ``_PRICE_WORDS`` for the index's search (which folds as ``_price_candidates`` does)
_PRICE_WORDS_RX = re.compile("|".join(_PRICE_WORDS))


def _names_price(el) -> bool:
    """``el`` names a price (a ``_PRICE_CLASS`` class or itemprop="price") and holds an amount."""
    return (_PRICE_CLASS.search(el.get("class") or "") is not None or el.get("itemprop") == "price") and \
        _CURRENCY.search(el.text_content() or "") is not None


def _price_count(body, index: PageIndex | None = None) -> int:
    """How many of ``_price_candidates(body, index)`` name a price and hold an amount. With the
    document's ``PageIndex`` the elements whose class can match are those whose id or class
    holds a ``_PRICE_WORDS`` word (its search, folded as the case-blind pattern matches), in
    ``body``; with the itemprop="price" elements, they are the candidates that can count (not
    every element of ``body`` with a class)."""
    if index is None or not any(w in index.idents.text for w in _PRICE_WORDS):
        return sum(1 for el in _price_candidates(body, index) if _names_price(el))
    cands = dict.fromkeys(_in_body(index.idents.named(_PRICE_WORDS_RX), body))
    cands.update(dict.fromkeys(_ITEMPROP_PRICE(body)))
    return sum(1 for el in cands if _names_price(el))


def detect_page_type(doc: lxml.html.HtmlElement, url: str = "", *, index: PageIndex | None = None) -> PageTypeGuess:
    """The page's type and the signals that decided it (see the module docstring).
    ``index``: the ``PageIndex`` of ``doc``'s root when the caller has it (its body, metas,
    itemtypes and JSON-LD, the elements whose class or id can name a post or a price, instead
    of scans of the document)."""
    root = doc.getroottree().getroot() if doc is not None else None
    if root is None:
        return PageTypeGuess("article", ("empty",))
    body = find_below(root, "body", index)
    if body is None:
        body = root
    # 1. structured data
    documents = jsonld_documents(root) if index is None else jsonld_of(index, root)
    ld = [t for t in _ld_types(documents) if t not in _SITE_TYPES]
    itemtypes = (el.get("itemtype") for el in _WITH_ITEMTYPE(root)) if index is None else index.itemtypes
    microdata = [it.rstrip("/").rsplit("/", 1)[-1].lower() for it in itemtypes if it]
    # questions and answers of an FAQ block are not a thread
    faq = "faqpage" in ld or "faqpage" in microdata
    for src, names in (("jsonld", ld), ("microdata", microdata)):
        for t in names:
            if t in _LD_TYPES and _LD_TYPES[t] != "article" and not (faq and t in _FAQ_PARTS):
                return PageTypeGuess(_LD_TYPES[t], (f"{src}:{t}",))
    og = _meta(root, "og:type", index)
    if og in ("product", "og:product", "product.item"):
        return PageTypeGuess("product", (f"og:type:{og}",))
    path = urlsplit(url or "").path
    # 2. structure
    posts, post_share = _repeated_posts(body, index)
    if posts >= FORUM_MIN_POSTS and post_share >= FORUM_POST_SHARE:
        return PageTypeGuess("forum", (f"repeated_posts:{posts}", f"post_text_share:{post_share:.2f}"))
    code_blocks = len(tagged_within(index, body, "pre")) if index is not None else sum(1 for _ in body.iter("pre"))
    generator = _meta(root, "generator", index)
    if _DOC_GENERATOR.search(generator or "") or (code_blocks >= 2 and _DOC_PATH.search(path)):
        return PageTypeGuess("documentation", tuple(s for s in (
            f"generator:{generator}" if _DOC_GENERATOR.search(generator or "") else "",
            f"code_blocks:{code_blocks}" if code_blocks else "",
            "doc_path" if _DOC_PATH.search(path) else "") if s))
    for t in ld:
        if _LD_TYPES.get(t) == "article":
            return PageTypeGuess("article", (f"jsonld:{t}",))
    if og == "article":
        return PageTypeGuess("article", ("og:type:article",))
    prices = _price_count(body, index)
    if prices and any(_CART.search(f"{el.get('class') or ''} {el.get('id') or ''} {el.get('name') or ''} "
                                   f"{(el.text or '')[:40]}")
                      for el in body.iter("button", "form", "a", "input")):
        return PageTypeGuess("product", (f"price:{prices}", "cart_control"))
    n_items, item_share = _repeated_items(body, LISTING_MIN_ITEMS)
    if n_items >= LISTING_MIN_ITEMS and item_share >= 0.4:
        return PageTypeGuess("listing", (f"repeated_items:{n_items}", f"item_text_share:{item_share:.2f}"))
    # 3. prose or not
    prose = [p for p in body.iter("p") if _text_len(p) >= 150]
    if len(prose) >= 3:
        return PageTypeGuess("article", (f"prose_paragraphs:{len(prose)}",))
    return PageTypeGuess("service", ("no_strong_signal",))
