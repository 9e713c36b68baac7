"""RecipeSpider: the one spider class; each recipe file becomes a subclass of it.

Spider arguments (``-a``, and Scrapyd's ``schedule.json`` parameters) override the recipe
for one run:

- ``start_url``: one URL, or several separated by whitespace (``-a start_url=URL`` may also
  be repeated with ``scrapy crawl``); replaces the recipe's start URLs and sitemaps.
- ``max_pages``: a positive integer.
- ``render``: ``auto``, ``force`` or ``skip``.
- ``run_id``: names the run (default: Scrapyd's job id, else a UTC timestamp).

Bad values fail at start with a message naming the argument.
"""

from __future__ import annotations

import base64
import logging
import os
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator
from urllib.parse import urljoin, urlsplit

import scrapy
import scrapy.exceptions
import scrapy.signals
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.link import Link
from scrapy.linkextractors import IGNORED_EXTENSIONS, LinkExtractor
from scrapy.utils.response import get_base_url
from w3lib.html import strip_html5_whitespace
from w3lib.url import canonicalize_url, safe_url_string

from gatecrawl.core.convert import DEFAULT_MAX_DOM_NODES, over_node_cap
from gatecrawl.core.fetch import FetchInfo
from gatecrawl.core.reasons import Reason, RenderReason
from gatecrawl.core.recipes import Recipe
from gatecrawl.engineport import EnginePort
from gatecrawl.exceptions import classify_failure
from gatecrawl.items import PageCapture, first_headers
from gatecrawl.middlewares.presence import forget_doc, response_doc
from gatecrawl.spiders.args import parse_spider_args, split_userinfo
from gatecrawl.store.recrawl import lastmod_not_after
from gatecrawl.meta import EGRESS, ESCALATED_FROM, ESCALATION_REASON, NOT_MODIFIED, PLAIN_CAPTURE, PRESENCE, RENDER, RENDER_ATTEMPTS, SITEMAP, START_TIME, URL_REQUESTED, VIEWER_URL

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

