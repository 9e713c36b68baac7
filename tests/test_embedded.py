"""The embedded-data reader (gatecrawl.core.embedded) through convert(): shells whose first
response carries their content are kept from it; shells whose data is navigation, settings or
UI messages are not; hostile data never crashes or hangs the reader."""

from __future__ import annotations

import json
import time

import pytest

from gatecrawl.core.convert import convert
from gatecrawl.core.embedded import PathError, format_path, has_embedded_data, parse_path, read_embedded
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core.recipes import RecipeError, load_recipe_text
from gatecrawl.demo.dynamic import DYNAMIC_PAGES, EMBEDDED, EMBEDDED_TRAPS, article_json, devalue

URL = "http://127.0.0.1:8000/stories/a-story-told-by-data"
TITLE = "A story told by data"


def shell(data: str, title: str = TITLE) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Demo</title></head>'
            '<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>'
            f'{data}<script src="/app.js"></script></body></html>')


def next_data(page_props: dict) -> str:
    doc = {"props": {"pageProps": page_props}, "page": "/stories/[slug]", "query": {"slug": "a-story-told-by-data"}, "buildId": "b1"}
    return f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(doc)}</script>'


NAV = [{"label": "Home", "href": "/"}, {"label": "Stories", "href": "/stories"}, {"label": "About us", "href": "/about"}]
ARTICLE = article_json(TITLE, 2, sections=3)
KNOWN = [ARTICLE["title"]] + [x for s in ARTICLE["sections"] for x in (s["heading"], s["text"])]


def assert_kept(res, source: str, path: str) -> None:
    ev = res.evidence
    assert (res.ok, ev["reader"]) == (True, "embedded_data"), (res.drop_reason, ev.get("embedded"))
    assert (ev["embedded"]["source"], ev["embedded"]["path"]) == (source, path)
    assert ev["needs_render"] is True and ev["fetch_gate"]["needs_render"] is True
    for text in KNOWN:
        assert text in res.markdown, text


def assert_not_kept(res, rejected: str | None = None) -> None:
    assert not res.ok and res.drop_reason == "shell_page" and res.evidence["reader"] == "http"
    if rejected is not None:
        assert res.evidence["embedded"]["rejected"] == rejected, res.evidence["embedded"]


def test_next_data_article_is_kept_with_its_source(packet_validator):
    res = convert(shell(next_data({"nav": NAV, "post": ARTICLE})), URL)
    assert_kept(res, "script#__NEXT_DATA__", "props.pageProps.post")
    assert res.evidence["embedded"]["named_by"] in ("title", "url")
    assert res.markdown.startswith(f"# {TITLE}\n")
    assert "About us" not in res.markdown  # the navigation is not content
    packet_validator.validate(res.evidence)


def test_nuxt_devalue_apollo_and_json_parse_shapes():
    nuxt = f'<script id="__NUXT_DATA__" type="application/json">{json.dumps(devalue({"data": {"nav": NAV, "story": ARTICLE}}))}</script>'
    assert_kept(convert(shell(nuxt), URL), "script#__NUXT_DATA__", "data.story")
    body = "".join(f"<h2>{s['heading']}</h2><p>{s['text']}</p>" for s in ARTICLE["sections"])
    apollo = {"ROOT_QUERY": {"story": {"__ref": "Story:1"}}, "Story:1": {"__typename": "Story", "title": TITLE, "body": body}}
    res = convert(shell(f"<script>window.__APOLLO_STATE__={json.dumps(apollo)};var x=1;</script>"), URL)
    assert_kept(res, "window.__APOLLO_STATE__", '["Story:1"]')
    # JSON.parse of a single-quoted JavaScript string literal (escapes decoded, never evaluated)
    literal = json.dumps({"page": {"nav": NAV, "article": ARTICLE}}).replace("\\", "\\\\").replace("'", "\\'")
    res = convert(shell(f"<script>window['__INITIAL_STATE__'] = JSON.parse('{literal}');</script>"), URL)
    assert_kept(res, "window.__INITIAL_STATE__", "page.article")


def test_json_ld_article_body_and_markdown_in_json():
    text = "\n\n".join(f"## {s['heading']}\n\n{s['text']}" for s in ARTICLE["sections"])
    ld = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": TITLE, "datePublished": "2024-03-01", "articleBody": text}
    res = convert(shell(f'<script type="application/ld+json">{json.dumps(ld)}</script>'), URL)
    assert_kept(res, "script[type=application/ld+json]#0", ".")
    assert "## Part 1" in res.markdown  # Markdown headings inside the string stay headings


