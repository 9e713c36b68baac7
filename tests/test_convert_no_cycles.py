"""convert() leaves no reference cycles behind: everything it builds (the parsed tree, the
candidates' copies, the Markdown writer) is freed by reference counting the moment the call
returns, so a crawl's memory does not wait for the garbage collector and the collector has no
trees to walk. (A nested function that calls itself, or a cache of bound methods on the object
that owns it, each makes such a cycle; both existed once.)

The check runs in a fresh interpreter: in the test process, objects other tests leave behind
(a crawler's signal receivers) can be freed during the call and would be counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crawlutil import ROOT

FIXTURES = Path(__file__).parent / "fixtures"
PAGES = sorted(str(p) for p in FIXTURES.glob("*/input.html"))

_CHECK = r"""
import gc, json, sys
from pathlib import Path
from gatecrawl import convert

gc.disable()
out = {}
for page in json.loads(sys.argv[1]):
    body = Path(page).read_bytes()
    url = "https://example.org/" + Path(page).parent.name
    convert(body, url, content_type="text/html")  # warm: lazy imports and caches made once
    gc.collect()
    result = convert(body, url, content_type="text/html")
    kept = bool(result.markdown) or result.evidence["outcome"] != "kept"
    del result
    out[Path(page).parent.name] = [kept, gc.collect()]
print(json.dumps(out))
"""


PROSE = " ".join(f"Sentence {i} of the report says something plain about the harbour works." for i in range(30))
LINKS = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
#: a news page's chrome around its article (navs, an aside, a footer): what the trafilatura
#: candidate's page is read for before it runs (``gatecrawl.core.unread``)
NEWS_PAGE = f"""<html><head><title>Harbour works</title></head><body>
<header><nav><ul>{LINKS}</ul></nav></header>
<main><article><h1>Harbour works</h1><p>{PROSE}</p><aside><h3>Related</h3><ul>{LINKS}</ul></aside>
<p>{PROSE}</p></article></main>
<footer><nav><a href="/about">About</a> <a href="/contact">Contact</a></nav><p>Harbour News, 2026</p></footer>
</body></html>"""


def test_convert_leaves_no_cyclic_garbage(tmp_path):
    news = tmp_path / "news_page_chrome" / "input.html"
    news.parent.mkdir()
    news.write_text(NEWS_PAGE, encoding="utf-8")
    pages = PAGES + [str(news)]
    assert len(PAGES) >= 10
    proc = subprocess.run([sys.executable, "-c", _CHECK, json.dumps(pages)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(found) == len(pages)
    assert all(kept for kept, _ in found.values())
    assert {name: n for name, (_, n) in found.items() if n} == {}
