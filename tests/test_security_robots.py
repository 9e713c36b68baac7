"""T32: robots.txt under concurrency (issue 15).

Requests that start together all wait for the same robots.txt fetch. Every one of them must get
the verdict: none may be let through because the answer was still pending, failing or "disallow".
"""

from __future__ import annotations

import pytest

from crawlutil import packets_by_url, probe_crawl

pytestmark = pytest.mark.slow

N = 100


@pytest.mark.parametrize(
    "robots, reason",
    [
        (("status", (200, "User-agent: *\nDisallow: /\n")), "robots_disallowed"),
        (("status", (500, "broken")), "robots_unreachable"),
    ],
    ids=["disallow", "status500"],
)
def test_t32_robots_verdict_reaches_every_concurrent_waiter(tmp_path, recipes_dir, origin, robots, reason):
    origin.robots = robots
    urls = [origin.url(f"/article/{i}") for i in range(N)]
    run = probe_crawl(
        tmp_path,
        recipes_dir,
        urls,
        allow=f"{origin.host}:{origin.port}",
        extra={
            "ROBOTSTXT_OBEY": True,
            "RETRY_TIMES": 0,
            "CONCURRENT_REQUESTS": N,
            "CONCURRENT_REQUESTS_PER_DOMAIN": N,
            "GATECRAWL_ROBOTS_UNREACHABLE_RETRY": 0.2,
        },
    )
    fetched = sorted(p for p in origin.hits if p.startswith("/article/"))
    assert fetched == [], f"{len(fetched)} of {N} pages fetched despite robots.txt: {fetched[:5]}"
    packets = packets_by_url(run)
    assert len(packets) == N
    assert {p["drop_reason"] for p in packets.values()} == {reason}
