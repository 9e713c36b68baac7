"""Demo pages that need a browser, one per readiness pattern (and the traps around them).

Registered into the demo site by :func:`register` (called at the end of ``site.py``); the
hub page links to every page here except ``/dyn/found-by-render``, which only the rendered
SPA links to. Server-side delays (``time.sleep``) run in the demo server's request thread.

========================  =======================================================  ==================
path                      behaviour                                                expected
========================  =======================================================  ==================
/dyn/spa                  SPA shell; after 400 ms fetches a JSON (served after     kept (rendered)
                          300 ms) and builds the article
/dyn/skeleton             "Loading..." skeleton (aria-busy) for 700 ms, then text  kept (rendered)
/dyn/route                a 404 template for 800 ms, then the route resolves       kept (rendered)
/dyn/lazy                 one section; more sections appended on scroll            kept (rendered)
/dyn/tabs                 tabs; only the active panel is visible content           kept (rendered)
/dyn/static-short         short but complete static page with a script tag:        kept (plain HTTP)
                          the gate must not escalate it
/dyn/never                shell that never fills                                   readiness_timeout
/dyn/loop                 its JS loops forever (blocks the page)                   readiness_timeout
/dyn/ticker               content that keeps changing (never stable)               readiness_timeout
/dyn/chatty               content present, but the page polls the network forever  kept (A+D ignore it)
/dyn/found-by-render      static article linked only from the rendered /dyn/spa    kept (plain HTTP)
/dyn/next-data            SPA shell whose first response carries its article in    kept (embedded data,
                          Next.js ``__NEXT_DATA__`` (next to navigation, config)   no render)
/dyn/nuxt-data            the same in Nuxt 3 ``__NUXT_DATA__`` (devalue array)     kept (embedded data)
/dyn/apollo-state         ``window.__APOLLO_STATE__ = {...}``: the article body is kept (embedded data)
                          an HTML fragment inside the JSON
/dyn/config-only          a shell whose ``__NEXT_DATA__`` holds only navigation,   kept (rendered: the
                          site settings and a site description; JS builds the     data must not be
                          article                                                  used)
/dyn/consent-shell        a shell with settings-only data and a consent dialog    kept (rendered: the
                          that its JS removes (the plain page reads as a cookie   dialog is gone)
                          wall, the rendered one as the article)
========================  =======================================================  ==================
"""

from __future__ import annotations

import html
import json
import time
from typing import Any, Callable

__all__ = ["DYNAMIC_PAGES", "DYNAMIC_EXPECTED", "register", "shell_html", "article_json", "devalue", "LINKED_FROM_HUB", "EMBEDDED", "EMBEDDED_TRAPS"]

_PARAS = [
    "Rendering is the expensive line item of a crawl, so the browser only sees pages whose plain HTML is an empty shell.",
    "A readiness contract names the condition that means the content is there: a selector with enough text, a heading, a quiet network, a stable container.",
    "Fixed sleeps are either too short, and the crawler stores a half-built page, or too long, and every render pays for the slowest one.",
    "When the contract is not met in time the page is dropped with a reason, never kept with whatever happened to be on screen.",
    "Client-side routers sometimes paint a not-found template before the real route resolves, which is why a snapshot must wait for stability.",
    "Lazy sections arrive only when the reader scrolls, so a renderer scrolls in steps and stops when the container stops growing.",
    "Every render records how long it waited and which condition ended the wait, so that operators can tune budgets from evidence.",
    "Browser contexts are kept per site and recycled after a number of pages, and every page is closed when its render ends.",
]


def _p(i: int, n: int = 2) -> str:
    return " ".join(_PARAS[(i + k) % len(_PARAS)] for k in range(n))


def article_json(title: str, seed: int, sections: int = 3, link: str | None = None) -> dict[str, Any]:
    """The JSON an SPA page fetches: a title, sections, an optional link."""
    return {
        "title": title,
        "sections": [{"heading": f"Part {k + 1}: {_PARAS[(seed + k) % len(_PARAS)].split(',')[0][:40]}", "text": _p(seed + k)} for k in range(sections)],
        "link": link,
    }


# Builds an article into a container from the JSON shape above.
_BUILD_JS = """
function gcBuild(container, data) {
  var main = document.createElement('main');
  var h1 = document.createElement('h1'); h1.textContent = data.title; main.appendChild(h1);
  data.sections.forEach(function (s) {
    var h2 = document.createElement('h2'); h2.textContent = s.heading; main.appendChild(h2);
    var p = document.createElement('p'); p.textContent = s.text; main.appendChild(p);
  });
  if (data.link) { var a = document.createElement('a'); a.href = data.link; a.textContent = 'Read the related article'; var p2 = document.createElement('p'); p2.appendChild(a); main.appendChild(p2); }
  container.innerHTML = ''; container.appendChild(main);
}
"""


