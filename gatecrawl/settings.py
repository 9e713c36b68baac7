"""Scrapy settings for gatecrawl, with a default and a comment for every GATECRAWL_* setting.

Every setting here is documented in the README's settings table (a test checks it).
"""

BOT_NAME = "gatecrawl"
SPIDER_MODULES = ["gatecrawl.spiders"]
NEWSPIDER_MODULE = "gatecrawl.spiders"
# One spider per recipe file: the loader builds them from recipes/*.toml.
SPIDER_LOADER_CLASS = "gatecrawl.spiderloader.RecipeSpiderLoader"
COMMANDS_MODULE = "gatecrawl.commands"

# Store, spool, recipe folders, run id and distributed-mode names may come from environment
# variables of the same name (gatecrawl.envsettings.ENV_SETTINGS); -s and spider arguments win.
from gatecrawl.envsettings import env_default as _env  # noqa: E402

# --- gatecrawl -------------------------------------------------------------------------
# Where packets, Markdown and run summaries go: file://PATH (default) or s3://bucket/prefix.
GATECRAWL_STORE_URI = _env("GATECRAWL_STORE_URI", "file://./output")
# S3 export (s3:// store URIs). Credentials, endpoint, region and TLS come from Scrapy's AWS_*
# settings (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_ENDPOINT_URL,
# AWS_REGION_NAME, AWS_USE_SSL, AWS_VERIFY).
# Local spool for objects not yet uploaded; one subfolder per store URI. Relative to the cwd.
GATECRAWL_SPOOL_DIR = _env("GATECRAWL_SPOOL_DIR", ".gatecrawl-spool")
# Upload threads (never the reactor thread).
GATECRAWL_EXPORT_THREADS = 4
# Local folder store: objects written between two fsyncs of the files and their folders (a
# journal, replayed by the next run, covers a process killed in between); 1 = fsync each object.
GATECRAWL_STORE_FSYNC_BATCH = 64
# Seconds the end of a crawl waits for uploads before reporting the rest as pending.
GATECRAWL_EXPORT_FLUSH_TIMEOUT = 300
# botocore attempts per request (retry mode "standard": exponential backoff with jitter).
GATECRAWL_S3_MAX_ATTEMPTS = 5
# Connect and read timeout of each S3 request, in seconds.
GATECRAWL_S3_TIMEOUT = 10
# "path", "virtual" or "auto"; None: "path" when AWS_ENDPOINT_URL is set (MinIO, SeaweedFS), else "auto".
GATECRAWL_S3_ADDRESSING_STYLE = None
# Consecutive failed uploads that pause uploading (credential/bucket errors pause at once)...
GATECRAWL_S3_BREAKER_FAILURES = 3
# ...for this many seconds; objects keep being spooled meanwhile.
GATECRAWL_S3_BREAKER_COOLDOWN = 30
# Redact secrets (credential headers, URL credentials, secret parameters) in log records and stats.
GATECRAWL_REDACTION_ENABLED = True
# Extra folders searched for recipe files, after the packaged recipes/ folder.
GATECRAWL_RECIPES_DIRS = _env("GATECRAWL_RECIPES_DIRS", [])
# Run identifier naming the run summary; default: Scrapyd's SCRAPY_JOB, else a UTC timestamp.
GATECRAWL_RUN_ID = _env("GATECRAWL_RUN_ID", None)
# Feeds (-O pages.jsonl, FEEDS) get one JSON record per kept page; also the dropped pages
# (outcome, drop_reason, drop_detail, quarantine key) when True.
GATECRAWL_FEED_DROPPED = False
# Start each kept page's .md file with YAML front matter (url, title, fetched_at, recipe, packet key,
# markdown_sha256 of the body that follows).
GATECRAWL_MARKDOWN_FRONT_MATTER = False
# Write <site>/index.jsonl at the end of a run: every URL stored for the site with its latest
# outcome, drop reason, title and store keys, one JSON line each, sorted by URL.
GATECRAWL_INDEX_ENABLED = True
# Changed-only recrawls: send the stored validators (If-None-Match, If-Modified-Since) for pages an
# earlier run stored (<site>/recrawl.jsonl); a 304 keeps the stored objects. Each run writes its
# change list to <site>/runs/changes/<run id>.json.
GATECRAWL_RECRAWL_ENABLED = True
# At the end of a single-process run from the recipe's own start URLs, also ask (conditionally) the
# pages an earlier run kept that this run did not reach, so a deleted page is listed as removed.
GATECRAWL_RECRAWL_CHECK_UNREACHED = True
# A complete run removes quarantine packets of URLs it no longer reached (see the README).
GATECRAWL_QUARANTINE_PRUNE = True
# Run the downloader-side gate on plain HTML responses (records needs_render, counts shells).
GATECRAWL_PRESENCE_ENABLED = True
# ... except on a page with this much text outside scripts and no shell markup: conversion takes
# its verdict (0: every page is measured in the downloader).
GATECRAWL_PRESENCE_DEFER_CHARS = 3000
# Print a one-screen summary (seen, kept, dropped by reason, flagged for render) when a crawl ends.
GATECRAWL_SUMMARY_PRINT = True
# Egress policy (both fetch paths): only http(s), only globally routable destinations unless
# allow-listed here: "host:port", "host", or a CIDR (optionally ":port"). Default: nothing
# non-global. Entries in the environment variable GATECRAWL_EGRESS_ALLOW (comma-separated) are
# added to this list by the operator of the machine (the test suite admits 127.0.0.1 this way).
GATECRAWL_EGRESS_ENABLED = True
GATECRAWL_EGRESS_ALLOW = []
# Also admit exactly the host:port of this run's start URLs and sitemaps (recipe or -a start_url).
# For recipes of sites on a private network, such as the demo; off by default.
GATECRAWL_EGRESS_ADMIT_START_URLS = False
# Name resolution used by the egress policy: "module:function" taking (host, port) and
# returning a list of addresses; default: the system resolver (getaddrinfo, A and AAAA).
GATECRAWL_EGRESS_RESOLVER = None
# Seconds after which an unreachable robots.txt (5xx, network failure) is fetched again; until
# then the host is treated as disallowed (RFC 9309).
GATECRAWL_ROBOTS_UNREACHABLE_RETRY = 60.0
# Retry backoff: attempt n waits BASE * 2**(n-1) seconds (at most MAX), or Retry-After if
# longer; a Retry-After above GATECRAWL_RETRY_AFTER_MAX is not waited for (the page is dropped).
GATECRAWL_RETRY_BACKOFF_BASE = 0.5
GATECRAWL_RETRY_BACKOFF_MAX = 30.0
GATECRAWL_RETRY_AFTER_MAX = 30.0
# Per-content-type body caps in bytes (0: none beyond DOWNLOAD_MAXSIZE); HTML applies to
# browser-rendered pages too.
GATECRAWL_MAXSIZE_HTML = 16 * 1024 * 1024
GATECRAWL_MAXSIZE_PDF = 64 * 1024 * 1024
GATECRAWL_MAXSIZE_OTHER = 8 * 1024 * 1024
# Size of the PDF worker-process pool.
GATECRAWL_PDF_WORKERS = 2
# HTML conversion runs off the reactor thread (T33), in worker processes (one per core: every
# core converts) or threads; GATECRAWL_CONVERT_WORKERS workers, 0 = one per core (at most 8).
GATECRAWL_CONVERT_POOL = "process"
GATECRAWL_CONVERT_WORKERS = 0
# A page with more element nodes than this is dropped as too_complex before it is parsed
# (about 4 KB of memory per node to convert; the largest benchmark page has under 16,000).
GATECRAWL_MAX_DOM_NODES = 100_000
# Crawl report (gatecrawl.ledger.report, written by the run ledger): per-run record, JSON summary and HTML report under
# <site>/runs/reports/ at the end of every crawl; compared against the site's previous run.
GATECRAWL_REPORT_ENABLED = True
# Also write the HTML report (<site>/runs/reports/<run id>.html).
GATECRAWL_REPORT_HTML = True
# Runs shown in the report's run-over-run charts (the current one included).
GATECRAWL_REPORT_HISTORY = 20
# Drift alert when the site's escalation rate / drop rate moved by more than this since the
# previous run (absolute, in rate units: 0.02 = 2 percentage points).
GATECRAWL_REPORT_DRIFT_ESCALATION = 0.02
GATECRAWL_REPORT_DRIFT_DROP = 0.02
# Unit costs for "cost per 1,000 clean pages" (illustrative; use your own): one plain fetch,
# one second of browser rendering, one PDF page parsed, and the currency label.
GATECRAWL_COST_FETCH = 0.0001
GATECRAWL_COST_RENDER_SECOND = 0.001
GATECRAWL_COST_PDF_PAGE = 0.0005
GATECRAWL_COST_CURRENCY = "USD"
# Seconds between progress log lines while crawling (0: off).
GATECRAWL_PROGRESS_INTERVAL = 60.0
# Browser escalation: re-fetch shell pages (and force-policy pages) once through Chromium.
GATECRAWL_RENDER_ENABLED = True
# Render routing learned per URL template (<site>/routing.json): pages of a template that always
# needed the browser (GATECRAWL_ROUTING_MIN_OBSERVATIONS kept pages in a row, none plain) go straight
# to it, without a plain fetch, except GATECRAWL_ROUTING_RECHECK_SHARE of them (by URL hash).
GATECRAWL_ROUTING_ENABLED = True
GATECRAWL_ROUTING_RECHECK_SHARE = 0.1
GATECRAWL_ROUTING_MIN_OBSERVATIONS = 5
# Browser renders per URL at most (meta gatecrawl_render_attempts counts them; not retry_times).
GATECRAWL_RENDER_MAX_ATTEMPTS = 1
# The plain capture travels with its render request (meta gatecrawl_plain_capture) up to this many
# bytes, so the pipeline can keep it when the render fails or is worse; 0: never carried.
GATECRAWL_RENDER_FALLBACK_MAX_BYTES = 2 * 1024 * 1024
# Renders per browser context before the site moves to a fresh context (the old one is closed
# when its last page closes). 0: never recycle.
GATECRAWL_BROWSER_CONTEXT_MAX_PAGES = 100

