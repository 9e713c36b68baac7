"""gatecrawl: recipe-driven crawling to validated, deterministic Markdown with evidence packets."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "convert"]


def __getattr__(name: str):  # lazy, so `import gatecrawl` stays cheap for Scrapy's settings import
    if name == "convert":
        from gatecrawl.core.convert import convert

        return convert
    raise AttributeError(name)
