"""Packaging for Scrapyd eggs (``scrapyd-deploy``); development uses requirements*.txt.

The egg carries the recipes (``recipes/*.toml``) and the evidence-packet JSON schema as package
data. Both are read with ``importlib.resources``, so the egg works zipped.
"""

from setuptools import find_packages, setup

setup(
    name="gatecrawl",
    version="0.1.0",
    packages=find_packages(include=["gatecrawl", "gatecrawl.*", "recipes"]),
    package_data={
        "recipes": ["*.toml"],
        "gatecrawl.schema": ["*.json"],
    },
    include_package_data=False,
    zip_safe=True,
    entry_points={"scrapy": ["settings = gatecrawl.settings"]},
)
