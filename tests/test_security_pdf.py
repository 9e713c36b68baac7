"""PDF reliability matrix: T22 (hostile corpus) and T23 (isolation and concurrency)."""

from __future__ import annotations

import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pdfgen  # noqa: E402

from gatecrawl.core.pdf import PdfLimits, read_pdf  # noqa: E402
from gatecrawl.demo.site import assemble_pdf  # noqa: E402

TYPED = {"pdf_parse_failed", "pdf_encrypted", "pdf_timeout", "pdf_limits_exceeded", "pdf_worker_crashed", "pdf_needs_ocr", "pdf_partial", "pdf_low_confidence"}


def _raw_pdf(objects: list[bytes]) -> bytes:
    return assemble_pdf(objects, root=1)


def flate_bomb(expanded_mb: int = 400) -> bytes:
    """A one-page PDF whose content stream inflates to hundreds of MB (nested in a page)."""
    comp = zlib.compressobj(9)
    chunk = b"0 0 m\n" * (1024 * 1024 // 6)
    data = b"".join(comp.compress(chunk) for _ in range(expanded_mb)) + comp.flush()
    return _raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
    ])


def many_images(n: int = 100_000) -> bytes:
    """A page drawing one tiny image n times: a pathological page for renderers and parsers."""
    ops = b"".join(b"q 1 0 0 1 %d %d cm /Im0 Do Q\n" % (i % 600, (i // 600) % 780) for i in range(n))
    content = zlib.compress(ops, 9)
    img = zlib.compress(b"\x80\x80\x80", 9)
    return _raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length %d /Filter /FlateDecode >>\nstream\n" % len(img) + img + b"\nendstream",
    ])


def aes256(data: bytes, user_password: str) -> bytes:
    """Re-encrypt a PDF with AES-256 (PDF 2.0 security handler, R6) using pypdf (tests only)."""
    import io

    from pypdf import PdfReader, PdfWriter

    w = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    w.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, make",
    [
        ("truncated", lambda: pdfgen.truncated(pdfgen.born_digital(71).data)),
        ("garbage_header", pdfgen.garbage_header),
        ("bad_xref", lambda: pdfgen.bad_xref(pdfgen.born_digital(72).data)),
        ("rc4_user_password", lambda: pdfgen.born_digital(73, user_password="pw", owner_password="o").data),
        ("owner_password_only", lambda: pdfgen.born_digital(74, owner_password="o").data),
        ("aes256_user_password", lambda: aes256(pdfgen.born_digital(78).data, "pw")),
        ("aes256_owner_only", lambda: aes256(pdfgen.born_digital(79).data, "")),
        ("flate_bomb", flate_bomb),
        ("100k_image_objects", many_images),
        ("10000_pages", lambda: pdfgen.many_pages(10_000)),
    ],
)
def test_t22_hostile_pdf_corpus(name, make):
    data = make()
    budget = 20.0
    t0 = time.monotonic()
    r = read_pdf(data, limits=PdfLimits(timeout_s=budget, max_memory_mb=512))
    elapsed = time.monotonic() - t0
    assert elapsed < budget + 5, (name, elapsed)
    if r.ok:
        # Only the repairable or readable files may succeed, and never with empty text.
        assert name in ("bad_xref", "owner_password_only", "aes256_owner_only"), (name, r.reason)
        assert r.markdown.strip()
    else:
        assert r.reason in TYPED, (name, r.reason)
        assert r.markdown == ""
    if name == "10000_pages":
        assert r.reason == "pdf_limits_exceeded"
    if name in ("rc4_user_password", "aes256_user_password"):
        assert r.reason == "pdf_encrypted"
    if name == "aes256_owner_only":
        assert r.ok
    # The caller survived and the pool still works.
    ok = read_pdf(pdfgen.born_digital(75, sections=1).data)
    assert ok.ok


@pytest.mark.slow
def test_t23_isolation_and_concurrency():
    crashed = read_pdf(pdfgen.born_digital(76, sections=1).data, _test_fault="segv")
    assert crashed.reason == "pdf_worker_crashed"
    docs = [pdfgen.born_digital(80 + i, sections=2).data for i in range(8)]
    serial = [read_pdf(d).to_dict() for d in docs]
    with ThreadPoolExecutor(max_workers=8) as ex:
        parallel = list(ex.map(lambda d: read_pdf(d).to_dict(), docs))
    for a, b in zip(serial, parallel):
        a.pop("elapsed_ms"), b.pop("elapsed_ms")
        assert a == b