def shell_html(title: str, script: str, *, body: str = '<div id="root"></div>', data: str = "") -> str:
    """An SPA shell: a title, an empty mount point, a noscript notice and one script
    (``data``: inline data scripts the shell carries for its client code)."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} | Gatecrawl Demo</title></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
{body}{data}
<script src="{script}"></script>
</body></html>
"""


def _js(code: str) -> Callable[[], str]:
    return lambda: _BUILD_JS + code


def _delayed_json(payload: dict, delay_s: float) -> Callable[[], str]:
    def build() -> str:
        time.sleep(delay_s)
        return json.dumps(payload, sort_keys=True)

    return build


_SPA_JS = """
setTimeout(function () {
  fetch('/api/dyn/spa.json').then(function (r) { return r.json(); }).then(function (d) { gcBuild(document.getElementById('root'), d); });
}, 400);
"""

_SKELETON_BODY = '<div id="root"><main><div class="skeleton" aria-busy="true"><p>Loading...</p></div></main></div>'
_SKELETON_JS = """
setTimeout(function () {
  fetch('/api/dyn/skeleton.json').then(function (r) { return r.json(); }).then(function (d) { gcBuild(document.getElementById('root'), d); });
}, 700);
"""

_ROUTE_JS = """
(function () {
  var root = document.getElementById('root');
  root.innerHTML = '<main><h1>Page not found</h1><p>Sorry, the page you are looking for does not exist or has moved. ' +
    'Check the address, go back to the previous page, or use the navigation to find what you were looking for. ' +
    'If you followed a link from another site, the link may be out of date; our support team can help you find the page.</p></main>';
  setTimeout(function () {
    fetch('/api/dyn/route.json').then(function (r) { return r.json(); }).then(function (d) { gcBuild(root, d); });
  }, 800);
})();
"""

_LAZY_JS = """
(function () {
  var root = document.getElementById('root');
  fetch('/api/dyn/lazy.json').then(function (r) { return r.json(); }).then(function (d) {
    var main = document.createElement('main');
    var h1 = document.createElement('h1'); h1.textContent = d.title; main.appendChild(h1);
    var sec = d.sections, next = 0;
    function add() {
      if (next >= sec.length) return false;
      // each section is taller than the viewport, so the sentinel leaves the screen again
      var s = document.createElement('section'); s.style.minHeight = '1200px';
      var h2 = document.createElement('h2'); h2.textContent = sec[next].heading; s.appendChild(h2);
      var p = document.createElement('p'); p.textContent = sec[next].text; s.appendChild(p);
      main.appendChild(s); next += 1; return true;
    }
    add();
    var sentinel = document.createElement('div'); sentinel.id = 'more';
    root.appendChild(main); root.appendChild(sentinel);
    new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { setTimeout(add, 150); }
    }).observe(sentinel);
  });
})();
"""

_TABS_JS = """
(function () {
  fetch('/api/dyn/tabs.json').then(function (r) { return r.json(); }).then(function (d) {
    var root = document.getElementById('root');
    var main = document.createElement('main');
    var h1 = document.createElement('h1'); h1.textContent = d.title; main.appendChild(h1);
    var list = document.createElement('div'); list.setAttribute('role', 'tablist'); main.appendChild(list);
    d.sections.forEach(function (s, i) {
      var b = document.createElement('button'); b.setAttribute('role', 'tab'); b.textContent = 'Tab ' + (i + 1); list.appendChild(b);
      var panel = document.createElement('section'); panel.setAttribute('role', 'tabpanel');
      if (i !== 0) panel.hidden = true;
      var h2 = document.createElement('h2'); h2.textContent = s.heading; panel.appendChild(h2);
      var p = document.createElement('p'); p.textContent = s.text; panel.appendChild(p);
      main.appendChild(panel);
    });
    root.appendChild(main);
  });
})();
"""

_NEVER_JS = """
fetch('/api/dyn/missing.json').then(function (r) { return r.ok ? r.json() : null; }).catch(function () { return null; });
"""

_LOOP_JS = """
setTimeout(function () { for (;;) { } }, 50);
"""

