"""The pure core of gatecrawl: no Scrapy imports anywhere below this package.

Modules, bottom-up: ``recipes`` (site recipes), ``pagetype`` (routing), ``gate`` (the
four-check quality gate), ``extract`` (main-content selection), ``markdown``
(deterministic HTML to Markdown), ``pdf`` (the PDF reader), ``validate`` (fail-closed
validation), ``redact`` (secrets), ``evidence`` (packets), ``fetch`` (``FetchInfo``: what the
fetch knows about a response), and ``convert``: the one function every entry point calls.
"""
