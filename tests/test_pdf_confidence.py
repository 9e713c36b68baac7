"""PDF strategy, confidence and fail-loud extraction, through ``convert()`` (issue 14, item 4).

Every PDF is generated here (tests/pdfgen.py); the OCR'd ones render a born-digital page to a
bitmap first, so their words exist only as pixels. Tesseract tests skip when it is missing.
"""

from __future__ import annotations

import json
import shutil
import sys
import zlib
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]
import pdfgen  # noqa: E402

from gatecrawl.core.convert import convert, default_recipe  # noqa: E402
from gatecrawl.core.evidence import dumps  # noqa: E402
from gatecrawl.core.pdf import PdfLimits, read_pdf  # noqa: E402
from gatecrawl.core.pdf.confidence import (  # noqa: E402
    MIN_CONFIDENCE, assess, classify_token, page_confidence, text_signals,
)
from gatecrawl.core.pdf.textmetrics import strip_markdown, token_f1  # noqa: E402
from gatecrawl.core.recipes import RecipeError, load_recipe_text  # noqa: E402

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="tesseract not installed")
URL = "https://docs.example/report.pdf"


def _convert(data: bytes, recipe=None):
    return convert(data, URL, "application/pdf", recipe)


def _ocr_recipe(extra: str = ""):
    return load_recipe_text("[pdf]\nocr = true\ntimeout_s = 120\n" + extra, source="<t>",
                            default_name="t")


def _check_packet(r, packet_validator):
    assert not list(packet_validator.iter_errors(json.loads(dumps(r.evidence))))


# ---------------------------------------------------------------------------------------------
# defaults and recipe keys


def test_default_thresholds_are_pinned():
    assert MIN_CONFIDENCE == 0.75
    lim = PdfLimits()
    assert lim.min_confidence == 0.75 and lim.allow_partial is False and lim.ocr is False
    assert lim.min_text_page_share == 0.5
    assert default_recipe().pdf == {}  # the reader's defaults apply
    r = load_recipe_text("[pdf]\nallow_partial = true\nmin_confidence = 0.5\n", source="<t>",
                         default_name="t")
    assert r.pdf == {"allow_partial": True, "min_confidence": 0.5}
    with pytest.raises(RecipeError):
        load_recipe_text("[pdf]\nmin_confidence = 1.5\n", source="<t>", default_name="t")
    with pytest.raises(RecipeError):
        load_recipe_text("[pdf]\nallow_partial = 1\n", source="<t>", default_name="t")


# ---------------------------------------------------------------------------------------------
# pure signals


def test_token_classes():
    for w in ("The", "quick", "information", "naïve", "Straße", "McDonald", "l'été", "e.g.",
              "well-known", "Москва", "Αθήνα", "東京", "(word),"):
        assert classify_token(w) == 1, w
    for w in ("2026", "3.5%", "COVID-19", "asn1_create", "https://x.org/a", "—", "...", "a=b"):
        assert classify_token(w) == 0, w
    for w in ("ThÃ©", "â€™s", "qu\ue065ck", "a\ufffdb", "aBcDeF", "xkcdqwrtz", "wоrd",  # Cyrillic o
              "br§wn"):
        assert classify_token(w) == -1, w


def test_page_confidence_signals():
    clean = text_signals("The quick brown fox jumps over the lazy dog. " * 20)
    assert clean["word_share"] == 1.0 and clean["mojibake"] == 0
    assert page_confidence(700, 0.0, clean) == 1.0
    # font map errors alone never drop a page: at most -20%
    assert page_confidence(700, 0.0, clean, map_error_share=1.0) == 0.8 >= MIN_CONFIDENCE
    # bad characters: x4
    assert page_confidence(700, 0.1, clean) == 0.6
    moj = text_signals("ThÃ© qÃºÃ¯ck brÃ³wn fÃ³x jÃºmps Ã³vÃ©r thÃ© lÃ¡zy dÃ³g. " * 10)
    assert moj["mojibake"] > 100 and moj["word_share"] < 0.4
    assert page_confidence(600, 0.0, moj) == 0.0
    # tesseract's mean word confidence scales an OCR'd page
    assert page_confidence(700, 0.0, clean, ocr_mean_conf=90.0) == 0.9
    # too few tokens to judge word-likeness
    assert page_confidence(20, 0.0, text_signals("xkcdqwrtz")) == 1.0


