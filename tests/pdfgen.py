"""Deterministic PDF test corpus, written byte by byte (no PDF library, no binary blobs).

Every generator returns bytes that are a pure function of its arguments, so the tests and the
benchmark build the same files on every machine. The writer covers what the reader tests need:

* born-digital text in the standard 14 fonts (Helvetica / Helvetica-Bold, WinAnsi, ASCII text),
  headings by font size, paragraphs wrapped to a column width with real line-end hyphenation,
  one or two columns, a table (one text object per cell), a running header and page numbers;
* image-only ("scanned") pages: a Flate-compressed DeviceGray image and no text layer;
* the standard security handler, revision 3 (RC4, 128-bit): user password and owner-only;
* hostile files: truncated, garbage header, bad xref offsets.

``GenDoc.source_text`` is the text a perfect reader recovers: title, headings, paragraph text with
hyphenated words whole, table cells; never the running header, footer or page numbers.
"""

from __future__ import annotations

import hashlib
import random
import struct
import zlib
from dataclasses import dataclass, field

PAGE_W, PAGE_H = 612.0, 792.0  # US Letter, points
MARGIN = 72.0

# Helvetica advance widths (1/1000 em), ASCII 32..126, from the standard AFM.
_HELV = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]


def text_width(text: str, size: float, bold: bool = False) -> float:
    w = sum(_HELV[ord(c) - 32] if 32 <= ord(c) < 127 else 600 for c in text)
    return w * size / 1000.0 * (1.08 if bold else 1.0)  # bold is a little wider; over-estimate


# ---------------------------------------------------------------------------------------------
# Low-level writer


def _pdf_string(raw: bytes) -> bytes:
    return b"<" + raw.hex().upper().encode() + b">"


def _literal(text: str) -> bytes:
    s = text.encode("cp1252")
    return b"(" + s.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 0xFF
        s[i], s[j] = s[j], s[i]
    out = bytearray(len(data))
    i = j = 0
    for n, byte in enumerate(data):
        i = (i + 1) & 0xFF
        j = (j + s[i]) & 0xFF
        s[i], s[j] = s[j], s[i]
        out[n] = byte ^ s[(s[i] + s[j]) & 0xFF]
    return bytes(out)


_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


@dataclass
class _Security:
    """Standard security handler, V2 / R3, 128-bit RC4 (PDF 1.4), algorithms 2, 3 and 5."""

    user_password: str
    owner_password: str
    file_id: bytes
    permissions: int = -3904  # print/copy bits cleared; pdfium still reads text with the key

    def __post_init__(self) -> None:
        n = 16
        upw = (self.user_password.encode("latin-1") + _PAD)[:32]
        opw = (self.owner_password.encode("latin-1") + _PAD)[:32]
        digest = hashlib.md5(opw).digest()
        for _ in range(50):
            digest = hashlib.md5(digest[:n]).digest()
        okey = digest[:n]
        o = _rc4(okey, upw)
        for i in range(1, 20):
            o = _rc4(bytes(b ^ i for b in okey), o)
        self.o = o
        h = hashlib.md5(upw + o + struct.pack("<i", self.permissions) + self.file_id).digest()
        for _ in range(50):
            h = hashlib.md5(h[:n]).digest()
        self.key = h[:n]
        u = _rc4(self.key, hashlib.md5(_PAD + self.file_id).digest())
        for i in range(1, 20):
            u = _rc4(bytes(b ^ i for b in self.key), u)
        self.u = u + bytes(16)

    def object_key(self, num: int, gen: int = 0) -> bytes:
        k = hashlib.md5(self.key + num.to_bytes(3, "little") + gen.to_bytes(2, "little")).digest()
        return k[: min(len(self.key) + 5, 16)]

    def dict_bytes(self) -> bytes:
        return (
            b"<< /Filter /Standard /V 2 /R 3 /Length 128 /P %d /O %s /U %s >>"
            % (self.permissions, _pdf_string(self.o), _pdf_string(self.u))
        )


