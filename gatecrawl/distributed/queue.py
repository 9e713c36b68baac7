"""ReliableQueue: a scrapy-redis queue whose pop is not destructive.

scrapy-redis' own queues pop with ``RPOP``/``ZREMRANGEBYRANK``: a worker that dies loses the
requests it held. Here a pop *moves* the task into a processing set with a deadline and an owner;
the task leaves Redis only when its worker acknowledges it (its response and everything the
callback produced were handled). Tasks of a worker whose heartbeat expired, or whose deadline
passed, go back to their queue (``recover``).

Keys, under ``P = <GATECRAWL_REDIS_PREFIX>:<spider>:<crawl id>``:

- ``P:queue:fetch`` / ``P:queue:render`` (sorted sets, task id scored by ``-priority``): pending
  tasks. Requests whose meta has ``playwright`` set go to ``render``, all others to ``fetch``;
- ``P:tasks`` (hash task id -> JSON request), ``P:route`` (task id -> ``<queue>|<score>``);
- ``P:processing`` (sorted set, task id scored by its deadline), ``P:owner`` (task id -> worker),
  ``P:deliveries`` (task id -> number of pops);
- ``P:worker:<id>`` (heartbeat, expires; its value: the queues the worker takes), ``P:rejected`` and ``P:dead`` (capped lists of
  payloads that were refused or delivered too often), ``P:dupefilter``, ``P:admitted``, ``P:runs``.

Payloads are JSON (``gatecrawl.distributed.serializer``); a payload that does not parse is never
executed: it is moved to ``P:rejected`` and counted.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import request_from_dict
from scrapy_redis.queue import Base

from gatecrawl.distributed.serializer import RejectedPayload
from gatecrawl.meta import START_TIME, TASK_ID

if TYPE_CHECKING:
    from scrapy import Request, Spider

logger = logging.getLogger(__name__)

TASK_META = TASK_ID
QUEUES = ("fetch", "render")
_LIST_CAP = 1000

_POP = """
local P = ARGV[1]
for i, q in ipairs(KEYS) do
  local t = redis.call('ZRANGE', q, 0, 0)
  if #t > 0 then
    local id = t[1]
    redis.call('ZREM', q, id)
    redis.call('ZADD', P .. ':processing', ARGV[2], id)
    redis.call('HSET', P .. ':owner', id, ARGV[3])
    local n = redis.call('HINCRBY', P .. ':deliveries', id, 1)
    local payload = redis.call('HGET', P .. ':tasks', id)
    if payload then
      return {id, n, i, payload}
    end
    return {id, n, i}
  end
end
return false
"""

# KEYS: none. ARGV: prefix, task id, payload, queue, score, fingerprint ('' = do not filter),
# page cap (0 = none), task handed over ('' = none). Returns 1 queued, 0 duplicate, 2 over the cap.
# One script, so no worker can see "seen but not queued" and close early.
_PUSH = """
local P = ARGV[1]
local result = 1
if ARGV[6] ~= '' then
  if redis.call('SADD', P .. ':dupefilter', ARGV[6]) == 0 then
    result = 0
  elseif tonumber(ARGV[7]) > 0 and redis.call('INCR', P .. ':admitted') > tonumber(ARGV[7]) then
    result = 2
  end
end
if result == 1 then
  redis.call('HSET', P .. ':tasks', ARGV[2], ARGV[3])
  redis.call('HSET', P .. ':route', ARGV[2], ARGV[4] .. '|' .. ARGV[5])
  redis.call('ZADD', P .. ':queue:' .. ARGV[4], ARGV[5], ARGV[2])
end
if ARGV[8] ~= '' then
  local old = ARGV[8]
  redis.call('ZREM', P .. ':processing', old)
  redis.call('HDEL', P .. ':tasks', old)
  redis.call('HDEL', P .. ':route', old)
  redis.call('HDEL', P .. ':owner', old)
  redis.call('HDEL', P .. ':deliveries', old)
