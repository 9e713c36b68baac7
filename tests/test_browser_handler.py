"""Page creation that cannot hang (gatecrawl.browser.handler): Playwright's new_page has no
timeout, and Chromium under load was seen never answering it (a crawl waited minutes)."""

from __future__ import annotations

import asyncio

import pytest

from gatecrawl.browser.handler import BoundedContext, GatecrawlPlaywrightHandler, NewPageTimeout


class _Stats(dict):
    def inc_value(self, key, count=1, start=0):
        self[key] = self.get(key, start) + count


class _Context:
    """A fake BrowserContext whose first ``hangs`` new_page calls never answer."""

    def __init__(self, hangs: int) -> None:
        self.hangs = hangs
        self.calls = 0
        self.pages = []

    async def new_page(self):
        self.calls += 1
        if self.calls <= self.hangs:
            await asyncio.Event().wait()  # never set: the browser does not answer
        page = object()
        self.pages.append(page)
        return page


def test_a_hung_new_page_is_abandoned_and_tried_once_more():
    stats = _Stats()
    ctx = _Context(hangs=1)
    bounded = BoundedContext(ctx, timeout=0.05, stats=stats)
    page = asyncio.run(bounded.new_page())
    assert page in ctx.pages and ctx.calls == 2
    assert stats == {"gatecrawl/browser/new_page_timeout": 1}
    assert bounded.pages is ctx.pages  # everything else is the context's own


def test_two_misses_are_a_render_failure_not_a_hang():
    stats = _Stats()
    ctx = _Context(hangs=5)
    with pytest.raises(NewPageTimeout, match="render_failed"):
        asyncio.run(BoundedContext(ctx, timeout=0.05, stats=stats).new_page())
    assert ctx.calls == 2
    assert stats == {"gatecrawl/browser/new_page_timeout": 2, "gatecrawl/browser/new_page_failed": 1}


def test_the_crawl_uses_the_bounded_handler(monkeypatch):
    """The project's handler wraps every context it creates, with the setting's timeout."""
    from types import SimpleNamespace

    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

    from gatecrawl import settings as project

    assert project.DOWNLOAD_HANDLERS["http"] == project.DOWNLOAD_HANDLERS["https"] == "gatecrawl.browser.handler.GatecrawlPlaywrightHandler"
    created = _Context(hangs=0)

    async def fake_create(self, name, context_kwargs, spider=None):
        return SimpleNamespace(context=created)

    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "_create_browser_context", fake_create)
    # (The handler's own __init__ needs a running Twisted reactor: set what it would.)
    handler = GatecrawlPlaywrightHandler.__new__(GatecrawlPlaywrightHandler)
    handler.new_page_timeout, handler.stats = 7.5, _Stats()
    wrapper = asyncio.run(handler._create_browser_context("gatecrawl:x:0", {}))
    assert isinstance(wrapper.context, BoundedContext) and wrapper.context._timeout == 7.5 and wrapper.context._context is created