class PdfWriter:
    """Collects numbered objects and serialises them with a classic xref table."""

    def __init__(self) -> None:
        self._objs: list[tuple[bytes, bytes | None]] = []

    def reserve(self) -> int:
        self._objs.append((b"null", None))
        return len(self._objs)

    def set(self, num: int, head: bytes, stream: bytes | None = None) -> None:
        self._objs[num - 1] = (head, stream)

    def add(self, head: bytes, stream: bytes | None = None) -> int:
        num = self.reserve()
        self.set(num, head, stream)
        return num

    def serialize(
        self,
        root: int,
        info: dict[str, str] | None = None,
        user_password: str | None = None,
        owner_password: str | None = None,
        file_id: bytes = b"gatecrawl-test-0",
    ) -> bytes:
        file_id = hashlib.md5(file_id).digest()
        sec = None
        if user_password is not None or owner_password is not None:
            sec = _Security(user_password or "", owner_password or user_password or "", file_id)
        objs = list(self._objs)
        info_num = None
        if info:
            items = []
            for k, v in sorted(info.items()):
                raw = v.encode("latin-1")
                if sec is not None:
                    raw = _rc4(sec.object_key(len(objs) + 1), raw)
                items.append(b"/%s %s" % (k.encode(), _pdf_string(raw)))
            objs.append((b"<< " + b" ".join(items) + b" >>", None))
            info_num = len(objs)
        enc_num = None
        if sec is not None:
            objs.append((sec.dict_bytes(), None))
            enc_num = len(objs)
        out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for num, (head, stream) in enumerate(objs, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % num
            if stream is None:
                out += head + b"\nendobj\n"
                continue
            if sec is not None and num != enc_num:
                stream = _rc4(sec.object_key(num), stream)
            out += head[:-2].rstrip() + b" /Length %d >>\nstream\n" % len(stream)
            out += stream + b"\nendstream\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
        for off in offsets:
            out += b"%010d 00000 n \n" % off
        trailer = b"/Size %d /Root %d 0 R" % (len(objs) + 1, root)
        if info_num:
            trailer += b" /Info %d 0 R" % info_num
        if enc_num:
            trailer += b" /Encrypt %d 0 R" % enc_num
        trailer += b" /ID [%s %s]" % (_pdf_string(file_id), _pdf_string(file_id))
        out += b"trailer\n<< " + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
        return bytes(out)


# ---------------------------------------------------------------------------------------------
# Page model


@dataclass
class Page:
    ops: list[bytes] = field(default_factory=list)
    images: list[tuple[int, int, bytes]] = field(default_factory=list)  # (w, h, gray pixels)

    def text(self, x: float, y: float, text: str, size: float, bold: bool = False) -> None:
        font = b"/F2" if bold else b"/F1"
        self.ops.append(
            b"BT %s %.2f Tf %.2f %.2f Td %s Tj ET" % (font, size, x, y, _literal(text))
        )

    def image(self, w: int, h: int, pixels: bytes, x: float, y: float, dw: float, dh: float):
        self.images.append((w, h, pixels))
        name = b"/Im%d" % len(self.images)
        self.ops.append(b"q %.2f 0 0 %.2f %.2f %.2f cm %s Do Q" % (dw, dh, x, y, name))


def tounicode_cmap(mapping: dict[str, str]) -> bytes:
    """A ToUnicode CMap that maps each single-byte code (given as its WinAnsi character) to the
    Unicode string given; codes not listed keep their encoding's meaning."""
    entries = [
        b"<%02X> <%s>" % (k.encode("cp1252")[0], v.encode("utf-16-be").hex().upper().encode())
        for k, v in sorted(mapping.items())
    ]
    return (
        b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        b"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        b"1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
        + b"%d beginbfchar\n" % len(entries) + b"\n".join(entries) + b"\nendbfchar\n"
        b"endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    )


# Broken ToUnicode maps, as seen in the wild: text that renders right but extracts as garbage.
GARBLED_MAPS = {
    # UTF-8 bytes of accented vowels read back as cp1252 ("Ã©")
    "mojibake": {"a": "\u00c3\u00a1", "e": "\u00c3\u00a9", "i": "\u00c3\u00af",
                 "o": "\u00c3\u00b3", "u": "\u00c3\u00ba"},
    # a few frequent letters mapped into the private use area (about 15% of the characters)
    "private_use": {"e": "\ue065", "t": "\ue074", "o": "\ue06f"},
}


def build_pdf(
    pages: list[Page],
    *,
    title: str | None = None,
    user_password: str | None = None,
    owner_password: str | None = None,
    file_id: bytes = b"gatecrawl-test-0",
    tounicode: dict[str, str] | None = None,
) -> bytes:
    w = PdfWriter()
    catalog = w.reserve()
    tree = w.reserve()
    extra = b""
    if tounicode:
        extra = b" /ToUnicode %d 0 R" % w.add(b"<< >>", tounicode_cmap(tounicode))
    f1 = w.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding"
               + extra + b" >>")
    f2 = w.add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding"
        + extra + b" >>"
    )
    kids = []
    for page in pages:
        content = zlib.compress(b"\n".join(page.ops) + b"\n", 6)
        cnum = w.add(b"<< /Filter /FlateDecode >>", content)
        xobjs = []
        for i, (iw, ih, px) in enumerate(page.images, start=1):
            inum = w.add(
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /FlateDecode >>" % (iw, ih),
                zlib.compress(px, 6),
            )
            xobjs.append(b"/Im%d %d 0 R" % (i, inum))
        res = b"<< /Font << /F1 %d 0 R /F2 %d 0 R >>" % (f1, f2)
        if xobjs:
            res += b" /XObject << " + b" ".join(xobjs) + b" >>"
        res += b" >>"
        kids.append(
            w.add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>"
                % (tree, PAGE_W, PAGE_H, res, cnum)
            )
        )
    w.set(
        tree,
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)),
    )
    w.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    info = {"Producer": "gatecrawl pdfgen"}
    if title:
        info["Title"] = title
    return w.serialize(
        catalog, info, user_password=user_password, owner_password=owner_password, file_id=file_id
    )


