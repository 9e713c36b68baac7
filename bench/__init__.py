"""Benchmarks for gatecrawl's core (extraction quality/speed, determinism)."""
