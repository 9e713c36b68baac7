"""DistributedAddon: ``GATECRAWL_REDIS_URL`` alone switches a crawl to the shared Redis frontier.

Listed in ``ADDONS`` (gatecrawl/settings.py). With ``GATECRAWL_REDIS_URL`` empty it does nothing.
Otherwise it sets, at add-on priority (a ``-s`` on the command line still wins):

- ``SCHEDULER`` = ``gatecrawl.distributed.scheduler.DistributedScheduler`` (a scrapy-redis
  scheduler with :class:`~gatecrawl.distributed.queue.ReliableQueue`);
- ``SCHEDULER_SERIALIZER`` = ``gatecrawl.distributed.serializer`` (JSON, never pickle);
- ``DUPEFILTER_CLASS`` = ``scrapy_redis.dupefilter.RFPDupeFilter`` (fingerprints in Redis);
- ``SCHEDULER_PERSIST = True`` (a closing worker never wipes the shared frontier),
  ``SCHEDULER_FLUSH_ON_START = False``, ``SCHEDULER_IDLE_BEFORE_CLOSE = 0`` (no blocking pop:
  a worker closes when the whole crawl has nothing pending or in processing);
- ``REDIS_URL`` from ``GATECRAWL_REDIS_URL``; Redis socket timeouts 10 s.

A ``fetch`` worker (``GATECRAWL_WORKER_ROLE=fetch``) also gets Scrapy's own HTTP handler for
http/https instead of scrapy-playwright's, so it cannot start Chromium even by mistake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

_HTTP11 = "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler"


class DistributedAddon:
    def update_settings(self, settings: BaseSettings) -> None:
        url = settings.get("GATECRAWL_REDIS_URL")
        if not url:
            return
        role = (settings.get("GATECRAWL_WORKER_ROLE") or "all").strip().lower()
        if role not in ("fetch", "render", "all"):
            raise ValueError(f"GATECRAWL_WORKER_ROLE must be fetch, render or all, got {role!r}")
        for name, value in {
            "SCHEDULER": "gatecrawl.distributed.scheduler.DistributedScheduler",
            "SCHEDULER_QUEUE_CLASS": "gatecrawl.distributed.queue.ReliableQueue",
            "SCHEDULER_SERIALIZER": "gatecrawl.distributed.serializer",
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "SCHEDULER_PERSIST": True,
            "SCHEDULER_FLUSH_ON_START": False,
            "SCHEDULER_IDLE_BEFORE_CLOSE": 0,
            "REDIS_URL": url,
        }.items():
            settings.set(name, value, priority="addon")
        params = dict(settings.getdict("REDIS_PARAMS"))
        params.setdefault("socket_timeout", 10)
        params.setdefault("socket_connect_timeout", 10)
        settings.set("REDIS_PARAMS", params, priority="addon")
        if role == "fetch":
            handlers = settings.getdict("DOWNLOAD_HANDLERS")
            changed = {s: _HTTP11 for s in ("http", "https") if "playwright" in str(handlers.get(s) or "")}
            if changed:
                priority = max(settings.getpriority("DOWNLOAD_HANDLERS") or 0, 20)
                settings.set("DOWNLOAD_HANDLERS", {**handlers, **changed}, priority=priority)