# Distributed mode (scrapy-redis): set GATECRAWL_REDIS_URL (redis://host:port/db) and every
# worker given the same crawl id shares one frontier; None: a normal single-process crawl.
GATECRAWL_REDIS_URL = _env("GATECRAWL_REDIS_URL", None)
# Name of the shared crawl (same on every worker; spider argument crawl_id also works).
GATECRAWL_CRAWL_ID = _env("GATECRAWL_CRAWL_ID", None)
# What this worker takes from the frontier: "fetch" (plain HTTP only, never starts Chromium),
# "render" (only requests with playwright meta), or "all".
GATECRAWL_WORKER_ROLE = "all"
# Prefix of every Redis key: <prefix>:<spider>:<crawl id>:...
GATECRAWL_REDIS_PREFIX = "gatecrawl"
# Seconds a worker may hold a task before other workers take it back.
GATECRAWL_REDIS_VISIBILITY_TIMEOUT = 300.0
# Seconds a worker's heartbeat lives; the tasks of a worker silent for this long are requeued.
GATECRAWL_REDIS_HEARTBEAT = 15.0
# Seconds between two looks at Redis by a worker that found nothing to take (0: Scrapy's 5 s).
GATECRAWL_REDIS_POLL_INTERVAL = 1.0
# Deliveries of one task before it is parked in <prefix>:...:dead instead of fetched again.
GATECRAWL_REDIS_MAX_DELIVERIES = 3

