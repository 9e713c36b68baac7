"""The run ledger: everything a crawl run writes about itself, through the run's one store.

Owns: the per-page records of a run (:mod:`~gatecrawl.ledger.entries`, built from each page's
evidence packet), the run manifest (:mod:`~gatecrawl.ledger.manifest`), the site's index,
recrawl state, change list and routing model (:mod:`~gatecrawl.ledger.site`), a distributed
crawl's merged manifest, and the crawl report (:mod:`~gatecrawl.ledger.report`).
:class:`~gatecrawl.ledger.ledger.RunLedger` ties them together; the export pipeline
(:mod:`gatecrawl.pipelines.export`) writes the page objects through it. Key layout:
:mod:`gatecrawl.store.keys`. No Scrapy imports.
"""

from gatecrawl.ledger.ledger import LedgerOptions, RunLedger

__all__ = ["LedgerOptions", "RunLedger"]
