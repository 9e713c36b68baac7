"""Components that fetch outside the crawl (robots.txt, the not-found probe) do it through the
EnginePort their from_crawler gives them, never through crawler.engine (issue 17): in-process,
with a port that answers from a table, no engine and no network."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from scrapy import Request
from scrapy.http import Response, TextResponse
from scrapy.utils.test import get_crawler

from gatecrawl.core.reasons import Reason
from gatecrawl.engineport import EnginePort
from gatecrawl.exceptions import RobotsBlocked
from gatecrawl.middlewares.robots import RobotsTxtMiddleware
from gatecrawl.pipelines.probe import NotFoundProber


class TablePort:
    """Answers each URL from ``table`` (status, body) and records what was asked."""

    def __init__(self, table: dict[str, tuple[int, bytes]]) -> None:
        self.table = table
        self.asked: list[Request] = []

    async def download(self, request: Request) -> Response:
        self.asked.append(request)
        status, body = self.table[request.url]
        return TextResponse(request.url, status=status, body=body, request=request, encoding="utf-8")


def test_from_crawler_gives_a_port_and_there_is_no_engine_to_reach():
    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True})
    mw = RobotsTxtMiddleware.from_crawler(crawler)
    prober = NotFoundProber.from_crawler(crawler)
    assert isinstance(mw.port, EnginePort) and isinstance(prober.port, EnginePort)
    with pytest.raises(RuntimeError, match="engine"):  # built before the crawl: no engine yet
        asyncio.run(mw.port.download(Request("http://127.0.0.3/robots.txt")))


@pytest.mark.parametrize("status, body, path, reason", [
    (503, b"", "/a", Reason.ROBOTS_UNREACHABLE),
    (200, b"User-agent: *\nDisallow: /private\n", "/private/x", Reason.ROBOTS_DISALLOWED),
    (200, b"User-agent: *\nDisallow: /private\n", "/public", None),
    (404, b"", "/private/x", None),
])
def test_robots_txt_comes_through_the_port(status, body, path, reason):
    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True})
    port = TablePort({"http://127.0.0.3/robots.txt": (status, body)})
    mw = RobotsTxtMiddleware(crawler, port)

    async def run() -> None:
        await mw.process_request(Request("http://127.0.0.3" + path))

    if reason is None:
        asyncio.run(run())
    else:
        with pytest.raises(RobotsBlocked) as info:
            asyncio.run(run())
        assert info.value.reason is reason
    assert [r.url for r in port.asked] == ["http://127.0.0.3/robots.txt"]


def test_the_not_found_probe_comes_through_the_port():
    crawler = get_crawler()
    spider = SimpleNamespace(run_id="run-1", recipe=SimpleNamespace(not_found_probe=True))
    from gatecrawl.core import soft404

    probe_url = "http://127.0.0.3" + soft404.probe_path("run-1", "127.0.0.3")
    port = TablePort({probe_url: (404, b"not here")})
    prober = NotFoundProber(port, crawler.stats, lambda: spider)
    assert asyncio.run(prober.probe_for("http://127.0.0.3/article/1")) is None
    (request,) = port.asked
    assert request.url == probe_url and request.meta["gatecrawl_not_found_probe"] is True
    assert crawler.stats.get_value("gatecrawl/not_found_probe/real_404") == 1


def test_diagnostics_go_through_the_port():
    from gatecrawl.extensions.progress import ProgressLog

    crawler = get_crawler()
    port = EnginePort(crawler)
    assert port.scheduler_queue() is None and port.status() is None  # before the crawl: no engine
    frontier = SimpleNamespace(scheduler_queue=lambda: SimpleNamespace(outstanding=lambda: (4, 2, 1)))
    line = ProgressLog(crawler.stats, 60.0, frontier).line()
    assert line.endswith("; frontier: fetch 4, render 2, in processing 1"), line
    assert "frontier" not in ProgressLog(crawler.stats, 60.0, port).line()