# Converts the pages a callback captured, where a shell found by the gate can be answered with
# its browser request (one way into the browser: a request handed back to Scrapy).
SPIDER_MIDDLEWARES = {
    "gatecrawl.middlewares.convert.ConvertMiddleware": 600,
}
ITEM_PIPELINES = {
    "gatecrawl.pipelines.convert.ConvertPipeline": 300,
    "gatecrawl.pipelines.export.ExportPipeline": 900,
}
DOWNLOADER_MIDDLEWARES = {
    # Before anything else: a spider's request waits while the conversion pool is full.
    "gatecrawl.middlewares.convert.ConvertBackpressureMiddleware": 30,
    # First of all: refuse destinations outside the egress policy and pin vetted addresses.
    "gatecrawl.egress.middleware.EgressMiddleware": 40,
    # Off-site requests (redirect hops included) are refused with a typed reason and a packet.
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,
    "gatecrawl.middlewares.offsite.OffsiteMiddleware": 50,
    # robots.txt per RFC 9309: 5xx or network failure means "disallow" for that host.
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "gatecrawl.middlewares.robots.RobotsTxtMiddleware": 100,
    # After DefaultHeadersMiddleware (400): credentials never follow a redirect to another origin.
    "gatecrawl.middlewares.credentials.CredentialScopeMiddleware": 450,
    # Redirects (and meta refreshes) to a URL already requested, or looping, end with a typed
    # reason and a packet instead of vanishing in the duplicate filter.
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "gatecrawl.middlewares.redirect.RedirectMiddleware": 600,
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "gatecrawl.middlewares.redirect.MetaRefreshMiddleware": 580,
    # Retries with exponential backoff that honour Retry-After.
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "gatecrawl.middlewares.retry.RetryMiddleware": 550,
    # Per-type size caps, after decompression (590), on plain and rendered responses.
    "gatecrawl.middlewares.sizecap.SizeCapMiddleware": 585,
    # After decompression (590) and redirects (600/580), before retries (550).
    "gatecrawl.middlewares.presence.PresenceMiddleware": 570,
    # Conditional requests from the stored validators; marks 304 answers before the gate (570).
    "gatecrawl.middlewares.recrawl.RecrawlMiddleware": 575,
    # After the gate (570): escalates shells to the browser; before retries (550).
    "gatecrawl.middlewares.render.RenderMiddleware": 560,
    # Next to the download handler: dresses render requests, closes every page first thing.
    "gatecrawl.middlewares.render.BrowserPageMiddleware": 950,
}
EXTENSIONS = {
    # Installs the log-record redaction filter before Scrapy logs the overridden settings.
    "gatecrawl.extensions.redaction.RedactionExtension": 0,
    "scrapy.extensions.telnet.TelnetConsole": None,
    "gatecrawl.extensions.progress.ProgressLog": 500,
    # SIGUSR2 logs the engine status, pending asyncio tasks and thread stacks (a stuck crawl).
    "gatecrawl.extensions.stackdump.StackDump": 950,
}

