"""The markup-robustness benchmark (bench/restyle.py): each style rewrites what it says and
nothing else, the same input gives the same bytes, and the JSON contract comes last."""

from __future__ import annotations

import gzip
import json

import lxml.html

from bench.restyle import STYLES, main, restyle

PAGE = (b"<html><head><title>T</title><script type='application/ld+json'>{\"@type\": \"NewsArticle\"}"
        b"</script><meta property='og:type' content='article'></head><body>"
        b"<nav class='menu' role='navigation'><a href='/'>Home</a></nav>"
        b"<main id='m'><article itemscope itemtype='https://schema.org/Article'>lead"
        b"<p class='x'>One <b>two</b></p>tail<p>three four</p><figure><figcaption>cap</figcaption></figure>"
        b"</article></main><footer>foot</footer></body></html>")


def tags(body: bytes) -> set[str]:
    return {el.tag for el in lxml.html.document_fromstring(body).iter() if isinstance(el.tag, str)}


def attrs(body: bytes) -> set[str]:
    return {a for el in lxml.html.document_fromstring(body).iter() if isinstance(el.tag, str) for a in el.attrib}


def words(body: bytes) -> list[str]:
    doc = lxml.html.document_fromstring(body)
    for el in doc.xpath("//script|//style|//head"):
        el.drop_tree()
    return " ".join(doc.itertext()).split()


def test_asis_is_the_page_itself():
    assert restyle(PAGE, "asis") is PAGE


def test_sectioning_turns_landmarks_into_divs_and_drops_their_metadata():
    out = restyle(PAGE, "sectioning")
    assert not tags(out) & {"nav", "main", "article", "footer", "figure", "figcaption"}
    assert "p" in tags(out) and {"class", "id"} <= attrs(out)
    assert not attrs(out) & {"role", "itemscope", "itemtype"}
    assert b"ld+json" not in out and b"og:type" not in out


def test_brpara_unwraps_paragraphs_into_line_breaks_keeping_words_apart():
    out = restyle(PAGE, "brpara")
    assert "p" not in tags(out) and "br" in tags(out) and "article" in tags(out)
    assert words(out) == words(PAGE)  # no word glued to its neighbour ("lead" / "One", "tail" / "three")


def test_noattr_removes_class_and_id_only():
    out = restyle(PAGE, "noattr")
    assert not attrs(out) & {"class", "id"} and "role" in attrs(out)
    assert tags(out) == tags(PAGE)


def test_legacy_is_all_three_and_deterministic():
    out = restyle(PAGE, "legacy")
    assert not tags(out) & {"p", "nav", "article"} and not attrs(out) & {"class", "id", "role"}
    assert restyle(PAGE, "legacy") == out
    assert words(out) == words(PAGE)


def test_main_scores_every_style_and_prints_the_json_contract_last(tmp_path, capsys):
    (tmp_path / "html").mkdir()
    body = "".join(f"<p>Sentence {i} of the story tells the reader something new about rivers "
                   "and the towns along them.</p>" for i in range(8))
    html = (f"<html><head><title>T</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<article><h1>Story</h1>{body}</article><footer>Copyright 2020 Example</footer></body></html>")
    (tmp_path / "html" / "a1.html.gz").write_bytes(gzip.compress(html.encode()))
    gt = {"a1": {"articleBody": body.replace("<p>", "").replace("</p>", "\n"), "url": "https://example.org/a1"}}
    (tmp_path / "ground-truth.json").write_text(json.dumps(gt), "utf-8")
    assert main(["--data", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    figures = result["corpora"][tmp_path.name]
    assert sorted(figures) == sorted(STYLES)
    for style, out in figures.items():
        assert out["pages"] == 1 and out["dropped"] == 0, style
        assert out["convert_f1"] > 0.9, style
        assert set(out) >= {"trafilatura_f1", "difference", "collapsed"}
