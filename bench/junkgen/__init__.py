"""Generator of the labelled junk corpus in ``bench/junk/`` (``python -m bench.junkgen``).

Every page is written by this package (fictional sites on ``.example`` hosts); the output is a
pure function of the code, so running it again rewrites the same bytes. ``--check`` compares
the committed corpus with what the generator would write.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.junkgen.base import Page

JUNK_DIR = Path(__file__).resolve().parent.parent / "junk"
LABELS_VERSION = 1


def all_pages() -> list[Page]:
    from bench.junkgen import challenges, consent, misc, shells, soft404, walls

    pages: list[Page] = []
    pages += shells.pages()
    pages += soft404.pages()
    pages += walls.login_pages()
    pages += walls.paywall_pages()
    pages += challenges.pages()
    pages += consent.cookie_pages()
    pages += consent.age_pages()
    pages += consent.geo_pages()
    pages += consent.redirect_pages()
    pages += misc.empty_pages()
    pages += misc.parked_pages()
    pages += misc.error_pages()
    pages += misc.search_pages()
    pages += misc.pdf_viewer_pages()
    ids = [p.id for p in pages]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate page ids: {dupes}")
    return sorted(pages, key=lambda p: p.id)


def label(p: Page) -> dict:
    return {
        "id": p.id,
        "kind": p.kind,
        "file": f"{p.id}.html",
        "url": p.url,
        "status": p.status,
        "content_type": p.content_type,
        "headers": dict(sorted(p.headers.items())),
        "expected_drop": True,
        "expected_reason": p.expected,
        "near_miss": p.near_miss,
        "lang": p.lang,
        "note": p.note,
    }


def render_corpus() -> dict[str, bytes]:
    """relative path -> bytes of every file of the corpus (pages and labels.json)."""
    pages = all_pages()
    files = {f"{p.id}.html": p.html.encode("utf-8") for p in pages}
    labels = {
        "version": LABELS_VERSION,
        "generator": "python -m bench.junkgen",
        "pages": [label(p) for p in pages],
    }
    files["labels.json"] = (json.dumps(labels, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")
    return files


def write(out: Path = JUNK_DIR) -> int:
    files = render_corpus()
    for old in sorted(out.glob("*/*.html")):
        if str(old.relative_to(out)) not in files:
            old.unlink()
    for rel, data in sorted(files.items()):
        f = out / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        if not f.exists() or f.read_bytes() != data:
            f.write_bytes(data)
    return len(files) - 1


def check(out: Path = JUNK_DIR) -> list[str]:
    """Paths that differ between the generator and the committed corpus ([] when identical)."""
    files = render_corpus()
    bad = [rel for rel, data in sorted(files.items()) if not (out / rel).exists() or (out / rel).read_bytes() != data]
    extra = [str(p.relative_to(out)) for p in sorted(out.glob("*/*.html")) if str(p.relative_to(out)) not in files]
    return bad + extra
