"""The named rules of main-content selection: every name ``Selection.removal_rules`` can record.

One entry per name: the stage that applies it, whether it removes, keeps or restructures, and
what it does. The stages run in this order: ``preclean`` (:mod:`.preclean`), ``vote_units``
(:mod:`.reference`, loose text wrapped for the vote), ``patterns`` (:mod:`.patterns`, on the
whole page before scoring, or inside a recipe's selection), ``scoring`` (:mod:`.scoring`, the
density candidate), ``links`` (:mod:`.links`) and
``blocks`` (:mod:`.blocks`) inside the selection, ``reference`` (the second opinion,
:mod:`.reference`), ``vote`` (the candidates' vote, :mod:`gatecrawl.core.agreement`),
``listing`` (:mod:`.listing`) and ``output`` (the last touches, :mod:`.dom`).

tests/test_extract_rules.py holds one case per name (a page that fires it, one that must not)
and fails when a name recorded anywhere in the code is missing here, or a name here has no
case. The module docstring of :mod:`gatecrawl.core.extract` describes each rule in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["Rule", "RULES"]


@dataclass(frozen=True)
class Rule:
    name: str
    stage: str
    #: ``remove`` (content leaves the selection), ``keep`` (shields or keeps content) or
    #: ``structure`` (the selection is rebuilt or re-spaced, no text lost)
    kind: str
    summary: str


_ALL = (
    Rule("keep_dominant_block", "preclean", "keep",
         "a control or hidden block holding most of the page's text is unwrapped, not removed"),
    Rule("exclude_hidden", "preclean", "remove",
         "hidden blocks: hidden attribute, aria-hidden, display:none styles, screen-reader classes"),
    Rule("wrap_loose_text", "vote_units", "structure",
         "loose text beside block children is wrapped in <p> so every piece of text is a vote unit"),
    Rule("recipe_exclude", "patterns", "remove", "the recipe's exclude selectors"),
    Rule("exclude_cookie_banner", "patterns", "remove",
         "cookie/consent classes, modal dialogs, and short blocks whose text is a cookie notice"),
    Rule("exclude_newsletter", "patterns", "remove", "newsletter and sign-up classes and headings"),
    Rule("exclude_share_bar", "patterns", "remove", "share and social classes and headings"),
    Rule("exclude_comments", "patterns", "remove",
         "comment classes and headings, and short comment-policy notices (not on a thread)"),
    Rule("exclude_post_comments", "patterns", "remove",
         "on a thread, comment blocks inside one post (a question's or an answer's comments): not posts"),
    Rule("exclude_related", "patterns", "remove",
         "related/recommended classes and headings, and lists of teasers (not on a thread: its posts)"),
    Rule("exclude_ads", "patterns", "remove", "ad, sponsor and promo classes"),
    Rule("exclude_nav", "patterns", "remove", "nav/menu tags, navigation roles, menu and breadcrumb classes"),
    Rule("exclude_sidebar", "patterns", "remove", "aside, complementary role, sidebar and widget classes"),
    Rule("exclude_author_bio", "patterns", "remove",
         "author-bio classes, and bio blocks whose text is a sentence about the writer"),
    Rule("exclude_tags", "patterns", "remove", "tag lists, categories and topics"),
    Rule("exclude_footer", "patterns", "remove",
         "footer tags, roles and classes, and short copyright or legal lines"),
    Rule("exclude_signature", "patterns", "remove",
         "signature classes: the signature under each post of a forum thread"),
    Rule("exclude_poster_stats", "patterns", "remove",
         "a forum member's title and stats beside each post (joined, messages, location)"),
    Rule("exclude_reviews", "patterns", "remove",
         "product pages: the shoppers' reviews block (review classes, itemprop=review)"),
    Rule("keep_caption", "patterns", "keep", "figcaptions and caption/credit classes are shielded"),
    Rule("keep_byline", "patterns", "keep", "byline/author/date classes and rel=author are shielded"),
    Rule("layout_cell_block", "scoring", "structure",
         "a table cell of 200+ characters is scored as a block of its own (a layout table's column), "
         "and the selection lies in one"),
    Rule("exclude_duplicate", "links", "remove",
         "a caption or leaf block repeating an earlier one, or a repeated sibling section"),
    Rule("exclude_link_dense", "links", "remove", "blocks under 1,500 characters with over 60% link text"),
    Rule("exclude_popover", "blocks", "remove", "hover cards and tooltips inside running text"),
    Rule("exclude_inline_teaser", "blocks", "remove",
         "short blocks that only point elsewhere (READ MORE: ..., all-capitals links, labelled lists)"),
    Rule("exclude_call_to_action", "blocks", "remove",
         "sign-ups, subscriptions, follow-us and email-the-writer lines"),
    Rule("exclude_ad_label", "blocks", "remove", "a block that only labels an ad slot"),
    Rule("exclude_press_boilerplate", "blocks", "remove", "the About-the-company tail of a press release"),
    Rule("exclude_video_teaser", "blocks", "remove", "video player blocks with their promotional text"),
    Rule("exclude_unconfirmed_guarded", "reference", "remove",
         "a block whose class words name boilerplate (comments, related, sidebar ...) kept by its size "
         "goes when trafilatura leaves it out and confirms the rest of the selection"),
    Rule("keep_definition_list", "reference", "keep",
         "a <dl> of 2+ terms with sentence-long definitions stays whole against the second opinion"),
    Rule("exclude_reference_disagree", "reference", "remove",
         "units the second opinion (trafilatura) leaves out when it covers most of the selection"),
    Rule("agreement", "vote", "structure",
         "the candidates' vote widened or replaced the own selection"),
    Rule("vote_both_reject", "vote", "structure",
         "both other candidates keep under 30% of the own selection and trafilatura says as much: "
         "the own selection is outvoted"),
    Rule("chrome_holds_page", "vote", "keep",
         "a header or nav holding most of the page (an unclosed tag in it) is no menu: against an own "
         "selection there, trafilatura alone keeps its units that are not mostly links"),
    Rule("exclude_no_agreement", "vote", "remove", "units inside the voted container that the vote left out"),
    Rule("exclude_unvoted_tail", "vote", "remove",
         "on a product page, the sections after the last unit trafilatura or Readability keeps"),
    Rule("listing_items", "listing", "structure",
         "the page's repeated items replace a selection that missed them"),
    Rule("separate_items", "output", "structure",
         "a space between sibling items whose words the markup glues together"),
)

#: rule name -> :class:`Rule`, in stage order
RULES = MappingProxyType({r.name: r for r in _ALL})