# GATECRAWL_REDIS_URL switches the scheduler to the shared Redis frontier (gatecrawl/distributed/).
ADDONS = {
    "gatecrawl.distributed.addon.DistributedAddon": 0,
    # Scrapy's cookie middleware asks tldextract for the public-suffix list; by default it would
    # try to download it on first use. This add-on makes it use the snapshot bundled with
    # tldextract: no network.
    "gatecrawl.egress.offline.OfflineSuffixListAddon": 0,
}

# --- Scrapy defaults chosen for this project ---------------------------------------------
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# Answers DNS only with addresses the egress policy vetted (pinning; no second lookup).
TWISTED_DNS_RESOLVER = "gatecrawl.egress.resolver.EgressResolver"
ROBOTSTXT_OBEY = True
USER_AGENT = "gatecrawl/0.1 (+https://github.com/gatecrawl)"
# Negotiated Markdown: a site that can answer in Markdown does (Content-Type: text/markdown), and
# its Markdown is used as it is, still gated and validated (reader native_markdown); others answer HTML.
DEFAULT_REQUEST_HEADERS = {
    "Accept": "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, application/pdf;q=0.8, */*;q=0.7",
    "Accept-Language": "en",
}
# Every status reaches the spider so that every URL gets a packet (http_error drops).
HTTPERROR_ALLOW_ALL = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
# Scrapy starts this many worker tasks for the output of every response (default 100); a page
# yields one item and its links, so 16 is plenty, and 84 fewer tasks per response is CPU the
# reactor keeps (cProfile of bench.crawl: 100 task creations per response, ~2 s of 24 s).
CONCURRENT_ITEMS = 16
DOWNLOAD_DELAY = 0
DOWNLOAD_TIMEOUT = 30
# Transport cap (also enforced while decompressing: bombs stop here); per-type caps below.
DOWNLOAD_MAXSIZE = 64 * 1024 * 1024
DOWNLOAD_WARNSIZE = 16 * 1024 * 1024
RETRY_TIMES = 2
TELNETCONSOLE_ENABLED = False
# Scrapy 2.19's HTTP remote-control extension can run code: off.
REMOTE_CONTROL_ENABLED = False
COOKIES_DEBUG = False
# Local resources are never fetched by a crawler. http(s) go through scrapy-playwright's
# handler (gatecrawl's subclass bounds page creation: GATECRAWL_RENDER_NEW_PAGE_TIMEOUT),
# which renders only requests with `playwright` meta and hands every other request to
# Scrapy's own HTTP handler.
DOWNLOAD_HANDLERS = {
    "file": None,
    "data": None,
    "ftp": None,
    "s3": None,
    "http": "gatecrawl.browser.handler.GatecrawlPlaywrightHandler",
    "https": "gatecrawl.browser.handler.GatecrawlPlaywrightHandler",
}

