"""Every ``gatecrawl_*`` request meta key, named once.

Components read and write ``request.meta[meta.PRESENCE]`` rather than spelling the key; the
README's "Meta keys" table lists the same keys (``tests/test_docs.py`` checks both ways).
"""

from __future__ import annotations

__all__ = [
    "ALL",
    "CONDITIONAL",
    "EGRESS",
    "ESCALATED_FROM",
    "ESCALATION_REASON",
    "NOT_FOUND_PROBE",
    "NOT_MODIFIED",
    "PLAIN_CAPTURE",
    "PRESENCE",
    "RENDER",
    "RENDER_ATTEMPTS",
    "SITEMAP",
    "START_TIME",
    "TASK_ID",
    "URL_REQUESTED",
    "VIEWER_URL",
]

PRESENCE = "gatecrawl_presence"
"""The downloader-side gate verdict on the plain fetch (``PresenceMiddleware``)."""
EGRESS = "gatecrawl_egress"
"""The egress decision for the request's destination (reason, detail, hop)."""
START_TIME = "gatecrawl_start_time"
"""Monotonic time the request was created (latency)."""
URL_REQUESTED = "gatecrawl_url_requested"
"""The URL originally requested, when it differs from the request URL."""
VIEWER_URL = "gatecrawl_viewer_url"
"""On a PDF request found on a viewer page: that page's URL."""
SITEMAP = "gatecrawl_sitemap"
"""Marks sitemap requests (no packet)."""
RENDER_ATTEMPTS = "gatecrawl_render_attempts"
"""Browser renders of this URL so far (bounded by ``GATECRAWL_RENDER_MAX_ATTEMPTS``)."""
ESCALATED_FROM = "gatecrawl_escalated_from"
"""``http`` on a request re-issued through the browser."""
ESCALATION_REASON = "gatecrawl_escalation_reason"
"""Why it was re-issued through the browser."""
RENDER = "gatecrawl_render"
"""The readiness report of a render."""
PLAIN_CAPTURE = "gatecrawl_plain_capture"
"""On a render request: the plain response (url, status, headers, content type, body)."""
NOT_FOUND_PROBE = "gatecrawl_not_found_probe"
"""Marks the per-host "not found" probe (no packet)."""
CONDITIONAL = "gatecrawl_conditional"
"""The request carries the stored validators (``RecrawlMiddleware``)."""
NOT_MODIFIED = "gatecrawl_not_modified"
"""The server answered the conditional request with 304: the stored copy stands."""
TASK_ID = "gatecrawl_task_id"
"""Distributed mode: the Redis task a request belongs to."""

ALL = frozenset(v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str) and v.startswith("gatecrawl_"))