end
return result
"""

_RECOVER = """
local P = ARGV[1]
local now = tonumber(ARGV[2])
local ids = redis.call('ZRANGE', P .. ':processing', 0, -1, 'WITHSCORES')
local moved = 0
for i = 1, #ids, 2 do
  local id = ids[i]
  local deadline = tonumber(ids[i + 1])
  local owner = redis.call('HGET', P .. ':owner', id)
  local alive = false
  if owner then
    alive = redis.call('EXISTS', P .. ':worker:' .. owner) == 1
  end
  if deadline < now or not alive then
    local route = redis.call('HGET', P .. ':route', id) or 'fetch|0'
    local sep = string.find(route, '|', 1, true)
    redis.call('ZREM', P .. ':processing', id)
    redis.call('HDEL', P .. ':owner', id)
    redis.call('ZADD', P .. ':queue:' .. string.sub(route, 1, sep - 1), string.sub(route, sep + 1), id)
    moved = moved + 1
  end
end
return moved
"""


def route_of(request: Request) -> str:
    """The queue a request belongs in: ``render`` when it asks for a browser, else ``fetch``."""
    return "render" if request.meta.get("playwright") else "fetch"


class ReliableQueue(Base):
    """Two pending queues (fetch, render), a processing set with visibility timeout, acks.

    Built by :class:`gatecrawl.distributed.scheduler.DistributedScheduler`, which passes the
    worker's identity and role through :meth:`configure`.
    """

    def __init__(self, server: Any, spider: Spider, key: str, serializer: Any = None) -> None:
        super().__init__(server, spider, key, serializer)
        self.prefix = self.key
        self.worker_id = f"{uuid.uuid4().hex[:12]}"
        self.pop_from: tuple[str, ...] = QUEUES[::-1]
        self.visibility_timeout = 300.0
        self.max_deliveries = 3
        self._pop = server.register_script(_POP)
        self._push = server.register_script(_PUSH)
        self._recover = server.register_script(_RECOVER)

    def configure(self, *, worker_id: str, pop_from: tuple[str, ...], visibility_timeout: float, max_deliveries: int) -> None:
        self.worker_id = worker_id
        self.pop_from = pop_from
        self.visibility_timeout = visibility_timeout
        self.max_deliveries = max_deliveries

    def k(self, name: str) -> str:
        return f"{self.prefix}:{name}"

    # -- sizes ------------------------------------------------------------------------

    def __len__(self) -> int:
        """Pending tasks this worker may pop."""
        pipe = self.server.pipeline(transaction=False)
        for q in self.pop_from:
            pipe.zcard(self.k(f"queue:{q}"))
        return sum(pipe.execute())

    def outstanding(self) -> tuple[int, int, int]:
        """(fetch pending, render pending, processing) for the whole crawl."""
        pipe = self.server.pipeline(transaction=False)
        pipe.zcard(self.k("queue:fetch"))
        pipe.zcard(self.k("queue:render"))
        pipe.zcard(self.k("processing"))
        fetch, render, processing = pipe.execute()
        return int(fetch), int(render), int(processing)

    # -- push / ack -------------------------------------------------------------------

    def push(self, request: Request, supersedes: str | None = None, fingerprint: str = "", cap: int = 0) -> tuple[int, str]:
        """Queue ``request`` as a new task unless its ``fingerprint`` was seen (or the page
        ``cap`` is reached); acknowledge the task it ``supersedes`` in the same atomic step.

        Returns (1 queued / 0 duplicate / 2 over the cap, queue name). Raises ``TypeError`` or
        ``ValueError`` when the request cannot be serialized (nothing is written then).
        """
        meta = request.meta
        old = meta.pop(TASK_META, None)
        try:
            payload = self._encode_request(request)
        finally:
            if old is not None:
                meta[TASK_META] = old
        task_id = uuid.uuid4().hex
        queue = route_of(request)
        score = -int(request.priority)
        result = self._push(args=[self.prefix, task_id, payload, queue, score, fingerprint, int(cap or 0), supersedes or ""])
        return int(result), queue

    def _ack_cmds(self, pipe: Any, task_id: str) -> None:
        pipe.zrem(self.k("processing"), task_id)
        pipe.hdel(self.k("tasks"), task_id)
        pipe.hdel(self.k("route"), task_id)
        pipe.hdel(self.k("owner"), task_id)
        pipe.hdel(self.k("deliveries"), task_id)

    def ack(self, task_id: str) -> None:
        pipe = self.server.pipeline(transaction=True)
        self._ack_cmds(pipe, task_id)
        pipe.execute()

    def _park(self, list_name: str, task_id: str, payload: Any) -> None:
        """Move a task's raw payload to a capped list (never decoded) and forget the task."""
        pipe = self.server.pipeline(transaction=True)
        pipe.lpush(self.k(list_name), payload if payload is not None else b"")
        pipe.ltrim(self.k(list_name), 0, _LIST_CAP - 1)
        self._ack_cmds(pipe, task_id)
        pipe.execute()

    # -- pop / recover ----------------------------------------------------------------

    def pop(self, timeout: int = 0) -> Request | None:  # noqa: ARG002 - scrapy-redis signature
        popped = self.pop_task()
        return popped[0] if popped else None

    def pop_task(self, on_reject: Any = None, on_dead: Any = None) -> tuple[Request, str, str] | None:
        """The next task this worker may take, as (request, task id, queue name), or None."""
        keys = [self.k(f"queue:{q}") for q in self.pop_from]
        while True:
            deadline = time.time() + self.visibility_timeout
            res = self._pop(keys=keys, args=[self.prefix, deadline, self.worker_id])
            if not res:
                return None
            raw_id = res[0]  # bytes, as stored: whatever was pushed is acknowledged as is
            deliveries, queue = int(res[1]), self.pop_from[int(res[2]) - 1]
            payload = res[3] if len(res) > 3 else None
            shown = repr(raw_id[:48])
            if deliveries > self.max_deliveries:
                self._park("dead", raw_id, payload)
                logger.error("task %s delivered %d times, moved to %s", shown, deliveries, self.k("dead"))
                if on_dead:
                    on_dead(raw_id)
                continue
            try:
                task_id = raw_id.decode("ascii") if isinstance(raw_id, bytes) else str(raw_id)
                if payload is None:
                    # A bare value in the queue (e.g. a pickle where scrapy-redis keeps requests).
                    payload = raw_id
                    raise RejectedPayload("queue entry is not a task id")
                request = self._decode_request(payload)
            except (RejectedPayload, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
                # Never executed, never unpickled: parked for inspection and counted.
                self._park("rejected", raw_id, payload)
                logger.warning(
                    "rejected a %s payload from %s (task %s, %d bytes): %s",
                    queue, self.k(f"queue:{queue}"), shown, len(payload or b""), exc,
                )
                if on_reject:
                    on_reject(task_id, exc)
                continue
            request.meta[TASK_META] = task_id
            if START_TIME in request.meta:
                # Latency counts from this worker's dequeue, not from the pusher's clock.
                request.meta[START_TIME] = time.monotonic()
            return request, task_id, queue

    def _decode_request(self, encoded_request: Any) -> Request:
        obj = self.serializer.loads(encoded_request)
        return request_from_dict(obj, spider=self.spider)

    def recover(self) -> int:
        """Requeue tasks whose owner stopped beating or whose deadline passed; return how many."""
        return int(self._recover(args=[self.prefix, time.time()]))

    def beat(self, ttl_ms: int) -> None:
        # The value names the queues this worker takes (so others can tell a render worker runs).
        self.server.set(self.k(f"worker:{self.worker_id}"), ",".join(self.pop_from).encode(), px=ttl_ms)

    def live_takers(self, queue: str) -> int:
        """Workers alive (heartbeat not expired) that take tasks from ``queue``."""
        keys = list(self.server.scan_iter(match=self.k("worker:*"), count=100))
        if not keys:
            return 0
        return sum(1 for v in self.server.mget(keys) if v is not None and queue in v.decode("utf-8", "replace").split(","))

    def stop_beating(self) -> None:
        self.server.delete(self.k(f"worker:{self.worker_id}"))

    def clear(self) -> None:
        names = ["queue:fetch", "queue:render", "tasks", "route", "processing", "owner", "deliveries", "admitted"]
        self.server.delete(*[self.k(n) for n in names])
