"""One packet (and one manifest entry) for every URL requested (issue 15): a redirect to a URL
already seen in the run, a redirect loop and a URL over 2,083 characters each end with a typed
drop reason instead of vanishing in Scrapy's duplicate filter or URL length middleware."""

from __future__ import annotations

import pytest

from crawlutil import packets_by_url, probe_crawl

pytestmark = pytest.mark.slow


def test_redirect_to_seen_url_loop_and_long_url_each_get_a_packet(tmp_path, recipes_dir, origin):
    origin.redirects["/to-article"] = origin.url("/article/1")
    origin.redirects["/loop-a"] = origin.url("/loop-b")
    origin.redirects["/loop-b"] = origin.url("/loop-a")
    origin.redirects["/self"] = origin.url("/self")
    long_url = origin.url("/article/2?q=" + "x" * 2100)
    urls = [origin.url("/article/1"), origin.url("/to-article"), origin.url("/loop-a"), origin.url("/self"), long_url]
    run = probe_crawl(tmp_path, recipes_dir, urls, allow=f"{origin.host}:{origin.port}", extra={"CONCURRENT_REQUESTS": 1})
    got = packets_by_url(run)
    assert set(got) == set(urls), sorted(set(urls) - set(got))
    assert got[urls[0]]["outcome"] == "kept"
    assert got[urls[1]]["drop_reason"] == "duplicate_of" and urls[0] in got[urls[1]]["drop_detail"]
    assert got[urls[2]]["drop_reason"] == "redirect_loop"
    assert got[urls[3]]["drop_reason"] == "redirect_loop"
    assert got[long_url]["drop_reason"] == "url_too_long"
    assert origin.hits["/article/2"] == 0 and origin.hits["/article/1"] == 1
    manifest = run.summary("probe")
    reasons = sorted(str(p["drop_reason"]) for p in manifest["pages"])
    assert reasons == ["None", "duplicate_of", "redirect_loop", "redirect_loop", "url_too_long"]
