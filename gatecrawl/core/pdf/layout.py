"""Pure layout stage: per-page text lines (from the worker's PDFium pass) -> deterministic Markdown.

No PDFium and no I/O here, so every rule is testable with hand-made lines. The rules, in order:

1. Text-layer quality gate per page (:func:`page_quality`): non-space characters, share of bad
   characters (U+FFFD, private use, C0/C1 controls), unique-word ratio. A page is *blank* when it
   has almost no text and no large image (it counts for nothing); it *needs OCR* when it has little
   text and a large image, or its text is mostly bad characters or one word repeated.
2. Running headers and footers: among the two top-most and two bottom-most lines of each page, a
   line whose text (digits folded to ``#``) recurs at the same height on >= 40% of the pages (and on
   at least 2) is dropped everywhere, unless it is heading-sized; a lone page number (``7``, ``Page 7``, ``7 of 9``, ``vii``)
   in the top-most / bottom-most line is always dropped.
3. Headings by font size: the body size is the size carrying most characters; a line >= 1.15x the
   body size is a heading; distinct heading sizes rank to levels 1..6 (largest first). A short,
   bold, body-size line that stands alone (no terminal punctuation) is a heading one level below
   the smallest size-level.
4. Paragraphs: consecutive lines of one size join until a vertical gap larger than 1.35x the
   document's usual line pitch, a size change, a short last line ending a sentence, a bullet, or
   a column/page change after a sentence end. Line-end hyphens are repaired (``infor-``/``mation``
   -> ``information`` when the continuation starts lower-case); PDFium's own hyphen marker U+FFFE
   is removed the same way.
5. Tables: consecutive lines split into >= 2 cells by wide gaps (cell split from PDFium's text
   rectangles) with the same cell count become a Markdown table (first row = header).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

MIN_PAGE_CHARS = 16  # below this a page has no usable text layer
OCR_TEXT_CHARS = 200  # a page with a large image and fewer chars than this needs OCR
BAD_SHARE_MAX = 0.25
REPEAT_RATIO_MIN = 0.08  # unique words / words (with >= 40 words) below this: junk text layer
HEADING_RATIO = 1.15
PROVENANCE_PARAGRAPHS = 5

_LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ",
    "\t": " ", "\u00ad": "\ufffe", "\x02": "\ufffe",
}
_LIG_RE = re.compile("[" + "".join(_LIGATURES) + "]")
_WS_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"\w+")
_WORD_TOKEN_RE = re.compile(r"\S*\w\S*")  # whitespace-separated tokens with a letter or digit
_PAGE_NO_RE = re.compile(
    r"^[\W_]*(?:(?:page|p\.|pg\.?|seite|pagina|página)\s*)?"
    r"(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/|von|de|sur)\s*\d{1,4})?[\W_]*$",
    re.IGNORECASE,
)
_BULLET_RE = re.compile(r"^[\u2022\u25cf\u25e6\u25aa\u25a0\u2023\u2043\u2219\u00b7\u2013\u2014*-]\s+")
_TERMINAL = tuple(".!?:;\"'\u201d\u2019)]")
_MD_ESCAPE_RE = re.compile(r"([\\`*_\[\]<>|])")
_MD_BLOCK_START_RE = re.compile(r"^(#{1,6}(?=\s|$)|[-+=](?=\s|$)|>|(\d{1,9})([.)])(?=\s|$))")


class Line:
    """One text line of a page as the worker measured it (PDF user space, y grows upwards)."""

    __slots__ = (
        "text", "start", "end", "size", "bold", "x0", "x1", "top", "bottom", "base0", "base1",
        "cells", "page", "skey",
    )

    def __init__(self, text, start, end, size, bold, x0, x1, top, bottom, base0, base1,
                 cells=None, page=0):
        self.text = text  # cleaned: ligatures expanded, whitespace collapsed, U+FFFE kept
        self.start, self.end = start, end  # char range in the page's text
        self.size, self.bold = size, bold
        self.x0, self.x1, self.top, self.bottom = x0, x1, top, bottom
        self.base0, self.base1 = base0, base1  # baseline of the first and of the last char
        self.cells = cells
        self.page = page
        self.skey = round(size * 2) / 2  # size bucket (0.5 pt) for comparisons

    def to_list(self) -> list:
        return [self.text, self.start, self.end, self.size, self.bold, self.x0, self.x1,
                self.top, self.bottom, self.base0, self.base1, self.cells, self.page]

    @classmethod
    def from_list(cls, v: list) -> Line:
        return cls(*v)


def clean_text(s: str) -> str:
    if _LIG_RE.search(s):
        s = _LIG_RE.sub(lambda m: _LIGATURES[m.group(0)], s)
    if "\ufffe " in s:
        s = s.replace("\ufffe ", "\ufffe")
    return " ".join(s.split())


# U+FFFD, private use (BMP and planes 15/16), C0/C1 controls that are not whitespace
_BAD_RE = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")


def _is_bad(ch: str) -> bool:
    o = ord(ch)
    if o == 0xFFFD or 0xE000 <= o <= 0xF8FF or o >= 0xF0000:
        return True
    return unicodedata.category(ch) == "Cc"


def page_quality(text: str, image_cover: float) -> dict:
    """Quality signals of one page's text layer. ``text`` is PDFium's page text."""
    body = text.replace("\ufffe", "").replace("\x02", "")
    chars = len("".join(body.split()))
    bad = len(_BAD_RE.findall(body)) if chars else 0
    words = body.lower().split()
    uwr = len(set(words)) / len(words) if words else 0.0
    if len(words) >= 40 and uwr < REPEAT_RATIO_MIN:
        # only tokens with a letter or digit: dot leaders (a table of contents) are not words
        words = _WORD_TOKEN_RE.findall(body.lower())
        uwr = len(set(words)) / len(words) if words else 0.0
    bad_share = bad / chars if chars else 0.0
    blank = chars < MIN_PAGE_CHARS and image_cover < 0.02
    needs_ocr = not blank and (
        chars < MIN_PAGE_CHARS
        or (image_cover >= 0.5 and chars < OCR_TEXT_CHARS)
        or bad_share > BAD_SHARE_MAX
        or (len(words) >= 40 and uwr < REPEAT_RATIO_MIN)
    )
    return {
        "chars": chars,
        "bad_char_share": round(bad_share, 4),
        "unique_word_ratio": round(uwr, 4),
        "needs_ocr": needs_ocr,
        "blank": blank,
    }


# ---------------------------------------------------------------------------------------------
# running headers / footers


def _fold(ln: Line) -> tuple[str, int]:
    # text with digits folded, and the line's height on the page in 6 pt steps: furniture sits
    # at the same place on every page
    return re.sub(r"\d+", "#", ln.text.lower()).strip(), round(ln.base0 / 6)


def remove_running(pages: list[list[Line]], k: int = 2) -> list[list[Line]]:
    """Drop running headers/footers and page numbers; returns new per-page line lists."""
    cand: list[set[int]] = []
    counts: Counter[tuple[str, int]] = Counter()
    for lines in pages:
        order = sorted(range(len(lines)), key=lambda i: (-lines[i].base0, i))
        c = set(order[:k]) | set(order[-k:])
        cand.append(c)
        for key in {_fold(lines[i]) for i in c}:
            counts[key] += 1
    n = sum(1 for lines in pages if lines)
    need = max(2, -(-n * 2 // 5))  # ceil(0.4 n)
    # heading-sized lines ("Part 3" atop every page) are content, never running furniture
    big = _body_size([ln for lines in pages for ln in lines]) * HEADING_RATIO
    out = []
    for lines, c in zip(pages, cand):
        order = sorted(range(len(lines)), key=lambda i: (-lines[i].base0, i))
        edge = {order[0], order[-1]} if order else set()
        drop = set()
        for i in c:
            t = lines[i].text
            if lines[i].skey >= big:
                continue
            if n >= 2 and counts[_fold(lines[i])] >= need and len(t) <= 200:
                drop.add(i)
            elif i in edge and _PAGE_NO_RE.match(t) and len(lines) > 1:
                drop.add(i)
        out.append([ln for i, ln in enumerate(lines) if i not in drop])
    return out


# ---------------------------------------------------------------------------------------------
# blocks


def _body_size(lines: list[Line]) -> float:
    c: Counter[float] = Counter()
    for ln in lines:
        c[ln.skey] += len(ln.text)
    if not c:
        return 10.0
    return max(c.items(), key=lambda kv: (kv[1], -kv[0]))[0]


def _pitch(lines: list[Line], body: float) -> float:
    c: Counter[float] = Counter()
    for a, b in zip(lines, lines[1:]):
        if a.page == b.page and a.skey == body == b.skey:
            d = a.base1 - b.base0
            if 0.8 * body <= d <= 3.0 * body:
                c[round(d * 2) / 2] += 1
    if not c:
        return body * 1.2
    return max(c.items(), key=lambda kv: (kv[1], -kv[0]))[0]


class Block:
    __slots__ = ("kind", "lines", "level", "left", "widest")

    def __init__(self, kind: str, lines: list[Line], level: int = 0):
        self.kind, self.lines, self.level = kind, lines, level
        self.left = min(ln.x0 for ln in lines)
        self.widest = max(ln.x1 for ln in lines)

    def add(self, ln: Line) -> None:
        self.lines.append(ln)
        if ln.x0 < self.left:
            self.left = ln.x0
        if ln.x1 > self.widest:
            self.widest = ln.x1


def _ends_sentence(text: str) -> bool:
    t = text.rstrip()
    return t.endswith(_TERMINAL)


def segment(lines: list[Line]) -> tuple[list[Block], float]:
    body = _body_size(lines)
    pitch = _pitch(lines, body)
    blocks: list[Block] = []
    cur: Block | None = None
    for ln in lines:
        sk = ln.skey
        is_head = sk >= body * HEADING_RATIO and len(ln.text) <= 200
        kind = "heading" if is_head else ("row" if ln.cells else "para")
        bullet = bool(_BULLET_RE.match(ln.text)) and kind == "para"
        new = True
        if cur is not None and not bullet:
            prev = cur.lines[-1]
            same_size = abs(prev.size - ln.size) <= 0.1 * max(prev.size, ln.size)
            same_flow = prev.page == ln.page and ln.base0 < prev.base1 - 0.3 * ln.size
            gap = prev.base1 - ln.base0 if same_flow else 0.0
            if cur.kind != kind or not same_size:
                new = True
            elif kind == "row":
                new = not same_flow or gap > pitch * 1.6 or len(ln.cells) != len(prev.cells)
            elif kind == "heading":
                new = not same_flow or gap > ln.size * 1.6 or prev.skey != sk
            elif same_flow:
                short_end = prev.x1 < cur.widest - 3 * ln.size and _ends_sentence(prev.text)
                indent = (ln.x0 > cur.left + ln.size and _ends_sentence(prev.text)
                          and len(cur.lines) > 1)
                new = gap > pitch * 1.35 or short_end or indent or prev.bold != ln.bold and (
                    prev.bold and not _ends_sentence(prev.text))
            else:  # column or page change inside the running text
                new = _ends_sentence(prev.text)
        if new:
            cur = Block("list" if bullet else kind, [ln])
            blocks.append(cur)
        else:
            cur.add(ln)
    return blocks, body


def _join(lines: list[Line]) -> str:
    out = ""
    for ln in lines:
        t = ln.text
        if not out:
            out = t
            continue
        if out.endswith("\ufffe"):
            out = out[:-1] + t
        elif (
            out.endswith("-") and len(out) >= 2 and out[-2].isalpha()
            and t[:1].islower()
        ):
            out = out[:-1] + t
        else:
            out = out + " " + t
    return out.replace("\ufffe", "")


def _escape(text: str) -> str:
    text = _MD_ESCAPE_RE.sub(r"\\\1", text)
    m = _MD_BLOCK_START_RE.match(text)
    if m:
        if m.group(2):
            text = m.group(2) + "\\" + text[len(m.group(2)):]
        else:
            text = "\\" + text
    return text


def _table_md(rows: list[list[str]]) -> str:
    n = max(len(r) for r in rows)
    esc = [[_escape(c) for c in r] + [""] * (n - len(r)) for r in rows]
    out = ["| " + " | ".join(esc[0]) + " |", "|" + " --- |" * n]
    out += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(out)


def _good_meta_title(t: str | None) -> str | None:
    if not t:
        return None
    t = clean_text(t).replace("\ufffe", "")
    low = t.lower()
    if (
        len(t) < 3 or len(t) > 300 or low in {"untitled", "title", "document", "microsoft word"}
        or re.search(r"\.(docx?|pdf|indd|tex|dvi|rtf|odt|pptx?|xlsx?)$", low)
        or low.startswith(("microsoft word - ", "untitled"))
        or sum(1 for c in t if _is_bad(c)) > 0
    ):
        return None
    return t


def render(pages: list[list[Line]], meta_title: str | None) -> tuple[str, str | None, list[dict]]:
    """Lines of all pages (headers/footers already removed) -> (markdown, title, provenance)."""
    lines = [ln for p in pages for ln in p if ln.text.replace("\ufffe", "").strip()]
    if not lines:
        return "", _good_meta_title(meta_title), []
    blocks, body = segment(lines)
    # rows that do not form a table of >= 2 rows fall back to paragraphs
    for b in blocks:
        if b.kind == "row" and len(b.lines) < 2:
            b.kind = "para"
    head_sizes = sorted({b.lines[0].skey for b in blocks if b.kind == "heading"},
                        reverse=True)
    level_of = {s: min(i + 1, 6) for i, s in enumerate(head_sizes)}
    bold_level = min(len(head_sizes) + 1, 6)
    for b in blocks:
        if b.kind == "heading":
            b.level = level_of[b.lines[0].skey]
        elif (
            b.kind == "para" and len(b.lines) == 1 and b.lines[0].bold
            and len(b.lines[0].text) <= 100 and not _ends_sentence(b.lines[0].text)
            and not b.lines[0].text.endswith(",")
        ):
            b.kind, b.level = "heading", bold_level
    title = _good_meta_title(meta_title)
    if title is None:
        first_page = lines[0].page
        big = [b for b in blocks if b.kind == "heading" and b.lines[0].page == first_page]
        if big:
            top = max(b.lines[0].skey for b in big)
            title = next(_join(b.lines) for b in big if b.lines[0].skey == top)
    md: list[str] = []
    prov: list[dict] = []
    paras = 0
    for b in blocks:
        if b.kind == "heading":
            text = _join(b.lines)
            out = "#" * b.level + " " + _escape(text)
        elif b.kind == "row":
            out = _table_md([[clean_text(c).replace("\ufffe", "") for c in ln.cells]
                             for ln in b.lines])
            text = " ".join(" ".join(ln.cells) for ln in b.lines)
        elif b.kind == "list":
            text = _BULLET_RE.sub("", _join(b.lines), count=1)
            out = "- " + _escape(text)
        else:
            text = _join(b.lines)
            out = _escape(text)
        if not text.strip():
            continue
        md.append(out)
        if b.kind == "heading" or paras < PROVENANCE_PARAGRAPHS:
            if b.kind != "heading":
                paras += 1
            first = b.lines[0]
            on_page = [ln for ln in b.lines if ln.page == first.page]
            prov.append({
                "markdown_span": out.split("\n", 1)[0][:200],
                "page": first.page,
                "char_start": first.start,
                "char_end": max(ln.end for ln in on_page),
                "text_preview": _join(on_page)[:80],
            })
    markdown = "\n\n".join(md)
    return (markdown + "\n" if markdown else ""), title, prov
