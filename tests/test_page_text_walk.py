"""page._iter_text, iterative (issue 19: it was the largest cost of the presence gate), gives
the pieces the recursive walk gave, on every element of real pages, with and without a skip."""

from __future__ import annotations

import gzip
from pathlib import Path

import lxml.etree

from gatecrawl.core import page
from gatecrawl.core.htmlparse import parse_html
from gatecrawl.core import pageindex
from gatecrawl.core.pageindex import PageIndex

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path("/work/shared/bench/article-extraction/html")
JUNK = Path(__file__).resolve().parent.parent / "bench" / "junk"


def _recursive(el, skip, invisible=page._INVISIBLE) -> list[str]:
    """The walk as it was written before (the reference)."""
    out: list[str] = []

    def walk(node) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag.lower() in invisible or skip(node):
            return
        if node.text and isinstance(node.tag, str):
            out.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                out.append(child.tail)

    walk(el)
    return out


def _docs():
    bodies = [(p / "input.html").read_bytes() for p in sorted(FIXTURES.iterdir()) if (p / "input.html").is_file()]
    bodies += [p.read_bytes() for p in sorted(JUNK.glob("*/*.html"))]
    if CORPUS.is_dir():
        bodies += [gzip.decompress(p.read_bytes()) for p in sorted(CORPUS.glob("*.html.gz"))[:40]]
    bodies.append(b"<html><body><p>a<!-- c -->b<?pi x?>c<script>no</script>d<noscript>ns</noscript>e</p></body></html>")
    return [parse_html(b) for b in bodies]


def test_iterative_walk_equals_the_recursive_one_on_every_element():
    checked = 0
    for doc in _docs():
        body = doc.find("body")
        total = len(page.visible_text(body))
        chrome = page._chrome_test(total)
        chrome_ns = page._chrome_test(total, noscript=True)
        for el in doc.iter():
            assert page._iter_text(el) == _recursive(el, lambda n: False)
            # (visible_text reads a childless element's text directly)
            assert page.visible_text(el) == page.norm_space(" ".join(_recursive(el, lambda n: False)))
            no_ns = page._INVISIBLE - {"noscript"}
            assert page._iter_text(el, invisible=no_ns) == _recursive(el, lambda n: False, no_ns)
            checked += 1
        assert page._iter_text(body, chrome) == _recursive(body, chrome)
        assert page._iter_text(body, chrome_ns, invisible=page._INVISIBLE - {"noscript"}) == _recursive(body, chrome_ns, page._INVISIBLE - {"noscript"})
    assert checked > 10_000


_APP_ROOT_XPATH = lxml.etree.XPath("descendant-or-self::*[@id or @data-reactroot or @ng-app]")
_CASES = [
    # letters a case-insensitive pattern matches as ASCII ones, a role in capitals, an upper-case id
    '<div class="Coo\u212aie-bar"><a href="/">ok</a></div><div ROLE="NAVIGATION">menu</div><div id="ROOT"></div>',
    '<div id="x\ny" class="\u0130\u0130 so\u017fial">a</div><div role="main"><header class="share">h</header></div>',
    '<div><section><MAIN>m</MAIN></section><div><span role=" Main">x</span><i ROLE="MAIN">y</i></div></div>',
    '<nav role="main">n</nav><aside>a</aside><footer>f</footer><article><footer>own</footer></article>',
    '<div data-reactroot="">r</div><section ng-app="x" class="related">s</section><p>' + "text " * 300 + "</p>",
]


def test_page_index_names_what_the_tests_per_element_name():
    """PageIndex: the chrome candidates are the elements _chrome_candidate holds for, the main
    holders the ones _holds_main holds for, the app roots the ones the XPath scan with the
    per-element test named, the form fields the inputs and selects a scan finds (documents and
    cases)."""
    docs = _docs() + [parse_html(c.encode("utf-8"), content_type="text/html; charset=utf-8") for c in _CASES]
    found = apps = fields = 0
    for doc in docs:
        index = PageIndex(doc)
        expected = {el for el in doc.iter() if page._chrome_candidate(el)}
        assert page.chrome_candidates(index) == expected
        assert pageindex.main_holders(index) == {el for el in doc.iter() if page._holds_main(el)}
        roots = [el for el in _APP_ROOT_XPATH(doc) if (el.get("id") or "").lower() in pageindex._APP_ROOT_IDS
                 or el.get("data-reactroot") is not None or el.get("ng-app") is not None]
        assert index.app_roots == roots
        assert index.form_fields == list(doc.iter("input", "select"))
        fields += len(index.form_fields)
        found += len(expected)
        apps += len(roots)
    assert found > 100 and apps >= 3 and fields > 10