# ---------------------------------------------------------------------------------------------
# Deterministic prose

_ONSETS = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "tr", "st", "pr", "gr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io"]
_CODAS = ["", "", "n", "r", "s", "l", "nt", "st", "m"]


def vocabulary(seed: int = 7, size: int = 1500) -> list[str]:
    rng = random.Random(seed)
    words: set[str] = set()
    out: list[str] = []
    while len(out) < size:
        n = rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5])
        w = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(n))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


def sentence(rng: random.Random, vocab: list[str]) -> str:
    n = rng.randint(6, 18)
    ws = [rng.choice(vocab) for _ in range(n)]
    if rng.random() < 0.3:
        ws.insert(rng.randint(1, n - 1), str(rng.randint(2, 2030)))
    ws[0] = ws[0].capitalize()
    if rng.random() < 0.25:
        k = rng.randint(1, len(ws) - 2)
        ws[k] = ws[k] + ","
    return " ".join(ws) + rng.choice([".", ".", ".", "?"])


def paragraph(rng: random.Random, vocab: list[str], sentences: tuple[int, int] = (3, 7)) -> str:
    return " ".join(sentence(rng, vocab) for _ in range(rng.randint(*sentences)))


# ---------------------------------------------------------------------------------------------
# Layout


@dataclass
class GenDoc:
    data: bytes
    source_text: str
    title: str
    headings: list[str]
    hyphenated: list[str]  # words that were split across a line end with a hyphen
    header_text: str | None
    page_count: int
    table: list[list[str]] | None = None


BODY, LEAD, PARA_GAP = 10.0, 13.0, 7.0
H_SIZES = {1: 18.0, 2: 14.0, 3: 12.0}


