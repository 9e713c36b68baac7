"""Downloader middlewares (thin adapters around the pure core)."""
