"""gatecrawl's own Scrapy signals.

``page_stored``: sent by ``ExportPipeline`` once for every page it stored, kept or dropped,
whether or not the page then goes on to the feeds (dropped pages reach the feeds only with
``GATECRAWL_FEED_DROPPED``). Arguments: ``item`` (the :class:`gatecrawl.items.PageCapture`, with
``markdown``, ``packet``, ``outcome`` and ``drop_reason`` filled) and ``keys`` (the store keys
written for it). Extensions that need every page listen to it rather than to
``item_scraped``/``item_dropped``.

``crawl_joined``: sent by the distributed scheduler when it opens (before the pipelines open),
naming the shared crawl this run is a worker of. Arguments: ``crawl_id`` and ``run_ids`` (a
callable: the run ids the crawl's workers registered). The export pipeline passes them to the
run ledger (the run manifest's ``crawl_id``, the crawl's merged manifest).
"""

page_stored = object()
crawl_joined = object()
