"""Scrapy extensions (thin adapters around the pure core): the progress line, log and stats
redaction, the SIGUSR2 stack dump. The crawl report is written by the run ledger
(:mod:`gatecrawl.ledger`)."""
