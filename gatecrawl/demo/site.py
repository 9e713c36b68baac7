"""The embedded demo site: a small, deterministic website that exercises every path.

Pages are built in code (no files to ship): articles with real page chrome, a docs page
with code blocks and a table, a nav-heavy hub, a page behind a cookie banner, a soft 404,
a login wall, a bot challenge, an empty page, a real 404, an SPA shell whose content only
appears with JavaScript, a PDF and a page showing that PDF in a viewer.

``EXPECTED`` lists what gatecrawl should do with each path; the tests and ``make demo``
compare the crawl against it.
"""

from __future__ import annotations

import html
import json
import zlib

__all__ = ["PAGES", "EXPECTED", "render", "make_pdf", "assemble_pdf", "ARTICLES"]

_SENTENCES = [
    "Crawlers that feed retrieval systems have to decide, page by page, whether the text they found is worth keeping.",
    "A plain HTTP request costs a few milliseconds, while a headless browser render costs hundreds of milliseconds and a lot of memory.",
    "Most server-rendered pages carry their whole article in the first response, so rendering them is wasted work.",
    "Single-page applications ship an empty mount point and a script bundle; their words only exist after the script runs.",
    "Navigation menus, cookie notices and footers repeat on every page of a site and dilute the embeddings built from it.",
    "A deterministic converter produces the same bytes for the same input, which keeps chunk boundaries stable between runs.",
    "Evidence packets record what was fetched, which reader handled it and why a page was kept or dropped.",
    "Soft error pages answer with a success status but say that nothing was found, and naive pipelines index them happily.",
    "Login walls and bot challenges look like short pages with a form, and they must never be stored as content.",
    "Tables survive conversion only when every row keeps the same number of cells as the header row.",
    "Code samples lose their meaning when indentation collapses, so fenced blocks keep every space and blank line.",
    "Operators tune routing tables by looking at escalation rates per page type and quality scores per reader.",
    "Politeness settings such as per-domain concurrency and download delays keep a crawl from overloading small sites.",
    "Sitemaps list the canonical addresses a site wants crawled, often with the date each page last changed.",
    "A quality gate with four simple checks catches most junk before it reaches the index.",
    "Unique-word ratio drops sharply when a page is mostly repeated menu labels and template text.",
    "Boilerplate share measures how much of the visible text sits in headers, footers, sidebars and banners.",
    "Required fields such as a title and a publication date tell a structured job whether the page is the one it wanted.",
    "Portable Document Format files store glyph positions rather than paragraphs, so their text has to be reflowed.",
    "Scanned documents carry pictures of text and need optical character recognition before any words can be read.",
    "Retries with backoff turn transient network failures into successes without hammering a struggling server.",
    "Object storage keeps Markdown and packets side by side, addressed by a hash of the canonical address.",
    "A run summary lists every key written, so an auditor can trace any stored object back to the crawl that made it.",
    "Readiness contracts wait for a selector and a minimum amount of text instead of sleeping for a fixed time.",
    "Stability windows confirm that content has stopped changing before a snapshot of the page is taken.",
    "Lazy sections appear only after scrolling, which is why a renderer scrolls in steps until the text stops growing.",
    "Headings give retrieval systems natural section boundaries and help readers skim long documents quickly.",
    "Nested lists keep their structure when each level is indented consistently in the generated Markdown.",
    "Links are resolved against the final address of the page, after every redirect has been followed.",
    "Characters that would change the meaning of Markdown are escaped, and nothing else is touched.",
    "Distributed crawls share one frontier so that each address is fetched exactly once across all workers.",
    "Render workers run separately from cheap fetch workers, because browsers need far more memory than parsers.",
    "A crawl that silently exports nothing is worse than one that fails loudly with a clear reason.",
    "Canonical links reveal when a page is really a copy of another address or an error template in disguise.",
    "Content delivery networks sometimes answer automated clients with an interstitial instead of the article.",
    "Freshness matters for news, but reproducibility matters more for evaluation datasets built from the web.",
    "Versioned outputs make it possible to tell a change in scoring from a change on the website itself.",
    "Image captions and bylines belong to the article, even though they sit outside its paragraphs.",
    "Comment threads are useful for some projects and noise for others, so a recipe decides whether to keep them.",
    "Small recipes with good defaults let a team onboard a new site in minutes rather than days.",
]

