"""Block rules applied inside the selection: inline teasers, popovers, author bios, calls to
action, ad labels, press-release tails, video teasers and comment policies (repeated sibling
blocks: :mod:`.repeats`; link-dense blocks, legal and cookie lines and repeated captions:
:mod:`.links`)."""

from __future__ import annotations

import re

import lxml.etree

from gatecrawl.core.extract.dom import (_ATTR_CANDIDATES, _BLOCKS, _attr_matcher, _attrs, _drop, _fold,
    _is_el, _rx, _squash, _text_len, _union)
from gatecrawl.core.page import _iter_text


_TEASER_PREFIX_RX = _rx(
    r"^\W*(?:read more|see more|more|related|related stories|related articles|also read|read also|"
    r"also on|also see|see also|watch|watch now|click here|don'?t miss|recommended|must read|"
    r"further reading|leggi anche(?: su)?|lesen sie auch|mehr zum thema|ver tamb[ié]n|lee tambi[ée]n|"
    r"veja tamb[ée]m|leia tamb[ée]m|lire aussi|[àa] lire aussi)\b\s*[:»>\-–—|]")
_UPPER_LINK_MAX = 200
_HEADINGS_P = frozenset(["p", "h1", "h2", "h3", "h4", "h5", "h6"])
_LABEL_TAG_RX = re.compile(r"\[\s*[A-Z][A-Z ]{2,20}\s*\]")
_ALSO_ON_RX = _rx(r"^\W*(?:also on|more on|more from|read more on) [\w.-]+\b")


#: the one tag ``_unlinked_text`` leaves out (with its subtree, never its tail)
_LINK = frozenset(("a",))


def _unlinked_text(el: lxml.etree._Element) -> str:
    """Text of ``el`` outside its links: the page text walk with links as the only tag left out."""
    return "".join(_iter_text(el, invisible=_LINK))


