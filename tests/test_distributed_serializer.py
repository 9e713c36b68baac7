"""The JSON request serializer for scrapy-redis: round trip, and refusal of anything else."""

from __future__ import annotations

import json
import pickle

import pytest
import scrapy
from scrapy.utils.request import request_from_dict

from gatecrawl.distributed import serializer
from gatecrawl.distributed.addon import DistributedAddon
from gatecrawl.distributed.queue import route_of


def test_round_trip_keeps_the_request():
    req = scrapy.Request(
        "https://example.org/a?b=1", method="POST", body=b"\x00\xffbody", headers={"X-A": "1"},
        meta={"depth": 2, "gatecrawl_presence": {"needs_render": True, "signals": ["empty_root"]}, "t": (1, 2), "$odd": 1},
        priority=-3, dont_filter=True, cb_kwargs={"k": "v"},
    )
    text = serializer.dumps(req.to_dict())
    back = request_from_dict(serializer.loads(text.encode("utf-8")))
    assert (back.url, back.method, back.body, back.priority, back.dont_filter) == (req.url, "POST", b"\x00\xffbody", -3, True)
    assert back.headers.get("X-A") == b"1"
    assert back.meta == {"depth": 2, "gatecrawl_presence": {"needs_render": True, "signals": ["empty_root"]}, "t": [1, 2], "$odd": 1}
    assert back.cb_kwargs == {"k": "v"}


def test_process_local_meta_is_left_out_and_other_objects_refused():
    req = scrapy.Request("https://example.org/", meta={"playwright": True, "playwright_page": object(), "_private": object()})
    back = serializer.loads(serializer.dumps(req.to_dict()))
    assert back["meta"] == {"playwright": True}
    with pytest.raises(TypeError):
        serializer.dumps(scrapy.Request("https://example.org/", meta={"x": object()}).to_dict())


class _Boom:
    def __reduce__(self):
        raise AssertionError("unpickled")


@pytest.mark.parametrize(
    "payload",
    [
        pickle.dumps(_Boom, protocol=0),
        pickle.dumps({"url": "https://example.org/"}),
        b"\x80\x04not json",
        b"[]",
        json.dumps({"url": "https://example.org/"}).encode(),
        json.dumps({"gatecrawl": 1, "request": {"url": "file:///etc/passwd"}}).encode(),
        json.dumps({"gatecrawl": 1, "request": {"url": "https://example.org/", "_class": "os.system"}}).encode(),
        json.dumps({"gatecrawl": 1, "request": {"url": "https://example.org/", "callback": "__init__"}}).encode(),
        json.dumps({"gatecrawl": 1, "request": {"url": "https://example.org/", "method": "GET /x"}}).encode(),
        json.dumps({"gatecrawl": 1, "request": {"url": "https://example.org/", "body": {"$b": 5}}}).encode(),
    ],
)
def test_anything_else_is_rejected(payload):
    with pytest.raises(serializer.RejectedPayload):
        serializer.loads(payload)


def test_routing_follows_the_playwright_meta_key():
    assert route_of(scrapy.Request("https://example.org/")) == "fetch"
    assert route_of(scrapy.Request("https://example.org/", meta={"playwright": True})) == "render"


def test_addon_switches_on_with_one_setting():
    from scrapy.settings import Settings

    off = Settings({"GATECRAWL_REDIS_URL": None})
    DistributedAddon().update_settings(off)
    assert "gatecrawl" not in str(off.get("SCHEDULER"))
    on = Settings(
        {"GATECRAWL_REDIS_URL": "redis://127.0.0.1:1/0", "GATECRAWL_WORKER_ROLE": "fetch",
         "DOWNLOAD_HANDLERS": {"http": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"}},
        priority="project",
    )
    DistributedAddon().update_settings(on)
    assert on.get("SCHEDULER") == "gatecrawl.distributed.scheduler.DistributedScheduler"
    assert on.get("SCHEDULER_SERIALIZER") == "gatecrawl.distributed.serializer"
    assert on.getbool("SCHEDULER_PERSIST") is True and on.getint("SCHEDULER_IDLE_BEFORE_CLOSE") == 0
    assert "playwright" not in on.getdict("DOWNLOAD_HANDLERS")["http"]
    with pytest.raises(ValueError):
        DistributedAddon().update_settings(Settings({"GATECRAWL_REDIS_URL": "redis://x/0", "GATECRAWL_WORKER_ROLE": "bogus"}))
