"""The conversion stage's tree walk: :class:`MarkdownWriter` writes a prepared lxml tree as
Markdown (its block and inline rules are in :mod:`.converter`).

The walk reads the tree the way the earlier BeautifulSoup + markdownify stage did, so the
output is the same byte for byte:

* a node of the walk is an element, a comment or a text: an element's ``text`` and each
  child's ``tail`` are the text nodes, in document order between the children;
* (bs4 made a string of ASCII blanks outside ``<pre>`` one space or one line feed: the same
  output here, as such a string is only tested for blankness or collapsed to one space, and
  the one blank the collapse would not cover, the form feed, never reaches the walk: the
  parser and the preparation remove it);
* whitespace-only texts next to a block boundary are skipped; a text has its whitespace
  runs collapsed (outside ``<pre>``), is escaped (outside code) and stripped next to block
  boundaries;
* an element's children are written first; the strings are joined with the line breaks at
  their boundaries collapsed to at most two (not inside ``<pre>``); the element's rule
  (``convert_<tag>``, ``convert_hN`` for a heading tag ``h<digits>``) then turns that text
  into its Markdown; a tag without a rule gives its children's text.

The set of open tag names (``parent_tags``) carries three pseudo-tags: ``_inline`` (inside a
heading or table cell), ``_noformat`` (inside ``pre``, ``code``, ``kbd``, ``samp``) and
``[document]`` (the document node above the root).
"""

from __future__ import annotations

import functools
import re

from gatecrawl.core.markdown.roundtrip import (MAX_DEPTH, NotReadBack, child_reads_back, root_reads_back,
                                              safe_below)

_HEADING = re.compile(r"h(\d+)")
_FN_NAME = re.compile(r"[\[\]:-]")
_ALL_WS = re.compile(r"[\t \r\n]+")
#: tags whose inner whitespace next to the boundaries is dropped (headings too)
_WS_INSIDE = frozenset(("p", "blockquote", "article", "div", "section", "ol", "ul", "li", "dl", "dt", "dd",
                        "table", "thead", "tbody", "tfoot", "tr", "td", "th"))
#: text under these tags is not a bs4-style string (not part of an element's ``get_text``)
_OTHER_STRINGS = frozenset(("rt", "rp", "style", "script", "template"))

@functools.lru_cache(maxsize=4096)
def _inside(name: str) -> bool:
    """Whitespace just inside this tag is dropped (a block). Pure, cached: few tag names."""
    return name in _WS_INSIDE or _HEADING.match(name) is not None


def _tag_of(node) -> str | None:
    """The tag name of an element node, None for a text, a comment or nothing."""
    if node is None or node.__class__ is str:
        return None
    tag = node.tag
    return tag if isinstance(tag, str) else None


def _strips_next_to(node, parent_inside: bool) -> bool:
    """A text next to ``node`` (its sibling element or comment, or None at the parent's edge)
    loses its blanks on that side: the node is a block element or ``pre`` (whitespace outside
    it is dropped), or, in a parent whose inner whitespace is dropped, there is no sibling there
    (an empty comment counts as none)."""
    if node is None:
        return parent_inside
    if node.__class__ is str:
        return False  # (never: a text's neighbours are not texts)
    tag = node.tag
    if tag.__class__ is str:
        return tag == "pre" or _inside(tag)
    return parent_inside and not (node.text or "")


def _text_value(node) -> str:
    """The string value of a text or comment node (an element has none: never called on one)."""
    return node if node.__class__ is str else (node.text or "")


def get_text(el) -> str:
    """The element's strings joined (texts under ``rt``, ``rp``, ``style``, ``script``,
    ``template`` left out, as a bs4 ``get_text`` leaves them out)."""
    out: list[str] = []
    _collect_text(el, isinstance(el.tag, str) and el.tag in _OTHER_STRINGS, out)
    return "".join(out)


def _collect_text(node, skip: bool, out: list[str]) -> None:
    # (a module function, not a nested one: a nested function that calls itself is a cycle)
    if node.text and not skip:
        out.append(node.text)
    for child in node:
        if isinstance(child.tag, str):
            _collect_text(child, child.tag in _OTHER_STRINGS, out)
        if child.tail and not skip:
            out.append(child.tail)


def _heading_rule(n: int):
    """The rule of ``<hN>``: ``convert_hN`` with the level ``n`` bound (a function of the writer,
    like the class's own rules, see ``MarkdownWriter._rule``)."""
    def rule(writer, el, text: str, parent_tags: frozenset) -> str:
        return writer.convert_hN(n, el, text, parent_tags)
    return rule


