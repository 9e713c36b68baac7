"""Request policy for browser renders.

``process_headers`` (``PLAYWRIGHT_PROCESS_REQUEST_HEADERS``) sends the Scrapy request's headers
(User-Agent, Accept-Language, cookies) only with the page's own navigation, and only to the
same origin. Sub-resources and cross-origin frames keep the browser's own headers, so a
cookie or an Authorization header meant for the crawled page never reaches a third party.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

__all__ = ["process_headers"]


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlsplit(url)
    return p.scheme, (p.hostname or "").lower(), p.port


async def process_headers(*, browser_type_name: str, playwright_request: Any, scrapy_request_data: dict) -> dict:
    headers = dict(await playwright_request.all_headers())
    scrapy_headers = {k.lower(): v for k, v in scrapy_request_data["headers"].to_unicode_dict().items()}
    # The crawl's User-Agent everywhere (the browser's would say HeadlessChrome), like plain requests.
    if scrapy_headers.get("user-agent"):
        headers["user-agent"] = scrapy_headers["user-agent"]
    if not playwright_request.is_navigation_request():
        return headers
    if _origin(playwright_request.url) != _origin(scrapy_request_data["url"]):
        return headers
    headers.update(scrapy_headers)
    return headers
