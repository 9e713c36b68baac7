"""PresenceMiddleware: the gate on every plain HTML response, before the spider sees it.

It scores the plain fetch with the four-check gate and looks for shell signals
(``gatecrawl.core.presence``), and stores the verdict in ``request.meta[PRESENCE]``
so the packet records ``needs_render`` and ``fetch_presence_score``. The render policy of the
recipe (``auto``/``force``/``skip``, per-URL rules) decides what a shell verdict means.

Settings: ``GATECRAWL_PRESENCE_ENABLED``.
Meta: ``gatecrawl_presence`` (written).
A page over ``GATECRAWL_MAX_DOM_NODES`` element nodes is not parsed here (the converter drops it
as ``too_complex``): ``gatecrawl/presence/skipped/too_complex``.
A shell whose first response carries data (``core.embedded.has_embedded_data``) gets
``embedded_sources`` in its verdict (``gatecrawl/presence/embedded_data``).
A page that plainly holds its content (``core.presence.plainly_complete``: at least
``GATECRAWL_PRESENCE_DEFER_CHARS`` characters of text outside scripts, no empty app root, no
noscript notice) is not measured here (``gatecrawl/presence/deferred``) unless its render policy is
``force``: conversion, in a worker process, takes the same verdict from its own parse of the page
and sends a shell to the browser all the same (``pipeline_shell_page``); the reactor thread is
spared most of the gate's cost. ``0`` measures every page here.
Stats: ``gatecrawl/presence/checked``, ``gatecrawl/presence/needs_render``,
``gatecrawl/presence/signal/<signal>``, ``gatecrawl/presence/policy/<policy>``,
``gatecrawl/stage_ms/verdict`` (time spent here).
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse

from gatecrawl.core.convert import DEFAULT_MAX_DOM_NODES, over_node_cap
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.presence import PLAINLY_COMPLETE_CHARS, assess_fetch, plainly_complete
from gatecrawl.exceptions import require_enabled
from gatecrawl.meta import NOT_MODIFIED, PRESENCE

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)


#: the parsed tree of each response alive, so the spider's link and PDF-viewer checks use the
#: tree the gate parsed (one parse per response on the reactor thread); it goes with the response
_DOCS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def response_doc(response: Response) -> Any:
    """The parsed tree of an HTML response (:func:`gatecrawl.core.htmlparse.parse_html`), parsed
    once and kept for the next reader while the response lives. Read-only: readers must not
    change it."""
    doc = _DOCS.get(response)
    if doc is None:
        doc = parse_html(response.body, content_type=response.headers.get("Content-Type", b"").decode("latin-1"))
        _DOCS[response] = doc
    return doc


def forget_doc(response: Response) -> None:
    """Release the tree of a response that is still referenced (its page waits for conversion)."""
    _DOCS.pop(response, None)


class PresenceMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        require_enabled(crawler.settings, "GATECRAWL_PRESENCE_ENABLED")
        self.crawler = crawler  # the spider's recipe and the routing model are read per response
        self.stats = crawler.stats
        self.max_dom_nodes = crawler.settings.getint("GATECRAWL_MAX_DOM_NODES", DEFAULT_MAX_DOM_NODES)
        self.defer_chars = crawler.settings.getint("GATECRAWL_PRESENCE_DEFER_CHARS", PLAINLY_COMPLETE_CHARS)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PresenceMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        recipe = getattr(self.crawler.spider, "recipe", None)
        if recipe is None or not isinstance(response, HtmlResponse) or "playwright" in (response.flags or []):
            return response
        if PRESENCE in request.meta or request.meta.get(NOT_MODIFIED):
            return response  # scored already, or a 304: the stored copy stands
        routing = getattr(self.crawler, "_gatecrawl_routing", None)
        if routing is not None and routing.plain_only(response.url) and not routing.recheck(response.url):
            # Its template never needed the browser (learned render routing): no shell check on the
            # reactor thread; the converter records the same fetch verdict, and escalates a shell.
            self.stats.inc_value("gatecrawl/routing/check_skipped")
            return response
        t0 = time.perf_counter()
        try:
            return self._assess(request, response, recipe)
        finally:
            self.stats.inc_value("gatecrawl/stage_ms/verdict", int((time.perf_counter() - t0) * 1000))

    def _assess(self, request: Request, response: Response, recipe) -> Response:
        cap = self.max_dom_nodes
        if over_node_cap(response.body, cap):
            # Not parsed here, on the reactor thread: the converter drops it as too_complex.
            self.stats.inc_value("gatecrawl/presence/skipped/too_complex")
            return response
        doc = response_doc(response)
        if recipe.render_policy_for(response.url)[0] != "force" and plainly_complete(doc, response.body, self.defer_chars):
            # (a forced render must know of a bot challenge before it goes to the browser)
            self.stats.inc_value("gatecrawl/presence/deferred")
            return response
        presence, verdict = assess_fetch(doc, recipe, response.url, status=response.status, body=response.body)
        policy = verdict["render_policy"]
        request.meta[PRESENCE] = verdict
        self.stats.inc_value("gatecrawl/presence/checked")
        self.stats.inc_value(f"gatecrawl/presence/policy/{policy}")
        for signal in presence.signals:
            self.stats.inc_value(f"gatecrawl/presence/signal/{signal}")
        if presence.needs_render:
            self.stats.inc_value("gatecrawl/presence/needs_render")
            # Data the first response carries (assess_fetch names it, not parsed): the converter
            # may read the content from it, and RenderMiddleware leaves the page to it first.
            if verdict.get("embedded_sources"):
                self.stats.inc_value("gatecrawl/presence/embedded_data")
            logger.debug("shell page (score %s, signals %s): %s", presence.verdict.score, presence.signals, response.url)
        return response