def test_assess_strategy_and_weighting():
    def pg(n, method, conf=1.0, chars=1000):
        return {"page": n, "method": method, "confidence": conf, "chars": chars}

    doc = assess([pg(1, "text_layer"), pg(2, "blank", 0.0, 0), pg(3, "text_layer", 0.5, 1000)])
    assert doc["strategy"] == "text_layer" and doc["confidence"] == 0.75
    doc = assess([pg(1, "text_layer"), pg(2, "missing", 0.0, 3)])
    assert doc["strategy"] == "mixed" and doc["missing_pages"] == [2] and doc["confidence"] == 1.0
    assert doc["warnings"][0].startswith("missing_pages: 2")
    doc = assess([pg(1, "ocr", 0.9), pg(2, "ocr", 0.8)])
    assert doc["strategy"] == "ocr" and doc["ocr_pages"] == [1, 2] and doc["confidence"] == 0.85
    assert assess([pg(1, "missing", 0.0)])["confidence"] == 0.0


# ---------------------------------------------------------------------------------------------
# through convert(), default recipe


def test_clean_text_pdf_is_text_layer_and_kept(packet_validator):
    d = pdfgen.born_digital(31, sections=4, table=True)
    r = _convert(d.data)
    pdf = r.evidence["pdf"]
    assert r.ok and r.evidence["outcome"] == "kept", r.evidence["drop_reason"]
    assert pdf["strategy"] == "text_layer" and pdf["confidence"] >= 0.9
    assert pdf["warnings"] == [] and pdf["missing_pages"] == [] and pdf["ocr_pages"] == []
    assert {p["method"] for p in pdf["pages"]} == {"text_layer"}
    assert r.evidence["selection_rule"] == "pdf_text_layer"
    assert {p["method"] for p in r.evidence["sample_provenance"]} == {"text_layer"}
    _check_packet(r, packet_validator)


def test_mixed_pdf_is_dropped_partial_by_default(packet_validator):
    r = _convert(pdfgen.mixed(3, 1))
    pdf = r.evidence["pdf"]
    assert not r.ok and r.drop_reason == "pdf_partial" and r.markdown == ""
    assert pdf["strategy"] == "mixed" and pdf["confidence"] >= 0.9  # the text read is fine...
    assert pdf["missing_pages"] == [4]  # ...but page 4 would be missing
    assert [p["method"] for p in pdf["pages"]] == ["text_layer"] * 3 + ["missing"]
    assert "missing pages 4" in r.evidence["drop_detail"]
    _check_packet(r, packet_validator)
    kept = _convert(pdfgen.mixed(3, 1), load_recipe_text("[pdf]\nallow_partial = true\n",
                                                         source="<t>", default_name="t"))
    assert kept.ok and kept.evidence["pdf"]["missing_pages"] == [4]
    assert kept.evidence["pdf"]["strategy"] == "mixed"
    assert kept.evidence["selection_rule"] == "pdf_mixed"
    assert any(w.startswith("missing_pages: 4") for w in kept.evidence["pdf"]["warnings"])
    _check_packet(kept, packet_validator)


def test_scanned_pdf_is_dropped_needs_ocr_by_default(packet_validator):
    r = _convert(pdfgen.scanned(2))
    pdf = r.evidence["pdf"]
    assert not r.ok and r.drop_reason == "pdf_needs_ocr"
    assert pdf["strategy"] == "ocr" and pdf["confidence"] == 0.0
    assert pdf["missing_pages"] == [1, 2]
    _check_packet(r, packet_validator)