def test_measure_page_one_walk_equals_two_walks():
    """measure_page's one walk (chrome candidates from the PageIndex) measures what the two
    walks with the chrome test per element measure."""
    checked = 0
    for doc in _docs() + [parse_html(c.encode("utf-8"), content_type="text/html; charset=utf-8") for c in _CASES]:
        body = doc.find(".//body")
        one, two = page.measure_page(doc), page._measure_two_walks(body)
        assert (one, one.plain_text) == (two, two.plain_text)
        checked += one.boilerplate_chars > 0
    assert checked > 10


def _css_path_scan(el, root=None, *, stop_at_id: bool = False) -> str:
    """page.css_path as it was written before: each step's siblings counted in a Python loop."""
    parts: list[str] = []
    node = el
    while node is not None:
        tag = node.tag if isinstance(node.tag, str) else "*"
        parent = node.getparent()
        if node is root or parent is None:
            parts.append(tag)
            break
        ident = node.get("id")
        if stop_at_id and ident and page._PLAIN_ID.fullmatch(ident):
            parts.append(f"{tag}#{ident}")
            break
        k = 1
        for sib in parent:
            if sib is node:
                break
            if sib.tag == node.tag:
                k += 1
        parts.append(f"{tag}:nth-of-type({k})")
        node = parent
    return " > ".join(reversed(parts))


def test_css_path_counts_the_siblings_the_scan_counted():
    """css_path's tag-matched sibling count gives the path the per-sibling scan gave, on every
    node of real pages (comments and elements added after parsing among them)."""
    checked = 0
    for doc in _docs():
        body = doc.find("body")
        for _ in range(3):
            body.append(lxml.etree.Element("p"))
            body.insert(0, lxml.etree.Comment("c"))
        for el in doc.iter():
            for stop in (False, True):
                assert page.css_path(el, stop_at_id=stop) == _css_path_scan(el, stop_at_id=stop)
                assert page.css_path(el, body) == _css_path_scan(el, body)
            checked += 1
    assert checked > 10_000


def test_find_fields_with_the_index_finds_what_the_scan_finds():
    """find_fields reads the rel=author element from the PageIndex: the fields are the ones the
    document scan gave (an author link below the root, the root itself never one)."""
    cases = ['<html rel="author"><body><p>x</p></body></html>',
             '<html><body><p rel="Author">a</p><span rel="author"> Jane  Doe </span><a rel="author">B</a></body></html>']
    docs = _docs() + [parse_html(c.encode(), content_type="text/html") for c in cases]
    authors = 0
    for doc in docs:
        fields = page.find_fields(doc)
        assert page.find_fields(doc, index=PageIndex(doc)) == fields
        authors += fields["author"] is not None
    assert page.find_fields(docs[-1], index=PageIndex(docs[-1]))["author"] == "Jane Doe"
    assert authors > 5


def test_visible_text_reaches_is_the_length_test_on_every_element():
    """page.visible_text_reaches(el, n) (the shell signal's app-root test, its walk stopped early)
    answers len(visible_text(el)) >= n, on every element of real pages and at every bound near
    the length."""
    checked = 0
    for doc in _docs():
        for el in doc.iter():
            n = len(page.visible_text(el))
            for chars in {0, 1, n - 1, n, n + 1, 200}:
                assert page.visible_text_reaches(el, chars) == (n >= chars)
            checked += n > 0
    assert checked > 1000


def _meta_scan(metas, *names):
    """page._meta as it was written before: the metas scanned for each name and attribute."""
    for name in names:
        for attr in ("property", "name", "itemprop"):
            for el in metas:
                value = el.get(attr)
                if value is not None and value.lower() == name:
                    val = page.norm_space(el.get("content") or "")
                    if val:
                        return val
    return None


def test_meta_lookup_table_finds_what_the_scan_finds():
    """page._meta looks the names up in a table of the metas (page._metas_named): the content
    the scan of the metas found, for every name the pages' metas carry and the fields' names."""
    case = ('<html><head><meta name="Description" content=" "><meta property="description" content="p">'
            '<meta itemprop="DESCRIPTION" content="i"><meta name="description" content="n"></head><body></body></html>')
    found = 0
    for doc in _docs() + [parse_html(case.encode(), content_type="text/html")]:
        metas = [el for el in doc.iter("meta") if el is not doc]
        names = {(el.get(a) or "").lower() for el in metas for a in ("property", "name", "itemprop")}
        names |= {"og:title", "article:published_time", "datepublished", "date", "author", "description", "x"}
        named = page._metas_named(metas)
        for name in sorted(names):
            for more in ((), ("description",), ("og:description", "author")):
                expected = _meta_scan(metas, name, *more)
                assert page._meta(doc, name, *more, named=named) == expected
                assert page._meta(doc, name, *more) == expected
                found += expected is not None
    assert found > 100
    assert page._meta(parse_html(case.encode()), "description") == "p"
