"""Site recipes, one TOML file per site; the file stem is the spider name.

This folder is a package so that Scrapyd eggs carry the files as package data; they are
read with importlib.resources.
"""
