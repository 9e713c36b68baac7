"""Downloader middlewares (thin adapters around the pure core), and the one spider middleware,
``convert.ConvertMiddleware`` (conversion of captured pages, escalation of shells it finds)."""