@pytest.mark.parametrize("kind", sorted(pdfgen.GARBLED_MAPS))
def test_garbled_text_layer_is_low_confidence(kind, packet_validator):
    d = pdfgen.born_digital(33, sections=3, garbled=kind)
    r = _convert(d.data)
    pdf = r.evidence["pdf"]
    assert not r.ok and r.drop_reason == "pdf_low_confidence" and r.markdown == ""
    assert pdf["strategy"] == "text_layer" and pdf["confidence"] < 0.75
    # the page passed the old per-page gate: only the confidence catches it
    assert not any(p["needs_ocr"] for p in pdf["pages"])
    det = r.evidence["validation_report"]["detail"]
    assert det["pdf_confidence"] == pdf["confidence"] and det["pdf_min_confidence"] == 0.75
    assert any(w.startswith("low_confidence_pages") for w in pdf["warnings"])
    _check_packet(r, packet_validator)
    # a lower threshold is the operator's call
    low = _convert(d.data, load_recipe_text("[pdf]\nmin_confidence = 0.0\n", source="<t>",
                                            default_name="t"))
    assert low.ok and low.evidence["pdf"]["confidence"] == pdf["confidence"]


def test_map_errors_alone_do_not_drop():
    # a font with made-up glyph names and no ToUnicode: PDFium flags every char, but the codes
    # happen to be ASCII and the text reads right: warned, kept
    w = pdfgen.PdfWriter()
    cat, tree = w.reserve(), w.reserve()
    diffs = b"[32 " + b" ".join(b"/g%d" % i for i in range(32, 127)) + b"]"
    font = w.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Sub /Encoding << /Type "
                 b"/Encoding /Differences " + diffs + b" >> >>")
    d = pdfgen.born_digital(34, sections=2)
    text = strip_markdown(read_pdf(d.data).markdown).split("\n")
    ops, y = [], 720.0
    for para in text:
        words = para.split()
        while words:
            line, words = words[:12], words[12:]
            ops.append(b"BT /F1 10 Tf 72 %.1f Td %s Tj ET" % (y, pdfgen._literal(" ".join(line))))
            y -= 13
            if y < 72:
                break
        if y < 72:
            break
    c = w.add(b"<< /Filter /FlateDecode >>", zlib.compress(b"\n".join(ops)))
    page = w.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font "
                 b"<< /F1 %d 0 R >> >> /Contents %d 0 R >>" % (tree, font, c))
    w.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    w.set(cat, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    r = read_pdf(w.serialize(cat))
    assert r.ok, r.detail
    assert r.pages[0]["unicode_map_error_share"] == 1.0
    assert 0.75 <= r.confidence <= 0.8
    assert any(w.startswith("font_unicode_map_error_pages: 1") for w in r.warnings)


# ---------------------------------------------------------------------------------------------
# OCR: pdf.ocr = true


def _page_pixels(source: bytes, index: int = 0, dpi: int = 200):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(source)
    try:
        page = doc[index]
        bitmap = page.render(scale=dpi / 72, grayscale=True)
        w, h, stride = bitmap.width, bitmap.height, bitmap.stride
        buf = bytes(bitmap.buffer)
        page.close()
    finally:
        doc.close()
    return w, h, b"".join(buf[i * stride: i * stride + w] for i in range(h))


def _image_page(source: bytes, index: int = 0) -> pdfgen.Page:
    w, h, px = _page_pixels(source, index)
    p = pdfgen.Page()
    p.image(w, h, px, 0, 0, pdfgen.PAGE_W, pdfgen.PAGE_H)
    return p


@pytest.fixture(scope="module")
def scan_source():
    return pdfgen.born_digital(35, sections=1, header=None, page_numbers=False)


@needs_tesseract
def test_ocr_pdf_strategy_ocr_and_kept(scan_source, packet_validator):
    # a metadata title: OCR lines carry no font size, so no heading can become the title
    data = pdfgen.build_pdf([_image_page(scan_source.data)], file_id=b"ocr-only",
                            title=scan_source.title)
    r = _convert(data)  # default recipe: OCR is off, fail closed
    assert not r.ok and r.drop_reason == "pdf_needs_ocr" and r.evidence["pdf"]["strategy"] == "ocr"
    r = _convert(data, _ocr_recipe())
    pdf = r.evidence["pdf"]
    assert r.ok, (r.drop_reason, r.evidence["drop_detail"])
    assert pdf["strategy"] == "ocr" and pdf["ocr_pages"] == [1]
    assert 0.75 <= pdf["confidence"] <= pdf["pages"][0]["ocr_mean_conf"] / 100
    assert pdf["pages"][0]["method"] == "ocr"
    assert r.evidence["selection_rule"] == "pdf_ocr"
    assert {p["method"] for p in r.evidence["sample_provenance"]} == {"ocr"}
    assert any(w.startswith("ocr_pages: 1") for w in pdf["warnings"])
    words = scan_source.source_text.split()
    got = strip_markdown(r.markdown)
    assert token_f1(got, " ".join(words[: len(got.split())])) >= 0.8
    _check_packet(r, packet_validator)


@needs_tesseract
def test_mixed_pdf_with_ocr_reads_every_page(scan_source, packet_validator):
    import pypdfium2 as pdfium

    src = pdfgen.born_digital(36, sections=2, header=None, page_numbers=False)
    n_text = len(pdfium.PdfDocument(src.data))
    # the text pages of one document, then a scanned page of another
    data = _append_scanned(src.data, _image_page(scan_source.data))
    r = _convert(data)
    assert not r.ok and r.drop_reason == "pdf_partial"
    assert r.evidence["pdf"]["missing_pages"] == [n_text + 1]
    r = _convert(data, _ocr_recipe())
    pdf = r.evidence["pdf"]
    assert r.ok, (r.drop_reason, r.evidence["drop_detail"])
    assert pdf["strategy"] == "mixed" and pdf["missing_pages"] == []
    assert pdf["ocr_pages"] == [n_text + 1] and pdf["confidence"] >= 0.75
    assert [p["method"] for p in pdf["pages"]] == ["text_layer"] * n_text + ["ocr"]
    assert r.evidence["selection_rule"] == "pdf_mixed"
    assert scan_source.title.split()[0] in r.markdown  # the scanned page's words are in
    _check_packet(r, packet_validator)


@needs_tesseract
def test_garbled_text_layer_is_repaired_by_ocr():
    d = pdfgen.born_digital(37, sections=1, header=None, page_numbers=False, garbled="mojibake")
    r = _convert(d.data, _ocr_recipe())
    pdf = r.evidence["pdf"]
    assert r.ok, (r.drop_reason, r.evidence["drop_detail"])
    assert pdf["strategy"] == "ocr" and pdf["confidence"] >= 0.75
    assert "Ã" not in r.markdown


def _append_scanned(doc: bytes, page: pdfgen.Page) -> bytes:
    """``doc``'s pages followed by ``page`` (an image-only page), via pypdf (tests only)."""
    import io

    from pypdf import PdfReader, PdfWriter

    extra = PdfReader(io.BytesIO(pdfgen.build_pdf([page], file_id=b"scan-page")))
    w = PdfWriter(clone_from=PdfReader(io.BytesIO(doc)))
    w.add_page(extra.pages[0])
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def test_table_of_contents_dot_leaders_are_not_a_junk_layer():
    from gatecrawl.core.pdf.layout import page_quality

    toc = "".join(f"{i} Section {w} " + ". " * 30 + f"{i * 3}\n"
                  for i, w in enumerate(["one", "two", "three", "four", "five", "six"], 1))
    q = page_quality(toc, 0.0)
    assert not q["needs_ocr"] and q["unique_word_ratio"] > 0.08
    assert page_quality("aaa " * 100, 0.0)["needs_ocr"]  # one word repeated still is
