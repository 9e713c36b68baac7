"""The egress package (issue 17): a pure policy, one runtime object per crawler (no module
state), and the offline public-suffix list as an explicit add-on instead of an import side effect."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.project import get_project_settings
from scrapy.utils.test import get_crawler

from crawlutil import ROOT
from gatecrawl.egress.middleware import EgressMiddleware
from gatecrawl.egress.policy import EgressPolicy
from gatecrawl.egress.runtime import Egress, egress_for
from test_egress_proxy import _get


def _no_dns(host: str, port: int) -> list[str]:
    raise OSError("the tests resolve no names")


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_the_policy_is_pure():
    out = _python("import sys, gatecrawl.egress.policy; print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))")
    assert out == "[]"


def test_offline_suffix_list_is_an_add_on_not_an_import_side_effect():
    code = (
        "import gatecrawl.settings\n"
        "from scrapy.downloadermiddlewares import cookies\n"
        "print(tuple(cookies._split_domain.suffix_list_urls) != ())\n"
        "from scrapy.utils.project import get_project_settings\n"
        "from scrapy.utils.reactor import install_reactor\n"
        "from scrapy.utils.test import get_crawler\n"
        "install_reactor('twisted.internet.asyncioreactor.AsyncioSelectorReactor')\n"
        "get_crawler(settings_dict=get_project_settings().copy_to_dict())\n"
        "print(tuple(cookies._split_domain.suffix_list_urls) == ())\n"
    )
    assert _python(code).split() == ["True", "True"]


def test_one_runtime_per_crawler_shared_by_its_components():
    settings = {"GATECRAWL_EGRESS_ENABLED": True, "GATECRAWL_EGRESS_ALLOW": ["127.0.0.3"], "GATECRAWL_EGRESS_RESOLVER": None}
    a, b = get_crawler(settings_dict=settings), get_crawler(settings_dict={**settings, "GATECRAWL_EGRESS_ALLOW": ["127.0.0.4"]})
    ea, eb = egress_for(a), egress_for(b)
    assert ea is egress_for(a) and eb is egress_for(b) and ea is not eb
    assert ea.pins is not eb.pins
    mw = EgressMiddleware.from_crawler(a)
    assert mw.egress is ea and mw.policy is ea.policy
    assert ea.policy.check_addresses("127.0.0.3", 80, ["127.0.0.3"]).allowed
    assert not eb.policy.check_addresses("127.0.0.3", 80, ["127.0.0.3"]).allowed


def test_egress_disabled_has_no_runtime():
    crawler = get_crawler(settings_dict={"GATECRAWL_EGRESS_ENABLED": False})
    assert egress_for(crawler) is None
    with pytest.raises(NotConfigured):
        EgressMiddleware.from_crawler(crawler)


def test_project_settings_name_the_egress_package():
    s = get_project_settings()
    assert s.getdict("DOWNLOADER_MIDDLEWARES")["gatecrawl.egress.middleware.EgressMiddleware"] == 40
    assert s["TWISTED_DNS_RESOLVER"] == "gatecrawl.egress.resolver.EgressResolver"
    assert "gatecrawl.egress.offline.OfflineSuffixListAddon" in s.getdict("ADDONS")


def test_the_runtime_proxy_reads_the_runtime_pins(origin, canary):
    """A name pinned in the crawl's table is connected to its vetted address with no lookup;
    a name nobody pinned is looked up (here: no DNS at all) and refused."""
    runtime = Egress(EgressPolicy([f"127.0.0.3:{origin.port}"], resolver=_no_dns))
    runtime.pins.pin("pinned.test", origin.port, ["127.0.0.3"])
    loop = asyncio.new_event_loop()
    t = threading.Thread(target=loop.run_forever, daemon=True)
    t.start()
    try:
        proxy = asyncio.run_coroutine_threadsafe(runtime.ensure_proxy(), loop).result(10)
        assert asyncio.run_coroutine_threadsafe(runtime.ensure_proxy(), loop).result(10) is proxy
        assert runtime.chromium_proxy_args(proxy) == [f"--proxy-server={proxy.url}", "--proxy-bypass-list=<-loopback>"]
        status, body = _get(proxy, f"http://pinned.test:{origin.port}/article/1")
        assert status == 200 and b"Article 1" in body
        status, body = _get(proxy, f"http://unpinned.test:{canary.port}/secret")
        assert status == 403 and b"egress_blocked" in body
        assert canary.connections == 0
    finally:
        asyncio.run_coroutine_threadsafe(runtime.close_proxy(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        t.join(5)
        loop.close()
