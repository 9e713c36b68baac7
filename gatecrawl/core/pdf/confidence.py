"""Pure confidence stage: per-page text signals -> page confidence -> document strategy and confidence.

No PDFium and no I/O here (the worker measures, this module judges), so every rule is testable
with hand-made strings.

Per page, in 0..1, as a product (each signal can veto on its own):

* ``q_bad``: ``1 - 4 * bad_share`` where *bad* counts U+FFFD, private-use and control characters
  (from :func:`layout.page_quality`) plus mojibake pairs (``Ã©``, ``â€™``: UTF-8 read as cp1252);
* ``q_word``: share of tokens that look like words (:func:`word_share`), mapped so that
  >= ``WORD_SHARE_FULL`` gives 1 and <= ``WORD_SHARE_ZERO`` gives 0;
* ``q_font``: ``1 - 0.2 * map_error_share`` where *map errors* are sampled characters whose font
  gives PDFium no Unicode mapping (``FPDFText_HasUnicodeMapError``); alone it never drops a page;
* an OCR'd page multiplies in tesseract's mean word confidence (all words, dropped ones too) / 100.

The document confidence is the character-weighted mean over the pages whose text is in the
Markdown. Strategy: ``text_layer`` (every non-blank page had a usable text layer), ``ocr`` (none
had), ``mixed`` (some had). Per page, ``method`` is ``text_layer``, ``ocr``, ``missing`` (needs
OCR and was not OCR'd: its text is not in the Markdown) or ``blank``.
"""

from __future__ import annotations

import re
import unicodedata

MIN_CONFIDENCE = 0.75  # recipe pdf.min_confidence: documents below are pdf_low_confidence
WORD_SHARE_FULL = 0.85  # word share at or above this: q_word = 1
WORD_SHARE_ZERO = 0.4  # word share at or below this: q_word = 0
MIN_TOKENS = 8  # fewer classified tokens than this: no word evidence, q_word = 1
MAP_ERROR_WEIGHT = 0.2
BAD_WEIGHT = 4.0

_BAD_RE = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0e-\x1b\x7f-\x9f]")
# UTF-8 bytes of Latin-1/punctuation read back as cp1252 or Latin-1
_MOJIBAKE_RE = re.compile("[\u00c2\u00c3][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
                          "\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122]|\u00e2\u20ac")
_EDGE_RE = re.compile(r"^[^\w]+|[^\w]+$")
_SPLIT_RE = re.compile(r"['\u2019\-./&]")
_CODE_RE = re.compile(r"[_@#:/\\=<>{}\[\]()|~^*+$%]")
_VOWELS = frozenset("aeiouy")
_EDGE_PUNCT = "\"'()[]{}.,;:!?\u2018\u2019\u201c\u201d"
_HAS_VOWEL = re.compile("[aeiouy]")
_CONSONANTS8 = re.compile("[^aeiouy]{8}")
SAMPLE_TOKENS = 200  # tokens classified per page (every k-th): word share is a share


def _script(ch: str) -> str:
    try:
        return unicodedata.name(ch).split(" ", 1)[0]
    except ValueError:
        return "?"


def _base_latin(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s.lower()) if "a" <= c <= "z")


