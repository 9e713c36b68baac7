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


def test_basic_auth_start_url_is_fetched_with_a_header_and_never_logged(tmp_path, recipes_dir, origin):
    """Issue 15: a start URL with ``user:password@`` could not be fetched (``robots_unreachable``)
    and put the password in an ERROR log line. Now the URL is fetched without its userinfo, the
    credentials go in an ``Authorization: Basic`` header, and the password is nowhere."""
    import base64

    password = "PassCanary-51f0"
    url = origin.url("/echo").replace("http://", f"http://gcuser:{password}@")
    run = probe_crawl(tmp_path, recipes_dir, [url], allow=f"{origin.host}:{origin.port}", extra={"ROBOTSTXT_OBEY": True, "LOG_LEVEL": "DEBUG"})
    assert origin.hits["/echo"] == 1 and origin.hits["/robots.txt"] == 1
    echo = [h for h in origin.seen_headers if h[":path"] == "/echo"]
    assert echo[0]["authorization"] == "Basic " + base64.b64encode(f"gcuser:{password}".encode()).decode()
    robots = [h for h in origin.seen_headers if h[":path"] == "/robots.txt"]
    assert "authorization" not in robots[0]
    (packet,) = run.packets("probe")
    assert packet["outcome"] == "kept", packet.get("drop_reason")
    assert password not in run.log and password not in run.stderr
    for f in run.store.rglob("*"):
        if f.is_file():
            assert password.encode() not in f.read_bytes(), f
