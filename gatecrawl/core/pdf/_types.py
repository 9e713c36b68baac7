"""Result and limit types of the PDF reader (pure data; no PDFium, no Scrapy)."""

from __future__ import annotations

from dataclasses import dataclass, field

READER_VERSION = "pdf/3"

REASONS = (
    "pdf_parse_failed",
    "pdf_encrypted",
    "pdf_timeout",
    "pdf_limits_exceeded",
    "pdf_worker_crashed",
    "pdf_needs_ocr",
    "pdf_partial",
    "pdf_low_confidence",
)


@dataclass(frozen=True)
class PdfLimits:
    timeout_s: float = 30.0  # wall-clock budget per document, from hand-over to the worker
    max_pages: int = 500  # page-count cap -> pdf_limits_exceeded
    max_memory_mb: int = 1024  # address space the worker may add over its idle size (RLIMIT_AS)
    max_bytes: int = 64 * 2**20  # input size cap -> pdf_limits_exceeded
    min_text_page_share: float = 0.5  # usable-text pages / non-blank pages below this -> pdf_needs_ocr
    ocr: bool = False  # OCR needs_ocr pages with tesseract when installed; else fail closed
    allow_partial: bool = False  # keep a document with missing (not OCR'd) pages -> else pdf_partial
    min_confidence: float = 0.75  # document confidence below this -> pdf_low_confidence


@dataclass(frozen=True)
class PdfResult:
    ok: bool
    reason: str | None
    detail: str
    markdown: str
    title: str | None
    page_count: int
    pages: list[dict] = field(default_factory=list)
    needs_ocr_pages: list[int] = field(default_factory=list)
    provenance: list[dict] = field(default_factory=list)
    elapsed_ms: int = 0
    strategy: str | None = None  # text_layer | ocr | mixed; None when no page was read
    confidence: float | None = None  # 0..1 (see confidence.py); None when no page was read
    warnings: list[str] = field(default_factory=list)
    missing_pages: list[int] = field(default_factory=list)  # text not in the Markdown
    ocr_pages: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-safe, fixed key order (field order; per-page and provenance keys sorted)."""
        return {
            "ok": self.ok,
            "reason": self.reason,
            "detail": self.detail,
            "markdown": self.markdown,
            "title": self.title,
            "page_count": self.page_count,
            "pages": [{k: p[k] for k in sorted(p)} for p in self.pages],
            "needs_ocr_pages": list(self.needs_ocr_pages),
            "provenance": [{k: p[k] for k in sorted(p)} for p in self.provenance],
            "elapsed_ms": self.elapsed_ms,
            "strategy": self.strategy,
            "confidence": self.confidence,
            "warnings": list(self.warnings),
            "missing_pages": list(self.missing_pages),
            "ocr_pages": list(self.ocr_pages),
        }


def failure(reason: str, detail: str, *, page_count: int = 0, **kw) -> PdfResult:
    assert reason in REASONS, reason
    return PdfResult(
        ok=False, reason=reason, detail=detail[:300], markdown="", title=None,
        page_count=page_count, **kw,
    )
