"""Scrapy feeds (``-O out.jsonl``, ``FEEDS``): one JSON line per page, nothing raw (issue 16)."""

from __future__ import annotations

import json

import pytest

from crawlutil import packets_by_url, probe_crawl

pytestmark = pytest.mark.slow


def _site(origin):
    origin.links = [origin.url("/article/1"), origin.url("/status/404")]
    return [origin.url("/links")]


def _lines(path):
    text = path.read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_dash_o_writes_one_json_line_per_kept_page(tmp_path, recipes_dir, origin):
    out = tmp_path / "pages.jsonl"
    run = probe_crawl(tmp_path, recipes_dir, _site(origin), allow=f"127.0.0.3:{origin.port}", args=("-O", f"{out}:jsonlines"))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Error serializing" not in run.log and "Traceback" not in run.log, run.log[-3000:]
    packets = packets_by_url(run)
    kept = {u: p for u, p in packets.items() if p["outcome"] == "kept"}
    assert len(kept) == 2 and len(packets) == 3, {u: p["outcome"] for u, p in packets.items()}
    rows = _lines(out)
    # Dropped pages stay out of the feed by default (they are in the quarantine).
    assert sorted(r["url"] for r in rows) == sorted(p["url_final"] for p in kept.values())
    for r in rows:
        p = kept[r["url"]]
        assert r["outcome"] == "kept" and r["drop_reason"] is None
        assert r["status"] == 200
        assert r["title"] == p["fields"]["title"]
        assert r["markdown"].startswith("# ") and r["markdown"].endswith("\n")
        assert r["markdown_sha256"] == p["markdown_sha256"]
        assert r["keys"]["markdown"] == f"probe/pages/{p['url_key']}.md"
        assert r["keys"]["packet"] == f"probe/pages/{p['url_key']}.json"
        assert (run.store / r["keys"]["markdown"]).read_text("utf-8") == r["markdown"]
        assert r["reader"] == "http" and r["page_type"] == p["page_type"]
    # The run's own records still see every page, the dropped one included.
    summary = run.summary("probe")
    assert summary["counts"]["seen"] == 3 and summary["counts"]["dropped"] == 1
    record = next((run.store / "probe" / "runs" / "reports").glob("*.record.json"))
    assert len(json.loads(record.read_text("utf-8"))["pages"]) == 3
    # <site>/index.jsonl says which file is which page, kept or dropped.
    index = _lines(run.store / "probe" / "index.jsonl")
    assert [r["url"] for r in index] == sorted(packets)
    for r in index:
        p = packets[r["url"]]
        if p["outcome"] == "kept":
            assert (r["markdown"], r["packet"]) == (f"probe/pages/{p['url_key']}.md", f"probe/pages/{p['url_key']}.json")
            assert r["title"] == p["fields"]["title"] and r["drop_reason"] is None
        else:
            assert (r["markdown"], r["packet"], r["drop_reason"]) == (None, f"probe/quarantine/{p['url_key']}.json", "http_error")


def test_feed_dropped_setting_adds_dropped_pages(tmp_path, recipes_dir, origin):
    out = tmp_path / "all.jsonl"
    run = probe_crawl(
        tmp_path, recipes_dir, _site(origin), allow=f"127.0.0.3:{origin.port}",
        extra={"GATECRAWL_FEED_DROPPED": True, "FEEDS": json.dumps({str(out): {"format": "jsonlines"}})},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {r["url"]: r for r in _lines(out)}
    assert len(rows) == 3
    dropped = rows[origin.url("/status/404")]
    assert dropped["outcome"] == "dropped" and dropped["drop_reason"] == "http_error"
    assert dropped["status"] == 404 and dropped["markdown"] is None
    assert dropped["keys"] == {"quarantine": f"probe/quarantine/{packets_by_url(run)[origin.url('/status/404')]['url_key']}.json"}
    assert dropped["drop_detail"]


def test_markdown_front_matter_names_the_page(tmp_path, recipes_dir, origin):
    url = origin.url("/article/3")
    run = probe_crawl(tmp_path, recipes_dir, [url], allow=f"127.0.0.3:{origin.port}", extra={"GATECRAWL_MARKDOWN_FRONT_MATTER": True})
    assert run.returncode == 0, run.stderr[-3000:]
    p = packets_by_url(run)[url]
    text = (run.store / "probe" / "pages" / f"{p['url_key']}.md").read_text("utf-8")
    head, sep, body = text.partition("\n---\n\n")
    assert sep and head.splitlines() == [
        "---", f'url: "{url}"', 'title: "Article 3"', f'fetched_at: "{p["fetched_at"]}"', 'recipe: "probe"',
        f'packet: "probe/pages/{p["url_key"]}.json"', f'markdown_sha256: "{p["markdown_sha256"]}"',
    ]
    import hashlib

    assert hashlib.sha256(body.encode("utf-8")).hexdigest() == p["markdown_sha256"] and body.startswith("# Article 3")
    # A second crawl of the unchanged page rewrites nothing: fetched_at is not part of the file's
    # identity, so the file keeps the time of the fetch that produced its content.
    again = probe_crawl(tmp_path, recipes_dir, [url], allow=f"127.0.0.3:{origin.port}", extra={"GATECRAWL_MARKDOWN_FRONT_MATTER": True})
    assert again.returncode == 0, again.stderr[-3000:]
    entry = next(e for e in again.summary("probe")["pages"] if e["url"] == url)
    assert entry["fetched_at"] != p["fetched_at"] and set(entry["objects"].values()) <= {"unchanged", "absent"}, entry
    assert (run.store / "probe" / "pages" / f"{p['url_key']}.md").read_text("utf-8") == text
