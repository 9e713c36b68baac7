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