class _Flow:
    def __init__(self, columns: int, header: str | None, page_numbers: bool):
        self.columns = columns
        self.header = header
        self.page_numbers = page_numbers
        self.pages: list[Page] = []
        self.hyphenated: list[str] = []
        gap = 24.0
        self.col_w = (PAGE_W - 2 * MARGIN - gap * (columns - 1)) / columns
        self.col_x = [MARGIN + i * (self.col_w + gap) for i in range(columns)]
        self._new_page()

    def _new_page(self) -> None:
        p = Page()
        n = len(self.pages) + 1
        if self.header:
            p.text(MARGIN, PAGE_H - 42, self.header, 8.5)
        if self.page_numbers:
            label = f"Page {n}"
            p.text(PAGE_W / 2 - text_width(label, 8.5) / 2, 36, label, 8.5)
        self.pages.append(p)
        self.col = 0
        self.y = PAGE_H - MARGIN  # baseline of the next line sits below this

    def _need(self, h: float) -> None:
        if self.y - h < MARGIN:
            if self.col + 1 < self.columns:
                self.col += 1
                self.y = PAGE_H - MARGIN
            else:
                self._new_page()

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def heading(self, text: str, size: float, full_width: bool = False) -> None:
        self.y -= size * 0.6
        self._need(size * 1.3 + LEAD * 3)  # keep with the next lines
        self.y -= size * 1.05
        x = MARGIN if full_width else self.col_x[self.col]
        self.page.text(x, self.y, text, size, bold=True)
        self.y -= size * 0.45

    def paragraph(self, text: str, hyphenate: bool = True) -> None:
        width = self.col_w
        words = text.split()
        line: list[str] = []
        lines: list[str] = []
        i = 0
        fragment = -1  # index of a word already split once: never split it again
        while i < len(words):
            w = words[i]
            cand = " ".join(line + [w])
            if text_width(cand, BODY) <= width:
                line.append(w)
                i += 1
                continue
            # try to hyphenate a long alphabetic word
            if hyphenate and i != fragment and len(w) >= 8 and w.isalpha() and line:
                for cut in range(len(w) - 3, 3, -1):
                    head = w[:cut] + "-"
                    if text_width(" ".join(line + [head]), BODY) <= width:
                        lines.append(" ".join(line + [head]))
                        self.hyphenated.append(w)
                        words[i] = w[cut:]
                        fragment = i
                        line = []
                        break
                else:
                    lines.append(" ".join(line))
                    line = []
                continue
            if not line:  # a single word wider than the column: let it overflow
                line.append(w)
                i += 1
                continue
            lines.append(" ".join(line))
            line = []
        if line:
            lines.append(" ".join(line))
        for ln in lines:
            self._need(LEAD)
            self.y -= LEAD
            self.page.text(self.col_x[self.col], self.y, ln, BODY)
        self.y -= PARA_GAP

    def table(self, rows: list[list[str]]) -> None:
        ncol = len(rows[0])
        cw = self.col_w / ncol
        self.y -= 4
        self._need(LEAD * min(len(rows), 4))
        for r, row in enumerate(rows):
            self._need(LEAD + 2)
            self.y -= LEAD + 2
            for c, cell in enumerate(row):
                self.page.text(self.col_x[self.col] + c * cw, self.y, cell, BODY, bold=(r == 0))
        self.y -= PARA_GAP + 4


def born_digital(
    seed: int = 1,
    *,
    sections: int = 4,
    paragraphs: tuple[int, int] = (2, 4),
    columns: int = 1,
    header: str | None = "Journal of Synthetic Studies - Volume 12",
    page_numbers: bool = True,
    table: bool = False,
    subsections: bool = True,
    metadata_title: bool = True,
    min_pages: int = 0,
    file_id: bytes | None = None,
    user_password: str | None = None,
    owner_password: str | None = None,
    garbled: str | None = None,
) -> GenDoc:
    """An article: title, sections (and subsections) of wrapped paragraphs, optional table.

    ``garbled`` (a key of :data:`GARBLED_MAPS`) gives both fonts a broken ToUnicode map: the page
    shows the text, its text layer does not (``source_text`` stays the shown text)."""
    rng = random.Random(seed)
    vocab = vocabulary()
    title = " ".join(w.capitalize() for w in rng.sample(vocab, 4))
    flow = _Flow(columns, header, page_numbers)
    src: list[str] = []
    headings: list[str] = []
    flow.heading(title, 20.0, full_width=True)
    src.append(title)
    tbl = None
    s = 0
    while s < sections or len(flow.pages) < min_pages:
        s += 1
        h = f"{s} " + " ".join(w.capitalize() for w in rng.sample(vocab, rng.randint(1, 3)))
        flow.heading(h, H_SIZES[2])
        src.append(h)
        headings.append(h)
        for k in range(rng.randint(*paragraphs)):
            if subsections and k == 1:
                sh = f"{s}.1 " + " ".join(w.capitalize() for w in rng.sample(vocab, 2))
                flow.heading(sh, H_SIZES[3])
                src.append(sh)
                headings.append(sh)
            p = paragraph(rng, vocab)
            flow.paragraph(p)
            src.append(p)
        if table and s == 1:
            tbl = [["Item", "Count", "Share"]] + [
                [rng.choice(vocab), str(rng.randint(1, 999)), f"{rng.randint(1, 99)}%"]
                for _ in range(4)
            ]
            flow.table(tbl)
            src.extend(" ".join(r) for r in tbl)
    data = build_pdf(
        flow.pages,
        title=title if metadata_title else None,
        user_password=user_password,
        owner_password=owner_password,
        file_id=file_id or b"born-%d" % seed,
        tounicode=GARBLED_MAPS[garbled] if garbled else None,
    )
    return GenDoc(
        data=data,
        source_text="\n".join(src),
        title=title,
        headings=headings,
        hyphenated=flow.hyphenated,
        header_text=header,
        page_count=len(flow.pages),
        table=tbl,
    )


