"""PresenceMiddleware: the gate on every plain HTML response, before the spider sees it.

It scores the plain fetch with the four-check gate and looks for shell signals
(``gatecrawl.core.presence``), and stores the verdict in ``request.meta["gatecrawl_presence"]``
so the packet records ``needs_render`` and ``fetch_presence_score``. The render policy of the
recipe (``auto``/``force``/``skip``, per-URL rules) decides what a shell verdict means.

Settings: ``GATECRAWL_PRESENCE_ENABLED``.
Meta: ``gatecrawl_presence`` (written).
A page over ``GATECRAWL_MAX_DOM_NODES`` element nodes is not parsed here (the converter drops it
as ``too_complex``): ``gatecrawl/presence/skipped/too_complex``.
Stats: ``gatecrawl/presence/checked``, ``gatecrawl/presence/needs_render``,
``gatecrawl/presence/signal/<signal>``, ``gatecrawl/presence/policy/<policy>``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse

from gatecrawl.core.convert import DEFAULT_MAX_DOM_NODES, dom_node_estimate
from gatecrawl.core.gate import GateThresholds
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.presence import assess_presence
from gatecrawl.core.validate import detect_bot_challenge

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)


class PresenceMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("GATECRAWL_PRESENCE_ENABLED"):
            raise NotConfigured("GATECRAWL_PRESENCE_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PresenceMiddleware:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        recipe = getattr(self.crawler.spider, "recipe", None)
        if recipe is None or not isinstance(response, HtmlResponse) or "playwright" in (response.flags or []):
            return response
        if "gatecrawl_presence" in request.meta or request.meta.get("gatecrawl_not_modified"):
            return response  # scored already, or a 304: the stored copy stands
        cap = self.crawler.settings.getint("GATECRAWL_MAX_DOM_NODES", DEFAULT_MAX_DOM_NODES)
        if cap > 0 and dom_node_estimate(response.body) > cap:
            # Not parsed here, on the reactor thread: the converter drops it as too_complex.
            self.stats.inc_value("gatecrawl/presence/skipped/too_complex")
            return response
        doc = parse_html(response.body, content_type=response.headers.get("Content-Type", b"").decode("latin-1"))
        presence = assess_presence(doc, GateThresholds.from_recipe(recipe))
        verdict = presence.to_dict()
        policy, origin = recipe.render_policy_for(response.url)
        challenge = detect_bot_challenge(response.text[:200_000], response.status, presence.body_chars)
        verdict["bot_challenge"] = challenge
        verdict["render_policy"] = policy
        verdict["render_policy_origin"] = origin
        request.meta["gatecrawl_presence"] = verdict
        self.stats.inc_value("gatecrawl/presence/checked")
        self.stats.inc_value(f"gatecrawl/presence/policy/{policy}")
        for signal in presence.signals:
            self.stats.inc_value(f"gatecrawl/presence/signal/{signal}")
        if presence.needs_render:
            self.stats.inc_value("gatecrawl/presence/needs_render")
            logger.debug("shell page (score %s, signals %s): %s", presence.verdict.score, presence.signals, response.url)
        return response