def _drop_inline_teasers(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_inline_teaser``: short paragraphs inside the article that only point to
    other pages: "READ MORE: <link>", "Also on site: <link>" (a teaser prefix followed by
    a colon or arrow, with a link), or a paragraph that is one all-capitals link
    ("CLICK HERE TO GET THE APP", promoted headlines)."""
    for el in list(root.iter("p", "div", "h3", "h4", "h5", "h6", "li", "a")):
        if el is root or el.getparent() is None or el in protected:
            continue
        # (the pure tests, the cheapest first)
        if el.tag == "a" and (el.getparent().tag not in _BLOCKS or el.getparent().tag in _HEADINGS_P):
            continue  # only a link standing as a block of its own
        links = [a for a in el.iter("a") if a.get("href")]
        if not links:
            continue
        if el.tag in ("div", "li", "a") and any(True for c in el.iterdescendants() if _is_el(c) and c.tag in _BLOCKS):
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


_popover_attrs = _attr_matcher(_POPOVER_RX)


#: class substrings (case-sensitive) that make an element a popover candidate
_POPOVER_HINT = re.compile("over|card|tip|popup|Over|Card")


def _popover_candidates(root: lxml.etree._Element) -> list:
    """The descendants of ``root`` whose class holds one of :data:`_POPOVER_HINT`'s substrings,
    in document order (the XPath ``.//*[contains(@class, 'over') or ...]``: a Python walk
    gives the same list in under half the time, the XPath converting the attribute to a
    string for each ``contains()``)."""
    out = []
    hint = _POPOVER_HINT.search
    for el in root.iterdescendants(lxml.etree.Element):
        cls = el.get("class")
        if cls and hint(cls):
            out.append(el)
    return out


def _drop_popovers(root: lxml.etree._Element, fired: set[str]) -> None:
    """``exclude_popover``: hover cards and tooltips embedded in running text (a person's
    photo, name and latest headlines shown on mouse-over) are not part of the sentence."""
    for el in _popover_candidates(root):
        if el is root or el.getparent() is None or not _popover_attrs(_attrs(el)):
            continue
        if not any(True for a in el.iterancestors("p", "li", "td", "dd")):
            continue
        _drop(el)
        fired.add("exclude_popover")


_BIO_CLASS_RX = _rx(r"author-?bio|about-?the-?author|author-?info|author-?box|bio-?box|"
                    r"contributor-?bio|author-?desc|(?:^|[\s_-])bio(?:$|[\s_-])|__bio")
_bio_attrs = _attr_matcher(_BIO_CLASS_RX, ("bio", "author"))
_BIO_TEXT_RX = _rx(r"\b(?:is|was|has|have|joined|covers|writes|reports|am|are|lives)\b")


def _drop_author_bios(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_author_bio`` (prose form): a block with an author-bio class whose text is a
    sentence about the writer ("X joined the magazine in 2017.", "X is a reporter for ...")
    goes even when byline classes inside it would protect it; short name/date bylines (no
    verb) stay."""
    for el in list(_ATTR_CANDIDATES(root)):
        if el is root or el.getparent() is None or not _bio_attrs(_attrs(el)):
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


_CTA_HINT_RX = re.compile(_union([r"subscri|sign up|newsletter|follow|mail|reach|write to|contact|tip|enjoy|"
                                   r"like|inbox|letterbox|miss|full st|full ar"]))  # on lower-cased text


#: the text nodes below an element that hold more than ASCII whitespace, in document order (a
#: blank node matches neither the call-to-action hints nor an ad label, and two thirds of a
#: page's text nodes are blank: filtered in the XPath, they are never made Python strings)
_TEXT_NODES = lxml.etree.XPath(".//text()[normalize-space()]")
_CTA_UNITS = frozenset(["p", "div", "h2", "h3", "h4", "h5", "h6"])


def _drop_calls_to_action(root: lxml.etree._Element, protected: dict, fired: set[str]) -> list | None:
    """``exclude_call_to_action``: short paragraphs (under 400 characters, no quote or
    embedded post) whose text is a call to action (see :data:`_CTA_RX`). Returns
    ``_TEXT_NODES(root)`` when nothing was removed (the text nodes of ``root`` as it is), else
    None."""
    # candidates: the nearest p/div/heading around each text node holding a hint word
    cands: list = []
    seen: set = set()
    texts = _TEXT_NODES(root)
    for txt in texts:
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
        texts = None
    return texts


# A block that only labels an ad slot ("Advertisement", "Story continues below advertisement").
_AD_LABEL_RX = re.compile(
    r"^[\W_]*(?:advertisements?|advertising|sponsored(?: content)?|ad|anzeige|publicidade|publicit[eé]|"
    r"pubblicit[aà]|(?:the )?(?:story|article) continues below(?: (?:this )?advertisement)?|"
    r"continue reading (?:the )?(?:main story|below)|scroll to continue(?: with content)?)[\W_]*$",
    re.I,
)
_AD_UNITS = frozenset(["p", "div", "span", "aside", "section", "figure", "h2", "h3", "h4", "h5", "h6"])


def _drop_ad_labels(root: lxml.etree._Element, protected: dict, fired: set[str], texts: list | None = None) -> None:
    """``exclude_ad_label``: the largest block around a text node whose whole text is an ad-slot
    label, as long as that block holds nothing else. ``texts``: ``_TEXT_NODES(root)`` when the
    caller has it (``root`` not changed since)."""
    for txt in _TEXT_NODES(root) if texts is None else texts:
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


#: the press-release tail removed by ``exclude_press_boilerplate`` holds at most this share of
#: the selection's text
PRESS_TAIL_MAX_SHARE = 0.35
_PRECEDING_TEXT = lxml.etree.XPath("preceding::text()")
_FOLLOWING_HEADINGS = lxml.etree.XPath("following::*[self::h2 or self::h3 or self::h4 or self::h5 or self::h6]")
_PRESS_TAIL_HEADING_RX = re.compile(r"^(?:about (?:the )?[A-Z0-9][\w&.,'’ -]{1,60}[:.]?|[\w ]{0,30}contacts?[:.]?"
                                    r"|[\w ]{0,30}(?:inquiries|enquiries)[:.]?|forward-looking statements?[:.]?)$", re.I)


def _chars_before(el: lxml.etree._Element) -> int:
    """Visible characters before ``el`` in document order within its tree (about: each text
    node's runs of whitespace count as one, as in :func:`_text_len`)."""
    return len(_squash(" ".join(_PRECEDING_TEXT(el))))


def _drop_press_boilerplate(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_press_boilerplate``: the "About <company>" tail of a press release. Trigger:
    a heading or paragraph reading "About <Name>", or a paragraph that opens by defining a
    company ("<Name> is a leading provider of ..."); it must come after at least three
    paragraphs and start the last 35% of the selection's text, counted both over its paragraphs
    and headings and over all of its text (a listicle of companies whose lists and tables
    follow the trigger is not a tail), with no heading after the trigger but further
    "About ..." and contact headings (a listicle has one per entry). The trigger and
    everything after it (boilerplate, media contacts) are removed."""
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
        # (the trigger's patterns only once three paragraphs and 65% of the text lie before)
        if seen_paras >= 3 and before >= 0.65 * total and (
                (len(t) <= 80 and _ABOUT_HEADING_RX.match(t))
                or (el.tag in ("p", "div") and _COMPANY_PARA_RX.match(t))) and el not in protected:
            # what goes is a tail: the text from the trigger to the end (lists and tables
            # included, which the units above do not count) is at most 35% of the selection
            if total - _chars_before(el) > PRESS_TAIL_MAX_SHARE * total:
                return
            # a press tail has no sections of its own besides further "About ..." and contact
            # headings (a listicle of companies or tools has one per entry)
            if any(not _PRESS_TAIL_HEADING_RX.match(_squash(h.text_content()))
                   for h in _FOLLOWING_HEADINGS(el)):
                return
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
_video_attrs = _attr_matcher(_VIDEO_CLASS_RX)
_COMMENT_POLICY_RX = _rx(
    r"comment(?:ing)? (?:policy|guidelines|rules)|comments? (?:are|is|will be) (?:moderated|reviewed|"
    r"pre-?moderated|closed)|we (?:reserve the right to|may) (?:remove|delete|edit) (?:any )?comments"
    r"|coment[aá]rios? (?:com|que|ser[aã]o|s[aã]o|est[aã]o) .{0,80}\b(?:aprovados?|moderados?|"
    r"moderador|publicados?|removidos?)|commenti? (?:sono|saranno) moderat")


#: class substrings (case-sensitive) of the video player blocks' candidates (and ``ideo`` in an id)
_VIDEO_CLASS_HINT = re.compile("ideo|rightcove|layer|vjs")


def _video_candidates(root: lxml.etree._Element) -> list:
    """The descendants of ``root`` whose class holds one of :data:`_VIDEO_CLASS_HINT`'s
    substrings or whose id holds ``ideo``, in document order (the XPath
    ``.//*[contains(@class, 'ideo') or ... or contains(@id, 'ideo')]``, as a Python walk:
    the same list in under half the time)."""
    out = []
    hint = _VIDEO_CLASS_HINT.search
    for el in root.iterdescendants(lxml.etree.Element):
        get = el.get
        cls = get("class")
        if cls and hint(cls):
            out.append(el)
            continue
        ident = get("id")
        if ident and "ideo" in ident:
            out.append(el)
    return out


#: lower-cased words one of which every match of :data:`_COMMENT_POLICY_RX` holds in the text
#: folded by ``dom._fold``, at most ``_POLICY_BEFORE`` characters after the match's start and at
#: most ``_POLICY_AFTER`` characters before its end
_COMMENT_POLICY_WORDS = ("comment", "coment")
_POLICY_BEFORE, _POLICY_AFTER = 64, 192


def _holds_policy(whole: str) -> bool:
    """``_COMMENT_POLICY_RX.search(whole)``, searched only around the words every match holds
    (a case-blind pattern is searched character by character: a long text where the words are
    rare is mostly skipped). The pattern reads nothing outside its match, so a match in a window
    is a match in the text, and every match lies in the window of the word it holds."""
    folded = _fold(whole)  # (one character for one: the offsets are the text's)
    spans: list = []
    for w in _COMMENT_POLICY_WORDS:
        i = folded.find(w)
        while i >= 0:
            spans.append((max(0, i - _POLICY_BEFORE), i + _POLICY_AFTER))
            i = folded.find(w, i + 1)
    spans.sort()
    start = end = -1
    for s, e in spans:
        if s > end:
            if end > start and _COMMENT_POLICY_RX.search(whole, start, end):
                return True
            start = s
        end = max(end, e)
    return end > start and _COMMENT_POLICY_RX.search(whole, start, end) is not None


def _drop_media_and_policy(root: lxml.etree._Element, protected: dict, fired: set[str]) -> None:
    """``exclude_video_teaser``: a video player block (class ``video``, ``video-player``,
    ``featured-video``, ...; under 600 characters of text, no long paragraph) with its
    title and teaser text; its caption is the video's promotion, not an image caption.
    ``exclude_comments`` (text form): short comment-policy notices."""
    for el in _video_candidates(root):
        if el is root or el.getparent() is None or not _video_attrs(_attrs(el)):
            continue
        if el.tag in ("p", "h1") or any(True for _ in el.iter("h1")):
            continue
        n = _text_len(el)
        if n > 600 or any(_text_len(p) >= 300 for p in el.iter("p")):
            continue
        _drop(el)
        fired.add("exclude_video_teaser")
    whole = root.text_content()
    if not _holds_policy(whole):
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
