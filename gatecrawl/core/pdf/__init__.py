"""PDF reading for gatecrawl: routing, an isolated PDFium worker pool, Markdown with provenance.

Public interface (stable; the crawl plumbing codes against these names):

* :data:`READER_VERSION`, :class:`PdfLimits`, :class:`PdfResult`
* :func:`read_pdf` - bytes -> :class:`PdfResult`, PDFium always in a worker process
* :func:`set_pool_size`, :func:`shutdown_pool`
* :func:`is_pdf`, :func:`find_pdf_viewer_source` - routing (see ``routing.py``)

Nothing here imports Scrapy, and PDFium is never loaded into the calling process.
"""

from __future__ import annotations

import time

from gatecrawl.core.pdf._types import READER_VERSION, REASONS, PdfLimits, PdfResult, failure
from gatecrawl.core.pdf.pool import POOL, WorkerFailure
from gatecrawl.core.pdf.routing import find_pdf_viewer_source, is_pdf

__all__ = [
    "READER_VERSION", "REASONS", "PdfLimits", "PdfResult", "read_pdf", "set_pool_size",
    "shutdown_pool", "is_pdf", "find_pdf_viewer_source",
]

_TEST_FAULTS = frozenset({"segv", "kill", "hang", "oom", "exit"})


def set_pool_size(n: int) -> None:
    """Number of worker processes (default 2); callers beyond it wait for a free worker."""
    POOL.set_size(n)


def shutdown_pool() -> None:
    """Stop idle workers (busy ones stop when their document ends). Idempotent; atexit too."""
    POOL.shutdown()


_METHODS = ("text_layer", "ocr", "missing", "blank")
_STRATEGIES = ("text_layer", "ocr", "mixed")


def _unit(v) -> float:
    x = float(v)
    if not 0.0 <= x <= 1.0:
        raise ValueError("out of range")
    return x


def _clean_pages(pages) -> list[dict]:
    out = []
    for p in pages or []:
        method = str(p["method"])
        if method not in _METHODS:
            raise ValueError("bad method")
        ocr_conf = p.get("ocr_mean_conf")
        out.append({
            "page": int(p["page"]), "chars": int(p["chars"]),
            "bad_char_share": float(p["bad_char_share"]),
            "unique_word_ratio": float(p["unique_word_ratio"]), "needs_ocr": bool(p["needs_ocr"]),
            "method": method, "confidence": _unit(p["confidence"]),
            "word_share": _unit(p["word_share"]), "word_tokens": int(p["word_tokens"]),
            "mojibake": int(p["mojibake"]),
            "unicode_map_error_share": _unit(p["unicode_map_error_share"]),
            "ocr_mean_conf": None if ocr_conf is None else float(ocr_conf),
        })
    return out


