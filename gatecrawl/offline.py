"""Keep third-party helpers from reaching the network on their own.

Scrapy's cookies middleware builds a module-level ``TLDExtract()`` that downloads the public
suffix list the first time it runs (and logs a traceback when that fails, as it does on a
closed network). gatecrawl replaces it with an extractor that only uses the snapshot shipped
inside tldextract, so a crawl never makes a request the recipe did not ask for.
"""

from __future__ import annotations

try:
    from scrapy.downloadermiddlewares import cookies as _cookies
    from tldextract import TLDExtract

    _cookies._split_domain = TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)
except (ImportError, AttributeError):  # pragma: no cover - a Scrapy without this helper needs nothing
    pass