_TICKER_JS = """
(function () {
  var root = document.getElementById('root');
  fetch('/api/dyn/ticker.json').then(function (r) { return r.json(); }).then(function (d) {
    gcBuild(root, d);
    var main = root.querySelector('main'); var tick = document.createElement('p'); main.appendChild(tick);
    var n = 0; setInterval(function () { n += 1; tick.textContent = 'Live counter: ' + n; }, 120);
  });
})();
"""

_CHATTY_JS = """
(function () {
  setInterval(function () { fetch('/api/dyn/ping.json').catch(function () {}); }, 150);
})();
"""


def _chatty_page() -> str:
    paras = "".join(f"<p>{html.escape(_p(i))}</p>" for i in range(3))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chatty page | Gatecrawl Demo</title></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div><main><h1>A page that never stops polling</h1>{paras}</main>
<script src="/static/dyn/chatty.js"></script></body></html>
"""


def _static_short() -> str:
    return """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Office hours | Gatecrawl Demo</title></head>
<body><div id="root"><main><h1>Office hours</h1>
<p>The support desk is open from nine to five on weekdays. Questions sent outside these hours are answered on the next working day,
in the order they arrived. Urgent incidents go to the on-call engineer through the status page.</p></main></div>
<script src="/static/dyn/analytics.js"></script></body></html>
"""


def _found_by_render() -> str:
    paras = "".join(f"<p>{html.escape(_p(i + 3))}</p>" for i in range(3))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reached through a rendered link | Gatecrawl Demo</title></head>
<body><main><article><h1>Reached through a rendered link</h1>{paras}</article></main></body></html>
"""


def devalue(value: Any) -> list:
    """``value`` encoded the way Nuxt 3 ships ``__NUXT_DATA__`` (devalue): one flat array whose
    objects and arrays refer to their members by index, wrapped in ``["ShallowReactive", i]``."""
    flat: list = [None]

    def put(v: Any) -> int:
        flat.append(None)
        i = len(flat) - 1
        if isinstance(v, dict):
            flat[i] = {k: put(x) for k, x in v.items()}
        elif isinstance(v, list):
            flat[i] = [put(x) for x in v]
        else:
            flat[i] = v
        return i

    flat[0] = ["ShallowReactive", put(value)]
    return flat


def _script_json(data: Any, ident: str) -> str:
    text = json.dumps(data, sort_keys=False).replace("</", "<\\/")
    return f'<script id="{ident}" type="application/json">{text}</script>'


_NAV = [{"label": "Home", "href": "/"}, {"label": "About", "href": "/about"}, {"label": "Install", "href": "/docs/install"}]
_CONFIG = {"apiBase": "/api", "locale": "en-US", "features": {"comments": False, "search": True}, "buildId": "demo-1"}
_EMBED_JS = """
fetch('/api' + location.pathname + '.json').then(function (r) { return r.json(); }).then(function (d) { gcBuild(document.getElementById('root'), d); });
"""


def _embedded_article(title: str, seed: int) -> dict[str, Any]:
    return article_json(title, seed, sections=3)


def _next_data_page() -> str:
    post = _embedded_article("Content shipped with the shell", 1)
    data = {"props": {"pageProps": {"nav": _NAV, "post": post}, "__N_SSG": True}, "page": "/dyn/[slug]",
            "query": {"slug": "next-data"}, "buildId": "demo-1", "runtimeConfig": _CONFIG}
    return shell_html(post["title"], "/static/dyn/embedded.js", data=_script_json(data, "__NEXT_DATA__"))


def _nuxt_data_page() -> str:
    article = _embedded_article("A Nuxt page read without a browser", 3)
    payload = {"data": {"nav": _NAV, "article-nuxt-data": article}, "state": {"locale": "en-US"}, "once": [], "_errors": {}}
    return shell_html(article["title"], "/static/dyn/embedded.js", data=_script_json(devalue(payload), "__NUXT_DATA__"))


def _apollo_article() -> dict[str, Any]:
    a = _embedded_article("Apollo cache with an HTML body", 5)
    body = "".join(f"<h2>{html.escape(s['heading'])}</h2><p>{html.escape(s['text'])}</p>" for s in a["sections"])
    return {"title": a["title"], "sections": a["sections"], "link": None, "body": body}


