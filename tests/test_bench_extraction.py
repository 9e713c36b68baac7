"""The extraction benchmark's scoring and output contract (bench/extraction.py), on a tiny
synthetic corpus written to a temporary folder (the real corpus lives outside the repo)."""

from __future__ import annotations

import gzip
import json

import pytest

from bench.extraction import main, markdown_visible_text, score, shingles


def test_shingles_are_4_token_multisets():
    sh = shingles("a b c d a b c d")
    assert sh[("a", "b", "c", "d")] == 2 and sum(sh.values()) == 5
    assert not shingles("only three tokens")


def test_score_follows_the_benchmark_rules():
    gold = {"p1": "one two three four five six", "p2": "alpha beta gamma delta epsilon"}
    # p1 predicted exactly, p2 not predicted: recall 0 for p2, p2 left out of precision
    s = score({"p1": "one two three four five six", "p2": None}, gold)
    assert s["precision"] == pytest.approx(1.0)
    assert s["recall"] == pytest.approx(0.5)
    assert s["f1"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    # half of the predicted shingles are junk
    s = score({"p1": "one two three four five six x1 x2 x3 x4 x5", "p2": None}, gold)
    assert s["per_page"]["p1"][0] == pytest.approx(3 / 8)


def test_visible_text_drops_targets_alt_text_and_markers():
    md = ("# Title\n\nSee [the docs](https://example.org/secret-target) now.\n\n"
          "![alt words here](https://example.org/i.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    t = markdown_visible_text(md)
    assert "Title" in t and "the docs" in t and "1" in t
    assert "secret-target" not in t and "alt words" not in t and "#" not in t and "|" not in t


def test_main_prints_the_json_contract_last(tmp_path, capsys):
    (tmp_path / "html").mkdir()
    body = "".join(f"<p>Sentence {i} of the story tells the reader something new about rivers "
                   "and the towns along them.</p>" for i in range(8))
    gt = {}
    for pid in ("a1", "b2"):
        html = (f"<html><head><title>T {pid}</title></head><body><nav><a href='/'>Home</a>"
                f"<a href='/x'>Other</a></nav><article><h1>Story {pid}</h1>{body}</article>"
                "<footer>Copyright 2020 Example Corp. All rights reserved.</footer></body></html>")
        (tmp_path / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(html.encode()))
        gt[pid] = {"articleBody": body.replace("<p>", "").replace("</p>", "\n"),
                   "url": f"https://example.org/{pid}"}
    (tmp_path / "ground-truth.json").write_text(json.dumps(gt), "utf-8")
    assert main(["--data", str(tmp_path)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result = json.loads(last)
    for key in ("pages", "convert_f1", "convert_precision", "convert_recall", "markdown_f1",
                "dropped", "drop_reasons", "convert_pages_per_s", "trafilatura_f1",
                "trafilatura_pages_per_s", "speed_ratio", "readability_f1", "collapsed",
                "collapsed_share", "groups", "corpora"):
        assert key in result, key
    assert result["pages"] == 2
    assert result["convert_recall"] == pytest.approx(1.0)
    assert result["convert_f1"] > 0.9  # the title is the only extra text
    assert result["dropped"] == 0 and result["collapsed"] == 0
    assert result["groups"]["type:article"]["pages"] == 2
    assert sum(e["pages"] for k, e in result["groups"].items() if k.startswith("half:")) == 2


def test_a_dropped_page_scores_as_empty(tmp_path, capsys):
    """convert_f1 scores what the store gets: a page that validation drops counts as empty."""
    (tmp_path / "html").mkdir()
    gt = {}
    for pid, body in (("ok", "".join(f"<p>Line {i} tells the reader about rivers and towns and "
                                      "bridges.</p>" for i in range(8))),
                      ("junk", "<p>Please sign in to continue reading.</p><form><input "
                               "type=password></form>")):
        html = f"<html><head><title>T</title></head><body><article><h1>H</h1>{body}</article></body></html>"
        (tmp_path / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(html.encode()))
        gt[pid] = {"articleBody": "Please sign in to continue reading the story about rivers"
                   if pid == "junk" else body.replace("<p>", "").replace("</p>", "\n"),
                   "url": f"https://example.org/{pid}"}
    (tmp_path / "ground-truth.json").write_text(json.dumps(gt), "utf-8")
    assert main(["--data", str(tmp_path), "--no-readability"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["dropped"] == 1
    assert result["convert_recall"] == pytest.approx(0.5, abs=0.01)
    assert result["markdown_f1"] > result["convert_f1"]


def test_subset_filters_select_by_type_half_and_id(tmp_path, capsys):
    """--type, --half and --ids pick the pages they name and combine; --per-page writes one
    entry per scored page."""
    from bench.extraction import host_half

    (tmp_path / "html").mkdir()
    body = "".join(f"<p>Sentence {i} of the story tells the reader something new about rivers "
                   "and the towns along them.</p>" for i in range(8))
    gt = {}
    hosts = {}
    for i, ptype in enumerate(("product", "product", "listing", None)):
        pid = f"p{i}"
        html = f"<html><head><title>T</title></head><body><article><h1>H</h1>{body}</article></body></html>"
        (tmp_path / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(html.encode()))
        url = f"https://site{i}.example.org/{pid}"
        hosts[pid] = host_half(url)
        gt[pid] = {"articleBody": body.replace("<p>", "").replace("</p>", "\n"), "url": url}
        if ptype:
            gt[pid]["page_type"] = ptype
    (tmp_path / "ground-truth.json").write_text(json.dumps(gt), "utf-8")

    def run(*extra):
        assert main(["--data", str(tmp_path), "--no-readability", "--no-trafilatura", *extra]) == 0
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    assert run("--type", "product")["pages"] == 2
    assert set(run("--type", "article")["groups"]) >= {"type:article"}
    assert run("--ids", "p0,p2")["pages"] == 2
    assert run("--ids", "p0,p2", "--type", "listing")["pages"] == 1
    for half in ("tune", "check"):
        want = sum(1 for h in hosts.values() if h == half)
        assert run("--half", half)["pages"] == want
    assert run("--ids", "nope")["pages"] == 0
    out = tmp_path / "pp.json"
    run("--type", "product", "--per-page", str(out))
    pp = json.loads(out.read_text("utf-8"))[tmp_path.name]
    assert sorted(pp) == ["p0", "p1"] and pp["p0"][2] == "product"


def test_baseline_cache_is_written_then_reused(tmp_path, capsys):
    (tmp_path / "c" / "html").mkdir(parents=True)
    data = tmp_path / "c"
    body = "".join(f"<p>Sentence {i} of the story tells the reader something new about rivers "
                   "and the towns along them.</p>" for i in range(8))
    html = f"<html><head><title>T</title></head><body><article><h1>H</h1>{body}</article></body></html>"
    (data / "html" / "a.html.gz").write_bytes(gzip.compress(html.encode()))
    gt = {"a": {"articleBody": body.replace("<p>", "").replace("</p>", "\n"), "url": "https://e.org/a"}}
    (data / "ground-truth.json").write_text(json.dumps(gt), "utf-8")
    cache = tmp_path / "cache"
    assert main(["--data", str(data), "--no-readability", "--baseline-cache", str(cache)]) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    files = list(cache.glob("c-*.json"))
    assert len(files) == 1
    kept = json.loads(files[0].read_text("utf-8"))
    kept["trafilatura"]["a"] = "entirely different words than the gold text has"
    files[0].write_text(json.dumps(kept), "utf-8")
    assert main(["--data", str(data), "--no-readability", "--baseline-cache", str(cache)]) == 0
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["trafilatura_f1"] > 0.5 and second["trafilatura_f1"] == 0.0  # the cached text was used
    assert second["speed_ratio"] is None
