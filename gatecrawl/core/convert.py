"""The one path through the core.

``convert()`` reads a page (HTML or PDF), scores it with the gate, selects the main
content, converts it to Markdown, validates it and builds its evidence packet. The crawl's
item pipeline, ``scrapy convert`` and ``from gatecrawl import convert`` all call it, so
they cannot disagree. It never raises on bad input: an unexpected error becomes a typed
drop (``converter_error``), never a kept page.

This module is the entry point: the failed download, the content-type routing and the element
cap before parsing. Each reader has its own module: ``convert_html`` (gate, selection,
Markdown, validation; a shell's embedded data), ``convert_native`` (a site's own Markdown),
``convert_pdf``; ``convert_packet`` holds what a conversion takes and gives and the packet
they all fill.
"""

from __future__ import annotations

import functools
import logging
import time
import traceback
from dataclasses import replace

from gatecrawl.core.convert_html import convert_html
from gatecrawl.core.convert_native import convert_native_markdown, normalise_markdown
from gatecrawl.core.convert_packet import REMOVED_LISTED_MAX, ConversionResult, base_packet, failed_report, finish, reader_text
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.convert_pdf import convert_pdf
from gatecrawl.core.reasons import Reason
from gatecrawl.core.recipes import Recipe, load_recipe_text
from gatecrawl.core.redact import redact_text, redact_url
from gatecrawl.core.route import page_type

__all__ = ["FetchInfo", "ConversionResult", "convert", "default_recipe", "page_type", "DEFAULT_MAX_DOM_NODES",
           "dom_node_estimate", "over_node_cap", "normalise_markdown", "reader_text", "REMOVED_LISTED_MAX"]

logger = logging.getLogger(__name__)


# Parsing and converting costs about 4 KB of memory and 0.1-0.3 ms of CPU per element (15 MB of
# tiny paragraphs: 1.5 million elements, several GB). The largest page of the two benchmark
# corpora has under 16,000; a page over the cap is dropped as too_complex before it is parsed.
DEFAULT_MAX_DOM_NODES = 100_000


def dom_node_estimate(body: bytes) -> int:
    """Elements in an HTML body, estimated without parsing: start tags (``<`` not followed by
    ``/`` or ``!``). Linear, in C."""
    return body.count(b"<") - body.count(b"</") - body.count(b"<!")


def over_node_cap(body: bytes, cap: int) -> bool:
    """Whether ``body`` holds more than ``cap`` elements by :func:`dom_node_estimate` (``cap``
    0: no cap). The estimate is at most the count of ``<``, itself at most the length: the
    cheap bounds answer first (an ordinary page never pays for the full estimate, three passes
    over its bytes)."""
    return cap > 0 and len(body) > cap and body.count(b"<") > cap and dom_node_estimate(body) > cap


@functools.cache
def default_recipe() -> Recipe:
    """The recipe used when none is given: every key at its default (a cache: built once per
    process; a Recipe is immutable)."""
    return load_recipe_text("", source="<default>", default_name="default")


def convert(
    body: bytes | str,
    url: str,
    content_type: str | None = "text/html",
    recipe: Recipe | None = None,
    *,
    fetch: FetchInfo | None = None,
) -> ConversionResult:
    """Convert one fetched page to Markdown plus its evidence packet.

    ``url`` is the final URL (after redirects): links and images resolve against it.
    """
    recipe = recipe or default_recipe()
    fetch = fetch or FetchInfo(url_requested=url)
    if isinstance(body, str):
        body = body.encode("utf-8")
    t0 = time.perf_counter()
    try:
        return _convert(body, url, content_type, recipe, fetch, t0)
    except Exception as exc:  # fail closed: a converter bug quarantines the page, never keeps it
        logger.error("converter error on %s: %s", redact_url(url), redact_text(repr(exc)))
        packet = base_packet(url, content_type, recipe, fetch, body)
        packet = replace(
            packet,
            page_type="other",
            reader=fetch.reader,
            outcome="dropped",
            drop_reason=str(Reason.CONVERTER_ERROR),
            drop_detail=redact_text("".join(traceback.format_exception_only(type(exc), exc)).strip())[:500],
            validation_report=failed_report(Reason.CONVERTER_ERROR),
            conversion_ms=int((time.perf_counter() - t0) * 1000),
        )
        return ConversionResult(markdown="", packet=packet, ok=False, drop_reason=str(Reason.CONVERTER_ERROR))


def _convert(body: bytes, url: str, content_type: str | None, recipe: Recipe, fetch: FetchInfo, t0: float) -> ConversionResult:
    packet = base_packet(url, content_type, recipe, fetch, body)
    if fetch.error is not None:
        packet.page_type = "none"
        packet.drop_detail = redact_text(fetch.error)[:500]
        packet.egress = dict(fetch.egress) if fetch.egress else None
        return finish(packet, "", failed_report(fetch.error_reason or Reason.FETCH_FAILED), t0)
    kind = page_type(body, content_type, url)
    packet.page_type = kind
    if kind == "pdf":
        packet.reader = "pdf"
        return convert_pdf(body, url, recipe, fetch, packet, t0)
    if kind == "markdown":
        packet.reader = "native_markdown"
        return convert_native_markdown(body, url, content_type, recipe, fetch, packet, t0)
    if kind != "html":
        status = fetch.http_status or 200
        reason = Reason.HTTP_ERROR if status >= 400 else Reason.UNSUPPORTED_TYPE
        return finish(packet, "", failed_report(reason, content_type=content_type), t0)
    cap = DEFAULT_MAX_DOM_NODES if fetch.max_dom_nodes is None else fetch.max_dom_nodes
    if over_node_cap(body, cap):
        nodes = dom_node_estimate(body)  # (again, for the report: only on this rare path)
        packet.drop_detail = f"about {nodes:,} element nodes, over the cap of {cap:,} (GATECRAWL_MAX_DOM_NODES)"
        return finish(packet, "", failed_report(Reason.TOO_COMPLEX, nodes=nodes, max_dom_nodes=cap), t0)
    return convert_html(body, url, content_type, recipe, fetch, packet, t0)
