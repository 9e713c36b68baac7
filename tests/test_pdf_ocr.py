"""OCR of scanned pages with Debian's tesseract (installed by `make`), when the recipe enables it.

The scanned PDF is made here: a born-digital page rendered by PDFium to a grayscale bitmap and
wrapped, as the only content, in a new PDF, so the words exist only as pixels.
"""

from __future__ import annotations

import shutil
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pdfgen  # noqa: E402

from gatecrawl.core.pdf import PdfLimits, read_pdf  # noqa: E402
from gatecrawl.core.pdf.textmetrics import strip_markdown, token_f1  # noqa: E402
from gatecrawl.demo.site import assemble_pdf  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract not installed")


def image_only_pdf(source: bytes, dpi: int = 200) -> bytes:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(source)
    try:
        page = doc[0]
        bitmap = page.render(scale=dpi / 72, grayscale=True)
        w, h, stride = bitmap.width, bitmap.height, bitmap.stride
        buf = bytes(bitmap.buffer)
        rows = b"".join(buf[i * stride : i * stride + w] for i in range(h))
        page.close()
    finally:
        doc.close()
    img = zlib.compress(rows, 6)
    content = b"q 612 0 0 792 0 0 cm /Im0 Do Q"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (w, h, len(img)) + img + b"\nendstream",
    ]
    return assemble_pdf(objs, root=1)


def test_scanned_page_is_ocred_when_enabled():
    src = pdfgen.born_digital(91, sections=1, header=None, page_numbers=False)
    scanned = image_only_pdf(src.data)
    off = read_pdf(scanned)
    assert not off.ok and off.reason == "pdf_needs_ocr"  # fail closed unless the recipe asks
    on = read_pdf(scanned, limits=PdfLimits(ocr=True, timeout_s=60))
    assert on.ok, (on.reason, on.detail)
    first_page_words = " ".join(src.source_text.split()[: len(strip_markdown(on.markdown).split())])
    assert token_f1(strip_markdown(on.markdown), first_page_words) >= 0.8


def test_ocr_words_are_gated_by_confidence():
    from gatecrawl.core.pdf.extract import gate_ocr_words

    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"

    def row(block, par, line, word, conf, text):
        return f"5\t1\t{block}\t{par}\t{line}\t{word}\t0\t0\t1\t1\t{conf}\t{text}\n"

    good = head + row(1, 1, 1, 1, 96, "Clean") + row(1, 1, 1, 2, 91, "words") + row(1, 1, 2, 1, 88, "here") + row(1, 2, 1, 1, 95, "Next") + row(1, 2, 1, 2, 30, "g#rb")
    assert gate_ocr_words(good) == "Clean words\nhere\n\nNext"
    noisy = head + "".join(row(1, 1, 1, i, 35, f"w{i}") for i in range(10)) + row(1, 1, 1, 11, 95, "ok")
    assert gate_ocr_words(noisy) is None  # most words unsure: the page stays needs_ocr
    assert gate_ocr_words(head) is None
