"""Browser rendering for shell pages: launch options, the readiness contract, context policy.

- :mod:`gatecrawl.browser.options`: the per-recipe browser options (``[render.browser]``),
  Chromium launch flags and the browser-context arguments, all pinned for reproducible renders.
- :mod:`gatecrawl.browser.readiness`: the readiness contract, evaluated in the page by a probe
  script; returns a JSON-able report (``render_readiness_passed``, ``render_readiness_reason``,
  ``render_elapsed_ms``, the time each condition was met).
- :mod:`gatecrawl.browser.contexts`: one browser context per site, recycled after N pages,
  and a ledger of pages/contexts opened and closed.
- :mod:`gatecrawl.browser.provider`: the scrapy-playwright browser provider: starts Playwright
  only when a page is first rendered, picks a Playwright-managed Chromium when one is installed
  and the system Chromium otherwise.
- :mod:`gatecrawl.browser.policy`: request-header policy for browser requests.

Nothing here imports Scrapy except ``provider`` (a scrapy-playwright plug-in).
"""
