"""Item pipelines, in ITEM_PIPELINES order:

- 300 ``ConvertPipeline``: runs the core's ``convert()`` (gate, extraction, Markdown,
  validation, packet) and marks failures with their typed reason (``outcome`` "dropped"); the
  spider middleware ``gatecrawl.middlewares.convert.ConvertMiddleware`` calls it for each
  page a callback captured (so that a shell can leave as its browser request), this pipeline
  converts the rest (errback captures);
- 900 ``ExportPipeline``: writes kept pages' Markdown and packets to the store and quarantine
  packets for dropped pages, hands each page to the run ledger (:mod:`gatecrawl.ledger`, which
  writes the run manifest and the crawl report), sends ``gatecrawl.signals.page_stored`` for
  each, then passes a JSON-friendly page record to the feeds (dropped pages only with
  ``GATECRAWL_FEED_DROPPED``).
"""
