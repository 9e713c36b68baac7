"""Structural signals for the wrong-route detectors (login walls, paywalls, bot challenges).

Everything here reads a parsed document and never mutates it. The verdicts themselves are
taken in :mod:`gatecrawl.core.validate`, against how much real content the page holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lxml.html import HtmlElement

from gatecrawl.core.memo import str_memo
from gatecrawl.core.page import _chrome_span, chrome_candidates, jsonld_documents, norm_space, visible_text
from gatecrawl.core.pageindex import PageIndex, find_below, main_holders

__all__ = ["Paywall", "find_paywall", "has_password_form", "consent_dialog", "paywall_container", "search_query_shown", "choice_controls", "birth_date_form", "page_signals",
           "PageSignals"]


@dataclass(frozen=True)
class Paywall:
    """Paywall markup (schema.org ``isAccessibleForFree: false``) and what it points at."""

    selectors: tuple[str, ...]  # the cssSelector of each paywalled part (may be empty)
    paywalled_chars: int | None  # visible text inside those parts; None when no selector is given

    def to_dict(self) -> dict:
        return {"markup": "isAccessibleForFree=false", "selectors": list(self.selectors), "paywalled_chars": self.paywalled_chars}


def _is_false(value) -> bool:
    return value is False or (isinstance(value, str) and value.strip().lower() == "false")


def _jsonld_objects(doc: HtmlElement, documents: list | None = None):
    for data in (jsonld_documents(doc) if documents is None else documents):
        stack = [data]
        while stack:
            cur = stack.pop()
            if isinstance(cur, list):
                stack.extend(cur)
            elif isinstance(cur, dict):
                yield cur
                stack.extend(v for v in cur.values() if isinstance(v, (list, dict)))


def find_paywall(doc: HtmlElement, *, jsonld: list | None = None) -> Paywall | None:
    """The page's paywall markup, or None. A JSON-LD object with ``isAccessibleForFree``
    false marks paywalled content; its ``cssSelector`` (usually on a ``hasPart`` element)
    names the paywalled part. When that part is in the HTML with its text, the content was
    served; when it is absent the body is a teaser. ``jsonld``: ``list(jsonld_documents(doc))``
    when the caller has it (read, never changed)."""
    flagged = False
    selectors: list[str] = []
    for obj in _jsonld_objects(doc, jsonld):
        if _is_false(obj.get("isAccessibleForFree")):
            flagged = True
            sel = obj.get("cssSelector")
            for s in sel if isinstance(sel, list) else [sel]:
                if isinstance(s, str) and s.strip() and s.strip() not in selectors:
                    selectors.append(s.strip())
    if not flagged:
        return None
    if not selectors:
        return Paywall(selectors=(), paywalled_chars=None)
    held = 0
    for s in selectors:
        try:
            found = doc.cssselect(s)
        except Exception:  # a selector lxml cannot read counts as absent (fail closed)
            found = []
        held += sum(len(visible_text(el)) for el in found)
    return Paywall(selectors=tuple(sorted(selectors)), paywalled_chars=held)


def _form_fields(doc: HtmlElement, index: PageIndex | None, *tags: str):
    """The input or select elements of ``doc`` (``tags``), in document order; read from the
    document's ``PageIndex`` when the caller has it (no scan of the document)."""
    if index is None:
        return doc.iter(*tags)
    return [el for el in index.form_fields if el.tag in tags]


def has_password_form(doc: HtmlElement, *, index: PageIndex | None = None) -> bool:
    return any((i.get("type") or "").strip().lower() == "password" for i in _form_fields(doc, index, "input"))


# --- interstitials: consent walls, age checks, search pages, paywall containers -----------------

