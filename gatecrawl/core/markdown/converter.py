"""The conversion stage: :class:`GatecrawlConverter`, markdownify with pinned options, escaping
and gatecrawl's block rules."""

from __future__ import annotations

import re

from markdownify import MarkdownConverter

from gatecrawl.core.markdown.dom import (_BLOCK_TAGS, _CELL_END, _CODE_CLOSE, _CODE_OPEN,
    _ROW_END, _TRANSPARENT_INLINE, _norm_ws)

_RE_UNDERSCORE = re.compile(r"_")
_RE_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)")
_RE_LT = re.compile(r"<(?=[A-Za-z/!?])")
_RE_AMP = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_RE_TILDES = re.compile(r"~{2,}")
_RE_LINE_START = re.compile(
    r"^(\s*)(?:(#{1,6})(?=\s|$)|(>)|([-+])(?=\s|$)|(-{3,}|={2,}|~{3,})(?=\s*$)|(\d{1,9})([.)])(?=\s|$))"
)


def _escape_line_start(text: str) -> str:
    m = _RE_LINE_START.match(text)
    if not m:
        return text
    lead = m.group(1)
    rest = text[m.end(1):]
    if m.group(6):
        digits = m.group(6)
        return lead + digits + "\\" + rest[len(digits):]
    return lead + "\\" + rest


