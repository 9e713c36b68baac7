"""The evidence packet's JSON Schema (``evidence-packet.schema.json``, JSON Schema 2020-12).

A package only so that the schema ships as package data and is read with
``importlib.resources`` (a zipped Scrapyd egg works); :mod:`gatecrawl.core.evidence` loads it
and validates every packet against it. No code lives here.
"""