def _apollo_page() -> str:
    a = _apollo_article()
    state = {
        "ROOT_QUERY": {"__typename": "Query", 'article({"slug":"apollo-state"})': {"__ref": "Article:7"}, "menu": {"__ref": "Menu:1"}},
        "Menu:1": {"__typename": "Menu", "items": _NAV},
        "Article:7": {"__typename": "Article", "id": "7", "title": a["title"], "slug": "apollo-state", "body": a["body"]},
    }
    script = f"<script>window.__APOLLO_STATE__ = {json.dumps(state)};</script>"
    return shell_html(a["title"], "/static/dyn/embedded.js", data=script)


_CONFIG_ONLY_SITE = {
    "name": "Gatecrawl Demo",
    "nav": _NAV,
    "description": ("Gatecrawl Demo is a small site that shows how a crawler decides which pages need a browser, which pages "
                    "can be read from their first response, and which pages must be dropped with a typed reason before "
                    "anything reaches the store. Every page here exists to exercise one of those decisions."),
    "footer": "Made for tests. Nothing on this site is real, and every link stays on this host.",
}


_CONSENT_JS = """
var c = document.querySelector('.consent'); if (c) { c.parentNode.removeChild(c); }
""" + _EMBED_JS

_CONSENT = ('<div class="consent" role="dialog"><h2>Your privacy</h2><p>We and our partners use cookies to store and access information '
            'on your device for personalised ads and content, measurement, audience research and services development. You can accept '
            'all cookies or manage your preferences. Your choices apply to this site only and can be changed at any time in the privacy '
            'settings at the bottom of every page.</p><button>Accept all</button><button>Manage preferences</button></div>')


def _consent_page() -> str:
    data = {"props": {"pageProps": {"nav": _NAV, "post": None}}, "page": "/dyn/[slug]", "buildId": "demo-1", "runtimeConfig": _CONFIG}
    return shell_html("Behind a consent dialog", "/static/dyn/consent.js", body='<div id="root"></div>' + _CONSENT,
                      data=_script_json(data, "__NEXT_DATA__"))


def _config_only_page() -> str:
    data = {"props": {"pageProps": {"site": _CONFIG_ONLY_SITE, "post": None}}, "page": "/dyn/[slug]",
            "query": {"slug": "config-only"}, "buildId": "demo-1", "runtimeConfig": _CONFIG}
    return shell_html("Settings that are not the story", "/static/dyn/embedded.js", data=_script_json(data, "__NEXT_DATA__"))


_H = "text/html; charset=utf-8"
_J = "application/json"
_JS = "application/javascript"