ARTICLES = [
    ("choosing-a-reader", "Choosing a reader for each page type", "Routing"),
    ("quality-gates", "Quality gates that catch junk early", "Validation"),
    ("deterministic-markdown", "Why deterministic Markdown matters", "Conversion"),
    ("evidence-packets", "Evidence packets for every address", "Observability"),
    ("render-budgets", "Keeping browser renders on a budget", "Rendering"),
    ("soft-errors", "Soft errors and wrong routes", "Validation"),
    ("pdf-text-layers", "Reading the text layer of PDFs", "Documents"),
    ("polite-crawling", "Polite crawling at scale", "Operations"),
    ("object-storage", "Storing outputs in object storage", "Storage"),
    ("readiness-contracts", "Readiness contracts instead of sleeps", "Rendering"),
    ("scaling-out", "Scaling out with a shared frontier", "Operations"),
    ("recipes", "Writing a site recipe", "Onboarding"),
]


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


def _chrome(title: str, body: str, *, head_extra: str = "", before_main: str = "", canonical: str | None = None) -> str:
    nav_links = "".join(f'<li><a href="/articles/{slug}">{_esc(t)}</a></li>' for slug, t, _ in ARTICLES[:6])
    canon = f'<link rel="canonical" href="{_esc(canonical)}">' if canonical else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{_esc(title)} | Gatecrawl Demo</title>
{canon}
{head_extra}
</head>
<body>
<header class="site-header"><a href="/">Gatecrawl Demo</a>
<nav class="main-nav"><ul>{nav_links}<li><a href="/docs/install">Docs</a></li><li><a href="/about">About</a></li></ul></nav>
</header>
{before_main}
<main>
{body}
</main>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/articles/quality-gates">Quality gates</a></li><li><a href="/articles/render-budgets">Render budgets</a></li></ul></aside>
<footer class="site-footer"><p>Demo content for gatecrawl. All words generated for testing.</p><p><a href="/about">About</a> · <a href="/">Home</a></p></footer>
</body>
</html>
"""


def _article_paragraphs(index: int, count: int = 6) -> list[str]:
    n = len(_SENTENCES)
    paras = []
    for p in range(count):
        start = (index * 7 + p * 3) % n
        paras.append(" ".join(_SENTENCES[(start + k) % n] for k in range(3)))
    return paras


def _article(index: int) -> str:
    slug, title, section = ARTICLES[index]
    paras = _article_paragraphs(index)
    date = f"2026-0{1 + index % 9}-1{index % 10}"
    items = "".join(f"<li>{_esc(s.split(',')[0].rstrip('.'))}</li>" for s in _SENTENCES[index : index + 3])
    related = ARTICLES[(index + 1) % len(ARTICLES)]
    pdf_link = '<p>The full method is in <a href="/reports/methods.pdf">the methods paper (PDF)</a>.</p>' if slug == "pdf-text-layers" else ""
    body = f"""<article>
<header><h1>{_esc(title)}</h1>
<p class="byline">By Demo Author · <time datetime="{date}">{date}</time> · {section}</p></header>
<p>{_esc(paras[0])}</p>
<h2>Background</h2>
<p>{_esc(paras[1])}</p>
<p>{_esc(paras[2])}</p>
<h2>Key points</h2>
<ul>{items}</ul>
<p>{_esc(paras[3])}</p>
<h3>In practice</h3>
<p>{_esc(paras[4])} See also <a href="/articles/{related[0]}">{_esc(related[1])}</a>.</p>
{pdf_link}
<blockquote><p>{_esc(paras[5].split('. ')[0])}.</p></blockquote>
</article>
<section class="share-bar"><a href="https://share.invalid/?u=1">Share</a> <a href="https://share.invalid/?u=2">Post</a></section>"""
    head = f'<meta property="article:published_time" content="{date}T08:00:00Z"><meta name="author" content="Demo Author">'
    return _chrome(title, body, head_extra=head)


def _cookie_article() -> str:
    banner = """<div id="cookie-consent" class="cookie-banner"><p>We use cookies to improve your experience.
