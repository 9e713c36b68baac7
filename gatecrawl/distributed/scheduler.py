"""DistributedScheduler: scrapy-redis' scheduler with a reliable queue and worker roles.

N workers that share ``GATECRAWL_REDIS_URL`` and a crawl id share one frontier: the
scrapy-redis dupefilter lets each URL in once, and :class:`ReliableQueue` hands each task to one
worker at a time and takes it back if that worker dies.

Acknowledgement. A task is acknowledged when Scrapy has finished with its response: the
callback (or errback) ran, every item went through the pipelines (so the packet is in the
store) and every request it yielded is in Redis. A downloader middleware that answers with a
new request (redirect, retry, browser escalation) hands the task over: the new task is pushed
and the old one acknowledged in one transaction.

Closing. A worker stays open while anything is pending anywhere in the crawl (fetch queue,
render queue, or tasks being processed by any worker, whose output may add URLs), and closes
when all three are empty. It does not block on Redis (``SCHEDULER_IDLE_BEFORE_CLOSE = 0``).

Runs. At open, a worker adds its run id to ``P:runs`` and announces the crawl (signal
``gatecrawl.signals.crawl_joined``: crawl id and run ids); at close the run ledger (which closes
before the scheduler) reads them (:meth:`DistributedScheduler.crawl_run_ids`) to merge the crawl's
run manifests into ``<site>/crawls/<crawl id>.json``.

Settings: ``GATECRAWL_REDIS_URL``, ``GATECRAWL_CRAWL_ID`` (or spider argument ``crawl_id``),
``GATECRAWL_WORKER_ROLE``, ``GATECRAWL_REDIS_PREFIX``, ``GATECRAWL_REDIS_VISIBILITY_TIMEOUT``,
``GATECRAWL_REDIS_HEARTBEAT``, ``GATECRAWL_REDIS_POLL_INTERVAL``, ``GATECRAWL_REDIS_MAX_DELIVERIES``.
Meta: ``gatecrawl_task_id`` (written at dequeue, read at enqueue and when the response is done).
Stats: ``gatecrawl/distributed/enqueued/<queue>``, ``gatecrawl/distributed/dequeued/<queue>``,
``gatecrawl/distributed/acked``, ``gatecrawl/distributed/handed_over``,
``gatecrawl/distributed/duplicate``, ``gatecrawl/distributed/max_pages_reached``,
``gatecrawl/distributed/recovered``, ``gatecrawl/distributed/rejected``,
``gatecrawl/distributed/dead_lettered``, ``gatecrawl/distributed/unserializable``,
``gatecrawl/distributed/heartbeat_late``.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.asyncio import create_looping_call
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from gatecrawl.distributed.queue import TASK_META, ReliableQueue
from gatecrawl.engineport import EnginePort
from gatecrawl.signals import crawl_joined
from gatecrawl.meta import SITEMAP

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

ROLES = {"fetch": ("fetch",), "render": ("render",), "all": ("render", "fetch")}
# Seconds between two warnings that render tasks wait with no render worker alive.
_MISSING_RENDER_EVERY = 30.0
_CRAWL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class DistributedScheduler(Scheduler):
    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DistributedScheduler:
        instance = super().from_crawler(crawler)
        instance.crawler = crawler
        instance.port = EnginePort(crawler)
        s = crawler.settings
        instance.role = (s.get("GATECRAWL_WORKER_ROLE") or "all").strip().lower()
        if instance.role not in ROLES:
            raise ValueError(f"GATECRAWL_WORKER_ROLE must be one of {', '.join(ROLES)}, got {instance.role!r}")
        instance.prefix = s.get("GATECRAWL_REDIS_PREFIX") or "gatecrawl"
        instance.visibility_timeout = s.getfloat("GATECRAWL_REDIS_VISIBILITY_TIMEOUT")
        instance.heartbeat = s.getfloat("GATECRAWL_REDIS_HEARTBEAT")
        instance.max_deliveries = s.getint("GATECRAWL_REDIS_MAX_DELIVERIES")
        if instance.visibility_timeout <= 0 or instance.heartbeat <= 0 or instance.max_deliveries < 1:
            raise ValueError(
                "GATECRAWL_REDIS_VISIBILITY_TIMEOUT and GATECRAWL_REDIS_HEARTBEAT must be > 0 and "
                "GATECRAWL_REDIS_MAX_DELIVERIES >= 1"
            )
        instance.worker_id = f"{socket.gethostname()}-{os.getpid()}-{os.urandom(3).hex()}"
        instance._mine: dict[str, str] = {}
        instance._scraping: set[str] = set()
        instance._beat_call = None
        instance._hooked = False
        instance._starved = False
        instance._render_warned_at = -_MISSING_RENDER_EVERY
        instance.poll_interval = s.getfloat("GATECRAWL_REDIS_POLL_INTERVAL")
        instance._poll_call = None
        crawler.signals.connect(instance._response_received, signal=signals.response_received)
        crawler.signals.connect(instance._spider_opened, signal=signals.spider_opened)
        return instance

    # -- lifecycle ----------------------------------------------------------------------

    def _crawl_id(self, spider: Spider) -> str:
        crawl_id = getattr(spider, "crawl_id", None) or self.crawler.settings.get("GATECRAWL_CRAWL_ID")
        if not crawl_id:
            raise ValueError(
                "GATECRAWL_REDIS_URL is set: name the shared crawl with -a crawl_id=NAME "
                "(or -s GATECRAWL_CRAWL_ID=NAME), the same on every worker"
            )
        crawl_id = str(crawl_id)
        if not _CRAWL_ID.match(crawl_id):
            raise ValueError(f"crawl_id must match {_CRAWL_ID.pattern}, got {crawl_id!r}")
        return crawl_id

    def open(self, spider: Spider) -> None:
        self.spider = spider
        self.crawl_id = self._crawl_id(spider)
        key = f"{self.prefix}:{spider.name}:{self.crawl_id}"
        self.queue = ReliableQueue(server=self.server, spider=spider, key=key, serializer=self.serializer)
        self.queue.configure(
            worker_id=self.worker_id,
            pop_from=ROLES[self.role],
            visibility_timeout=self.visibility_timeout,
            max_deliveries=self.max_deliveries,
        )
        self.df = RFPDupeFilter(self.server, key=f"{key}:dupefilter", debug=self.crawler.settings.getbool("DUPEFILTER_DEBUG"))
        self._beat()
        self.server.sadd(f"{key}:runs", getattr(spider, "run_id", "") or "")
        self._beat_call = create_looping_call(self._beat)
        self._beat_call.start(max(self.heartbeat / 3.0, 0.2), now=False)
        if self.poll_interval > 0:
            self._poll_call = create_looping_call(self._poll)
            self._poll_call.start(self.poll_interval, now=False)
        self.crawler.signals.send_catch_log(signal=crawl_joined, crawl_id=self.crawl_id, run_ids=self.crawl_run_ids)
        fetch, render, processing = self.queue.outstanding()
        logger.info(
            "distributed crawl %s: worker %s, role %s; pending fetch %d, render %d, in processing %d",
            key, self.worker_id, self.role, fetch, render, processing, extra={"spider": spider},
        )

    def crawl_run_ids(self) -> list[str]:
        """The run ids every worker of this crawl registered (Redis set ``P:runs``), sorted. The
        export pipeline merges their run manifests into ``<site>/crawls/<crawl id>.json``."""
        members = self.server.smembers(self.queue.k("runs"))
        return sorted({m.decode("utf-8", "replace") if isinstance(m, bytes) else str(m) for m in members} - {""})

    def close(self, reason: str) -> None:
        for call in (self._beat_call, self._poll_call):
            if call is not None and call.running:
                call.stop()
        # Tasks still held (an unclean stop) become visible to the other workers at once.
        self.queue.stop_beating()
        if self._mine:
            logger.warning("closing with %d unacknowledged tasks; other workers will take them", len(self._mine))
        # The frontier persists (SCHEDULER_PERSIST): nothing is flushed here.

    def _beat(self) -> None:
        now = time.monotonic()
        last, self._last_beat = getattr(self, "_last_beat", None), now
        if last is not None and now - last > self.heartbeat:
            # The event loop was blocked longer than the heartbeat: other workers may have
            # taken this worker's tasks back (they are then fetched twice, never lost).
            self._inc("heartbeat_late")
            logger.warning("heartbeat %.1f s late (GATECRAWL_REDIS_HEARTBEAT is %.1f s)", now - last - self.heartbeat / 3.0, self.heartbeat)
        try:
            self.queue.beat(int(self.heartbeat * 1000))
        except Exception as exc:  # a Redis hiccup must not kill the loop
            logger.warning("heartbeat failed: %s", exc)

    def _poll(self) -> None:
        """Wake the engine when this worker found nothing to pop last time: Scrapy itself only
        retries every 5 s, which lets an idle worker miss work other workers just queued.
        (Uses the engine's private ``_slot.nextcall``; without it the 5 s retry still works.)"""
        if not self._starved:
            return
        self.port.wake()

    def _spider_opened(self, spider: Spider) -> None:
        self._hook_scraper()

    def _hook_scraper(self) -> None:
        """Acknowledge a task when the scraper has finished with its response (items exported,
        yielded requests queued). Scrapy has no signal for that moment, so this wraps the
        scraper slot's ``finish_response``; a Scrapy without it is refused, loudly."""
        if self._hooked:
            return
        slot = self.port.scraper_slot()
        original = getattr(slot, "finish_response", None)
        if original is None:
            raise RuntimeError("gatecrawl.distributed: this Scrapy has no Scraper.slot.finish_response to acknowledge tasks")

        def finish_response(result: Any, request: Request) -> None:
            try:
                return original(result, request)
            finally:
                self._done(request)

        slot.finish_response = finish_response
        self._hooked = True

    # -- acknowledgement ----------------------------------------------------------------

    def _response_received(self, response: Any, request: Request, spider: Spider) -> None:
        task = request.meta.get(TASK_META)
        if task in self._mine:
            self._scraping.add(task)

    def _done(self, request: Request) -> None:
        task = request.meta.get(TASK_META)
        if task is None or task not in self._mine:
            return
        self._scraping.discard(task)
        del self._mine[task]
        self.queue.ack(task)
        self._inc("acked")

    def _inc(self, name: str) -> None:
        if self.stats is not None:
            self.stats.inc_value(f"gatecrawl/distributed/{name}")

    # -- scheduling ---------------------------------------------------------------------

    def enqueue_request(self, request: Request) -> bool:
        old = request.meta.get(TASK_META)
        # A request carrying a task id that is held here and not being scraped replaces that
        # task (redirect, retry, browser escalation): the task is handed over.
        handover = old if old in self._mine and old not in self._scraping else None
        if handover:
            del self._mine[handover]
            self._inc("handed_over")
        fingerprint = ""
        cap = 0
        if not request.dont_filter:
            fingerprint = self.df.request_fingerprint(request)
            if not request.meta.get(SITEMAP):
                cap = getattr(getattr(self.spider, "recipe", None), "max_pages", None) or 0
        try:
            result, queue = self.queue.push(request, supersedes=handover, fingerprint=fingerprint, cap=cap)
        except (TypeError, ValueError) as exc:
            self._inc("unserializable")
            logger.error("cannot queue %s in Redis: %s", request, exc, extra={"spider": self.spider})
            return self._refuse(handover)
        if result == 0:
            self.df.log(request, self.spider)
            self._inc("duplicate")
            return False
        if result == 2:
            self._inc("max_pages_reached")
            return False
        self._inc(f"enqueued/{queue}")
        if self.stats is not None:
            self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def _refuse(self, handover: str | None) -> bool:
        if handover:
            self.queue.ack(handover)
        return False

    def next_request(self) -> Request | None:
        if not self._hooked:
            self._hook_scraper()
        popped = self._pop()
        if popped is None and self._recover():
            popped = self._pop()
        if popped is None:
            self._starved = True
            return None
        self._starved = False
        request, task, queue = popped
        self._mine[task] = queue
        self._inc(f"dequeued/{queue}")
        if self.stats is not None:
            self.stats.inc_value("scheduler/dequeued/redis")
        return request

    def _pop(self) -> tuple[Request, str, str] | None:
        return self.queue.pop_task(on_reject=lambda *_: self._inc("rejected"), on_dead=lambda *_: self._inc("dead_lettered"))

    def has_pending_requests(self) -> bool:
        fetch, render, processing = self.queue.outstanding()
        if fetch + render + processing == 0:
            return False
        if render and not fetch and "render" not in ROLES[self.role]:
            self._missing_render_worker(render)
        if processing and not (fetch + render):
            # Only in-flight work remains: take back tasks of dead workers, if any.
            self._recover()
        return True

    def _missing_render_worker(self, render: int) -> None:
        """A worker that cannot render, with only render tasks left: say so (every 30 s at most)
        when no render worker is alive, rather than wait in silence."""
        now = time.monotonic()
        if now - self._render_warned_at < _MISSING_RENDER_EVERY:
            return
        self._render_warned_at = now
        try:
            alive = self.queue.live_takers("render")
        except Exception as exc:  # noqa: BLE001 - a Redis hiccup: the next look tells
            logger.debug("could not count render workers: %s", exc)
            return
        if alive == 0:
            self._inc("no_render_worker")
            logger.warning(
                "%d render tasks wait and no render worker is running: start one with -s GATECRAWL_WORKER_ROLE=render "
                "(or all) and the same crawl id; this %s worker waits for them", render, self.role,
            )

    def _recover(self) -> int:
        n = self.queue.recover()
        if n and self.stats is not None:
            self.stats.inc_value("gatecrawl/distributed/recovered", n)
            logger.info("requeued %d tasks of stopped workers or past their deadline", n)
        return n

    def __len__(self) -> int:
        return len(self.queue)
