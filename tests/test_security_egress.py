"""Egress and SSRF on the HTTP path: reliability matrix T01-T06, T08 (issue 8).

Loopback stands in for the internet: the test origin listens on 127.0.0.3 and is admitted by
the allow list ("public" in these tests); canary listeners on 127.0.0.1 and 127.0.0.2 are not
admitted ("internal") and must never receive a connection.
"""

from __future__ import annotations

import socket

import pytest

from crawlutil import packets_by_url, run_crawl
from crawlutil import probe_crawl as crawl
from gatecrawl.egress.policy import EgressPolicy, address_class, parse_allow_entry


# --- unit level: the classifier and the allow list -----------------------------------------------


@pytest.mark.parametrize(
    "addr, cls",
    [
        ("8.8.8.8", "global"),
        ("169.254.169.254", "link_local"),
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("172.16.5.4", "private"),
        ("100.100.100.200", "cgnat"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fd00:ec2::254", "ula"),
        ("fe80::1", "link_local"),
        ("::ffff:127.0.0.1", "ipv4_mapped:loopback"),
        ("::ffff:a9fe:a9fe", "ipv4_mapped:link_local"),
        ("64:ff9b::a9fe:a9fe", "nat64:link_local"),
        ("2002:a9fe:a9fe::", "6to4:link_local"),
        ("::a9fe:a9fe", "ipv4_compatible:link_local"),
        ("::ffff:0:a9fe:a9fe", "ipv4_translated:link_local"),  # issue 15: was "global"
        ("::ffff:0:7f00:1", "ipv4_translated:loopback"),
        ("::ffff:0:a00:1", "ipv4_translated:private"),
        ("2002:808:808::", "global"),  # T02 control: 6to4 wrapping the public 8.8.8.8
        ("2606:4700::1111", "global"),
    ],
)
def test_address_classes(addr, cls):
    assert address_class(addr) == cls


def test_t02_encoded_ipv4_forms_are_refused_without_echoing_the_address():
    policy = EgressPolicy()
    for url in [
        "http://2130706433/",
        "http://0x7f.1/",
        "http://127.1/",
        "http://0177.0.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::]/",
        "http://[::a9fe:a9fe]/",
        "http://[::ffff:0:a9fe:a9fe]/",
    ]:
        d = policy.check_url(url)
        assert not d.allowed and d.reason == "egress_blocked", url
        assert "127.0.0.1" not in d.describe() and "169.254" not in d.describe()
    assert policy.check_addresses("x", 80, ["2002:808:808::"]).allowed


def test_allow_list_entries_and_their_scope():
    e = parse_allow_entry("127.0.0.1:8750")
    assert e.port == 8750 and e.network is not None
    policy = EgressPolicy(["127.0.0.1:8750"])
    assert policy.check_addresses("127.0.0.1", 8750, ["127.0.0.1"]).allowed
    assert not policy.check_addresses("127.0.0.1", 8751, ["127.0.0.1"]).allowed  # other port
    assert not policy.check_addresses("127.0.0.2", 8750, ["127.0.0.2"]).allowed  # other loopback address
    assert EgressPolicy(["10.0.0.0/8"]).check_addresses("h", 1, ["10.9.9.9"]).allowed
    assert EgressPolicy(["[::1]:80"]).check_addresses("h", 80, ["::1"]).allowed
    assert EgressPolicy(["intranet.example"]).check_addresses("intranet.example", 1, ["10.0.0.1"]).allowed
    for bad in ["", "a b", "1.2.3.4:99999", "[::1"]:
        with pytest.raises(ValueError):
            parse_allow_entry(bad)


def test_schemes_other_than_http_are_refused():
    policy = EgressPolicy()
    for url in ["file:///etc/passwd", "data:text/html,hi", "ftp://x/", "s3://bucket/k", "chrome://version", "view-source:http://x/", "javascript:alert(1)", "blob:http://x/1"]:
        d = policy.check_url(url)
        assert d.reason == "scheme_blocked", url


def test_dns_failures_fail_closed():
    def nx(host, port):
        raise socket.gaierror(socket.EAI_NONAME, "nx")

    policy = EgressPolicy()
    assert policy.check_url("http://nowhere.test/", resolver=nx).detail == "dns_unresolved"
    assert policy.check_url("http://empty.test/", resolver=lambda h, p: []).detail == "dns_unresolved"
    mixed = policy.check_url("http://mixed.test/", resolver=lambda h, p: ["8.8.8.8", "10.0.0.1"])
    assert not mixed.allowed and mixed.address_class == "private"


# --- crawl level ------------------------------------------------------------------------------

@pytest.mark.slow
def test_t01_direct_internal_targets_are_refused_before_any_socket(tmp_path, recipes_dir, canary_lo):
    port = canary_lo.port
    urls = [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/latest/user-data",
        "http://metadata.google.internal/",
        f"http://127.0.0.1:{port}/",
        f"http://localhost.:{port}/",
        f"http://foo.localhost:{port}/",
        "http://0.0.0.0/",
        "http://[::]/",
    ]
    dns = {"metadata.google.internal": [["169.254.169.254"]], "localhost": [["127.0.0.1"]], "foo.localhost": [["127.0.0.1", "::1"]]}
    run = crawl(tmp_path, recipes_dir, urls, dns=dns)
    assert canary_lo.connections == 0
    got = packets_by_url(run)
    expected_class = {
        urls[0]: "link_local", urls[1]: "ula", urls[2]: "cgnat", urls[3]: "link_local", urls[4]: "loopback",
        urls[5]: "loopback", urls[6]: "loopback", urls[7]: "unspecified", urls[8]: "unspecified",
    }
    assert set(got) == set(urls), sorted(got)
    for url, cls in expected_class.items():
        p = got[url]
        assert p["drop_reason"] == "egress_blocked", (url, p["drop_reason"])
        assert p["egress"]["detail"] == f"address_class={cls}", (url, p["egress"])
    assert "169.254.169.254" not in run.log.replace("http://169.254.169.254/latest/meta-data/", "")
    assert "gatecrawl/kept" not in run.summary("probe")["stats"]
    assert run.returncode == 1  # nothing kept: the crawl says so


@pytest.mark.slow
def test_t03_redirects_into_internal_targets_are_not_followed(tmp_path, recipes_dir, origin, canary):
    internal = canary.url("/latest/meta-data/iam/security-credentials/")
    starts = [
        origin.url("/redirect?status=302&to=http://169.254.169.254/latest/meta-data/iam/security-credentials/"),
        origin.url(f"/redirect?status=302&to={internal}"),
        origin.url(f"/redirect?status=307&to=http://internal.test:{canary.port}/x"),
        origin.url(f"/meta-refresh?to={canary.url('/refreshed')}"),
        origin.url("/article/1"),
    ]
    dns = {"internal.test": [["127.0.0.2"]]}
    run = crawl(tmp_path, recipes_dir, starts, allow=f"127.0.0.3:{origin.port}", dns=dns)
    assert canary.connections == 0
    got = packets_by_url(run)
    for url in starts[:4]:
        p = got[url]
        assert p["outcome"] == "dropped" and p["drop_reason"] == "egress_blocked", (url, p["drop_reason"])
        assert p["egress"]["hop"] >= 1
    assert got[starts[4]]["outcome"] == "kept"
    assert run.returncode == 0


@pytest.mark.slow
def test_t04_dns_rebinding_cannot_swap_the_vetted_address(tmp_path, recipes_dir, origin, canary):
    # First answer: the admitted origin; every later answer: the internal canary (TTL 0).
    dns = {"rebind.test": [["127.0.0.3"], ["127.0.0.2"]]}
    origin.links = [f"http://rebind.test:{origin.port}/article/{i}" for i in range(20)]
    start = f"http://rebind.test:{origin.port}/links"
    run = crawl(
        tmp_path, recipes_dir, [start], allow="127.0.0.3", dns=dns, extra={"CONCURRENT_REQUESTS": 8},
    )
    assert canary.connections == 0
    kept = [p for p in run.packets("probe") if p["outcome"] == "kept"]
    assert len(kept) == 21, [(p["url_final"], p["drop_reason"]) for p in run.packets("probe")]
    assert sum(origin.hits[f"/article/{i}"] for i in range(20)) == 20


@pytest.mark.slow
def test_t05_mixed_and_failed_answers_are_refused(tmp_path, recipes_dir, origin, canary):
    dns = {
        "mixed.test": [["127.0.0.3", "10.0.0.1"]],
        "v6only.test": [["::1"]],
        "nx.test": ["nxdomain"],
        "servfail.test": ["servfail"],
        "empty.test": [[]],
    }
    p = origin.port
    urls = [f"http://{h}:{p}/article/1" for h in ("mixed.test", "v6only.test", "nx.test", "servfail.test", "empty.test")]
    run = crawl(tmp_path, recipes_dir, urls, allow="127.0.0.3", dns=dns)
    assert origin.connections == 0 and canary.connections == 0
    got = packets_by_url(run)
    assert got[urls[0]]["egress"]["detail"] == "address_class=private"
    assert got[urls[1]]["egress"]["detail"] == "address_class=loopback"
    for url in urls[2:]:
        assert got[url]["drop_reason"] == "egress_blocked"
        assert got[url]["egress"]["detail"] == "dns_unresolved"


@pytest.mark.slow
def test_t06_dangerous_schemes_everywhere(tmp_path, recipes_dir, origin):
    # As a start URL: refused before anything runs.
    bad = run_crawl("probe", tmp_path / "s1", "-a", "start_url=file:///etc/passwd", settings={"GATECRAWL_RECIPES_DIRS": str(recipes_dir)})
    assert bad.returncode != 0 and "spider argument start_url" in (bad.stderr + bad.log)
    # As discovered links and as Location headers.
    origin.links = ["file:///etc/passwd", "data:text/html,<h1>x</h1>", "ftp://127.0.0.3/x", "javascript:alert(1)"]
    starts = [origin.url("/links"), origin.url("/redirect?to=file:///etc/passwd"), origin.url("/redirect?to=data:text/html,hello")]
    run = crawl(tmp_path, recipes_dir, starts, allow=f"127.0.0.3:{origin.port}", name="s2")
    everything = b"".join(p.read_bytes() for p in (tmp_path / "s2").rglob("*") if p.is_file())
    assert b"root:x:0:0" not in everything
    for p in run.packets("probe"):
        if not p["url_final"].startswith("http"):
            assert p["drop_reason"] == "scheme_blocked", p["url_final"]
    stats = run.summary("probe")["stats"]
    assert stats.get("gatecrawl/egress/scheme_blocked", 0) >= 1
    # Redirects to file: and data: are not followed; the redirect response itself is never kept.
    redirects = [p for p in run.packets("probe") if "/redirect" in p["url_final"]]
    assert len(redirects) == 2 and all(p["outcome"] == "dropped" for p in redirects)
    from scrapy.utils.project import get_project_settings

    handlers = get_project_settings().getdict("DOWNLOAD_HANDLERS")
    assert handlers["file"] is None and handlers["data"] is None and handlers["ftp"] is None and handlers["s3"] is None


@pytest.mark.slow
def test_t08_robots_txt_goes_through_the_egress_policy(tmp_path, recipes_dir, origin, canary):
    origin.robots = ("redirect", canary.url("/robots.txt"))
    run = crawl(tmp_path, recipes_dir, [origin.url("/article/1")], allow=f"127.0.0.3:{origin.port}", extra={"ROBOTSTXT_OBEY": True})
    assert canary.connections == 0
    p = packets_by_url(run)[origin.url("/article/1")]
    assert p["drop_reason"] == "robots_unreachable"
    assert origin.hits["/article/1"] == 0


def test_demo_recipe_admits_only_its_own_server(tmp_path, demo_server, canary_lo):
    """`python -m gatecrawl.demo --port 0` + `scrapy crawl demo -a start_url=<its URL>` works with
    no allow list at all; other ports and other loopback addresses stay refused."""
    from urllib.parse import urlsplit

    from gatecrawl.egress.policy import start_url_entries
    from gatecrawl.spiderloader import RecipeSpiderLoader
    from gatecrawl.spiders.args import parse_spider_args
    from scrapy.settings import Settings

    recipe = RecipeSpiderLoader(Settings({"SPIDER_MODULES": ["gatecrawl.spiders"]})).load("demo").recipe
    assert recipe.settings["GATECRAWL_EGRESS_ADMIT_START_URLS"] is True
    run_recipe = parse_spider_args(recipe, start_url=demo_server.base_url + "/")
    entries = start_url_entries(run_recipe)
    assert entries == [urlsplit(demo_server.base_url).netloc]
    policy = EgressPolicy(entries)
    port = urlsplit(demo_server.base_url).port
    assert policy.check_addresses("127.0.0.1", port, ["127.0.0.1"]).allowed
    assert not policy.check_addresses("127.0.0.1", canary_lo.port, ["127.0.0.1"]).allowed
    assert not policy.check_addresses("127.0.0.2", port, ["127.0.0.2"]).allowed
    run = run_crawl("demo", tmp_path / "s", "-a", f"start_url={demo_server.base_url}/", settings={"GATECRAWL_RENDER_ENABLED": False}, env={"GATECRAWL_EGRESS_ALLOW": ""})
    assert run.summary()["counts"]["kept"] >= 15
    assert "egress_blocked" not in run.summary()["counts"]["dropped_by_reason"]


@pytest.mark.parametrize("url, admitted", [
    ("http://127.0.0.1:8000/", True),
    ("http://localhost:8000/", True),
    ("http://10.1.2.3/", True),
    ("http://[::1]:8080/", True),
    ("http://169.254.169.254/latest/meta-data/", False),   # cloud metadata
    ("http://[fd00:ec2::254]/", False),                    # AWS IPv6 metadata (ULA)
    ("http://[::ffff:169.254.169.254]/", False),
    ("http://100.100.100.200/", False),                    # CGNAT (Alibaba metadata)
    ("http://metadata.google.internal/", False),           # a name: could resolve anywhere
    ("https://example.com/", False),                       # public: needs no admission
])
def test_admit_start_urls_never_admits_metadata_or_names(url, admitted):
    """A recipe may set GATECRAWL_EGRESS_ADMIT_START_URLS (the demo does), so what it admits is
    limited: loopback and private address literals and localhost, never a metadata address."""
    from types import SimpleNamespace

    from gatecrawl.egress.policy import start_url_entries

    entries = start_url_entries(SimpleNamespace(start_urls=[url], sitemaps=()))
    assert bool(entries) == admitted, entries