Accept all cookies or manage your preferences in the settings.</p><button>Accept all</button><button>Manage</button></div>"""
    paras = _article_paragraphs(20)
    body = f"""<article><h1>Consent banners and clean extraction</h1>
<p>{_esc(paras[0])}</p><h2>What the banner hides</h2><p>{_esc(paras[1])}</p><p>{_esc(paras[2])}</p>
<h2>Keeping the text clean</h2><p>{_esc(paras[3])}</p></article>"""
    return _chrome("Consent banners and clean extraction", body, before_main=banner)


_PY_CODE = '''def assess(page):
    """Score a page with the four checks."""
    score = 0
    if len(page.text) >= 200:
        score += 1

    for check in (unique_words, boilerplate, fields):
        if check(page):
            score += 1
    return score
'''
_SH_CODE = "python -m venv .venv\n.venv/bin/pip install -r requirements.txt\nmake demo\n"


def _docs_install() -> str:
    rows = [
        ("GATECRAWL_STORE_URI", "file://./output", "Where packets and Markdown go"),
        ("GATECRAWL_RUN_ID", "(generated)", "Names the run summary"),
        ("GATECRAWL_PDF_WORKERS", "2", "PDF worker processes"),
    ]
    trs = "".join(f"<tr><td><code>{_esc(a)}</code></td><td>{_esc(b)}</td><td>{_esc(c)}</td></tr>" for a, b, c in rows)
    body = f"""<article class="docs"><h1>Installing gatecrawl</h1>
<p>{_esc(_SENTENCES[39])} {_esc(_SENTENCES[12])}</p>
<h2>Set up a virtual environment</h2>
<p>Create an environment and install the pinned requirements:</p>
<pre><code class="language-bash">{_esc(_SH_CODE)}</code></pre>
<h2>Score a page</h2>
<p>The gate is a pure function; this sketch shows its shape:</p>
<pre><code class="language-python">{_esc(_PY_CODE)}</code></pre>
<h2>Settings</h2>
<table><thead><tr><th>Setting</th><th>Default</th><th>Meaning</th></tr></thead><tbody>{trs}</tbody></table>
<p>{_esc(_SENTENCES[14])} {_esc(_SENTENCES[5])}</p>
</article>"""
    return _chrome("Installing gatecrawl", body)


def _hub() -> str:
    links = "".join(f'<li><a href="/articles/{slug}">{_esc(t)}</a> <span class="tag">{s}</span></li>' for slug, t, s in ARTICLES)
    extra = "".join(
        f'<li><a href="{p}">{_esc(t)}</a></li>'
        for p, t in [
            ("/docs/install", "Installing gatecrawl"),
            ("/articles/consent-banners", "Consent banners"),
            ("/about", "About this site"),
            ("/reports/viewer", "Annual report (viewer)"),
            ("/app/dashboard", "Dashboard"),
            ("/account/reports", "Account reports"),
            ("/protected/pricing", "Pricing"),
            ("/old/page-that-moved", "An old page"),
            ("/drafts/empty", "Draft"),
            ("/gone", "A removed page"),
        ]
    )
    body = f"""<div class="hub"><h1>All topics</h1><ul class="topic-list">{links}{extra}</ul></div>"""
    return _chrome("All topics", body)


def _about() -> str:
    body = """<article><h1>About this site</h1>
<p>This is the gatecrawl demo site. It exists so that a newcomer can watch the whole pipeline work on a machine
without network access: plain fetches, the quality gate, extraction, Markdown, validation and evidence packets.</p>
<p>Every page here is generated in code, and the same request always returns the same bytes.</p></article>"""
    return _chrome("About this site", body)


def _soft_404() -> str:
    body = """<div class="error-page"><h1>Page not found</h1><p>Sorry, the page you are looking for does not exist.</p>
