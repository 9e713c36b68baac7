"""Robust HTML bytes -> lxml document parsing.

``parse_html`` never raises. Whatever it is given (empty input, binary garbage, a wrong
declared encoding, 5,000 levels of nesting, megabytes of text) it returns the root
``<html>`` element of a document that has a ``<head>`` and a ``<body>`` (the body may be
empty).

Encoding rule (deterministic, first match wins):

1. a byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE);
2. the ``charset=`` parameter of ``content_type``;
3. a ``<meta charset=...>`` or ``<meta http-equiv="Content-Type" content="...charset=...">``
   in the first 4,096 bytes;
4. UTF-8 when the bytes are valid UTF-8, otherwise ``cp1252`` (the web's legacy default).

A declared label is mapped as browsers do for the common cases (``iso-8859-1``,
``latin1`` and ``us-ascii`` decode as ``cp1252``; ``utf-16``/``utf-32`` labels found in a
``<meta>`` of an ASCII-compatible document mean UTF-8); an unknown label is skipped and
the next rule applies. Decoding always uses ``errors="replace"``, so bytes that are invalid
in the chosen encoding become U+FFFD instead of failing. Characters that XML cannot hold
(C0 controls other than tab/newline/carriage return, lone surrogates, U+FFFE/U+FFFF) are
removed before parsing.

Depth rule: libxml2 stops building deeper than its limit; in addition any element deeper
than :data:`MAX_DEPTH` is flattened (its descendants' text is kept, their tags are
dropped) so that recursive consumers downstream stay far from Python's recursion limit.
Comments and processing instructions are dropped.
"""

from __future__ import annotations

import codecs
import re

import lxml.etree
import lxml.html

__all__ = ["MAX_DEPTH", "detect_encoding", "parse_html"]

#: Elements nested deeper than this (counting from <html>) are flattened into text.
MAX_DEPTH = 180

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_CT_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]{0,500}?charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_BAD_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# The same characters written as numeric character references ("&#1;", "&#x1F;", "&#65535;"):
# the parser would decode them into the tree, where lxml then refuses any text that holds them.
_BAD_XML_CHAR_REFS = re.compile(
    r"&#(?:0*(?:[0-8]|1[1-24-9]|2[0-9]|3[01]|6553[45])"
    r"|[xX]0*(?:[0-8bBcCeEfF]|1[0-9a-fA-F]|[dD][89a-fA-F][0-9a-fA-F]{2}|[fF]{3}[eEfF]))(?![0-9a-fA-F]);?"
)
_BAD_XML_CHAR_REF_BYTES = re.compile(_BAD_XML_CHAR_REFS.pattern.encode("ascii"))

# Browser-style label mapping for the labels that matter in practice.
_LABEL_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso_8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "x-sjis": "shift_jis",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
}

_EMPTY_DOC = "<html><head></head><body></body></html>"


def _normalise_label(label: str | None, *, from_meta: bool = False) -> str | None:
    """Map a charset label to a Python codec name, or None if unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _LABEL_ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except (LookupError, ValueError):
        return None
    if from_meta and (name.startswith("utf-16") or name.startswith("utf-32")):
        # A <meta> readable as ASCII cannot really be UTF-16/32 (HTML spec rule).
        return "utf-8"
    return name


def detect_encoding(body: bytes, content_type: str | None = None) -> tuple[str, int]:
    """Return ``(codec name, number of BOM bytes to skip)`` by the module's rule."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    if content_type:
        m = _CT_CHARSET.search(content_type)
        if m:
            name = _normalise_label(m.group(1))
            if name:
                return name, 0
    m = _META_CHARSET.search(body[:4096])
    if m:
        name = _normalise_label(m.group(1).decode("ascii", "replace"), from_meta=True)
        if name:
            return name, 0
    try:
        body.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        if exc.start < len(body) - 4:  # not just a truncated final sequence
            return "cp1252", 0
    return "utf-8", 0


def _decode(body: bytes | str, content_type: str | None) -> str:
    return _decode_checked(body, content_type)[0]


#: the C0 controls XML cannot hold, as bytes
_C0_BYTES = bytes(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))


def _decode_checked(body: bytes | str, content_type: str | None) -> tuple[str, bool, bytes | None]:
    """``(text, clean, utf8)``: the decoded text; True when it surely holds none of the
    characters ``_BAD_XML_CHARS`` removes (so the search over the whole text can be skipped):
    decoded as UTF-8 or cp1252 (which never give a surrogate) from bytes without a C0 control,
    and holding neither U+FFFE nor U+FFFF (looked for in the text: CPython answers that search
    at once for a text with no code point above U+00FF, where a search of the bytes scans
    them); and the bytes the text is the UTF-8 of (the served bytes less their byte-order
    mark) when they were valid UTF-8, else None (the parser is given those, not the text
    encoded again)."""
    if isinstance(body, str):
        return body, False, None
    try:
        body = bytes(body)
    except Exception:
        return "", True, None
    name, skip = detect_encoding(body, content_type)
    data = body[skip:]
    utf8 = None
    try:
        if name == "utf-8":
            try:
                text = data.decode(name)
                utf8 = data
            except UnicodeDecodeError:
                text = data.decode(name, errors="replace")
        else:
            text = data.decode(name, errors="replace")
    except Exception:  # a codec that misbehaves on garbage
        return data.decode("utf-8", errors="replace"), False, None
    clean = (name in ("utf-8", "cp1252") and len(body.translate(None, _C0_BYTES)) == len(body)
             and "\ufffe" not in text and "\uffff" not in text)
    return text, clean, utf8


