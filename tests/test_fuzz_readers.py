"""Fuzz the three readers that take untrusted input: the recipe loader, the HTML path and the
PDF reader. Together > 10,000 generated inputs: none may raise (other than the loader's typed
RecipeError), hang past its budget, or produce a kept page with empty Markdown (issue 8)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from gatecrawl import convert
from gatecrawl.core.pdf import PdfLimits, read_pdf
from gatecrawl.core.recipes import RecipeError, load_recipe_text
from gatecrawl.demo.site import make_pdf

pytestmark = pytest.mark.slow

RECIPE_EXAMPLES = 5000
HTML_EXAMPLES = 4000
PDF_EXAMPLES = 1200

_keys = st.sampled_from(
    ["start_urls", "sitemaps", "allowed_domains", "name", "bogus", "follow", "content", "render", "gate", "validation", "pdf", "settings"]
)
_sub = st.sampled_from(["max_depth", "max_pages", "allow", "deny", "main_selectors", "policy", "rules", "min_chars", "min_score", "required_fields", "x"])
_scalar = st.one_of(
    st.integers(-10**12, 10**12), st.floats(allow_nan=True), st.booleans(), st.text(max_size=30),
    st.sampled_from(["https://ok.example/", "(", "div[[", "auto", "force", "title", "*", "[x", "ftp://a/"]),
)
_value = st.one_of(_scalar, st.lists(_scalar, max_size=4))


def _toml_value(v) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else repr(v) if v not in (float("inf"), float("-inf")) else ("inf" if v > 0 else "-inf")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    return "[" + ", ".join(_toml_value(x) for x in v) + "]"


@st.composite
def recipe_texts(draw):
    if draw(st.booleans()):
        return draw(st.text(max_size=200))  # raw garbage, often invalid TOML
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(_keys)
        if key in ("follow", "content", "render", "gate", "validation", "pdf", "settings"):
            lines.append(f"[{key}]")
            lines.append(f"{draw(_sub)} = {_toml_value(draw(_value))}")
        else:
            lines.insert(0, f"{key} = {_toml_value(draw(_value))}")
    return "\n".join(lines)


@seed(20261130)
@settings(max_examples=RECIPE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(recipe_texts())
def test_recipe_loader_never_crashes(text):
    try:
        recipe = load_recipe_text(text, source="recipes/fuzz.toml", default_name="fuzz")
    except RecipeError as exc:
        assert str(exc).startswith("recipes/fuzz.toml")
    else:
        assert recipe.name == "fuzz"


_tags = st.sampled_from(["div", "p", "article", "main", "table", "tr", "td", "pre", "code", "ul", "li", "h1", "h2", "a", "script", "nav", "span", "form", "input", "iframe"])


@st.composite
def html_docs(draw):
    parts = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.integers(0, 4))
        if kind == 0:
            parts.append(f"<{draw(_tags)} class='{draw(st.text(max_size=8))}'>")
        elif kind == 1:
            parts.append(f"</{draw(_tags)}>")
        elif kind == 2:
            parts.append(draw(st.text(max_size=40)))
        elif kind == 3:
            parts.append(f"<a href='{draw(st.sampled_from(['javascript:x', '/r', 'http://[::1', '//x', 'mailto:a@b', '']))}'>l</a>")
        else:
            parts.append("&#" + str(draw(st.integers(0, 0x10FFFF))) + ";")
    doc = "".join(parts)
    if draw(st.booleans()):
        return doc.encode(draw(st.sampled_from(["utf-8", "latin-1", "utf-16"])), "replace")
    return draw(st.binary(max_size=300)) + doc.encode("utf-8", "replace")


@seed(20261130)
@settings(max_examples=HTML_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(html_docs(), st.sampled_from(["text/html", "text/html; charset=utf-16", "text/html; charset=bogus", None]))
def test_html_path_never_crashes(body, ctype):
    r = convert(body, "https://fuzz.example/page", ctype)
    assert r.drop_reason != "converter_error", r.evidence.get("drop_detail")
    if r.ok:
        assert r.markdown.strip()
    assert r.evidence["outcome"] in ("kept", "dropped")


_PDF = make_pdf("Fuzz Base Document", ["A short paragraph of text for the fuzzer to mutate. " * 4] * 3)


@st.composite
def mutated_pdfs(draw):
    data = bytearray(_PDF)
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.integers(0, 2))
        pos = draw(st.integers(0, len(data) - 1))
        if op == 0:
            data[pos] = draw(st.integers(0, 255))
        elif op == 1:
            del data[pos : pos + draw(st.integers(1, 64))]
        else:
            data[pos:pos] = draw(st.binary(min_size=1, max_size=32))
        if not data:
            break
    if draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(0, max(0, len(data) - 1)))]
    return bytes(data)


@seed(20261130)
@settings(max_examples=PDF_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(mutated_pdfs())
def test_pdf_reader_never_crashes_or_hangs(data):
    t0 = time.monotonic()
    res = read_pdf(data, limits=PdfLimits(timeout_s=5.0))
    assert time.monotonic() - t0 < 8.0
    if res.ok:
        assert res.markdown.strip()
    else:
        assert res.reason in {"pdf_parse_failed", "pdf_encrypted", "pdf_timeout", "pdf_limits_exceeded", "pdf_worker_crashed", "pdf_needs_ocr", "pdf_partial", "pdf_low_confidence"}


def test_fuzz_budget_is_at_least_ten_thousand_inputs():
    assert RECIPE_EXAMPLES + HTML_EXAMPLES + PDF_EXAMPLES >= 10_000
