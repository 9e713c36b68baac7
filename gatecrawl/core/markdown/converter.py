"""The conversion stage's rules: :class:`GatecrawlConverter`, the Markdown of each tag (on the
:class:`~gatecrawl.core.markdown.writer.MarkdownWriter` walk), escaping and gatecrawl's block
rules."""

from __future__ import annotations

import re

from gatecrawl.core.markdown.dom import (_BLOCK_TAGS, _CELL_END, _CODE_CLOSE, _CODE_OPEN,
    _ROW_END, _TRANSPARENT_INLINE, _norm_ws)
from gatecrawl.core.markdown.writer import MarkdownWriter, get_text, next_content_sibling
_RE_UNDERSCORE = re.compile(r"_")
_RE_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)")
_RE_LT = re.compile(r"<(?=[A-Za-z/!?])")
_RE_AMP = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_RE_TILDES = re.compile(r"~{2,}")
#: the characters escaping looks at (a text without any is written as it is)
_RE_SPECIAL = re.compile(r"[\\*`\[\]_<&~|]")
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


_ALL_WS = re.compile(r"[\t \r\n]+")
_LINE = re.compile(r"^(.*)", flags=re.MULTILINE)
_BACKTICKS = re.compile(r"`+")


def _inline(symbol: str):
    """A simple inline rule: the text (blanks at its ends moved outside) between ``symbol``s."""

    def rule(self, el, text, parent_tags):
        if "_noformat" in parent_tags:
            return text
        prefix = " " if text and text[0] == " " else ""
        suffix = " " if text and text[-1] == " " else ""
        text = text.strip()
        if not text:
            return ""
        return prefix + symbol + text + symbol + suffix

    return rule


class GatecrawlConverter(MarkdownWriter):
    """The Markdown of each tag (rules in the package docstring). ``codes``: the code blocks
    the preparation captured, by index; ``spans``: the Markdown line written for each element
    that carries a provenance marker (``data-gc-prov``), by marker."""

    TRANSPARENT_INLINE = _TRANSPARENT_INLINE

    def __init__(self, codes: list[tuple[str, str]]) -> None:
        super().__init__()
        self._codes = codes
        self.spans: dict[int, str] = {}

    # -- text
    def is_line_start_tag(self, name: str | None) -> bool:
        return name == "br" or name in _BLOCK_TAGS

    def escape_line_start(self, text: str) -> str:
        return _escape_line_start(text)

    def escape(self, text: str, parent_tags) -> str:
        if not text:
            return ""
        if _RE_SPECIAL.search(text) is None:
            return text  # nothing below applies
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

    # -- inline
    convert_b = convert_strong = _inline("**")
    convert_em = convert_i = _inline("*")
    convert_del = convert_s = _inline("~~")
    convert_sub = convert_sup = _inline("")

    def convert_q(self, el, text, parent_tags):
        return '"' + text + '"'

    def convert_script(self, el, text, parent_tags):
        return ""

    convert_style = convert_script

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
        if "_inline" in parent_tags:
            return " " + text.strip(" \t\r\n") + " "
        text = text.strip(" \t\r\n")
        out = "\n\n" + text + "\n\n" if text else ""
        if el.get("data-gc-prov") is not None:  # (the first line only for a marked paragraph)
            first = out.strip().split("\n", 1)[0] if out.strip() else ""
            self._record(el, first)
        return out

    def convert_div(self, el, text, parent_tags):
        if "_inline" in parent_tags:
            return " " + text.strip() + " "
        text = text.strip()
        return "\n\n" + text + "\n\n" if text else ""

    convert_article = convert_section = convert_dl = convert_div

    def convert_blockquote(self, el, text, parent_tags):
        text = (text or "").strip(" \t\r\n")
        if "_inline" in parent_tags:
            return " " + text + " "
        if not text:
            return "\n"
        text = _LINE.sub(lambda m: "> " + m.group(1) if m.group(1) else ">", text)
        return "\n" + text + "\n\n"

    def convert_dd(self, el, text, parent_tags):
        text = (text or "").strip()
        if "_inline" in parent_tags:
            return " " + text + " "
        if not text:
            return "\n"
        text = _LINE.sub(lambda m: "    " + m.group(1) if m.group(1) else "", text)
        return ":" + text[1:] + "\n"

    def convert_dt(self, el, text, parent_tags):
        text = _ALL_WS.sub(" ", (text or "").strip())
        if "_inline" in parent_tags:
            return " " + text + " "
        if not text:
            return "\n"
        return "\n\n" + text + "\n"

    def convert_hr(self, el, text, parent_tags):
        return "\n\n---\n\n"

    def convert_caption(self, el, text, parent_tags):
        return text.strip() + "\n\n"

    def convert_figcaption(self, el, text, parent_tags):
        return "\n\n" + text.strip() + "\n\n"

    def convert_list(self, el, text, parent_tags):
        # (no inline form: a list inside a heading or cell is written as a list)
        nxt = next_content_sibling(el)
        before_paragraph = nxt is not None and (nxt.__class__ is str or nxt.tag not in ("ul", "ol"))
        if "li" in parent_tags:
            return "\n" + text.rstrip()  # a nested list: no trailing line break
        return "\n\n" + text + ("\n" if before_paragraph else "")

    convert_ul = convert_ol = convert_list

    def convert_li(self, el, text, parent_tags):
        text = (text or "").strip()
        if not text:
            return "\n"
        parent = el.getparent()
        if parent is not None and parent.tag == "ol":
            start = parent.get("start")
            start = int(start) if start and str(start).isnumeric() else 1
            bullet = "%s. " % (start + sum(1 for sib in el.itersiblings(preceding=True) if sib.tag == "li"))
        else:
            bullet = "- "
        width = len(bullet)
        indent = " " * width
        text = _LINE.sub(lambda m: indent + m.group(1) if m.group(1) else "", text)
        return bullet + text[width:] + "\n"

    def convert_video(self, el, text, parent_tags):
        if "_inline" in parent_tags:
            return text
        src = el.get("src") or ""
        if not src:
            for source in el.iter("source"):
                if source is not el and source.get("src") is not None:
                    src = source.get("src") or ""
                    break
        poster = el.get("poster") or ""
        if src and poster:
            return "[![%s](%s)](%s)" % (text, poster, src)
        if src:
            return "[%s](%s)" % (text, src)
        if poster:
            return "![%s](%s)" % (text, poster)
        return text

    def convert_br(self, el, text, parent_tags):
        if "td" in parent_tags or "th" in parent_tags:
            return "<br>"
        if "_inline" in parent_tags:
            return " "
        return "\\\n"

    def convert_pre(self, el, text, parent_tags):
        m = re.search(_CODE_OPEN + r"(\d+)" + _CODE_CLOSE, get_text(el))
        if not m:
            return ""
        idx = int(m.group(1))
        if "_inline" in parent_tags:
            return " " + _norm_ws(self._codes[idx][1]) + " "
        return "\n\n" + m.group(0) + "\n\n"

    def convert_code(self, el, text, parent_tags):
        out = text if "_noformat" in parent_tags else _code_span(text)
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


def _code_span(text: str) -> str:
    """Inline code: a backtick run one longer than any inside (padded with spaces then)."""
    prefix = " " if text and text[0] == " " else ""
    suffix = " " if text and text[-1] == " " else ""
    text = text.strip()
    if not text:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if longest:
        text = " " + text + " "
    return prefix + fence + text + fence + suffix


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
