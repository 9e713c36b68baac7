"""The class/id words of the pattern rules and of the keep rules, and the classifiers that read
them (pure functions of a class/id string, cached across pages: :func:`_attrs_code` and the
functions built on it). The rules that act on them are in :mod:`.patterns`."""

from __future__ import annotations

import re

from gatecrawl.core.memo import str_memo
from gatecrawl.core.extract.dom import _any_pattern, _lower_rx, _rx, _union


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
    ("exclude_signature", _rx(r"(?:^|[\s_-])signatures?(?:$|[\s_-])")),
    ("exclude_poster_stats", _rx(r"(?:^|[\s_-])(?:user-?extras|user-?title|user-?stats|member-?stats|"
                                 r"poster-?stats|author-?stats)(?:$|[\s_-])")),
)
_CONTENT_CLASS_RX = _rx(
    r"(?:article|story|entry|post|main)[-_]?(?:body|content|text)|articlebody|(?:^|\s)(?:content|"
    r"article|story|entry-content|post-content)(?:\s|$)")
_CAPTION_RX = _rx(r"caption|credit|wp-caption-text")
_BYLINE_RX = _rx(r"byline|by-line|(?:^|[\s_-])author(?:$|[\s_-])|dateline|(?:^|[\s_-])date(?:$|[\s_-])|timestamp|published|posted-on|entry-meta|article-meta")
_KEEP_ANY_RX = re.compile(f"(?:{_CAPTION_RX.pattern})|(?:{_BYLINE_RX.pattern})", re.I)


# Embedded posts (tweets, Instagram, ...) are content even inside "social" wrappers.
_EMBED_RX = _rx(r"embed|twitter-tweet|instagram-media|tiktok-embed")


_CONTENT_CLASS_LRX = _lower_rx(_CONTENT_CLASS_RX)
_EMBED_LRX = _lower_rx(_EMBED_RX)
_PATTERN_LRULES = tuple((name, _lower_rx(rx)) for name, rx in _PATTERN_RULES)
_ANY_BOUNDED_LRX, _ANY_LOOSE_LRX = _any_pattern(_PATTERN_LRULES)
_KEEP_ANY_LRX = _lower_rx(_KEEP_ANY_RX)
_CAPTION_LRX = _lower_rx(_CAPTION_RX)
_BYLINE_LRX = _lower_rx(_BYLINE_RX)


#: words one of which every match of ``_KEEP_ANY_LRX`` holds, as one tree (``dom._union``): a
#: search for them is cheaper than the pattern's scan, and most class strings hold none
_KEEP_WORDS = re.compile(_union(("caption", "credit", "byline", "by-line", "author", "date", "timestamp",
                                 "published", "posted-on", "entry-meta", "article-meta")))


#: each rule's pattern with its literal alternatives as one tree (``dom._union``: the same
#: strings match), asked in turn for the first rule that matches a word
_PATTERN_TREES = tuple(re.compile(_union([rx.pattern])) for _name, rx in _PATTERN_LRULES)
#: the rules' names by position, None after the last (no rule)
_RULE_NAMES: tuple = tuple(name for name, _rx in _PATTERN_LRULES) + (None,)
#: the keep kinds by code (see :func:`_attrs_code`)
_KINDS = (None, "caption", "byline")


@str_memo(65536)
def _attrs_code(a: str) -> int:
    """What a class/id string names, as one number (pure, cached: strings repeat on a page and
    across pages): ``3 * rule + kind``, ``rule`` the position in ``_RULE_NAMES`` of the removal
    rule :func:`_classify_attrs` gives, ``kind`` the position in ``_KINDS`` of the keep kind
    :func:`_keep_kind` gives (the string lower-cased once for both).

    The rules are taken word by word (the string split at whitespace, :func:`_classify_word`):
    no pattern here matches across whitespace (they hold no ``\\s`` but at their ends, as the
    other boundary of ``^`` or ``$``, and nothing else that matches a blank), so a pattern
    matches the string exactly when it matches one of its words; and the words repeat across
    strings far more than whole strings do (a class list is a new combination of familiar
    classes). A string neither of the two any-rule patterns matches (most of them) is not
    split: no rule's pattern matches one of its words. No rule is named when a content or
    embed pattern matches a word."""
    la = a.lower()
    n = len(_PATTERN_LRULES)
    rule = n
    if _ANY_BOUNDED_LRX.search(la) is not None or _ANY_LOOSE_LRX.search(la) is not None:
        words = la.split()
        for word in words:
            k = _classify_word(word)
            if k < rule:
                rule = k
        if rule < n and any(_names_content(word) for word in words):
            rule = n
    kind = 0
    if _KEEP_WORDS.search(la) is not None and _KEEP_ANY_LRX.search(la) is not None:
        if _CAPTION_LRX.search(la):
            kind = 1
        elif _BYLINE_LRX.search(la):
            kind = 2
    return 3 * rule + kind


@str_memo(65536)
def _classify_attrs(a: str) -> str | None:
    """Removal rule named by a class/id string (pure, cached): None when no rule's pattern
    matches it, or when a content or embed pattern does; else the first rule listed whose
    pattern matches (see :func:`_attrs_code`)."""
    return _RULE_NAMES[_attrs_code(a) // 3]


@str_memo(65536)
def _classify_word(word: str) -> int:
    """For one lower-cased word without whitespace: the position in ``_PATTERN_LRULES`` of the
    first rule whose pattern matches it, the rules' count when none does (pure, cached)."""
    if _ANY_BOUNDED_LRX.search(word) or _ANY_LOOSE_LRX.search(word):
        return next(k for k, rx in enumerate(_PATTERN_TREES) if rx.search(word))
    return len(_PATTERN_LRULES)


@str_memo(65536)
def _names_content(word: str) -> bool:
    """Whether a content or embed pattern matches one lower-cased word (pure, cached; asked
    only of the words of a string some rule's pattern matches: most strings match none)."""
    return bool(_CONTENT_CLASS_LRX.search(word) or _EMBED_LRX.search(word))


@str_memo(65536)
def _keep_kind(a: str) -> str | None:
    """Keep kind named by a class/id string: ``"caption"`` when a caption pattern matches it,
    else ``"byline"`` when a byline pattern does, else None (see :func:`_attrs_code`)."""
    return _KINDS[_attrs_code(a) % 3]
