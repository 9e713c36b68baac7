"""The reader's version, work bounds and record thresholds."""

from __future__ import annotations

EMBEDDED_VERSION = "embedded/1"

MAX_SOURCE_CHARS = 4_000_000
MAX_TOTAL_CHARS = 8_000_000
MAX_SOURCES = 24
MAX_NODES = 200_000
MAX_DEPTH = 64
MAX_STRING_CHARS = 1_000_000
#: a record with more prose strings side by side than this is a dictionary (UI messages), not content
MAX_PROSE_FIELDS = 8
DOMINANT_SHARE = 0.6
#: a record with less prose than this is a teaser or a description, not the page's content
MIN_RECORD_CHARS = 400
FIELDS_LISTED_MAX = 40
#: JSON-LD: the schema.org properties that hold a creative work's content (a description or a
#: product's summary is not the page)
LD_CONTENT_KEYS = ("articleBody", "text")