def scan_page(seed: int) -> Page:
    """An image-only page: grey 'lines of text' blobs drawn into a bitmap; no text layer."""
    rng = random.Random(seed)
    w, h = 306, 396
    px = bytearray(b"\xff" * (w * h))
    y = 30
    while y < h - 40:
        x = 30
        while x < w - 40:
            ww = rng.randint(8, 30)
            for yy in range(y, y + 7):
                px[yy * w + x : yy * w + min(x + ww, w - 30)] = b"\x20" * (min(x + ww, w - 30) - x)
            x += ww + 5
        y += 13
    p = Page()
    p.image(w, h, bytes(px), 0, 0, PAGE_W, PAGE_H)
    return p


def scanned(pages: int = 3, seed: int = 5) -> bytes:
    return build_pdf([scan_page(seed + i) for i in range(pages)], file_id=b"scan-%d" % seed)


def mixed(text_pages: int, scan_pages: int, seed: int = 9) -> bytes:
    """Text pages first, then scanned pages (one paragraph per text page)."""
    rng = random.Random(seed)
    vocab = vocabulary()
    out: list[Page] = []
    for i in range(text_pages):
        flow = _Flow(1, None, False)
        flow.heading(f"Part {i + 1}", 14.0)
        flow.paragraph(paragraph(rng, vocab, (8, 10)))
        out.extend(flow.pages)
    out.extend(scan_page(seed + i) for i in range(scan_pages))
    return build_pdf(out, file_id=b"mixed-%d-%d" % (text_pages, scan_pages))


def many_pages(n: int, seed: int = 3) -> bytes:
    """n pages, each with a heading-free paragraph; cheap to generate."""
    rng = random.Random(seed)
    vocab = vocabulary()
    pages = []
    for i in range(n):
        p = Page()
        y = PAGE_H - MARGIN
        for _ in range(4):
            y -= LEAD
            p.text(MARGIN, y, " ".join(rng.choice(vocab) for _ in range(9)) + ".", BODY)
        pages.append(p)
    return build_pdf(pages, file_id=b"many-%d" % n)


def blank(pages: int = 1) -> bytes:
    return build_pdf([Page() for _ in range(pages)], file_id=b"blank")


# ---------------------------------------------------------------------------------------------
# Hostile files


def truncated(doc: bytes, keep: float = 0.4) -> bytes:
    return doc[: int(len(doc) * keep)]


def garbage_header(seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b"GARBAGE!" + bytes(rng.randrange(256) for _ in range(4000))


def bad_xref(doc: bytes) -> bytes:
    """Every xref offset points at the wrong byte; startxref points nowhere. PDFium may repair."""
    head, sep, tail = doc.rpartition(b"xref\n")
    lines = tail.split(b"\n")
    out = []
    for ln in lines:
        if len(ln) == 19 and ln.endswith(b" n ") and ln[:10].isdigit():
            ln = b"%010d" % (int(ln[:10]) + 7) + ln[10:]
        out.append(ln)
    body = head + sep + b"\n".join(out)
    return body.replace(b"startxref\n", b"startxref\n9").rstrip(b"\n") + b"\n"


def broken_objects(doc: bytes) -> bytes:
    """Header intact, every object body overwritten with junk."""
    out = bytearray(doc)
    i = out.find(b" obj\n")
    while i != -1:
        for k in range(i + 5, min(i + 60, len(out))):
            out[k] = 0x7E
        i = out.find(b" obj\n", i + 60)
    return bytes(out)