DYNAMIC_PAGES: dict[str, tuple[int, str, object]] = {
    "/dyn/spa": (200, _H, lambda: shell_html("Rendered story", "/static/dyn/spa.js")),
    "/static/dyn/spa.js": (200, _JS, _js(_SPA_JS)),
    "/api/dyn/spa.json": (200, _J, _delayed_json(article_json("A story built by JavaScript", 0, link="/dyn/found-by-render"), 0.3)),
    "/dyn/skeleton": (200, _H, lambda: shell_html("Skeleton page", "/static/dyn/skeleton.js", body=_SKELETON_BODY)),
    "/static/dyn/skeleton.js": (200, _JS, _js(_SKELETON_JS)),
    "/api/dyn/skeleton.json": (200, _J, lambda: json.dumps(article_json("After the skeleton", 2), sort_keys=True)),
    "/dyn/route": (200, _H, lambda: shell_html("Client-side route", "/static/dyn/route.js")),
    "/static/dyn/route.js": (200, _JS, _js(_ROUTE_JS)),
    "/api/dyn/route.json": (200, _J, lambda: json.dumps(article_json("The route resolved", 4), sort_keys=True)),
    "/dyn/lazy": (200, _H, lambda: shell_html("Lazy sections", "/static/dyn/lazy.js")),
    "/static/dyn/lazy.js": (200, _JS, lambda: _LAZY_JS),
    "/api/dyn/lazy.json": (200, _J, lambda: json.dumps(article_json("Sections that load on scroll", 1, sections=4), sort_keys=True)),
    "/dyn/tabs": (200, _H, lambda: shell_html("Tabbed page", "/static/dyn/tabs.js")),
    "/static/dyn/tabs.js": (200, _JS, lambda: _TABS_JS),
    "/api/dyn/tabs.json": (200, _J, lambda: json.dumps(article_json("Tabs with one active panel", 5, sections=3), sort_keys=True)),
    "/dyn/static-short": (200, _H, _static_short),
    "/static/dyn/analytics.js": (200, _JS, lambda: "window.gcAnalytics = true;\n"),
    "/dyn/never": (200, _H, lambda: shell_html("Never filled", "/static/dyn/never.js")),
    "/static/dyn/never.js": (200, _JS, lambda: _NEVER_JS),
    "/dyn/loop": (200, _H, lambda: shell_html("Endless loop", "/static/dyn/loop.js")),
    "/static/dyn/loop.js": (200, _JS, lambda: _LOOP_JS),
    "/dyn/ticker": (200, _H, lambda: shell_html("Live ticker", "/static/dyn/ticker.js")),
    "/static/dyn/ticker.js": (200, _JS, _js(_TICKER_JS)),
    "/api/dyn/ticker.json": (200, _J, lambda: json.dumps(article_json("A page that never settles", 6), sort_keys=True)),
    "/dyn/chatty": (200, _H, _chatty_page),
    "/static/dyn/chatty.js": (200, _JS, lambda: _CHATTY_JS),
    "/api/dyn/ping.json": (200, _J, lambda: "{}"),
    "/dyn/found-by-render": (200, _H, _found_by_render),
    "/static/dyn/embedded.js": (200, _JS, _js(_EMBED_JS)),
    "/dyn/next-data": (200, _H, _next_data_page),
    "/api/dyn/next-data.json": (200, _J, lambda: json.dumps(_embedded_article("Content shipped with the shell", 1), sort_keys=True)),
    "/dyn/nuxt-data": (200, _H, _nuxt_data_page),
    "/api/dyn/nuxt-data.json": (200, _J, lambda: json.dumps(_embedded_article("A Nuxt page read without a browser", 3), sort_keys=True)),
    "/dyn/apollo-state": (200, _H, _apollo_page),
    "/api/dyn/apollo-state.json": (200, _J, lambda: json.dumps(_apollo_article(), sort_keys=True)),
    "/dyn/config-only": (200, _H, _config_only_page),
    "/api/dyn/config-only.json": (200, _J, lambda: json.dumps(_embedded_article("Settings that are not the story", 6), sort_keys=True)),
    "/dyn/consent-shell": (200, _H, _consent_page),
    "/static/dyn/consent.js": (200, _JS, _js(_CONSENT_JS)),
    "/api/dyn/consent-shell.json": (200, _J, lambda: json.dumps(_embedded_article("Behind a consent dialog", 7), sort_keys=True)),
}

_KEPT = ("kept", None)
DYNAMIC_EXPECTED: dict[str, tuple[str, str | None]] = {
    **dict.fromkeys(("/dyn/spa", "/dyn/skeleton", "/dyn/route", "/dyn/lazy", "/dyn/tabs", "/dyn/static-short"), _KEPT),
    **dict.fromkeys(("/dyn/never", "/dyn/loop", "/dyn/ticker"), ("dropped", "readiness_timeout")),
    **dict.fromkeys(("/dyn/chatty", "/dyn/found-by-render", "/dyn/next-data", "/dyn/nuxt-data", "/dyn/apollo-state",
                     "/dyn/config-only", "/dyn/consent-shell"), _KEPT),
}

# Pages the hub links to (found-by-render is reachable only through the rendered /dyn/spa).
LINKED_FROM_HUB = [p for p in DYNAMIC_EXPECTED if p != "/dyn/found-by-render"]
# Pages that must be rendered / must not be.
RENDERED = ["/dyn/spa", "/dyn/skeleton", "/dyn/route", "/dyn/lazy", "/dyn/tabs", "/dyn/never", "/dyn/loop", "/dyn/ticker", "/dyn/config-only", "/dyn/consent-shell"]
NOT_RENDERED = ["/dyn/static-short", "/dyn/found-by-render"]
# Shells kept from the data in their first response (no render), and the shell whose data must not be used.
EMBEDDED = ["/dyn/next-data", "/dyn/nuxt-data", "/dyn/apollo-state"]
EMBEDDED_TRAPS = ["/dyn/config-only", "/dyn/consent-shell"]


def register(pages: dict, expected: dict) -> None:
    """Add the dynamic pages to the demo site and link them from its hub page."""
    pages.update(DYNAMIC_PAGES)
    expected.update(DYNAMIC_EXPECTED)
    status, ctype, hub = pages["/"]
    links = "".join(f'<li><a href="{p}">{html.escape(p.rsplit("/", 1)[1])}</a></li>' for p in LINKED_FROM_HUB)

    def hub_with_dynamic() -> str:
        out = hub()  # type: ignore[operator]
        return out.replace('</ul></div>', links + '</ul></div>', 1)

    pages["/"] = (status, ctype, hub_with_dynamic)
