"""OfflineSuffixListAddon: keep Scrapy's cookie middleware from reaching the network on its own.

Scrapy's cookies middleware builds a module-level ``TLDExtract()`` that downloads the public
suffix list the first time it runs (and logs a traceback when that fails, as it does on a
closed network). This add-on, listed in ``ADDONS`` (gatecrawl/settings.py; set it to ``None``
there to turn it off), replaces that extractor with one that only uses the snapshot shipped
inside tldextract, so a crawl never makes a request the recipe did not ask for.

Nothing happens on import: the replacement is made when Scrapy loads the add-on for a crawler
(:meth:`OfflineSuffixListAddon.update_settings`), once per process (it is the same for every
crawl).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = ["OfflineSuffixListAddon", "offline_suffix_extractor"]


def offline_suffix_extractor() -> Any:
    """A ``TLDExtract`` that reads only the bundled public-suffix snapshot (no download)."""
    from tldextract import TLDExtract

    return TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)


class OfflineSuffixListAddon:
    def update_settings(self, settings: BaseSettings) -> None:
        try:
            from scrapy.downloadermiddlewares import cookies
        except ImportError:  # pragma: no cover - a Scrapy without the cookies middleware needs nothing
            return
        current = getattr(cookies, "_split_domain", None)
        if current is None or tuple(getattr(current, "suffix_list_urls", ()) or ()) == ():
            return  # a Scrapy without this helper, or replaced already
        cookies._split_domain = offline_suffix_extractor()