_AT_MAX_DEPTH = lxml.etree.XPath("/".join(["*"] * MAX_DEPTH))


#: table structure that holds no text of its own in Markdown: flattened, it becomes a block
_TABLE_STRUCTURE = frozenset(("table", "thead", "tbody", "tfoot", "tr", "colgroup", "col"))
#: set on the root when elements were flattened: how many (the packet reports it)
FLATTENED_ATTR = "data-gc-flattened"


def _flatten_deep(root: lxml.html.HtmlElement) -> None:
    """Replace every element at depth MAX_DEPTH by its text content (tags dropped). A flattened
    piece of table structure becomes a ``<div>`` so that its text is written, not skipped as
    text between rows; the number of flattened elements is kept on the root."""
    n = 0
    for el in _AT_MAX_DEPTH(root):  # elements exactly MAX_DEPTH levels below the root
        if not len(el):
            continue
        text = "".join(el.itertext())
        tail = el.tail
        for child in list(el):
            el.remove(child)
        el.text = text
        el.tail = tail
        if isinstance(el.tag, str) and el.tag.lower() in _TABLE_STRUCTURE:
            el.tag = "div"
        n += 1
    if n:
        root.set(FLATTENED_ATTR, str(n))


def _ensure_structure(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    if not isinstance(root.tag, str) or root.tag.lower() != "html":
        html = lxml.html.document_fromstring(_EMPTY_DOC, parser=_parser())
        html.find("body").append(root)
        root = html
    if root.find("head") is None:
        root.insert(0, lxml.html.Element("head"))
    if root.find("body") is None:
        body = lxml.html.Element("body")
        # move any non-head children into the new body
        for child in list(root):
            if child.tag != "head":
                body.append(child)
        root.append(body)
    return root


#: Every element of a parsed document is a plain ``HtmlElement``. lxml.html's default lookup
#: picks a class per tag (FormElement, InputElement, ...) by calling back into Python each time
#: an element is touched from Python; nothing here uses those form helpers, and the callback
#: was the single largest cost of a conversion.
_PLAIN_LOOKUP = lxml.etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)


def _parser(encoding: str | None = None) -> lxml.html.HTMLParser:
    parser = lxml.html.HTMLParser(
        huge_tree=True,
        remove_comments=True,
        remove_pis=True,
        recover=True,
        no_network=True,
        default_doctype=False,
        encoding=encoding,
    )
    parser.set_element_class_lookup(_PLAIN_LOOKUP)
    return parser


def _parse_text(text: str, utf8: bytes | None = None) -> lxml.html.HtmlElement:
    """The document of the decoded ``text``, given to libxml2 as UTF-8 bytes with the encoding
    named (so a ``<meta charset>`` is not read, as for a ``str``): libxml2 reads UTF-8 as it
    is, where a ``str`` reaches it as Latin-1, UTF-16 or UCS-4 to convert first, and the
    parse takes about a sixth less time for the same tree (all 828 pages of the two
    benchmark corpora). ``utf8``: those bytes when the caller has them (the served bytes of a
    UTF-8 page, not encoded again). A text that cannot be written as UTF-8 (a lone surrogate)
    or that starts with U+FEFF (which a UTF-8 parser may take for a byte-order mark) is given
    as the ``str``."""
    if not text.startswith("\ufeff"):
        data = utf8
        if data is None:
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError:
                data = None
        if data is not None:
            return lxml.html.document_fromstring(data, parser=_parser("utf-8"))
    return lxml.html.document_fromstring(text, parser=_parser())


def parse_html(body: bytes | str, *, content_type: str | None = None) -> lxml.html.HtmlElement:
    """Parse HTML ``body`` into the root ``<html>`` element. Never raises (see module doc)."""
    try:
        text, clean, utf8 = _decode_checked(body if body is not None else b"", content_type)
        # (``utf8`` stays the text's bytes only while nothing below changes the text)
        decl = _XML_DECL.match(text)
        if decl:
            text, utf8 = text[decl.end():], None
        if not clean:
            kept = _BAD_XML_CHARS.sub("", text)
            if len(kept) != len(text):
                text, utf8 = kept, None
        if utf8 is not None:
            # (the pattern is ASCII: it matches the UTF-8 bytes where it matches the text, and
            # a search of the bytes is several times faster)
            if _BAD_XML_CHAR_REF_BYTES.search(utf8):
                text, utf8 = _BAD_XML_CHAR_REFS.sub("", text), None
        elif "&#" in text:
            text = _BAD_XML_CHAR_REFS.sub("", text)
        if not text or text.isspace():  # (``not text.strip()``, without copying the text)
            root = lxml.html.document_fromstring(_EMPTY_DOC, parser=_parser())
        else:
            try:
                root = _parse_text(text, utf8)
            except (lxml.etree.ParserError, ValueError, lxml.etree.XMLSyntaxError):
                root = lxml.html.document_fromstring(_EMPTY_DOC, parser=_parser())
        root = _ensure_structure(root)
        _flatten_deep(root)
        return root
    except Exception:  # last resort: never raise
        return lxml.html.document_fromstring(_EMPTY_DOC)