#: Class/id tokens of consent-management dialogs: the generic words and the common platforms'
#: container names. ``cmp`` counts alone or with a dialog word (``cmp-text``, ``cmp-container``
#: are a page builder's components, not consent dialogs).
_CONSENT_IDENT = re.compile(
    r"(^|[\s_-])(consent|cookies?(wall|gate|banner|notice|bar|layer|popup|modal|overlay)?|gdpr|"
    r"onetrust|didomi|usercentrics|cybotcookiebot|cookiebot|sp_message|qc-cmp|fc-consent|truste|privacy-?wall|"
    r"cmp-(wall|fullscreen|dialog|banner|modal|overlay|popup|layer|consent|ui))($|[\s_-])|(^|\s)cmp($|\s)",
    re.I,
)
#: Class/id tokens of paywall and purchase containers (the paywall vendors' and publishers' names).
_PAYWALL_IDENT = re.compile(
    r"(^|[\s_-])(paywall|pay-wall|regwall|reg-wall|paygate|piano-(offer|paywall|container)|tp-(modal|container|iframe-wrapper)|"
    r"access-(box|options|wall)|buy-?box|purchase-(box|options)|subscriber-only|locked-content|content-locked|premium-(wall|gate|lock))($|[\s_-])",
    re.I,
)
_CHROME_ROLE = {"navigation", "banner", "contentinfo", "search", "complementary"}
_CONTROLS = {"button", "input", "select", "form", "a"}


def _ident(el) -> str:
    return " ".join(filter(None, (el.get("id"), el.get("class"))))


@str_memo(65536)
def _consent_ident(ident: str) -> bool:
    """``_CONSENT_IDENT`` names a consent dialog in ``ident`` (pure, cached: a page repeats its
    class strings, and this long case-insensitive alternation is the cost of the test)."""
    return _CONSENT_IDENT.search(ident) is not None


@str_memo(65536)
def _paywall_ident(ident: str) -> bool:
    """``_PAYWALL_IDENT`` names a paywall container in ``ident`` (pure, cached)."""
    return _PAYWALL_IDENT.search(ident) is not None


def _outermost(body, asked, pred) -> set:
    """The elements under ``body`` that ``pred`` holds for and that lie in no other such
    element; ``pred`` is asked only of the elements in ``asked`` (a set holding every element it
    can hold for), and not inside a match. The elements asked are taken outermost first (by
    their number of ancestors: an element's ancestors before it), not found by a walk of the
    body: ``pred`` is asked of the same elements as in document order."""
    below = []  # (ancestors, element) of each element asked that lies under ``body``
    for el in asked:
        above = list(el.iterancestors())
        if any(a is body for a in above):
            below.append((above, el))
    below.sort(key=lambda item: len(item[0]))
    held: set = set()
    for above, el in below:
        if not any(a in held for a in above) and pred(el):
            held.add(el)
    return held


#: An element holding this many paragraphs of at least PROSE_PARAGRAPH_CHARS characters holds
#: the page's prose: it wraps content, it is not a consent dialog (one or two short notices).
PROSE_PARAGRAPHS = 3
PROSE_PARAGRAPH_CHARS = 150


def _holds_prose(el) -> bool:
    n = 0
    for p in el.iter("p"):
        if len(visible_text(p)) >= PROSE_PARAGRAPH_CHARS:
            n += 1
            if n >= PROSE_PARAGRAPHS:
                return True
    return False


#: Words one of which every consent (paywall) ident holds: ``_CONSENT_IDENT``
#: (``_PAYWALL_IDENT``) without its token boundaries, each word inside one attribute (none
#: holds a space), in lower case (see ``PageIndex``).
_CONSENT_WORDS = re.compile(r"consent|cookie|gdpr|onetrust|didomi|usercentrics|sp_message|cmp|truste|privacy")
_PAYWALL_WORDS = re.compile(
    r"paywall|pay-wall|regwall|reg-wall|paygate|piano-|tp-|access-|buy|purchase-|subscriber-only|locked|premium-")


