"""Worker-side PDFium pass: document -> per-page lines and quality, then layout -> result dict.

Runs only inside the isolated worker process (see ``worker.py``). One PDFium call per line feature
(font size, text rectangles, two baselines, font flags for short lines) keeps the cost per page
close to PDFium's own text extraction; per-char calls happen only for table-like lines.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import tempfile

import pypdfium2 as pdfium
import pypdfium2.raw as R

from gatecrawl.core.pdf.layout import Line, clean_text, page_quality, remove_running, render

_FORCE_BOLD = 1 << 18
_CRLF = "\r\n".encode("utf-16-le")
_BOLD_NAME = re.compile(rb"bold|black|heavy|demi|[-,]bd\b", re.I)
_SENTENCE_END = tuple(".!?;,")
_SPECIAL_RE = re.compile("[\ufb00-\ufb06\u00a0\u2002\u2003\u2009\t\u00ad\x02\ufffe]")


class DocError(Exception):
    def __init__(self, reason: str, detail: str, page_count: int = 0):
        super().__init__(detail)
        self.reason, self.detail, self.page_count = reason, detail, page_count


def open_document(data: bytes):
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        code = getattr(e, "err_code", None)
        if code == R.FPDF_ERR_PASSWORD:
            raise DocError("pdf_encrypted", "password required") from None
        if code == R.FPDF_ERR_SECURITY:
            raise DocError("pdf_encrypted", "unsupported security handler") from None
        name = {R.FPDF_ERR_FORMAT: "bad format", R.FPDF_ERR_FILE: "file error",
                R.FPDF_ERR_PAGE: "page error"}.get(code, "unknown error")
        raise DocError("pdf_parse_failed", f"PDFium could not load the file ({name})") from None


def _image_cover(page, width: float, height: float) -> float:
    """Share of the page area covered by image objects (first two nesting levels)."""
    area = max(width * height, 1.0)
    total = 0.0
    l, b, r, t = (ctypes.c_float() for _ in range(4))
    stack = [(R.FPDFPage_CountObjects(page), lambda i: R.FPDFPage_GetObject(page, i), 0)]
    seen = 0
    while stack and seen < 5000:
        count, get, depth = stack.pop()
        for i in range(min(count, 5000)):
            seen += 1
            obj = get(i)
            kind = R.FPDFPageObj_GetType(obj)
            if kind == R.FPDF_PAGEOBJ_IMAGE:
                if R.FPDFPageObj_GetBounds(obj, l, b, r, t):
                    w = min(r.value, width) - max(l.value, 0.0)
                    h = min(t.value, height) - max(b.value, 0.0)
                    if w > 0 and h > 0:
                        total += w * h
            elif kind == R.FPDF_PAGEOBJ_FORM and depth < 1:
                stack.append((R.FPDFFormObj_CountObjects(obj),
                              (lambda o: lambda j: R.FPDFFormObj_GetObject(o, j))(obj), depth + 1))
    return min(total / area, 1.0)


def _cells(tp, seg: str, cs: int, rects: list, size: float) -> list[str] | None:
    """Split a one-row line at wide gaps (table cells). ``cs``: char index of seg[0]."""
    rects = sorted(rects)
    if not any(b[0] - a[2] > 1.5 * size for a, b in zip(rects, rects[1:])):
        return None
    box = [ctypes.c_double() for _ in range(4)]
    cells, last = [], 0
    for off, ch in enumerate(seg):
        if ch == " " and 0 < off < len(seg) - 1 and R.FPDFText_IsGenerated(tp, cs + off) == 1:
            R.FPDFText_GetCharBox(tp, cs + off - 1, *box)
            right = box[1].value
            R.FPDFText_GetCharBox(tp, cs + off + 1, *box)
            if box[0].value - right > 1.5 * size:
                cells.append(seg[last:off])
                last = off + 1
    cells.append(seg[last:])
    cells = [clean_text(c) for c in cells]
    return cells if len(cells) >= 2 and all(cells) else None


def page_lines(tp, page_no: int) -> tuple[str, list[Line]]:
    """PDFium's page text plus measured lines. Char ranges index PDFium's char list."""
    n = R.FPDFText_CountChars(tp)
    if n <= 0:
        return "", []
    buf = (ctypes.c_ushort * (n + 1))()
    got = R.FPDFText_GetText(tp, 0, n, buf) - 1
    raw = ctypes.string_at(buf, 2 * max(got, 0))
    text = raw.decode("utf-16-le", "replace")
    aligned = got == n and len(text) == n  # text index == char index (no surrogates/inserts)
    if not aligned:  # decode line by line from the UTF-16 units, map indexes through PDFium
        segs, pos = [], 0
        while pos < len(raw):
            nxt = raw.find(_CRLF, pos)
            while nxt != -1 and nxt % 2:
                nxt = raw.find(_CRLF, nxt + 1)
            end = len(raw) if nxt == -1 else nxt
            seg = raw[pos:end].decode("utf-16-le", "replace")
            cs = R.FPDFText_GetCharIndexFromTextIndex(tp, pos // 2)
            ce = R.FPDFText_GetCharIndexFromTextIndex(tp, end // 2 - 1) + 1
            if seg.strip() and 0 <= cs < ce:
                segs.append((seg, cs, ce))
            pos = end + 4 if nxt != -1 else len(raw)
    else:
        segs, pos = [], 0
        for seg in text.split("\r\n"):
            if seg and not seg.isspace():
                segs.append((seg, pos, pos + len(seg)))
            pos += len(seg) + 2
    lines: list[Line] = []
    x, y = ctypes.c_double(), ctypes.c_double()
    rl, rt, rr, rb = (ctypes.c_double() for _ in range(4))
    fbuf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    GetFontSize, CountRects, GetRect = (R.FPDFText_GetFontSize, R.FPDFText_CountRects,
                                        R.FPDFText_GetRect)
    GetCharOrigin = R.FPDFText_GetCharOrigin
    special = _SPECIAL_RE.search(text) is not None  # ligatures, soft hyphens, odd spaces
    for seg, cs, ce in segs:
        lead = len(seg) - len(seg.lstrip())
        stripped = seg.strip()
        first = cs + lead
        last = first + len(stripped) - 1
        size = GetFontSize(tp, first)
        GetCharOrigin(tp, first, x, y)
        x0, base0 = x.value, y.value
        GetCharOrigin(tp, last, x, y)
        xl, base1 = x.value, y.value
        x1 = xl + 0.5 * size  # right edge, roughly: the last glyph's origin plus half an em
        cells = None
        # A line far wider than its characters explain has wide gaps (table cells, columns):
        # only then ask PDFium for its text rectangles and split it.
        if (aligned and abs(base1 - base0) < 0.5 * size and size > 0
                and xl - x0 > 0.75 * size * len(stripped) and len(stripped) > 2):
            nr = CountRects(tp, cs, ce - cs)
            rects = []
            for k in range(max(nr, 0)):
                if GetRect(tp, k, rl, rt, rr, rb):
                    rects.append((rl.value, rt.value, rr.value, rb.value))
            if len(rects) >= 2:
                cells = _cells(tp, seg, cs, rects, size)
        bold = False
        if len(stripped) <= 120 and not stripped.endswith(_SENTENCE_END):
            # only a short line without a sentence end can become a bold heading
            R.FPDFText_GetFontInfo(tp, first, fbuf, 128, flags)
            bold = bool(flags.value & _FORCE_BOLD or _BOLD_NAME.search(fbuf.value)) or (
                R.FPDFText_GetFontWeight(tp, first) >= 600)
        clean = clean_text(stripped) if special else " ".join(stripped.split())
        lines.append(Line(clean, cs, ce, size, bold, x0, x1, base0 + size,
                          base1, base0, base1, cells, page_no))
    return text, lines


def _ocr_page(page, timeout: float) -> str | None:
    exe = shutil.which("tesseract")
    if exe is None or timeout <= 1:
        return None
    bitmap = page.render(scale=300 / 72, grayscale=True)
    try:
        w, h, stride = bitmap.width, bitmap.height, bitmap.stride
        buf = bytes(bitmap.buffer)
        bpp = stride // w if w else 1
        if bpp == 1:
            rows = b"".join(buf[i * stride:i * stride + w] for i in range(h))
        else:  # BGRx: take one channel
            rows = b"".join(buf[i * stride:i * stride + w * bpp][::bpp] for i in range(h))
    finally:
        bitmap.close()
    with tempfile.TemporaryDirectory(prefix="gatecrawl-ocr-") as d:
        path = os.path.join(d, "page.pgm")
        with open(path, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (w, h) + rows)
        try:
            p = subprocess.run([exe, path, "stdout", "tsv"], capture_output=True, timeout=timeout,
                               check=False)
        except subprocess.TimeoutExpired:
            return None
        if p.returncode != 0:
            return None
        return gate_ocr_words(p.stdout.decode("utf-8", "replace"))


OCR_MIN_WORD_CONF = 60.0    # words tesseract is less sure of are dropped
OCR_MIN_MEAN_CONF = 70.0    # a page whose kept words average below this stays needs_ocr
OCR_MIN_KEPT_SHARE = 0.6    # ... and so does one where most words were dropped


def gate_ocr_words(tsv: str) -> str | None:
    """Per-word confidence gating of tesseract's TSV output: keep words with confidence
    >= OCR_MIN_WORD_CONF, rebuild lines and paragraphs, and refuse the page (None) when the
    kept words are too few or too unsure: a bad OCR must fail closed, not pass as text."""
    rows = [r.split("\t") for r in tsv.splitlines()[1:]]
    words = [r for r in rows if len(r) >= 12 and r[0] == "5" and r[11].strip()]
    if not words:
        return None
    kept = []
    for r in words:
        try:
            conf = float(r[10])
        except ValueError:
            continue
        if conf >= OCR_MIN_WORD_CONF:
            kept.append(((int(r[2]), int(r[3]), int(r[4])), conf, r[11].strip()))
    if not kept or len(kept) / len(words) < OCR_MIN_KEPT_SHARE:
        return None
    if sum(c for _, c, _ in kept) / len(kept) < OCR_MIN_MEAN_CONF:
        return None
    out: list[str] = []
    prev: tuple[int, int, int] | None = None
    for (block, par, line), _conf, text in kept:
        if prev is None:
            out.append(text)
        elif (block, par) != prev[:2]:
            out.append("\n\n" + text)
        elif line != prev[2]:
            out.append("\n" + text)
        else:
            out.append(" " + text)
        prev = (block, par, line)
    return "".join(out)


def _ocr_lines(text: str, page_no: int, height: float) -> list[Line]:
    out, y = [], height - 72.0
    for ln in text.splitlines():
        t = clean_text(ln)
        if t:
            out.append(Line(t, 0, 0, 10.0, False, 72.0, 540.0, y + 10, y, y, y, None, page_no))
            y -= 13.0
        else:
            y -= 13.0  # blank OCR line keeps the paragraph gap
    return out


def read_document(data: bytes, job: dict, deadline: float, clock) -> dict:
    """The whole per-document pass; returns the result dict (without elapsed_ms)."""
    pdf = open_document(data)
    try:
        n_pages = len(pdf)
        if n_pages > job["max_pages"]:
            raise DocError("pdf_limits_exceeded",
                           f"{n_pages} pages exceed the cap of {job['max_pages']}", n_pages)
        if n_pages == 0:
            raise DocError("pdf_parse_failed", "document has no pages")
        try:
            meta_title = pdf.get_metadata_value("Title")
        except Exception:  # noqa: BLE001 - metadata is optional
            meta_title = None
        per_page: list[list[Line]] = []
        quality: list[dict] = []
        for i in range(n_pages):
            page = R.FPDF_LoadPage(pdf, i)
            if not page:
                raise DocError("pdf_parse_failed", f"page {i + 1} could not be loaded")
            try:
                tp = R.FPDFText_LoadPage(page)
                if not tp:
                    raise DocError("pdf_parse_failed", f"page {i + 1}: no text page")
                try:
                    text, lines = page_lines(tp, i + 1)
                finally:
                    R.FPDFText_ClosePage(tp)
                cover = 0.0
                if len(text) < 400:
                    w, h = R.FPDF_GetPageWidthF(page), R.FPDF_GetPageHeightF(page)
                    cover = _image_cover(page, w, h)
                q = page_quality(text, cover)
                if q["needs_ocr"] and job.get("ocr"):
                    helper = pdf[i]
                    try:
                        otext = _ocr_page(helper, deadline - clock())
                        height = helper.get_height()
                    finally:
                        helper.close()
                    if otext is not None:
                        q2 = page_quality(otext, 0.0)
                        if not q2["needs_ocr"] and not q2["blank"]:
                            q = q2
                            q["ocr"] = True
                            lines = _ocr_lines(otext, i + 1, height)
            finally:
                R.FPDF_ClosePage(page)
            if q["needs_ocr"]:
                lines = []
            per_page.append(lines)
            quality.append(q)
    finally:
        pdf.close()
    pages_out = [
        {"page": i + 1, "chars": q["chars"], "bad_char_share": q["bad_char_share"],
         "unique_word_ratio": q["unique_word_ratio"], "needs_ocr": q["needs_ocr"]}
        for i, q in enumerate(quality)
    ]
    needs = [i + 1 for i, q in enumerate(quality) if q["needs_ocr"]]
    considered = [q for q in quality if not q["blank"]]
    usable = [q for q in considered if not q["needs_ocr"]]
    base = {"page_count": n_pages, "pages": pages_out, "needs_ocr_pages": needs}
    if not considered:
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": "no text layer on any page"}
    share = len(usable) / len(considered)
    if share < job["min_text_page_share"]:
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": f"usable text on {len(usable)} of {len(considered)} pages; "
                          f"needs OCR: {_page_list(needs)}"}
    markdown, title, prov = render(remove_running(per_page), meta_title)
    if not markdown.strip():
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": "no text left after layout"}
    return {**base, "ok": True, "reason": None, "detail": "", "markdown": markdown,
            "title": title, "provenance": prov}


def _page_list(pages: list[int]) -> str:
    s = ",".join(str(p) for p in pages[:40])
    return s + (",..." if len(pages) > 40 else "")
