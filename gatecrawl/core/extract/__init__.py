"""Main-content selection.

``select_main(doc)`` returns a :class:`Selection`: a cleaned deep copy of the subtree that
holds the page's main content, the name of the rule that chose it, and the sorted names of
the removal/keep rules that fired. ``doc`` is never mutated; nothing depends on set or dict
iteration order (elements are visited in document order).

Pre-cleaning (always): scripts, styles, templates, forms controls, media and other
non-content elements are dropped; hidden blocks (``hidden``, ``aria-hidden=true``,
``display:none``/``visibility:hidden`` styles, screen-reader-only classes such as
``sr-only``, ``visually-hidden``, ``off-screen``, ``element-invisible``, Webflow's
``w-condition-invisible``, and print-only classes such as ``print-only``/``print-header``)
are dropped (``exclude_hidden``).

Selection, first rule that yields a node wins:

1. ``recipe_selector``: each recipe CSS selector in priority order; for one selector the
   first matching node in document order with at least :data:`MIN_TEXT` visible
   characters wins. Recipe ``exclude_selectors`` and the pattern rules below are then
   applied inside it.
2. Otherwise ``exclude_selectors`` and the pattern rules are applied to the whole body and
   every element gets a *content score*: text is attributed to its nearest block-level
   ancestor (lists and tables count as one block, except a table cell holding 200+ characters:
   a layout table's column is a block of its own, ``layout_cell_block`` when the selection lies
   in one); a block is worth
   ``plain - 2 * max(0, linked - plain) - 10 + 10 * sentences (max 5)`` where ``plain`` /
   ``linked`` are its characters outside / inside links; an element's score is the sum over
   the blocks inside it. The best element (highest score, deepest on ties, first in
   document order) is the density candidate. If it contains several ``<article>``
   elements, the one holding the page's first ``<h1>`` is taken instead, unless another
   article holding no article scores more (a title card above the body: the candidate stands).
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
  ``exclude_cookie_banner`` (also ``role=dialog``/``alertdialog``, unless the page declares
  the dialog non-modal with ``aria-modal="false"``: a sheet or drawer in the page),
  ``exclude_share_bar``, ``exclude_related``,
  ``exclude_newsletter``, ``exclude_comments`` (not when ``keep_comments``),
  ``exclude_ads``, ``exclude_sidebar``, ``exclude_footer``, ``exclude_author_bio``,
  ``exclude_tags``, ``exclude_signature`` (the signature under each post of a thread: class
  word ``signature``), ``exclude_poster_stats`` (a member's title and stats beside each post:
  ``userExtras``, ``userTitle``, ``user-stats`` ...), ``exclude_post_comments`` (on a thread,
  whose profile skips ``exclude_comments``: a comment-classed block inside one post, under an
  ancestor whose class or id names a question, an answer, a post or a message: the comments
  under a Q&A post are not posts); class strings that name the content itself (``article-body``,
  ``entry-content``, ...) and embedded posts (tweets etc.) are never matched;
* by section heading text ("Related articles", "More from ...", "Comments", "Share this",
  "Sign up ..."): the section (or the heading and the block after it);
* ``exclude_related`` also for teaser lists: a container whose children are mostly
  teasers (a link plus a linked heading, a linked image, a date, or a summary cut with
  "..."; under 600 characters each), except on a thread (the comment rules skipped), whose
  short replies with their posters' avatars and times look just like that;
* in the selection: ``exclude_link_dense`` (blocks under 1,500 characters with more than
  60% of their text in links), ``exclude_cookie_banner`` for short blocks whose *text* is a
  cookie/consent notice, ``exclude_footer`` for short copyright/legal lines, and
  ``exclude_duplicate`` for a caption or leaf block whose text repeats an earlier one
  (captions: same first 60 characters), and, after the vote, for an element holding two or
  more blocks whose whole text (100+ characters) repeats an earlier sibling's with no
  heading between them, or nearly repeats it (90% of the 4-token shingles shared, the same
  numbers in the same order, no code) (responsive copies of one section; see
  ``repeats._drop_repeated_siblings``);
* ``separate_items`` (last): two sibling elements that are neither blocks nor inline
  formatting and meet word-to-word without whitespace get a space between them, so the
  Markdown does not glue ``<span>2026</span><span>1h</span>`` into "20261h"; the vote and
  the second opinion tokenise units the same way (``dom.block_text``);
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
  behind (counted over paragraphs and headings, and over all of the text), with no heading
  after it other than further "About ..." and contact headings (a listicle of companies or
  tools has one per entry); it and everything after it (contacts) are removed;
* ``exclude_video_teaser``: video player blocks (class ``video``, ``video-player``,
  ``featured-video``, ``brightcove``, ...; under 600 characters, no paragraph of 300+)
  with their promotional title and description (captions included);
* ``exclude_comments`` (text form): comment-policy notices under 400 characters
  ("comments are moderated", "comment policy", Portuguese/Italian equivalents);
* ``exclude_reviews`` (product pages, with the pattern rules): the shoppers' reviews, a
  product page's comments (class/id words ``review``/``reviews``, ``customer-reviews``,
  ``review-list`` ..., or ``itemprop=review``), unless the block holds over half of the text;
* ``exclude_unvoted_tail`` (product pages, when the vote lets the own selection stand): the
  units from the first heading after the last unit another candidate keeps, when they hold
  at least 30 tokens (related products, purchase terms, footnotes; see
  ``agreement.unvoted_tail``); each is listed in ``Selection.removed``;
* ``exclude_unconfirmed_guarded`` (when the vote runs): a block inside the selection that a
  class-word rule names (comments, related, sidebar, ads, newsletter, share bar, author bio,
  tags, navigation; not footers) but that the size guards kept (it holds a large share of the
  page's prose or half of its text: a blog post's long comment thread) is removed when
  trafilatura's text for the page keeps at most 20% of its shingles and at least half of the
  rest of the selection's (40+ tokens): the class word and the independent candidate agree.
  Its text is listed in ``Selection.removed``, and the listing rescue does not take its items
  back;
* ``keep_definition_list`` (with ``exclude_reference_disagree``): the terms and definitions of
  a ``<dl>`` with 2+ terms, each defined, whose definitions hold 8+ tokens on average stay
  whatever the second opinion keeps of them (an options or parameters list; trafilatura drops
  blocks classed ``options`` or ``meta`` by their class word); "Author: / Date:" label lists
  are not shielded;
* ``chrome_holds_page`` (the vote): a ``header``/``nav``/``footer``/``aside`` (or ARIA role)
  holding more than half of the page's text is no menu (an unclosed ``<div>`` in the header
  makes the parser nest the page in it): when the own selection lies in such chrome and
  trafilatura keeps under 30% of it, trafilatura alone keeps the units there that are not
  mostly link text (chrome by markup otherwise needs both other candidates);
* ``vote_both_reject``: the own selection is outvoted (``agreement.decide``) when both other
  candidates speak, together keep under 30% of it, and trafilatura says at least as much as it
  (the own selection disagrees with both; without this, trafilatura had to say twice as much);
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
prose (paragraphs with 100+ plain characters), is never removed by a pattern rule; except, for
the first guard, a dialog the page declares modal (``role=dialog`` with ``aria-modal="true"``):
an overlay, never the page, however much text it holds (a consent manager's vendor lists).

Keep rules: ``keep_caption`` (``figcaption``, ``caption``, caption/credit classes) and
``keep_byline`` (byline/author/date classes, ``rel=author``) protect a block from pattern
removal (the class-word rules); they are recorded whenever such blocks are present in the
selection. Against the second opinion they hold only when the recipe asks
(``content.keep_bylines`` / ``content.keep_captions``).

``main_text_chars`` / ``page_text_chars`` count visible characters with XPath
``normalize-space`` (runs of ASCII whitespace count as one space; ends trimmed) in the
cleaned selection / the pre-cleaned ``<body>``.

Layout of the package: :mod:`.dom` (text and tree helpers), :mod:`.preclean` (non-content and
hidden elements), :mod:`.patterns` (tag/role/class-word and heading-text rules, keep rules),
:mod:`.links` (link-dense blocks, legal and cookie lines, repeated captions), :mod:`.blocks`
(the other block rules inside the selection), :mod:`.scoring` (the density candidate and
its semantic containers), :mod:`.reference` (vote units, second opinion, pruning),
:mod:`.listing` (listing rescue), :mod:`.selection` (:func:`select_main`), :mod:`.rules` (the
registry of rule names above: stage, kind, summary; tests/test_extract_rules.py has one case each).
"""

from __future__ import annotations

from gatecrawl.core.extract.dom import MIN_TEXT, _squash, collapsed_menu_chars, visible_text_chars
from gatecrawl.core.extract.listing import (LISTING_RESCUE_MAX_RATIO, LISTING_RESCUE_MIN_ITEMS,
                                            LISTING_RESCUE_MIN_SHARE, _listing_rescue)
from gatecrawl.core.extract.selection import PROFILES, Selection, _select_main, select_main

EXTRACTOR_VERSION = "extract/36"

__all__ = ["EXTRACTOR_VERSION", "LISTING_RESCUE_MAX_RATIO", "LISTING_RESCUE_MIN_ITEMS",
           "LISTING_RESCUE_MIN_SHARE", "MIN_TEXT", "PROFILES", "Selection", "_listing_rescue",
           "_select_main", "_squash", "collapsed_menu_chars", "select_main", "visible_text_chars"]
