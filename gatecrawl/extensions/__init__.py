"""Scrapy extensions (thin adapters around the pure core)."""
