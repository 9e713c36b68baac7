"""Distributed crawling on scrapy-redis: one shared frontier for many workers.

Switched on by ``GATECRAWL_REDIS_URL`` (see :mod:`gatecrawl.distributed.addon`). Modules:

- :mod:`~gatecrawl.distributed.serializer`: JSON request serializer (never pickle);
- :mod:`~gatecrawl.distributed.queue`: reliable queue (processing set, visibility timeout,
  worker heartbeats, fetch/render routing by the ``playwright`` meta key);
- :mod:`~gatecrawl.distributed.scheduler`: scrapy-redis scheduler subclass (acks, roles, closing).
"""
