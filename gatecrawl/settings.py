"""Scrapy settings for gatecrawl, with a default and a comment for every GATECRAWL_* setting.

Every setting here is documented in the README's settings table (a test checks it).
"""

BOT_NAME = "gatecrawl"
SPIDER_MODULES = ["gatecrawl.spiders"]
NEWSPIDER_MODULE = "gatecrawl.spiders"
# One spider per recipe file: the loader builds them from recipes/*.toml.
SPIDER_LOADER_CLASS = "gatecrawl.spiderloader.RecipeSpiderLoader"
COMMANDS_MODULE = "gatecrawl.commands"

# --- gatecrawl -------------------------------------------------------------------------
# Where packets, Markdown and run summaries go: file://PATH (default) or s3://bucket/prefix.
GATECRAWL_STORE_URI = "file://./output"
# Extra folders searched for recipe files, after the packaged recipes/ folder.
GATECRAWL_RECIPES_DIRS = []
# Run identifier naming the run summary; default: Scrapyd's SCRAPY_JOB, else a UTC timestamp.
GATECRAWL_RUN_ID = None
# Run the downloader-side gate on plain HTML responses (records needs_render, counts shells).
GATECRAWL_PRESENCE_ENABLED = True
# Print a one-screen summary (seen, kept, dropped by reason, flagged for render) when a crawl ends.
GATECRAWL_SUMMARY_PRINT = True
# Size of the PDF worker-process pool.
GATECRAWL_PDF_WORKERS = 2

ITEM_PIPELINES = {
    "gatecrawl.pipelines.convert.ConvertPipeline": 300,
    "gatecrawl.pipelines.export.ExportPipeline": 900,
}
DOWNLOADER_MIDDLEWARES = {
    # After decompression (590) and redirects (600/580), before retries (550).
    "gatecrawl.middlewares.presence.PresenceMiddleware": 570,
}
EXTENSIONS = {
    "scrapy.extensions.telnet.TelnetConsole": None,
}

# --- Scrapy defaults chosen for this project ---------------------------------------------
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
ROBOTSTXT_OBEY = True
USER_AGENT = "gatecrawl/0.1 (+https://github.com/gatecrawl)"
# Every status reaches the spider so that every URL gets a packet (http_error drops).
HTTPERROR_ALLOW_ALL = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
DOWNLOAD_DELAY = 0
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 32 * 1024 * 1024
DOWNLOAD_WARNSIZE = 8 * 1024 * 1024
RETRY_TIMES = 2
TELNETCONSOLE_ENABLED = False
# Scrapy 2.19's HTTP remote-control extension can run code: off.
REMOTE_CONTROL_ENABLED = False
COOKIES_DEBUG = False
# Local resources are never fetched by a crawler.
DOWNLOAD_HANDLERS = {"file": None, "data": None, "ftp": None, "s3": None}
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
# Item log lines name the URL and the reason; items (bodies, Markdown) are never dumped.
LOG_FORMATTER = "gatecrawl.logformatter.GatecrawlLogFormatter"

# Scrapy's cookie middleware asks tldextract for the public-suffix list; by default it would
# try to download it on first use. Use the snapshot bundled with tldextract: no network.
import gatecrawl.offline  # noqa: E402,F401
