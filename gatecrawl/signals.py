"""gatecrawl's own Scrapy signals.

``page_stored``: sent by ``ExportPipeline`` once for every page it stored, kept or dropped,
whether or not the page then goes on to the feeds (dropped pages reach the feeds only with
``GATECRAWL_FEED_DROPPED``). Arguments: ``item`` (the :class:`gatecrawl.items.PageCapture`, with
``markdown``, ``evidence``, ``outcome`` and ``drop_reason`` filled) and ``keys`` (the store keys
written for it). Extensions that need every page (the crawl report) listen to it rather than to
``item_scraped``/``item_dropped``.
"""

page_stored = object()