class GatecrawlConverter(MarkdownConverter):
    """markdownify converter with pinned options and the rules in the package docstring."""

    class Options:
        autolinks = False
        bs4_options = "lxml"
        bullets = "-"
        code_language = ""
        code_language_callback = None
        convert = None
        default_title = False
        escape_asterisks = False  # escaping is done by ``escape`` below
        escape_underscores = False
        escape_misc = False
        heading_style = "atx"
        keep_inline_images_in = []
        newline_style = "backslash"
        strip = None
        strip_document = "strip"
        strip_pre = "strip"
        strong_em_symbol = "*"
        sub_symbol = ""
        sup_symbol = ""
        table_infer_header = True
        wrap = True
        wrap_width = None

    def __init__(self, codes: list[tuple[str, str]], **options) -> None:
        super().__init__(**options)
        self._codes = codes
        self.spans: dict[int, str] = {}

    # -- text
    def escape(self, text: str, parent_tags) -> str:
        if not text:
            return ""
        text = _RE_BACKSLASH.sub(r"\\\\", text)
        text = text.replace("*", r"\*").replace("`", r"\`")
        text = text.replace("[", r"\[").replace("]", r"\]")
        if "_" in text:
            chars = list(text)
            for i, ch in enumerate(chars):
                if ch == "_":
                    before = text[i - 1] if i > 0 else ""
                    after = text[i + 1] if i + 1 < len(text) else ""
                    if not (before.isalnum() and after.isalnum()):
                        chars[i] = r"\_"
            text = "".join(chars)
        text = _RE_LT.sub(r"\\<", text)
        text = _RE_AMP.sub(r"\\&", text)
        text = _RE_TILDES.sub(lambda m: "\\~" * len(m.group(0)), text)
        if "td" in parent_tags or "th" in parent_tags:
            text = text.replace("|", r"\|")
        return text

    def process_text(self, el, parent_tags=None):
        text = super().process_text(el, parent_tags=parent_tags)
        prev = el.previous_sibling
        if text and getattr(prev, "name", None) == "br" and "pre" not in (parent_tags or ()):
            text = text.lstrip(" ")  # a new line starts after a hard break
        if text and parent_tags is not None and "_noformat" not in parent_tags:
            if self._at_line_start(el):
                text = _escape_line_start(text)
        return text

    @staticmethod
    def _at_line_start(node) -> bool:
        while True:
            prev = node.previous_sibling
            while prev is not None and not getattr(prev, "name", None) and not str(prev).strip():
                prev = prev.previous_sibling
            if prev is not None:
                name = getattr(prev, "name", None)
                return name == "br" or (name in _BLOCK_TAGS)
            parent = node.parent
            if parent is None:
                return True
            if parent.name in _TRANSPARENT_INLINE:
                node = parent
                continue
            return parent.name in _BLOCK_TAGS or parent.name == "[document]"

    # -- blocks
    def _record(self, el, line: str) -> None:
        idx = el.get("data-gc-prov")
        if idx is not None and line:
            self.spans[int(idx)] = line

    def convert_hN(self, n, el, text, parent_tags):
        if "_inline" in parent_tags:
            return text
        text = _norm_ws(text.replace("\\\n", " "))
        if not text:
            return ""
        text = re.sub(r"(\s)(#+)$", lambda m: m.group(1) + "\\" + m.group(2), text)
        line = "#" * max(1, min(6, n)) + " " + text
        self._record(el, line)
        return "\n\n" + line + "\n\n"

    def convert_p(self, el, text, parent_tags):
        out = super().convert_p(el, text, parent_tags)
        if "_inline" not in parent_tags:
            first = out.strip().split("\n", 1)[0] if out.strip() else ""
            self._record(el, first)
        return out

    def convert_br(self, el, text, parent_tags):
        if "td" in parent_tags or "th" in parent_tags:
            return "<br>"
        if "_inline" in parent_tags:
            return " "
        return "\\\n"

    def convert_pre(self, el, text, parent_tags):
        m = re.search(_CODE_OPEN + r"(\d+)" + _CODE_CLOSE, el.get_text() or "")
        if not m:
            return ""
        idx = int(m.group(1))
        if "_inline" in parent_tags:
            return " " + _norm_ws(self._codes[idx][1]) + " "
        return "\n\n" + m.group(0) + "\n\n"

    def convert_code(self, el, text, parent_tags):
        out = super().convert_code(el, text, parent_tags)
        if "td" in parent_tags or "th" in parent_tags:
            out = out.replace("|", r"\|")
        return out

    convert_kbd = convert_code
    convert_samp = convert_code

    def convert_a(self, el, text, parent_tags):
        if "_noformat" in parent_tags:
            return text
        prefix, suffix, inner = _chomp(text)
        if not inner:
            return ""
        href = el.get("href")
        if not href or "\n" in inner:
            return text
        return f"{prefix}[{inner}]({href}){suffix}"

    def convert_img(self, el, text, parent_tags):
        alt = self.escape(el.get("alt") or "", parent_tags)
        src = el.get("src") or ""
        if "_inline" in parent_tags:
            return alt
        if not src:
            return ""
        return f"![{alt}]({src})"

    def convert_li(self, el, text, parent_tags):
        out = super().convert_li(el, text, parent_tags)
        return out

    def convert_td(self, el, text, parent_tags):
        cell = text.strip().replace("\\\n", "<br>")
        cell = re.sub(r"\s*\n\s*", "<br>", cell)
        cell = re.sub(r"(?:<br>\s*){2,}", "<br>", cell)
        cell = re.sub(r"^(?:<br>\s*)+|(?:\s*<br>)+$", "", cell)
        return _norm_cell(cell) + _CELL_END

    convert_th = convert_td

    def convert_tr(self, el, text, parent_tags):
        cells = text.split(_CELL_END)[:-1]
        if not cells:
            return ""
        return "| " + " | ".join(cells) + " |" + _ROW_END

    def convert_table(self, el, text, parent_tags):
        rows = [r.strip() for r in text.split(_ROW_END) if r.strip()]
        if not rows:
            return ""
        ncols = rows[0].count(" | ") + 1 if rows[0] != "|  |" else 1
        ncols = len(_split_row(rows[0]))
        delim = "| " + " | ".join(["---"] * ncols) + " |"
        return "\n\n" + "\n".join([rows[0], delim] + rows[1:]) + "\n\n"

    def convert_tbody(self, el, text, parent_tags):
        return text

    convert_thead = convert_tbody
    convert_tfoot = convert_tbody


def _norm_cell(cell: str) -> str:
    return re.sub(r"[ \t]+", " ", cell).strip()


def _split_row(row: str) -> list[str]:
    # Split a rendered row on unescaped " | " separators.
    inner = row[2:-2] if row.startswith("| ") and row.endswith(" |") else row.strip("|")
    return re.split(r"(?<!\\) \| ", inner)


def _chomp(text: str) -> tuple[str, str, str]:
    prefix = " " if text and text[0] in " \n" else ""
    suffix = " " if text and text[-1] in " \n" else ""
    return prefix, suffix, text.strip()