def _from_reply(res: dict, elapsed_ms: int, limits: PdfLimits = PdfLimits()) -> PdfResult:
    """Turn the worker's JSON reply into a PdfResult, trusting nothing about its shape (nor an
    ``ok`` with missing pages or a confidence under the limit: those fail closed here too)."""
    try:
        pages = _clean_pages(res.get("pages"))
        needs = [int(x) for x in res.get("needs_ocr_pages") or []]
        page_count = int(res.get("page_count") or 0)
        strategy = res.get("strategy")
        if strategy is not None and strategy not in _STRATEGIES:
            raise ValueError("bad strategy")
        conf = res.get("confidence")
        doc = {
            "strategy": strategy,
            "confidence": None if conf is None else _unit(conf),
            "warnings": [str(w)[:300] for w in res.get("warnings") or []][:20],
            "missing_pages": [int(x) for x in res.get("missing_pages") or []],
            "ocr_pages": [int(x) for x in res.get("ocr_pages") or []],
        }
        if res.get("ok") is True:
            md = str(res.get("markdown") or "")
            if not md.strip():
                return failure("pdf_needs_ocr", "no text extracted", page_count=page_count,
                               pages=pages, needs_ocr_pages=needs, elapsed_ms=elapsed_ms, **doc)
            if (needs or doc["missing_pages"]) and not limits.allow_partial:
                return failure("pdf_partial", "pages missing", page_count=page_count,
                               pages=pages, needs_ocr_pages=needs, elapsed_ms=elapsed_ms, **doc)
            if doc["confidence"] is None or doc["confidence"] < limits.min_confidence:
                return failure("pdf_low_confidence", "confidence under the limit",
                               page_count=page_count, pages=pages, needs_ocr_pages=needs,
                               elapsed_ms=elapsed_ms, **doc)
            prov = [
                {"markdown_span": str(p["markdown_span"]), "page": int(p["page"]),
                 "char_start": int(p["char_start"]), "char_end": int(p["char_end"]),
                 "text_preview": str(p["text_preview"]), "method": str(p["method"])}
                for p in res.get("provenance") or []
            ]
            title = res.get("title")
            return PdfResult(
                ok=True, reason=None, detail="", markdown=md,
                title=str(title) if title else None, page_count=page_count, pages=pages,
                needs_ocr_pages=needs, provenance=prov, elapsed_ms=elapsed_ms, **doc,
            )
        reason = res.get("reason")
        if reason not in REASONS:
            reason = "pdf_parse_failed"
        return failure(reason, str(res.get("detail") or ""), page_count=page_count, pages=pages,
                       needs_ocr_pages=needs, elapsed_ms=elapsed_ms, **doc)
    except (KeyError, TypeError, ValueError):
        return failure("pdf_worker_crashed", "malformed worker reply", elapsed_ms=elapsed_ms)


def read_pdf(data: bytes, *, limits: PdfLimits = PdfLimits(), _test_fault: str | None = None
             ) -> PdfResult:
    """Read one PDF in an isolated worker process. Never raises for bad input or a dying worker.

    ``_test_fault`` is for the test-suite only: it makes the worker segfault, SIGKILL itself,
    hang, exhaust memory or exit, to prove that the caller survives each.
    """
    t0 = time.monotonic()

    def ms() -> int:
        return int((time.monotonic() - t0) * 1000)

    data = bytes(data)
    if len(data) > limits.max_bytes:
        return failure("pdf_limits_exceeded",
                       f"{len(data)} bytes exceed the cap of {limits.max_bytes}", elapsed_ms=ms())
    if not data:
        return failure("pdf_parse_failed", "empty body", elapsed_ms=ms())
    job = {
        "max_pages": int(limits.max_pages),
        "max_memory_mb": int(limits.max_memory_mb),
        "min_text_page_share": float(limits.min_text_page_share),
        "ocr": bool(limits.ocr),
        "allow_partial": bool(limits.allow_partial),
        "min_confidence": float(limits.min_confidence),
        "timeout_s": float(limits.timeout_s),
    }
    if _test_fault is not None:
        if _test_fault not in _TEST_FAULTS:
            raise ValueError(f"unknown test fault {_test_fault!r}")
        job["_test_fault"] = _test_fault
    try:
        worker, gen = POOL.acquire()
    except WorkerFailure as e:
        return failure("pdf_worker_crashed", f"worker did not start: {e.detail}", elapsed_ms=ms())
    except OSError as e:
        return failure("pdf_worker_crashed", f"worker did not start: {e.strerror}",
                       elapsed_ms=ms())
    reusable = False
    try:
        reply = worker.run(job, data, float(limits.timeout_s))
        reusable = not (reply.get("reason") == "pdf_limits_exceeded"
                        and "memory" in str(reply.get("detail", "")))
    except WorkerFailure as e:
        if e.reason == "pdf_timeout":
            return failure("pdf_timeout", f"no result within {limits.timeout_s:g} s; worker killed",
                           elapsed_ms=ms())
        return failure("pdf_worker_crashed", e.detail, elapsed_ms=ms())
    finally:
        POOL.release(worker, gen, reusable)
    return _from_reply(reply, ms(), limits)