@pytest.mark.parametrize("props", [
    {"nav": NAV, "site": {"name": "Demo", "locale": "en-US", "apiBase": "/api"}},  # navigation and settings only
    # a site description long enough for the gate, in a record that does not name the page
    {"nav": NAV, "site": {"name": "Demo Site", "description": " ".join(ARTICLE["sections"][0]["text"] for _ in range(3))}},
    # UI messages: many prose strings side by side, one of them even repeating the page title
    {"messages": {f"msg{i}": f"{TITLE if i == 0 else 'Notice'}: " + ARTICLE["sections"][i % 3]["text"] for i in range(12)}},
])
def test_navigation_config_and_messages_are_never_kept(props):
    assert_not_kept(convert(shell(next_data(props)), URL))


def test_article_next_to_teasers_of_other_pages():
    """No record dominates (the article holds 55% of the prose): the one that names the page is
    read, the teasers are not; a hero named like the page next to the real body is not enough."""
    related = [{"title": f"Other story {k}", "excerpt": ARTICLE["sections"][k]["text"][:200] + "."} for k in range(3)]
    post = dict(ARTICLE, author={"name": "Ann Example"}, tags=["data", "shells"])
    res = convert(shell(next_data({"nav": NAV, "post": post, "related": related})), URL)
    assert_kept(res, "script#__NEXT_DATA__", "props.pageProps.post")
    assert "Other story" not in res.markdown
    hero = {"title": TITLE, "standfirst": ARTICLE["sections"][0]["text"], "summary": ARTICLE["sections"][1]["text"]}
    blocks = [{"text": s["text"]} for s in ARTICLE["sections"] * 3]
    assert_not_kept(convert(shell(next_data({"hero": hero, "blocks": blocks})), URL), "does_not_name_page")


def _contentful(sections: list[dict]) -> dict:
    def text(v: str, bold: bool = False) -> dict:
        return {"nodeType": "text", "value": v, "marks": [{"type": "bold"}] if bold else [], "data": {}}

    content = []
    for sec in sections:
        content.append({"nodeType": "heading-2", "data": {}, "content": [text(sec["heading"])]})
        first, _, rest = sec["text"].partition(", ")
        content.append({"nodeType": "paragraph", "data": {}, "content": [text(first + ", "), text(rest, bold=True)]})
    return {"nodeType": "document", "data": {}, "content": content}


def _portable(sections: list[dict]) -> list[dict]:
    out = []
    for k, sec in enumerate(sections):
        out.append({"_type": "block", "_key": f"3f9a1c2b7e{k}h", "style": "h2", "markDefs": [],
                    "children": [{"_type": "span", "_key": f"9c0d{k}", "text": sec["heading"], "marks": []}]})
        first, _, rest = sec["text"].partition(", ")
        out.append({"_type": "block", "_key": f"3f9a1c2b7e{k}p", "style": "normal", "markDefs": [{"_type": "link", "_key": "l1", "href": "/x"}],
                    "children": [{"_type": "span", "_key": f"a1{k}", "text": first + ", ", "marks": []},
                                 {"_type": "span", "_key": f"a2{k}", "text": rest, "marks": ["l1"]}]})
    return out


def _prosemirror(sections: list[dict]) -> dict:
    content = []
    for sec in sections:
        content.append({"type": "heading", "attrs": {"level": 2}, "content": [{"type": "text", "text": sec["heading"]}]})
        first, _, rest = sec["text"].partition(", ")
        content.append({"type": "paragraph", "content": [{"type": "text", "text": first + ", "},
                                                         {"type": "text", "text": rest, "marks": [{"type": "italic"}]}]})
    return {"type": "doc", "content": content}


@pytest.mark.parametrize("body", [_contentful, _portable, _prosemirror])
def test_rich_text_blocks_keep_paragraphs_and_headings(body):
    """Rich text whose sentences are split into spans: each block's spans are joined (a
    paragraph stays one paragraph), short blocks before text are headings."""
    post = {"title": TITLE, "slug": "a-story-told-by-data", "body": body(ARTICLE["sections"])}
    res = convert(shell(next_data({"nav": NAV, "post": post})), URL)
    assert_kept(res, "script#__NEXT_DATA__", "props.pageProps.post")
    for sec in ARTICLE["sections"]:
        assert f"\n## {sec['heading']}\n\n{sec['text']}\n" in res.markdown, res.markdown


def test_a_teaser_is_not_the_page():
    """A record with its title and a summary only (the body loads later): partial, never kept."""
    teaser = {"title": TITLE, "excerpt": ARTICLE["sections"][0]["text"], "body": None}
    assert_not_kept(convert(shell(next_data({"nav": NAV, "post": teaser})), URL), "too_short")
    ld = {"@type": "NewsArticle", "headline": TITLE, "description": ARTICLE["sections"][1]["text"]}
    assert_not_kept(convert(shell(f'<script type="application/ld+json">{json.dumps(ld)}</script>'), URL), "no_prose")


