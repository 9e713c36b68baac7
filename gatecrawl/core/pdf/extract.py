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

from gatecrawl.core.pdf.confidence import MIN_CONFIDENCE, assess, page_confidence, text_signals
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


def _ocr_page(page, timeout: float) -> tuple[str, dict] | None:
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
        return ocr_words(p.stdout.decode("utf-8", "replace"))


OCR_MIN_WORD_CONF = 60.0    # words tesseract is less sure of are dropped
OCR_MIN_MEAN_CONF = 70.0    # a page whose kept words average below this stays needs_ocr
OCR_MIN_KEPT_SHARE = 0.6    # ... and so does one where most words were dropped


def gate_ocr_words(tsv: str) -> str | None:
    """Per-word confidence gating of tesseract's TSV output (see :func:`ocr_words`): the text, or
    None when the page is refused."""
    got = ocr_words(tsv)
    return None if got is None else got[0]


def ocr_words(tsv: str) -> tuple[str, dict] | None:
    """Per-word confidence gating of tesseract's TSV output: keep words with confidence
    >= OCR_MIN_WORD_CONF, rebuild lines and paragraphs, and refuse the page (None) when the
    kept words are too few or too unsure: a bad OCR must fail closed, not pass as text.
    Also returns the page's OCR signals: ``mean_conf`` over all words (dropped ones too),
    ``words`` and ``kept``."""
    rows = [r.split("\t") for r in tsv.splitlines()[1:]]
    words = [r for r in rows if len(r) >= 12 and r[0] == "5" and r[11].strip()]
    if not words:
        return None
    kept = []
    confs = []
    for r in words:
        try:
            conf = float(r[10])
        except ValueError:
            continue
        confs.append(max(conf, 0.0))
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
    stats = {"mean_conf": round(sum(confs) / len(confs), 2) if confs else 0.0,
             "words": len(words), "kept": len(kept)}
    return "".join(out), stats


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


_TOKEN_CLASSES: dict[str, int] = {}


def _map_error_share(tp, lines: list[Line]) -> float:
    """Share of sampled characters (first and last of every k-th line, about 20 lines) whose font
    gives PDFium no Unicode mapping: the text may be glyph codes, not what the page shows."""
    n = errs = 0
    for ln in lines[::-(-len(lines) // 20) or 1]:
        for idx in (ln.start, ln.end - 1):
            if idx >= 0:
                n += 1
                errs += R.FPDFText_HasUnicodeMapError(tp, idx) == 1
    return round(errs / n, 4) if n else 0.0


def _ocr(pdf, i: int, deadline: float, clock, cache: dict):
    """OCR page i: (lines, quality, signals, confidence, ocr stats) or None when refused."""
    helper = pdf[i]
    try:
        got = _ocr_page(helper, deadline - clock())
        height = helper.get_height()
    finally:
        helper.close()
    if got is None:
        return None
    otext, stats = got
    q = page_quality(otext, 0.0)
    if q["needs_ocr"] or q["blank"]:
        return None
    sig = text_signals(otext, cache)
    conf = page_confidence(q["chars"], q["bad_char_share"], sig, 0.0, stats["mean_conf"])
    return _ocr_lines(otext, i + 1, height), q, sig, conf, stats


def read_document(data: bytes, job: dict, deadline: float, clock) -> dict:
    """The whole per-document pass; returns the result dict (without elapsed_ms)."""
    min_conf = float(job.get("min_confidence", MIN_CONFIDENCE))
    pdf = open_document(data)
    cache = _TOKEN_CLASSES  # classify_token is pure: the cache spans documents
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
        records: list[dict] = []
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
                    map_err = _map_error_share(tp, lines)
                finally:
                    R.FPDFText_ClosePage(tp)
                cover = 0.0
                if len(text) < 400:
                    w, h = R.FPDF_GetPageWidthF(page), R.FPDF_GetPageHeightF(page)
                    cover = _image_cover(page, w, h)
                q = page_quality(text, cover)
                sig = text_signals(text, cache)
                conf = 0.0 if q["needs_ocr"] or q["blank"] else page_confidence(
                    q["chars"], q["bad_char_share"], sig, map_err)
                method = "blank" if q["blank"] else "missing" if q["needs_ocr"] else "text_layer"
                ocr_stats = None
                # OCR a page without a usable text layer, or one whose text layer is not trusted
                # (broken font maps); an OCR that is refused or no better leaves the page as it was
                if job.get("ocr") and (q["needs_ocr"] or (method == "text_layer"
                                                          and conf < min_conf)):
                    got = _ocr(pdf, i, deadline, clock, cache)
                    if got is not None and (q["needs_ocr"] or got[3] > conf):
                        lines, q, sig, conf, ocr_stats = got
                        map_err = 0.0
                        method = "ocr"
            finally:
                R.FPDF_ClosePage(page)
            if method not in ("text_layer", "ocr"):
                lines = []
            per_page.append(lines)
            records.append({
                "page": i + 1, "chars": q["chars"], "bad_char_share": q["bad_char_share"],
                "unique_word_ratio": q["unique_word_ratio"], "needs_ocr": method == "missing",
                "method": method, "confidence": conf, "word_share": sig["word_share"],
                "word_tokens": sig["word_tokens"], "mojibake": sig["mojibake"],
                "unicode_map_error_share": map_err,
                "ocr_mean_conf": None if ocr_stats is None else ocr_stats["mean_conf"],
            })
    finally:
        pdf.close()
    doc = assess(records)
    needs = doc["missing_pages"]
    considered = [r for r in records if r["method"] != "blank"]
    usable = [r for r in considered if r["method"] in ("text_layer", "ocr")]
    base = {"page_count": n_pages, "pages": records, "needs_ocr_pages": needs,
            "strategy": doc["strategy"], "confidence": doc["confidence"],
            "warnings": doc["warnings"], "missing_pages": needs, "ocr_pages": doc["ocr_pages"]}
    if not considered:
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": "no text layer on any page"}
    share = len(usable) / len(considered)
    if share < job["min_text_page_share"]:
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": f"usable text on {len(usable)} of {len(considered)} pages; "
                          f"needs OCR: {_page_list(needs)}"}
    if needs and not job.get("allow_partial"):
        why = "OCR refused them" if job.get("ocr") else "OCR is off"
        return {**base, "ok": False, "reason": "pdf_partial",
                "detail": f"missing pages {_page_list(needs)} (of {n_pages}): no usable text "
                          f"layer and {why}; pdf.allow_partial keeps the rest"}
    markdown, title, prov = render(remove_running(per_page), meta_title)
    if not markdown.strip():
        return {**base, "ok": False, "reason": "pdf_needs_ocr",
                "detail": "no text left after layout"}
    if doc["confidence"] < min_conf:
        low = [r["page"] for r in records if r["method"] in ("text_layer", "ocr")
               and r["confidence"] < min_conf]
        return {**base, "ok": False, "reason": "pdf_low_confidence",
                "detail": f"confidence {doc['confidence']:.4f} < pdf.min_confidence "
                          f"{min_conf:g}; low pages: {_page_list(low)}"}
    methods = {r["page"]: r["method"] for r in records}
    for p in prov:
        p["method"] = methods.get(p["page"], "text_layer")
    return {**base, "ok": True, "reason": None, "detail": "", "markdown": markdown,
            "title": title, "provenance": prov}


def _page_list(pages: list[int]) -> str:
    s = ",".join(str(p) for p in pages[:40])
    return s + (",..." if len(pages) > 40 else "")