def consent_dialog(doc: HtmlElement, *, index: PageIndex | None = None, body_text: str | None = None) -> dict | None:
    """The page's consent-management dialog and how much text lies outside it, or None.

    A consent container is an element (not html/body, not wrapping a main or article, not
    holding PROSE_PARAGRAPHS long paragraphs) whose class or id names a consent dialog and
    which holds a control (button, form, link). Returns
    the characters of visible text inside consent containers, in page chrome (nav, header,
    footer, aside) and elsewhere: a cookie wall is a page with almost nothing elsewhere.
    ``index``: the document's ``PageIndex``, ``body_text``: ``visible_text`` of its body, when
    the caller has them."""
    index = index or PageIndex(doc)
    body = find_below(doc, "body", index)
    if body is None:
        body = doc
    holders = main_holders(index)  # (the elements that hold a main or article element)

    def is_consent(el) -> bool:
        ident = _ident(el)
        return (bool(ident) and el.tag.lower() not in ("html", "body") and _consent_ident(ident)
                and el not in holders and any(isinstance(d.tag, str) and d.tag.lower() in _CONTROLS for d in el.iterdescendants())
                and not _holds_prose(el))

    # is_consent needs an id or a class that names a consent dialog
    named = index.idents.named(_CONSENT_WORDS)
    consent_els = {el for el in named if el is not body and any(a is body for a in el.iterancestors()) and is_consent(el)}
    # (so below ``body``, is_consent(el) is ``el in consent_els``)
    found = [el for el in named if el in consent_els]  # document order
    if len(found) >= 2:
        found = [el for el in found if not any(a in consent_els for a in el.iterancestors() if a is not body)]
    if not found:
        return None
    total = len(visible_text(body) if body_text is None else body_text)
    consent = sum(len(visible_text(el)) for el in found)
    if consent == 0:
        return None
    held: dict = {}  # the visible characters of each chrome candidate measured (summed again below)

    def chrome_test(el) -> bool:
        """``page._chrome_test(total)`` of a chrome candidate: nav, header, footer, banners; not
        a wrapper of the page."""
        if el in holders:
            return False
        n = held[el] = len(visible_text(el))
        return _chrome_span(el, n, total)

    # (only the chrome candidates and the consent containers are asked)
    asked = consent_els | chrome_candidates(index)
    chrome_els = _outermost(body, asked, lambda el: el in consent_els or chrome_test(el))
    chrome = sum(held[el] for el in chrome_els if el not in consent_els)
    ident = _ident(found[0])
    return {"container": f"{found[0].tag}.{ident}"[:80], "consent_chars": consent, "chrome_chars": chrome,
            "other_chars": max(0, total - consent - chrome)}


def paywall_container(doc: HtmlElement, *, index: PageIndex | None = None) -> dict | None:
    """The first paywall or purchase container on the page (its tag.class and the visible
    characters it holds), or None."""
    for el in (index or PageIndex(doc)).idents.named(_PAYWALL_WORDS):  # the only elements the ident can name
        if el.tag.lower() in ("html", "body"):
            continue
        ident = _ident(el)
        if ident and _paywall_ident(ident):
            return {"container": f"{el.tag}.{ident}"[:80], "container_chars": len(visible_text(el))}
    return None


_QUERY_NAMES = {"q", "query", "s", "search", "keyword", "keywords", "k", "term", "text", "searchterm", "search_query"}


def search_query_shown(doc: HtmlElement, *, index: PageIndex | None = None) -> bool:
    """True when the page echoes a search: a search or query input that holds a value."""
    for el in _form_fields(doc, index, "input"):
        typ = (el.get("type") or "text").strip().lower()
        if typ not in ("text", "search", ""):
            continue
        if not (el.get("value") or "").strip():
            continue
        if typ == "search" or (el.get("name") or "").strip().lower() in _QUERY_NAMES:
            return True
    return False


_CHOICES = ("a", "button", "input")


def _is_choice(el) -> bool:
    """A link, a button or a submit input (of the elements ``_CHOICES`` names)."""
    return el.tag != "input" or (el.get("type") or "").lower() in ("submit", "button")


def _body_choices(doc: HtmlElement, body: HtmlElement, index: PageIndex) -> int:
    """``sum(1 for el in body.iter(*_CHOICES) if _is_choice(el))`` for ``body`` in ``doc``: the
    document's controls (its links and buttons listed by ``index``, its submit inputs among the
    index's form fields), less those outside ``body`` (the elements above it up to ``doc`` and
    what lies beside them: the head), instead of a walk of the whole body."""
    n = len(index.tagged["a"]) + len(index.tagged["button"])
    n += sum(1 for el in index.form_fields if el.tag == "input" and _is_choice(el))
    node = body
    while node is not doc:
        parent = node.getparent()
        n -= sum(1 for sib in parent if sib is not node for c in sib.iter(*_CHOICES) if _is_choice(c))
        if parent.tag in _CHOICES and _is_choice(parent):
            n -= 1
        node = parent
    return n