def classify_token(tok: str) -> int:
    """1: looks like a word; 0: neutral (numbers, codes, identifiers, punctuation); -1: junk
    (the signature of a broken text layer: bad characters, mojibake, symbols or mixed scripts
    inside a word, random case, a long Latin run with no vowel)."""
    plain = tok.strip(_EDGE_PUNCT)
    if plain.isascii() and plain.isalpha():  # fast path: most tokens of most documents
        if not (plain.islower() or plain.isupper() or plain[1:].islower()):
            if sum(1 for a, b in zip(plain, plain[1:]) if a.islower() and b.isupper()) > 1:
                return -1
        low = plain.lower()
        if len(low) >= 5 and not _HAS_VOWEL.search(low) or _CONSONANTS8.search(low):
            return -1
        return 1
    if _BAD_RE.search(tok) or _MOJIBAKE_RE.search(tok):
        return -1
    core = _EDGE_RE.sub("", tok)
    if not core or any(c.isdigit() for c in core) or _CODE_RE.search(core):
        return 0
    parts = [p for p in _SPLIT_RE.split(core) if p]
    if not parts:
        return 0
    if core.isascii():
        for p in parts:
            if not p.isalpha():
                return -1
            ups = sum(1 for a, b in zip(p, p[1:]) if a.islower() and b.isupper())
            if ups > 1:
                return -1
            low = p.lower()
            if len(low) >= 5 and not (_VOWELS & set(low)):
                return -1
            if _CONSONANTS8.search(low):
                return -1
        return 1
    scripts = set()
    for p in parts:
        if not p.isalpha():
            return -1
        for c in p:
            scripts.add(_script(c))
        ups = sum(1 for a, b in zip(p, p[1:]) if a.islower() and b.isupper())
        if ups > 1:
            return -1
    if len(scripts) > 1 and not scripts <= {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"}:
        return -1
    if scripts == {"LATIN"}:
        base = _base_latin(core)
        if len(base) >= 5 and not (_VOWELS & set(base)):
            return -1
    return 1


def text_signals(text: str, cache: dict | None = None) -> dict:
    """Word-likeness and mojibake of one page's text."""
    cache = {} if cache is None else cache
    good = junk = 0
    text = text.replace("\ufffe", "").replace("\x02", "")  # PDFium's soft-hyphen markers
    toks = text.split()
    for tok in toks[::-(-len(toks) // SAMPLE_TOKENS) or 1]:  # an even, deterministic sample
        v = cache.get(tok)
        if v is None:
            v = classify_token(tok)
            if len(cache) >= 100_000:
                cache.clear()
            cache[tok] = v
        if v > 0:
            good += 1
        elif v < 0:
            junk += 1
    n = good + junk
    return {
        "word_tokens": n,
        "word_share": round(good / n, 4) if n else 1.0,
        "mojibake": len(_MOJIBAKE_RE.findall(text)),
    }


def word_share(text: str) -> float:
    return text_signals(text)["word_share"]


def _clamp(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def page_confidence(chars: int, bad_share: float, sig: dict, map_error_share: float = 0.0,
                    ocr_mean_conf: float | None = None) -> float:
    """One page's confidence in 0..1 (see the module docstring)."""
    bad = bad_share + (sig["mojibake"] / chars if chars else 0.0)
    q_bad = _clamp(1.0 - BAD_WEIGHT * bad)
    if sig["word_tokens"] < MIN_TOKENS:
        q_word = 1.0
    else:
        q_word = _clamp((sig["word_share"] - WORD_SHARE_ZERO) / (WORD_SHARE_FULL - WORD_SHARE_ZERO))
    q_font = _clamp(1.0 - MAP_ERROR_WEIGHT * map_error_share)
    conf = q_bad * q_word * q_font
    if ocr_mean_conf is not None:
        conf *= _clamp(ocr_mean_conf / 100.0)
    return round(conf, 4)


def _page_list(pages: list[int]) -> str:
    s = ",".join(str(p) for p in pages[:40])
    return s + (",..." if len(pages) > 40 else "")


def assess(pages: list[dict]) -> dict:
    """Document strategy, confidence and warnings from the per-page records (``method``,
    ``chars``, ``confidence``, signals). Deterministic; warnings in a fixed order."""
    methods = [p["method"] for p in pages]
    text = [p for p in pages if p["method"] == "text_layer"]
    ocr = [p for p in pages if p["method"] == "ocr"]
    missing = [p["page"] for p in pages if p["method"] == "missing"]
    needed_ocr = len(ocr) + len(missing)
    if not text and not needed_ocr:
        strategy = "text_layer"  # blank document: nothing to read either way
    elif not needed_ocr:
        strategy = "text_layer"
    elif not text:
        strategy = "ocr"
    else:
        strategy = "mixed"
    read = text + ocr
    weight = sum(max(p["chars"], 1) for p in read)
    conf = (sum(p["confidence"] * max(p["chars"], 1) for p in read) / weight) if read else 0.0
    warnings: list[str] = []
    if missing:
        warnings.append(f"missing_pages: {_page_list(missing)} (no usable text layer, not OCR'd)")
    if ocr:
        warnings.append(f"ocr_pages: {_page_list([p['page'] for p in ocr])}")
    low = [p["page"] for p in read if p["confidence"] < MIN_CONFIDENCE]
    if low:
        warnings.append(f"low_confidence_pages: {_page_list(low)}")
    moj = [p["page"] for p in read if p.get("mojibake", 0) > 0]
    if moj:
        warnings.append(f"mojibake_pages: {_page_list(moj)}")
    bad = [p["page"] for p in read if p.get("bad_char_share", 0.0) > 0.01]
    if bad:
        warnings.append(f"bad_char_pages: {_page_list(bad)}")
    junk = [p["page"] for p in read if p.get("word_tokens", 0) >= MIN_TOKENS
            and p.get("word_share", 1.0) < WORD_SHARE_FULL]
    if junk:
        warnings.append(f"non_word_text_pages: {_page_list(junk)}")
    maperr = [p["page"] for p in read if p.get("unicode_map_error_share", 0.0) > 0.0]
    if maperr:
        warnings.append(f"font_unicode_map_error_pages: {_page_list(maperr)}")
    return {
        "strategy": strategy,
        "confidence": round(conf, 4),
        "warnings": warnings,
        "missing_pages": missing,
        "ocr_pages": [p["page"] for p in ocr],
        "methods": methods,
    }