class MarkdownWriter:
    """The tree walk. Subclasses give the rules: ``escape(text, parent_tags)``,
    ``escape_line_start(text)``, ``is_line_start_tag(name)`` and the ``convert_<tag>`` methods
    (``convert_hN(n, el, text, parent_tags)`` for headings, ``convert__document_`` last)."""

    #: names of the pseudo-tags the walk puts in ``parent_tags``
    TRANSPARENT_INLINE: frozenset = frozenset()

    def __init__(self) -> None:
        self._fns: dict[str, object] = {}
        self._child_tags: dict[tuple[frozenset, str], frozenset] = {}
        #: tag name -> (whitespace inside it is dropped, its rule, the tags of children that
        #: read back below it: see ``write``)
        self._tag_info: dict[str, tuple] = {}
        self._plain = False
        self._depth = 0

    # -- entry point
    def write(self, root, *, plain: bool = False) -> str:
        """Markdown of the document whose root element is ``root`` (before normalisation). (No
        method but the rules is named ``convert_...``: a tag of that name would call it.)

        ``plain``: ``root`` is a prepared tree read as if it had been serialised and parsed
        again; :class:`~gatecrawl.core.markdown.roundtrip.NotReadBack` is raised on the first
        element the parser would not give back as it is (:mod:`.roundtrip`)."""
        self._plain = plain
        self._depth = 0
        if plain and not root_reads_back(root):
            raise NotReadBack
        doc_tags = frozenset(("[document]",))
        text = self.process_tag(root, root.tag, doc_tags) if isinstance(root.tag, str) else ""
        return self.convert__document_(None, text, frozenset())

    # -- rule lookup
    def _rule(self, name: str):
        """The rule for tag ``name`` as a plain function taking the writer first (or None). The
        cache holds functions of the class, never bound methods or closures over ``self``: those
        would tie the writer (and the tree its rules keep) into a reference cycle that only the
        garbage collector frees."""
        try:
            return self._fns[name]
        except KeyError:
            pass
        lname = name.lower()
        fn = getattr(type(self), "convert_%s" % _FN_NAME.sub("_", lname), None)  # (see ``write``)
        if fn is None or not callable(fn):
            fn = None
            m = _HEADING.match(lname)
            if m:
                fn = _heading_rule(int(m.group(1)))
        self._fns[name] = fn
        return fn

    def _tags_below(self, parent_tags: frozenset, name: str) -> frozenset:
        key = (parent_tags, name)
        tags = self._child_tags.get(key)
        if tags is None:
            extra = {name}
            if _HEADING.match(name) is not None or name in ("td", "th"):
                extra.add("_inline")
            if name in ("pre", "code", "kbd", "samp"):
                extra.add("_noformat")
            tags = self._child_tags[key] = parent_tags | extra
        return tags

    # -- the walk
    def process_tag(self, el, name: str, parent_tags: frozenset) -> str:
        info = self._tag_info.get(name)
        if info is None:
            info = self._tag_info[name] = (_inside(name), self._rule(name), safe_below(name))
        inside, fn, safe = info
        if not len(el):
            # No children: the element's text, if any, is its only node (nothing before or after
            # it in the element: see process_text).
            t = el.text
            if not t or (inside and t.isspace()):
                text = ""
            else:
                tags = self._child_tags.get((parent_tags, name)) or self._tags_below(parent_tags, name)
                text = self._only_text(t, el, inside, tags)
            return text if fn is None else fn(self, el, text, parent_tags)
        tags = self._child_tags.get((parent_tags, name)) or self._tags_below(parent_tags, name)
        plain = self._plain
        if plain:
            self._depth += 1
            if self._depth >= MAX_DEPTH:
                raise NotReadBack
        nodes: list = []
        t = el.text
        if t:
            nodes.append(t)
        for child in el:
            nodes.append(child)
            t = child.tail
            if t:
                nodes.append(t)
        strings: list[str] = []
        last = len(nodes) - 1
        for i, node in enumerate(nodes):
            if node.__class__ is str:
                prev = nodes[i - 1] if i else None
                nxt = nodes[i + 1] if i < last else None
                if node.isspace() and (_strips_next_to(prev, inside) or _strips_next_to(nxt, inside)):
                    continue
                s = self.process_text(node, prev, nxt, nodes, i, el, inside, tags)
            else:
                tag = node.tag
                if plain and tag not in safe and not child_reads_back(node, tag, name):
                    raise NotReadBack
                if not isinstance(tag, str):
                    continue  # a comment or processing instruction: no output
                s = self.process_tag(node, tag, tags)
            if s:
                strings.append(s)
        if len(strings) > 1 and name != "pre" and "pre" not in parent_tags:
            joined = [""]
            for s in strings:
                if s[0] != "\n" and s[-1] != "\n":
                    lead = trail = ""
                    content = s
                else:  # the leading line feeds, the rest, its trailing line feeds
                    content = s.lstrip("\n")
                    lead = s[:len(s) - len(content)]
                    rest = content
                    content = rest.rstrip("\n")
                    trail = rest[len(content):]
                if joined[-1] and lead:
                    lead = "\n" * min(2, max(len(joined.pop()), len(lead)))
                joined.extend((lead, content, trail))
            text = "".join(joined)
        else:
            text = "".join(strings)
        if plain:
            self._depth -= 1
        return text if fn is None else fn(self, el, text, parent_tags)

    def process_text(self, text: str, prev, nxt, nodes: list, i: int, parent, parent_inside: bool,
                     parent_tags: frozenset) -> str:
        text, in_pre, noformat = self._collapse_and_escape(text, parent_tags)
        if _strips_next_to(prev, parent_inside):
            text = text.lstrip(" \t\r\n")
        if _strips_next_to(nxt, parent_inside):
            text = text.rstrip()
        if text and not in_pre and _tag_of(prev) == "br":
            text = text.lstrip(" ")  # a new line starts after a hard break
        if text and not noformat:
            # (the escape first: it seldom changes anything, and the line start is then moot)
            escaped = self.escape_line_start(text)
            if escaped != text and self._at_line_start(nodes, i, parent):
                text = escaped
        return text

    def _collapse_and_escape(self, text: str, parent_tags: frozenset) -> tuple[str, bool, bool]:
        """``(text, in_pre, noformat)``: a text's blank runs collapsed to one space (not inside
        ``pre``) and its Markdown escaped (not under ``_noformat``), the first step of
        :meth:`process_text` and :meth:`_only_text`."""
        in_pre = "pre" in parent_tags
        # (the collapse changes only a text holding a line feed, a tab, a carriage return or two
        # spaces in a row; the four substring tests are cheaper than the substitution's call)
        if not in_pre and ("\n" in text or "  " in text or "\t" in text or "\r" in text):
            text = _ALL_WS.sub(" ", text)
        noformat = "_noformat" in parent_tags
        if not noformat:
            text = self.escape(text, parent_tags)
        return text, in_pre, noformat

    def _only_text(self, text: str, parent, parent_inside: bool, parent_tags: frozenset) -> str:
        """``process_text`` of the text of an element without children (no sibling node before
        or after it: it is stripped inside a block, and at a line start when its parent is)."""
        text, _in_pre, noformat = self._collapse_and_escape(text, parent_tags)
        if parent_inside:
            text = text.lstrip(" \t\r\n").rstrip()
        if text and not noformat:
            # (the escape first: it seldom changes anything, and the line start is then moot)
            escaped = self.escape_line_start(text)
            if escaped != text and self._parent_at_line_start(parent):
                text = escaped
        return text

    def _at_line_start(self, nodes: list, i: int, parent) -> bool:
        """Nothing but blank text between this text node and the start of its line: the
        nearest earlier sibling that is not blank text is a ``<br>`` or a block, or there is
        none and the parent is a block (through transparent inline parents)."""
        j = i - 1
        while j >= 0 and _tag_of(nodes[j]) is None and not _text_value(nodes[j]).strip():
            j -= 1
        if j >= 0:
            return self.is_line_start_tag(_tag_of(nodes[j]))
        return self._parent_at_line_start(parent)

    def _parent_at_line_start(self, parent) -> bool:
        """The start of ``parent``'s content is a line start: the parent is a block, or a
        transparent inline element at a line start itself."""
        node = parent
        while True:
            if node is None:
                return True  # above the root: the document
            if node.tag not in self.TRANSPARENT_INLINE:
                return self.is_line_start_tag(node.tag)
            # a transparent inline parent: the siblings before it, nearest first
            prev = node.getprevious()
            while True:
                up = node.getparent()
                text = prev.tail if prev is not None else (up.text if up is not None else None)
                if text and text.strip():
                    return False
                if prev is None:
                    break
                if isinstance(prev.tag, str):
                    return self.is_line_start_tag(prev.tag)
                if (prev.text or "").strip():
                    return False  # a comment with text
                prev = prev.getprevious()
            node = node.getparent()

    def is_line_start_tag(self, name: str | None) -> bool:
        raise NotImplementedError

    def escape(self, text: str, parent_tags) -> str:
        raise NotImplementedError

    def escape_line_start(self, text: str) -> str:
        raise NotImplementedError

    def convert_hN(self, n: int, el, text: str, parent_tags) -> str:
        raise NotImplementedError

    def convert__document_(self, el, text: str, parent_tags) -> str:
        return text.strip("\n")


def next_content_sibling(el):
    """The element's next sibling that is an element or a text that is not blank (a text is
    returned as a str), or None."""
    node = el
    while True:
        t = node.tail
        if t and t.strip():
            return t
        node = node.getnext()
        if node is None:
            return None
        if isinstance(node.tag, str):
            return node
