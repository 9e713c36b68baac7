"""The package layout (metadata and the console command are in pyproject.toml).

``pip install .`` builds a wheel from it, and ``scrapyd-deploy`` runs ``python setup.py
bdist_egg`` for Scrapyd. The checkout's top-level ``recipes/`` folder is installed as the package
``gatecrawl.recipes`` (its ``*.toml`` files as package data), so the only top-level package is
``gatecrawl``; the recipes and the evidence-packet schema are read with ``importlib.resources``,
so a zipped egg works.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["gatecrawl", "gatecrawl.*"]) + ["gatecrawl.recipes"],
    package_dir={"gatecrawl.recipes": "recipes"},
    package_data={
        "gatecrawl.recipes": ["*.toml"],
        "gatecrawl.schema": ["*.json"],
    },
    include_package_data=False,
    zip_safe=True,
)