def choice_controls(doc: HtmlElement, *, index: PageIndex | None = None) -> int:
    """Links, buttons and submit inputs inside the page outside its chrome (nav, header, footer,
    aside, or an element of a chrome role, or inside one): the body's controls, less those inside
    each outermost chrome element, which the document's ``PageIndex`` names (``index`` when the
    caller has it), instead of an ancestor walk from each control."""
    index = index or PageIndex(doc)
    body = find_below(doc, "body", index)
    if body is None:
        body = doc
    roles = index.roles
    marked = set(index.chrome_tags)
    marked.update(el for value, el in zip(roles.values, roles.owners) if value.lower() in _CHROME_ROLE)
    n = _body_choices(doc, body, index)
    for el in marked:  # (each chrome element once; the count does not depend on the order)
        above = list(el.iterancestors())
        if any(a in marked for a in above):
            continue  # inside another chrome element: left out with it
        if el is body or any(a is el for a in body.iterancestors()):
            # every control of the body lies inside it (but the element itself)
            n -= sum(1 for c in body.iter(*_CHOICES) if c is not el and _is_choice(c))
        elif any(a is body for a in above):
            n -= sum(1 for c in el.iterdescendants(*_CHOICES) if _is_choice(c))
    return n


def birth_date_form(doc: HtmlElement, *, index: PageIndex | None = None) -> bool:
    """True when the page asks for a date of birth (a select or input named for it, or a day
    select of 28-31 options next to a year select)."""
    for el in _form_fields(doc, index, "select", "input"):
        name = " ".join(filter(None, (el.get("name"), el.get("id")))).lower()
        if re.search(r"birth|(^|[\s_-])dob($|[\s_-])|geburt|naissance|nacimiento", name):
            return True
    sizes = [len(s.findall(".//option")) for s in _form_fields(doc, index, "select")]
    return any(28 <= n <= 32 for n in sizes) and len(sizes) >= 2


def page_signals(doc: HtmlElement, *, index: PageIndex | None = None, body_text: str | None = None) -> PageSignals:
    """The structural signals the interstitial detectors read (see gatecrawl.core.validate), as
    a :class:`PageSignals` mapping: each signal is taken when it is first read, so the document
    must not change before they are read. ``index``: the document's ``PageIndex``,
    ``body_text``: ``visible_text`` of its body, when the caller has them."""
    return PageSignals(doc, index or PageIndex(doc), body_text)


class PageSignals(Mapping):
    """The signals of ``page_signals``: ``document_title``, ``consent``, ``paywall_container``,
    ``search_query_shown``, ``choice_controls`` and ``birth_date_form``, each taken on the
    document when first read and kept (validation reads the costly ones only on pages short
    enough for the detector that asks them to decide anything)."""

    NAMES = ("document_title", "consent", "paywall_container", "search_query_shown", "choice_controls", "birth_date_form")

    def __init__(self, doc: HtmlElement, index: PageIndex, body_text: str | None) -> None:
        self._doc = doc
        self._index = index
        self._body_text = body_text
        self._taken: dict = {}

    def __getitem__(self, name: str):
        if name in self._taken:
            return self._taken[name]
        doc, index = self._doc, self._index
        if name == "document_title":
            t = find_below(doc, "title", index)
            value = norm_space(t.text_content()) if t is not None else ""
        elif name == "consent":
            value = consent_dialog(doc, index=index, body_text=self._body_text)
        elif name == "paywall_container":
            value = paywall_container(doc, index=index)
        elif name == "search_query_shown":
            value = search_query_shown(doc, index=index)
        elif name == "choice_controls":
            value = choice_controls(doc, index=index)
        elif name == "birth_date_form":
            value = birth_date_form(doc, index=index)
        else:
            raise KeyError(name)
        self._taken[name] = value
        return value

    def __iter__(self):
        return iter(self.NAMES)

    def __len__(self) -> int:
        return len(self.NAMES)