# --- scrapy-playwright (browser renders) ---------------------------------------------------
# Starts Playwright and Chromium on the first render only; Playwright-managed Chromium when
# installed, else the system one (/usr/bin/chromium); pinned closed-network flags.
PLAYWRIGHT_BROWSER_TYPE = "chromium"
# Seconds the browser gets to open a page before the attempt is abandoned (one more try, then
# render_failed); Playwright itself waits forever.
GATECRAWL_RENDER_NEW_PAGE_TIMEOUT = 20.0
PLAYWRIGHT_BROWSER_PROVIDER = "gatecrawl.browser.provider.GatecrawlBrowserProvider"
# Extra launch options; the provider adds gatecrawl's flags and the executable when absent.
PLAYWRIGHT_LAUNCH_OPTIONS = {"headless": True}
# Concurrent browser pages (per context, and in all: BrowserPageMiddleware holds a render before
# its download slot until a page is free). Each page is a Chromium renderer process (bench.crawl,
# 1,000 pages: ~110 MB RSS each, ~25-30 MB of it its own). A render mostly waits (readiness
# windows), so the pages bound the crawl: bench.crawl, 1,000 pages, 39 junk shells rendered,
# 2 pages: 118 s, 4 pages: 95 s; peak RSS of the crawl tree 968 MB vs 1,186 MB.
PLAYWRIGHT_MAX_PAGES_PER_CONTEXT = 4
# Relaunch Chromium after a crash or disconnect (the next render launches it again).
PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER = True
# Scrapy headers go with the page's own same-origin navigation only.
PLAYWRIGHT_PROCESS_REQUEST_HEADERS = "gatecrawl.browser.policy.process_headers"
LOG_LEVEL = "INFO"
# Quiet by default (gatecrawl.logquiet): no versions list; Scrapy's start-up inventory at DEBUG.
LOG_VERSIONS: list[str] = []
FEED_EXPORT_ENCODING = "utf-8"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
# Item log lines name the URL and the reason; items (bodies, Markdown) are never dumped.
LOG_FORMATTER = "gatecrawl.logformatter.GatecrawlLogFormatter"

# Scrapy's start-up inventory, its own progress line and the robots.txt traceback only at DEBUG.
import gatecrawl.logquiet  # noqa: E402

gatecrawl.logquiet.install()