def test_json_ld_description_is_not_content():
    """A product's JSON-LD description, however long, is not the page: only articleBody/text count."""
    desc = " ".join(s["text"] for s in ARTICLE["sections"])
    ld = {"@context": "https://schema.org", "@type": "Product", "name": TITLE, "description": desc, "offers": {"price": "9.99"}}
    assert_not_kept(convert(shell(f'<script type="application/ld+json">{json.dumps(ld)}</script>'), URL), "no_prose")


def test_record_must_name_the_page():
    other = article_json("Something else entirely", 2, sections=3)
    res = convert(shell(next_data({"nav": NAV, "post": other})), "http://127.0.0.1:8000/stories/123")
    assert_not_kept(res, "does_not_name_page")
    # the URL's slug names it instead of the title
    res = convert(shell(next_data({"post": other}), title="Demo"), "http://127.0.0.1:8000/stories/something-else-entirely")
    assert res.ok and res.evidence["embedded"]["named_by"] == "url"


ABOUT = " ".join(s["text"] for s in ARTICLE["sections"])  # 800 characters of prose about the site


def _site_shell(title: str, props: dict, meta: str = "") -> str:
    return shell(next_data(props), title=title).replace("| Demo</title>", f"</title>{meta}")


def test_the_site_name_never_names_a_record():
    """"Site | Page" titles: a settings record labelled with the site's name (with a long about
    text) is not the page once the site's name is known (og:site_name, or the host's letters);
    the record named by the other segment is."""
    site = {"name": "Regional Reports", "about": ABOUT}
    url = "http://127.0.0.1:8000/reports/7"
    og = '<meta property="og:site_name" content="Regional Reports">'
    assert_not_kept(convert(_site_shell("Regional Reports | A story told by data ", {"site": site}, og), url), "does_not_name_page")
    assert_not_kept(convert(_site_shell("Regional Reports | Home ", {"site": site}), "http://regionalreports.test/r/7"), "does_not_name_page")
    assert_not_kept(convert(_site_shell("Regional Reports ", {"site": site}, og), url), "does_not_name_page")
    res = convert(_site_shell(f"Regional Reports | {TITLE} ", {"site": {"name": "Regional Reports"}, "post": ARTICLE}, og), url)
    assert res.ok and res.evidence["embedded"]["named_by"] == "title" and res.evidence["embedded"]["path"] == "props.pageProps.post"


def test_non_shell_pages_are_untouched():
    paras = "".join(f"<p>{s['text']}</p>" for s in ARTICLE["sections"])
    page = (f"<html><head><title>{TITLE}</title></head><body><main><article><h1>{TITLE}</h1>{paras}</article></main>"
            f"{next_data({'post': ARTICLE})}</body></html>")
    res = convert(page, URL)
    assert res.ok and res.evidence["reader"] == "http" and "embedded" not in res.evidence


def test_recipe_switch_and_named_path():
    page = shell(next_data({"nav": NAV, "post": ARTICLE, "teaser": {"title": TITLE, "text": ARTICLE["sections"][0]["text"]}}))
    off = load_recipe_text("[embedded]\nenabled = false\n", source="r.toml", default_name="r")
    res = convert(page, URL, recipe=off)
    assert_not_kept(res)
    assert "embedded" not in res.evidence
    named = load_recipe_text('[embedded]\npaths = ["props.pageProps.missing", "props.pageProps.post"]\n', source="r.toml", default_name="r")
    assert_kept(convert(page, URL, recipe=named), "script#__NEXT_DATA__", "props.pageProps.post")
    wrong = load_recipe_text('[embedded]\npaths = ["props.nothing"]\n', source="r.toml", default_name="r")
    assert_not_kept(convert(page, URL, recipe=wrong), "no_named_path")


@pytest.mark.parametrize("path", ["", "a..b", ".a", "a[x]", "a[0", 'a["b]'])
def test_bad_json_path_is_a_recipe_error_naming_file_and_key(path):
    with pytest.raises(RecipeError) as info:
        load_recipe_text(f"[embedded]\npaths = ['ok.path', {json.dumps(path)}]\n", source="recipes/site.toml", default_name="site")
    assert str(info.value).startswith("recipes/site.toml: key 'embedded.paths[1]'")
    with pytest.raises(PathError):
        parse_path(path)


def test_path_round_trip():
    for path in ["props.pageProps.post", 'ROOT_QUERY["Story:1"].body', "items[0].text", '["a.b"][3]']:
        assert format_path(parse_path(path)) == path


def test_demo_pages():
    for path in EMBEDDED:
        res = convert(DYNAMIC_PAGES[path][2](), "http://127.0.0.1:1" + path)
        assert res.ok and res.evidence["reader"] == "embedded_data", path
    for path in EMBEDDED_TRAPS:
        res = convert(DYNAMIC_PAGES[path][2](), "http://127.0.0.1:1" + path)
        assert not res.ok and res.evidence["reader"] == "http" and res.evidence["needs_render"], path