<p><a href="/">Go back home</a></p></div>"""
    return _chrome("Page not found", body, canonical="/404")


def _login_wall() -> str:
    body = """<div class="login"><h1>Sign in to continue</h1><p>You must be logged in to view account reports.</p>
<form method="post" action="/login"><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="password"></label><button type="submit">Sign in</button></form></div>"""
    return _chrome("Sign in", body)


def _challenge() -> str:
    return """<!doctype html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="360"></head>
<body><div class="main-wrapper"><h1>127.0.0.1</h1><p>Checking if the site connection is secure</p>
<div id="challenge-stage"></div><noscript>Enable JavaScript and cookies to continue</noscript>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></div></body></html>
"""


def _spa_shell() -> str:
    return """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dashboard | Gatecrawl Demo</title></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script src="/static/app.js"></script>
</body></html>
"""


_APP_JS = """(function () {
  fetch('/api/dashboard.json').then(function (r) { return r.json(); }).then(function (data) {
    var root = document.getElementById('root');
    var main = document.createElement('main');
    var h1 = document.createElement('h1'); h1.textContent = data.title; main.appendChild(h1);
    data.sections.forEach(function (s) {
      var h2 = document.createElement('h2'); h2.textContent = s.heading; main.appendChild(h2);
      var p = document.createElement('p'); p.textContent = s.text; main.appendChild(p);
    });
    var a = document.createElement('a'); a.href = '/articles/scaling-out'; a.textContent = 'Scaling out'; main.appendChild(a);
    root.appendChild(main);
  });
})();
"""


def _dashboard_json() -> str:
    paras = _article_paragraphs(30, 3)
    return json.dumps(
        {
            "title": "Crawl dashboard",
            "sections": [
                {"heading": "Render rate", "text": paras[0]},
                {"heading": "Drop reasons", "text": paras[1]},
                {"heading": "Costs", "text": paras[2]},
            ],
        },
        sort_keys=True,
    )


def _empty() -> str:
    return """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Draft</title></head><body><main></main></body></html>
"""


def _viewer() -> str:
    body = """<div class="viewer"><h1>Annual report</h1>
<iframe src="/static/pdfjs/web/viewer.html?file=%2Freports%2Fannual-report.pdf" width="100%" height="800"></iframe></div>"""
    return _chrome("Annual report", body)


def make_pdf(title: str, paragraphs: list[str]) -> bytes:
    """A small, valid, text-layer PDF (Helvetica), one page per ~40 lines. Deterministic bytes."""
    import textwrap

    lines: list[tuple[int, str]] = [(18, title), (11, "")]
    for para in paragraphs:
        for ln in textwrap.wrap(para, 90):
            lines.append((11, ln))
        lines.append((11, ""))
    pages = [lines[i : i + 40] for i in range(0, len(lines), 40)]
    objs: list[bytes] = []

    def add(b: bytes) -> int:
        objs.append(b)
        return len(objs)

    catalog = add(b"")  # placeholder, filled below
    pages_obj = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for page_lines in pages:
        y = 800
        ops = []
        for size, text in page_lines:
            safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            if safe:
                ops.append(f"BT /F1 {size} Tf 50 {y} Td ({safe}) Tj ET")
            y -= size + 6
        stream = zlib.compress("\n".join(ops).encode("cp1252", "replace"), 9)
        content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (pages_obj, font, content)))
    objs[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objs[pages_obj - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    info = add(b"<< /Title (%s) /Producer (gatecrawl demo) >>" % title.encode("latin-1", "replace"))
    return assemble_pdf(objs, root=catalog, info=info)


def assemble_pdf(objects: list[bytes], *, root: int = 1, info: int | None = None) -> bytes:
    """A PDF file from numbered object bodies (object i+1 is ``objects[i]``), with a correct
    cross-reference table. Deterministic bytes."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    info_ref = b" /Info %d 0 R" % info if info else b""
    out += b"trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, info_ref, xref)
    return bytes(out)