_PDF_HINT = (b".pdf", b"application/pdf", b"file=")


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class RecipeSpider(scrapy.Spider):
    """Crawls one site as its recipe says; yields one :class:`PageCapture` per fetched URL."""

    recipe: Recipe  # set on each generated subclass

    custom_settings: dict[str, Any] = {}

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        recipe = getattr(cls, "recipe", None)
        if recipe is not None and recipe.settings:
            settings.setdict(dict(recipe.settings), priority="spider")

    def __init__(self, *args: Any, start_url: Any = None, max_pages: Any = None, render: Any = None, run_id: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recipe = parse_spider_args(type(self).recipe, start_url, max_pages, render)
        # True when the crawl starts where the recipe says (no ``-a start_url``): only such a run
        # can tell that a URL left the site's crawl (quarantine pruning, see ExportPipeline).
        self.covers_recipe = self.recipe.start_urls == type(self).recipe.start_urls and self.recipe.sitemaps == type(self).recipe.sitemaps
        self.allowed_domains = list(self.recipe.allowed_domains)
        self._run_id_arg = run_id
        self._unreached_checked = False
        #: True once a URL was refused because max_pages was reached (the run saw part of the site)
        self.max_pages_reached = False
        self._seen: set[str] = set()
        self._link_extractor = LinkExtractor(
            allow=self.recipe.follow_allow,
            deny=self.recipe.follow_deny,
            deny_extensions=[e for e in IGNORED_EXTENSIONS if e != "pdf"],
            unique=True,
        )

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "RecipeSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider._check_unreached, signal=scrapy.signals.spider_idle)
        return spider

    def _check_unreached(self) -> None:
        """Changed-only recrawls: once the crawl has nothing left, the pages an earlier run kept
        that this run did not reach (no longer linked) are asked too (conditionally), so that a
        page deleted from the site shows in the change list as ``removed`` rather than staying in
        the store unchecked. Only for runs from the recipe's own start URLs, single-process."""
        if self._unreached_checked:
            return
        self._unreached_checked = True
        settings = self.crawler.settings
        if not self.covers_recipe or settings.get("GATECRAWL_REDIS_URL") or not settings.getbool("GATECRAWL_RECRAWL_CHECK_UNREACHED", True):
            return
        previous = getattr(self.crawler, "_gatecrawl_previous", None)
        if previous is None or not previous.kept or not settings.getbool("GATECRAWL_RECRAWL_ENABLED", True):
            return
        port = EnginePort(self.crawler)
        scheduled = 0
        for final, requested, depth in previous.kept_pages():
            url = requested or final
            if self.was_admitted(url) or self.was_admitted(final):
                continue
            if not self._allowed_follow(url) or not self._admit(url):
                continue
            request = self._request(url, depth=int(depth or 0))
            if isinstance(request, scrapy.Request):
                port.schedule(request)
                scheduled += 1
        if scheduled:
            self.crawler.stats.inc_value("gatecrawl/recrawl/unreached_checked", scheduled)
            raise scrapy.exceptions.DontCloseSpider

    @property
    def run_id(self) -> str:
        if not hasattr(self, "_run_id"):
            settings_id = self.crawler.settings.get("GATECRAWL_RUN_ID") if hasattr(self, "crawler") else None
            self._run_id = (
                self._run_id_arg
                or settings_id
                # Scrapyd >= 1.5 passes the job id as the spider argument _job; older
                # versions set SCRAPY_JOB in the environment.
                or getattr(self, "_job", None)
                or os.environ.get("SCRAPY_JOB")
                or datetime.now(timezone.utc).strftime("run-%Y%m%dT%H%M%S%fZ")
            )
        return self._run_id

    # -- scheduling ---------------------------------------------------------------------

    def was_admitted(self, url: str) -> bool:
        """True when ``url`` was already requested in this run (start URLs and followed links)."""
        try:
            return canonicalize_url(split_userinfo(url)[0]) in self._seen
        except ValueError:
            return False

    def _admit(self, url: str) -> bool:
        """Count a URL against max_pages once; False when it was seen or the cap is reached."""
        key = canonicalize_url(split_userinfo(url)[0])
        if key in self._seen or key in (getattr(self.crawler, "_gatecrawl_redirect_targets", None) or ()):
            return False
        if len(self._seen) >= self.recipe.max_pages:
            self.max_pages_reached = True
            self.crawler.stats.inc_value("gatecrawl/follow/max_pages_reached")
            return False
        self._seen.add(key)
        return True

    def _request(self, url: str, depth: int = 0, *, credentials: bool = False, **meta: Any) -> scrapy.Request | PageCapture:
        limit = self.crawler.settings.getint("URLLENGTH_LIMIT", 2083) if getattr(self, "crawler", None) else 2083
        if limit and len(url) > limit:
            # Scrapy's UrlLengthMiddleware would drop the request without a trace: one packet
            # per URL requested, so it ends here with a typed reason (nothing is fetched).
            self.crawler.stats.inc_value("gatecrawl/pages/seen")
            self.crawler.stats.inc_value("gatecrawl/fetch/failed/url_too_long")
            return PageCapture(
                url_final=url,
                fetch=FetchInfo(
                    url_requested=url,
                    http_status=None,
                    reader="http",
                    fetched_at=_utc_now(),
                    depth=depth,
                    run_id=self.run_id,
                    error=f"URL of {len(url)} characters, over URLLENGTH_LIMIT ({limit})",
                    error_reason=Reason.URL_TOO_LONG,
                ),
            )
        return self._build_request(url, depth, credentials=credentials, **meta)

    def _build_request(self, url: str, depth: int = 0, *, credentials: bool = False, **meta: Any) -> scrapy.Request:
        # A URL never travels with its userinfo (it would reach logs, robots.txt and the egress
        # check as part of the host). The operator's start URLs send theirs as an
        # Authorization: Basic header (dropped by CredentialScopeMiddleware on any cross-origin
        # hop); userinfo in a link found on a page is dropped.
        url, userinfo = split_userinfo(url)
        headers = {}
        if credentials and userinfo is not None:
            headers["Authorization"] = "Basic " + base64.b64encode(userinfo.encode("utf-8")).decode("ascii")
        request = scrapy.Request(
            url,
            callback=self.parse,
            errback=self.errback,
            headers=headers or None,
            meta={START_TIME: time.monotonic(), "depth": depth, **meta},
        )
        return self._routed(request)

    def _routed(self, request: scrapy.Request) -> scrapy.Request:
        """Straight to the browser when the URL's template always needed it (learned render
        routing, :mod:`gatecrawl.core.routing`), except the re-check share; a page with stored
        validators keeps its conditional plain fetch (a 304 spares the render too)."""
        model = getattr(self.crawler, "_gatecrawl_routing", None)
        if model is None or not model.render_only(request.url) or request.meta.get(VIEWER_URL):
            return request
        if self.recipe.render_policy_for(request.url)[0] != "auto":
            return request
        prev = self._previous(request.url)
        if prev is not None and (prev.get("etag") or prev.get("last_modified")):
            return request
        stats = self.crawler.stats
        if model.recheck(request.url):
            stats.inc_value("gatecrawl/routing/rechecked")
            return request
        from gatecrawl.middlewares.render import render_request

        stats.inc_value("gatecrawl/routing/routed")
        stats.inc_value("gatecrawl/render/requested")
        stats.inc_value("gatecrawl/render/requested/routed")
        routed = render_request(request, request.url, RenderReason.ROUTED, None)
        routed.meta[ESCALATED_FROM] = "routing"
        return routed

    async def start(self) -> AsyncIterator[Any]:
        _ = self.run_id  # fix the run id at start
        if not self.recipe.start_urls and not self.recipe.sitemaps:
            raise ValueError(f"{self.recipe.source}: no start_urls or sitemaps (pass -a start_url=URL)")
        for url in self.recipe.start_urls:
            if self._admit(url):
                yield self._request(url, credentials=True)
        for url in self.recipe.sitemaps:
            yield scrapy.Request(url, callback=self.parse_sitemap, errback=self.errback, meta={SITEMAP: True}, dont_filter=True)

    def parse_sitemap(self, response: Response) -> Any:
        from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

        body = response.body
        if response.url.endswith("/robots.txt"):
            for u in sitemap_urls_from_robots(response.text, base_url=response.url):
                yield scrapy.Request(u, callback=self.parse_sitemap, errback=self.errback, meta={SITEMAP: True})
            return
        try:
            sm = Sitemap(body)
        except Exception:
            self.crawler.stats.inc_value("gatecrawl/sitemap/invalid")
            return
        skipped = []
        for entry in sm:
            loc = entry.get("loc")
            if not loc:
                continue
            if sm.type == "sitemapindex":
                yield scrapy.Request(loc, callback=self.parse_sitemap, errback=self.errback, meta={SITEMAP: True})
            elif self._allowed_follow(loc) and self._admit(loc):
                prev = self._previous(loc) if self.recipe.sitemap_lastmod else None
                if prev is not None and lastmod_not_after(entry.get("lastmod"), prev):
                    # Not modified since the stored copy was fetched: not fetched again.
                    self.crawler.stats.inc_value("gatecrawl/pages/seen")
                    self.crawler.stats.inc_value("gatecrawl/recrawl/skipped_lastmod")
                    yield self._unchanged(loc, loc, prev, "sitemap_lastmod", depth=0)
                    skipped.append(prev)
                else:
                    yield self._request(loc, depth=0)
        # The skipped pages' stored links, once the whole sitemap is admitted (a link the
        # sitemap lists is judged by its own lastmod, not fetched because its parent was skipped).
        for prev in skipped:
            yield from self._replay_links(prev, 0)

    def _allowed_follow(self, url: str) -> bool:
        return self._host_allowed(url) and bool(self._link_extractor.matches(url))

    def _host_allowed(self, url: str) -> bool:
        """Host equals an allowed domain or is a subdomain of one (ports ignored, as OffsiteMiddleware does)."""
        return self._host_matches((urlsplit(url).hostname or "").lower())

    def _host_matches(self, host: str) -> bool:
        """``_host_allowed`` for a host name already lowercased."""
        return any(host == d or host.endswith("." + d) for d in self.allowed_domains)

    # -- callbacks ----------------------------------------------------------------------

    def _capture(self, response: Response) -> PageCapture:
        meta = response.meta
        started = meta.get(START_TIME)
        latency = int((time.monotonic() - started) * 1000) if started else None
        if meta.get("download_latency") is not None:
            self.crawler.stats.inc_value("gatecrawl/stage_ms/fetch", int(meta["download_latency"] * 1000))
        headers = first_headers(response.headers)
        rendered = "playwright" in (response.flags or [])
        # a browser that could not finish a navigation shows its own error page
        # (chrome-error://chromewebdata/): the page's URL stays the one requested
        url_final = response.url
        if urlsplit(url_final).scheme not in ("http", "https") and response.request is not None:
            url_final = response.request.url
        return PageCapture(
            url_final=url_final,
            fetch=FetchInfo(
                url_requested=meta.get(URL_REQUESTED) or (meta.get("redirect_urls") or [response.url])[0],
                http_status=response.status,
                headers=headers,
                reader="render" if rendered else "http",
                latency_ms=latency,
                fetched_at=_utc_now(),
                depth=meta.get("depth", 0),
                run_id=self.run_id,
                fetch_presence=meta.get(PRESENCE),
                escalated_from=meta.get(ESCALATED_FROM),
                escalation_reason=meta.get(ESCALATION_REASON),
                render=meta.get(RENDER),
                viewer_url=meta.get(VIEWER_URL),
            ),
            content_type=headers.get("content-type"),
            body=response.body,
            plain=meta.get(PLAIN_CAPTURE) if rendered else None,
            render_attempts=int(meta.get(RENDER_ATTEMPTS, 0) or 0),
        )

    # -- changed-only recrawls (gatecrawl.store.recrawl) ---------------------------------

    def _previous(self, url: str) -> dict[str, Any] | None:
        """The page's line in ``<site>/recrawl.jsonl`` as the run started (None: not stored)."""
        previous = getattr(self.crawler, "_gatecrawl_previous", None)
        if previous is None or not len(previous) or not self.crawler.settings.getbool("GATECRAWL_RECRAWL_ENABLED", True):
            return None
        return previous.get(url)

    def _unchanged(self, url_requested: str, url_final: str, prev: dict[str, Any], why: str, *, depth: int, latency_ms: int | None = None) -> PageCapture:
        """The capture of a page whose stored copy stands (a 304, or a sitemap lastmod skip)."""
        return PageCapture(
            url_final=prev.get("url") or url_final,
            fetch=FetchInfo(
                url_requested=url_requested,
                http_status=304 if why == "304" else None,
                reader="http",
                latency_ms=latency_ms,
                fetched_at=_utc_now(),
                depth=depth,
                run_id=self.run_id,
            ),
            not_modified=why,
            previous=prev,
        )

    def _replay_links(self, prev: dict[str, Any], depth: int) -> Any:
        """Request again the links a page held when it was stored (it was not fetched now, and
        its children must still be checked)."""
        if not self.recipe.follow_enabled or depth >= self.recipe.max_depth:
            return
        for url in prev.get("links") or ():
            if isinstance(url, str) and self._allowed_follow(url) and self._admit(url):
                yield self._request(url, depth=depth + 1)

    def parse(self, response: Response) -> Any:
        self.crawler.stats.inc_value("gatecrawl/pages/seen")
        depth = response.meta.get("depth", 0)
        if response.meta.get(NOT_MODIFIED):
            prev = self._previous(response.url)
            if prev is not None:
                capture = self._capture(response)
                yield self._unchanged(capture.fetch.url_requested or response.url, response.url, prev, "304", depth=depth, latency_ms=capture.fetch.latency_ms)
                yield from self._replay_links(prev, depth)
                return
        capture = self._capture(response)
        if not isinstance(response, TextResponse):
            yield capture
            return
        t0 = time.perf_counter()
        try:
            # Before the capture goes to the pipelines: it carries its links (kept for recrawls).
            requests = list(self._follow(response, capture, depth))
        finally:
            forget_doc(response)  # the tree is not kept while the page is converted
            self.crawler.stats.inc_value("gatecrawl/stage_ms/links", int((time.perf_counter() - t0) * 1000))
        yield capture
        yield from requests

    def _follow(self, response: TextResponse, capture: PageCapture, depth: int) -> Any:
        """Requests for the links (and the viewer PDF) of a response, as the recipe says; the
        followable links are recorded on ``capture``."""
        cap = self.crawler.settings.getint("GATECRAWL_MAX_DOM_NODES", DEFAULT_MAX_DOM_NODES)
        if over_node_cap(response.body, cap):
            return  # too_complex: not parsed on the reactor thread for links either
        doc = response_doc(response) if isinstance(response, HtmlResponse) else None
        if doc is None:
            return
        yield from self._viewer_pdf(response, depth, doc)
        if not self.recipe.follow_enabled or depth >= self.recipe.max_depth or response.status >= 400:
            return
        links = list(dict.fromkeys(self._links(response, doc)))  # once each (the stored state too)
        capture.links = links
        for url in links:
            if self._admit(url):
                yield self._request(url, depth=depth + 1)

    def _links(self, response: HtmlResponse, doc: Any) -> Iterator[str]:
        """The followable links of a page in one pass over its tree, in document order: what
        the recipe's LinkExtractor would return (same joining, encoding and rules), keeping
        only the allowed hosts. The host is checked first, on the joined URL: most links of
        an article lead off the site, and they skip the encoding and rule checks."""
        base_url = get_base_url(response)
        encoding = response.encoding
        extractor = self._link_extractor
        for el in doc.iter("a", "area"):
            href = el.get("href")
            if href is None:
                continue
            href = strip_html5_whitespace(href)
            if href[:8].lower().startswith(("http://", "https://")):
                # An absolute http(s) link keeps its host through urljoin: an off-site one is
                # skipped without joining (most links of an article; urljoin was a third of the
                # links stage). A kept one takes the path below, unchanged.
                try:
                    host = urlsplit(href).hostname or ""
                except ValueError:
                    continue  # (urljoin would raise the same)
                if host.isascii() and not self._host_matches(host):
                    continue
            try:
                url = urljoin(base_url, href)
                host = urlsplit(url).hostname or ""
            except ValueError:
                continue
            if host.isascii() and not self._host_allowed(url):
                continue  # (a non-ASCII host is judged after IDNA encoding, below)
            try:
                url = urljoin(response.url, safe_url_string(url, encoding=encoding))
            except ValueError:
                continue
            if self._host_allowed(url) and extractor._link_allowed(Link(url)):
                yield url

    def _viewer_pdf(self, response: HtmlResponse, depth: int, doc: Any) -> Any:
        """A page that shows a PDF in a viewer: fetch the PDF itself, remembering the viewer page."""
        body = response.body
        if not any(h in body for h in _PDF_HINT):
            return
        try:
            from gatecrawl.core.pdf import find_pdf_viewer_source
        except ImportError:
            return
        src = find_pdf_viewer_source(doc, response.url)
        if src and self._admit(src):
            self.crawler.stats.inc_value("gatecrawl/follow/pdf_viewer")
            yield self._request(src, depth=depth + 1, gatecrawl_viewer_url=response.url)

    def errback(self, failure: Failure) -> Any:
        request = failure.request  # type: ignore[attr-defined]
        if request.meta.get(SITEMAP):
            self.crawler.stats.inc_value("gatecrawl/sitemap/failed")
            return
        self.crawler.stats.inc_value("gatecrawl/pages/seen")
        self.crawler.stats.inc_value("gatecrawl/fetch/failed")
        exc = failure.value
        reason, detail = classify_failure(exc)
        if reason == Reason.FETCH_FAILED and request.meta.get("playwright"):
            reason = Reason.RENDER_FAILED
        self.crawler.stats.inc_value(f"gatecrawl/fetch/failed/{reason}")
        yield PageCapture(
            url_final=request.url,
            fetch=FetchInfo(
                url_requested=request.meta.get(URL_REQUESTED) or (request.meta.get("redirect_urls") or [request.url])[0],
                http_status=None,
                reader="render" if request.meta.get("playwright") else "http",
                fetched_at=_utc_now(),
                depth=request.meta.get("depth", 0),
                run_id=self.run_id,
                error=detail,
                error_reason=reason,
                egress=request.meta.get(EGRESS) if reason in (Reason.EGRESS_BLOCKED, Reason.SCHEME_BLOCKED) else None,
                fetch_presence=request.meta.get(PRESENCE),
                escalated_from=request.meta.get(ESCALATED_FROM),
                escalation_reason=request.meta.get(ESCALATION_REASON),
                render=request.meta.get(RENDER),
            ),
            plain=request.meta.get(PLAIN_CAPTURE) if request.meta.get("playwright") else None,
            render_attempts=int(request.meta.get(RENDER_ATTEMPTS, 0) or 0),
        )
