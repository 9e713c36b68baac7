"""Pieces of the HTML report: escaping, number/money/size/path formats, KPI tiles, cards and
signed changes."""

from __future__ import annotations

from html import escape
from typing import Any, Mapping
from urllib.parse import urlsplit

from gatecrawl.report import svg

def _e(s: Any) -> str:
    return escape("" if s is None else str(s), quote=True)


def _pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{100 * x:.{digits}f}%"


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f} ms"


def _num(x: Any) -> str:
    return svg.fmt_num(x) if isinstance(x, (int, float)) else "n/a"


def _money(x: float | None, cur: str) -> str:
    if x is None:
        return "n/a"
    if x == 0:
        return f"0 {cur}"
    if abs(x) >= 100:
        return f"{x:,.0f} {cur}"
    if abs(x) >= 1:
        return f"{x:,.2f} {cur}"
    return f"{x:.4g} {cur}"


def _bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return str(n)


def _path(url: str | None) -> str:
    if not url:
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        # A netloc urlsplit refuses (a redacted "[REDACTED]@host", a bad IPv6 literal): cut the
        # path by hand after "scheme://netloc".
        rest = url.split("://", 1)[-1]
        cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
        path, _, _frag = rest[cut:].partition("#")
        return path if path.startswith("/") else "/" + path
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _delta_cls(delta: float | None, higher_is_bad: bool | None) -> str:
    if delta is None or delta == 0 or higher_is_bad is None:
        return ""
    return "bad" if (delta > 0) == higher_is_bad else "good"


def _run_label(h: Mapping[str, Any]) -> str:
    """Short x-axis label of a run: its finished time (MM-DD HH:MM:SS), else its id's tail."""
    ts = str(h.get("finished_at") or "")
    if len(ts) >= 19 and ts[10] == "T":
        return f"{ts[5:10]} {ts[11:19]}"
    rid = str(h.get("run_id") or "")
    return rid[-14:]


def _kpi(label: str, value: str, delta_text: str = "", cls: str = "", title: str = "") -> str:
    t = f' title="{_e(title)}"' if title else ""
    d = f'<div class="d {cls}">{_e(delta_text)}</div>' if delta_text else '<div class="d">&nbsp;</div>'
    return f'<div class="kpi"{t}><div class="l">{_e(label)}</div><div class="v">{_e(value)}</div>{d}</div>'


def _metric_delta(summary: Mapping[str, Any], name: str, kind: str) -> tuple[str, float | None]:
    comp = summary.get("comparison") or {}
    m = (comp.get("metrics") or {}).get(name)
    if not m or m.get("delta") is None:
        return "", None
    d = m["delta"]
    arrow = "▲" if d > 0 else ("▼" if d < 0 else "=")
    if kind == "rate":
        text = f"{arrow} {abs(100 * d):.1f} pts vs previous"
    elif kind == "money":
        text = f"{arrow} {abs(d):.4g} vs previous"
    else:
        text = f"{arrow} {abs(d):,} vs previous"
    return (text if d else "= previous run"), d


def _card(title: str, sub: str, body: str, wide: bool = False, cid: str = "") -> str:
    idattr = f' id="{_e(cid)}"' if cid else ""
    return f'<section class="card{" wide" if wide else ""}"{idattr}><h2>{_e(title)}</h2><p class="sub">{sub}</p>{body}</section>'


# Direction of each compared metric: True when a rise is bad, False when good, None neutral.
_UP_IS_BAD: dict[str, bool | None] = {
    "pages": None,
    "kept": False,
    "dropped": True,
    "escalated": True,
    "rendered": True,
    "drop_rate": True,
    "escalation_rate": True,
    "render_rate": True,
    "bytes_in": None,
    "markdown_chars": None,
    "cost_per_1000_clean_pages": True,
    "http_latency_p50_ms": True,
    "http_latency_p95_ms": True,
}


def _signed(d: Any, kind: str = "num", up_is_bad: bool | None = True) -> str:
    """A signed change; red when it moved the bad way, green the good way, grey when neutral."""
    if not isinstance(d, (int, float)):
        return '<span class="zero">–</span>'
    if d == 0:
        return '<span class="zero">0</span>'
    cls = "zero" if up_is_bad is None else ("pos" if (d > 0) == up_is_bad else "neg")
    sign = "+" if d > 0 else "−"
    if kind == "rate":
        txt = f"{sign}{abs(100 * d):.1f} pts"
    elif kind == "ms":
        txt = f"{sign}{abs(d):,.0f} ms"
    elif isinstance(d, float):
        txt = f"{sign}{abs(d):,.4g}"
    else:
        txt = f"{sign}{abs(d):,}"
    return f'<span class="{cls}">{txt}</span>'