def _annual_report_pdf() -> bytes:
    return make_pdf("Annual Report 2026", _article_paragraphs(40, 8))


def _methods_pdf() -> bytes:
    return make_pdf("Methods for Clean Web Text", _article_paragraphs(50, 10))


_ROBOTS = "User-agent: *\nAllow: /\n"


def _sitemap(base: str) -> str:
    urls = [f"{base}/articles/{slug}" for slug, _, _ in ARTICLES] + [f"{base}/docs/install", f"{base}/about"]
    body = "".join(f"<url><loc>{_esc(u)}</loc></url>" for u in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>\n'


_HTML = "text/html; charset=utf-8"
# What a crawl must do with a page: keep it, or drop it with a reason.
KEPT: tuple[str, None] = ("kept", None)

# path -> (status, content type, builder)
PAGES: dict[str, tuple[int, str, object]] = {
    **{path: (200, _HTML, builder) for path, builder in (
        ("/", _hub), ("/about", _about), ("/docs/install", _docs_install), ("/articles/consent-banners", _cookie_article),
        ("/old/page-that-moved", _soft_404), ("/account/reports", _login_wall),
    )},
    "/protected/pricing": (403, "text/html; charset=UTF-8", _challenge),
    "/app/dashboard": (200, _HTML, _spa_shell),
    "/static/app.js": (200, "application/javascript", lambda: _APP_JS),
    "/api/dashboard.json": (200, "application/json", _dashboard_json),
    "/drafts/empty": (200, _HTML, _empty),
    "/reports/viewer": (200, _HTML, _viewer),
    "/reports/annual-report.pdf": (200, "application/pdf", _annual_report_pdf),
    "/reports/methods.pdf": (200, "application/pdf", _methods_pdf),
    "/robots.txt": (200, "text/plain", lambda: _ROBOTS),
}
for _i, (_slug, _t, _s) in enumerate(ARTICLES):
    PAGES[f"/articles/{_slug}"] = (200, _HTML, (lambda i=_i: _article(i)))

# What a crawl of the demo site must do with each page: ("kept", None) or ("dropped", reason).
EXPECTED: dict[str, tuple[str, str | None]] = {
    **{f"/articles/{slug}": KEPT for slug, _, _ in ARTICLES},
    # "/" (the hub: a list of links, which trafilatura also takes for the page's content) is kept
    # as a listing since extract/15 (link lists such as a job board are content on real pages).
    **dict.fromkeys(("/", "/about", "/docs/install", "/articles/consent-banners", "/reports/annual-report.pdf", "/reports/methods.pdf"), KEPT),
    **{path: ("dropped", reason) for path, reason in (
        ("/old/page-that-moved", "soft_404"), ("/account/reports", "login_wall"),
        ("/protected/pricing", "bot_challenge"), ("/app/dashboard", "shell_page"), ("/drafts/empty", "extraction_empty"),
        ("/gone", "http_error"), ("/reports/viewer", "too_short"),
    )},
}


def render(path: str, base_url: str) -> tuple[int, str, bytes]:
    """Return ``(status, content type, body)`` for a request path."""
    if path == "/sitemap.xml":
        return 200, "application/xml", _sitemap(base_url).encode("utf-8")
    entry = PAGES.get(path)
    if entry is None:
        return 404, "text/html; charset=utf-8", _chrome("Not found", "<h1>Not found</h1><p>No such page.</p>").encode("utf-8")
    status, ctype, builder = entry
    out = builder()  # type: ignore[operator]
    return status, ctype, out if isinstance(out, bytes) else out.encode("utf-8")

# Browser-readiness pages (gatecrawl/demo/dynamic.py); the SPA dashboard is kept via the browser.
from gatecrawl.demo import dynamic as _dynamic  # noqa: E402

EXPECTED["/app/dashboard"] = KEPT
_dynamic.register(PAGES, EXPECTED)