# --- hostile data: bounded work, never an exception ---------------------------------------


def _timed(page: str, budget_s: float = 30.0):
    # A guard against runaway work (a hang, quadratic blow-up on 200,000 levels), not a speed
    # test: the budgets leave a loaded machine lots of room.
    t = time.monotonic()
    res = convert(page, URL)
    took = time.monotonic() - t
    assert took < budget_s, took
    assert res.drop_reason != "converter_error", res.evidence["drop_detail"]
    return res


def test_hostile_json_is_bounded():
    deep = "[" * 200_000 + "]" * 200_000
    _timed(shell(f'<script id="__NEXT_DATA__" type="application/json">{deep}</script>'))
    deep_obj = '{"a":' * 50_000 + '"x"' + "}" * 50_000
    _timed(shell(f"<script>window.__INITIAL_STATE__ = {deep_obj};</script>"))
    wide = json.dumps({"items": [{"t": "a b"} for _ in range(280_000)]}, separators=(",", ":"))  # under 4 MB, 560,000 values
    assert len(wide) < 4_000_000
    _timed(shell(f'<script id="__NEXT_DATA__" type="application/json">{wide}</script>'), 60.0)
    huge = json.dumps({"post": {"title": TITLE, "body": "A sentence of words. " * 400_000}})  # 8 MB: over the cap, skipped
    res = _timed(shell(f'<script id="__NEXT_DATA__" type="application/json">{huge}</script>'), 60.0)
    assert res.evidence["reader"] == "http"
    for bad in ['{"a": ', "{'single': 1}", "NaN", '{"a": "\\ud800"}', "\x00\x01", "]]]"]:
        _timed(shell(f'<script id="__NEXT_DATA__" type="application/json">{bad}</script>'))
        _timed(shell(f"<script>window.__APP__ = {bad}; window.__X__ = JSON.parse('{bad}')</script>"))


def test_hostile_devalue_cycles_and_bad_refs():
    cyclic = [["Reactive", 1], {"self": 1, "next": 2, "text": 3}, [1, 2, 99, -5, "x"], "word " * 30]
    read_embedded(parse_html(shell(f'<script id="__NUXT_DATA__" type="application/json">{json.dumps(cyclic)}</script>')))
    _timed(shell(f'<script id="__NUXT_DATA__" type="application/json">{json.dumps(cyclic)}</script>'))
    chain = [[i + 1] for i in range(100_000)] + ["end"]  # a reference chain deeper than any limit
    _timed(shell(f'<script id="__NUXT_DATA__" type="application/json">{json.dumps(chain)}</script>'))


def test_has_embedded_data_is_cheap_and_names_sources():
    doc = parse_html(shell(next_data({"post": ARTICLE}) + "<script>window.__APOLLO_STATE__ = {};</script><script>var a = 1;</script>"))
    assert has_embedded_data(doc) == ["script#__NEXT_DATA__", "window.__APOLLO_STATE__"]
    assert has_embedded_data(parse_html(shell(""))) == []


def test_bench_mixed_site_shells():
    """bench.render --embedded's site, page by page through convert(): every shell that carries
    its article is kept from it with the known text; no shell whose data is not its article is."""
    from bench.render import build_mixed_site, token_f1

    routes, kinds, known = build_mixed_site()
    for path, kind in kinds.items():
        if kind == "static":
            continue
        res = convert(routes[path][1], "http://127.0.0.1:1" + path)
        if kind == "embedded":
            assert res.ok and res.evidence["reader"] == "embedded_data", (path, res.evidence.get("embedded"))
            assert token_f1(res.markdown, known[path]) >= 0.95, path
        else:
            assert not res.ok and res.drop_reason == "shell_page", (path, res.evidence.get("embedded"))


def test_scrapy_convert_and_the_package_api_read_embedded_data(tmp_path):
    """The same reader on every path through convert(): `scrapy convert FILE --url` and
    `from gatecrawl import convert`."""
    import subprocess
    import sys

    import gatecrawl
    from crawlutil import ROOT

    page = tmp_path / "next.html"
    page.write_text(DYNAMIC_PAGES["/dyn/next-data"][2](), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "scrapy", "convert", str(page), "--url", "http://127.0.0.1:1/dyn/next-data", "--evidence"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("# Content shipped with the shell\n")
    assert '"reader": "embedded_data"' in proc.stdout and '"path": "props.pageProps.post"' in proc.stdout
    res = gatecrawl.convert(page.read_bytes(), "http://127.0.0.1:1/dyn/next-data")
    assert res.evidence["reader"] == "embedded_data"
