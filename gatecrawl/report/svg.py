"""Inline SVG charts for the HTML report: plain strings, no JavaScript, no fonts, no network.

Every chart is an ``<svg class="chart" data-chart="NAME" role="img">`` with a ``<title>``; its
data marks (bars, arcs, dots, lines) carry ``class="mark"`` and a ``<title>`` tooltip, so a
reader hovering a bar sees its exact value and a test can check that a chart is not empty.
Colours are passed in; text inherits the page's font through CSS.
"""

from __future__ import annotations

import math
from html import escape
from typing import Callable, Sequence

__all__ = ["hbar", "donut", "histogram", "grouped_hbar", "strip", "line_chart", "stacked_bar", "empty", "nice_max", "fmt_num"]

Fmt = Callable[[float], str]

AXIS = "#9aa3b2"
GRID = "#e6e9ef"
INK = "#1f2633"
MUTED = "#5b6577"


def _e(s: object) -> str:
    return escape(str(s), quote=True)


def _f(x: float) -> str:
    """Compact coordinate."""
    return f"{x:.1f}".rstrip("0").rstrip(".") if not float(x).is_integer() else str(int(x))


def fmt_num(x: float | None) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.2f}"
    return f"{int(x):,}"


def nice_max(v: float) -> float:
    """The smallest 1/2/2.5/5 x 10^k at or above ``v`` (1 for 0)."""
    if v <= 0:
        return 1.0
    exp = math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        cand = m * 10**exp
        if cand >= v - 1e-12:
            return float(cand)
    return float(10 ** (exp + 1))


def _open(name: str, width: float, height: float, title: str) -> str:
    return (
        f'<svg class="chart" data-chart="{_e(name)}" role="img" aria-label="{_e(title)}" '
        f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" width="{_f(width)}" height="{_f(height)}" '
        f'style="max-width:{_f(width * 1.3)}px">'
        f"<title>{_e(title)}</title>"
    )


def _trunc(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def empty(name: str, title: str, message: str = "No data for this run", width: float = 520, height: float = 60) -> str:
    return (
        _open(name, width, height, title).replace('class="chart"', 'class="chart empty"', 1)
        + f'<rect x="0.5" y="0.5" width="{_f(width - 1)}" height="{_f(height - 1)}" rx="8" fill="#fafbfc" stroke="{GRID}" stroke-dasharray="4 4"/>'
        + f'<text x="{_f(width / 2)}" y="{_f(height / 2 + 4)}" text-anchor="middle" fill="{MUTED}" font-size="13">{_e(message)}</text></svg>'
    )


def hbar(
    name: str,
    title: str,
    rows: Sequence[tuple[str, float, str]],
    *,
    width: float = 520,
    label_w: float = 170,
    bar_h: float = 20,
    gap: float = 8,
    fmt: Fmt = fmt_num,
    max_value: float | None = None,
) -> str:
    """Horizontal bars: ``rows`` of (label, value, colour)."""
    if not rows:
        return empty(name, title)
    top = 6
    vmax = max_value if max_value is not None else max((v for _, v, _ in rows), default=0) or 1
    plot_w = width - label_w - 64
    height = top + len(rows) * (bar_h + gap) + 4
    out = [_open(name, width, height, title)]
    for i, (label, value, color) in enumerate(rows):
        y = top + i * (bar_h + gap)
        w = max(0.0, plot_w * (value / vmax)) if vmax else 0.0
        out.append(f'<text x="{_f(label_w - 8)}" y="{_f(y + bar_h * 0.7)}" text-anchor="end" fill="{INK}" font-size="12">{_e(_trunc(label, 26))}</text>')
        out.append(f'<rect x="{_f(label_w)}" y="{_f(y)}" width="{_f(plot_w)}" height="{_f(bar_h)}" rx="4" fill="#f1f3f7"/>')
        out.append(
            f'<rect class="mark" x="{_f(label_w)}" y="{_f(y)}" width="{_f(max(w, 2 if value else 0))}" height="{_f(bar_h)}" rx="4" fill="{color}">'
            f"<title>{_e(label)}: {_e(fmt(value))}</title></rect>"
        )
        out.append(f'<text x="{_f(label_w + plot_w + 8)}" y="{_f(y + bar_h * 0.7)}" fill="{INK}" font-size="12" font-weight="600">{_e(fmt(value))}</text>')
    out.append("</svg>")
    return "".join(out)


def _arc(cx: float, cy: float, r: float, a0: float, a1: float) -> str:
    x0, y0 = cx + r * math.sin(a0), cy - r * math.cos(a0)
    x1, y1 = cx + r * math.sin(a1), cy - r * math.cos(a1)
    large = 1 if a1 - a0 > math.pi else 0
    return f"M{x0:.2f} {y0:.2f}A{r} {r} 0 {large} 1 {x1:.2f} {y1:.2f}"


def donut(name: str, title: str, parts: Sequence[tuple[str, float, str]], *, size: float = 190, thickness: float = 30, center: str = "", center_sub: str = "") -> str:
    """A ring of ``parts`` (label, value, colour), legend on the right."""
    total = sum(v for _, v, _ in parts)
    if total <= 0:
        return empty(name, title)
    legend_w = 190
    width = size + legend_w
    height = max(size, 24 * len(parts) + 10)
    cx, cy, r = size / 2, height / 2, size / 2 - thickness / 2 - 4
    out = [_open(name, width, height, title)]
    out.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}" fill="none" stroke="#f1f3f7" stroke-width="{_f(thickness)}"/>')
    a = 0.0
    for label, value, color in parts:
        if value <= 0:
            continue
        share = value / total
        tip = f"<title>{_e(label)}: {_e(fmt_num(value))} ({100 * share:.1f}%)</title>"
        if share >= 0.9999:
            out.append(f'<circle class="mark" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}" fill="none" stroke="{color}" stroke-width="{_f(thickness)}">{tip}</circle>')
        else:
            a1 = a + 2 * math.pi * share
            out.append(f'<path class="mark" d="{_arc(cx, cy, r, a, a1)}" fill="none" stroke="{color}" stroke-width="{_f(thickness)}">{tip}</path>')
            a = a1
    if center:
        out.append(f'<text x="{_f(cx)}" y="{_f(cy + 2)}" text-anchor="middle" fill="{INK}" font-size="26" font-weight="700">{_e(center)}</text>')
    if center_sub:
        out.append(f'<text x="{_f(cx)}" y="{_f(cy + 22)}" text-anchor="middle" fill="{MUTED}" font-size="12">{_e(center_sub)}</text>')
    ly = height / 2 - 24 * len(parts) / 2 + 6
    for i, (label, value, color) in enumerate(parts):
        y = ly + i * 24
        out.append(f'<rect x="{_f(size + 16)}" y="{_f(y)}" width="12" height="12" rx="3" fill="{color}"/>')
        out.append(
            f'<text x="{_f(size + 36)}" y="{_f(y + 10.5)}" fill="{INK}" font-size="13">{_e(label)} '
            f'<tspan font-weight="700">{_e(fmt_num(value))}</tspan> <tspan fill="{MUTED}">{100 * value / total:.0f}%</tspan></text>'
        )
    out.append("</svg>")
    return "".join(out)


def histogram(name: str, title: str, bins: Sequence[tuple[str, float]], *, color: str, width: float = 250, height: float = 150, y_max: float | None = None, x_title: str = "") -> str:
    """Vertical columns: ``bins`` of (label, count)."""
    if not bins:
        return empty(name, title, width=width)
    left, right, top, bottom = 8, 8, 18, 34 if x_title else 22
    plot_w, plot_h = width - left - right, height - top - bottom
    vmax = y_max or max((v for _, v in bins), default=0) or 1
    slot = plot_w / len(bins)
    bw = slot * 0.7
    out = [_open(name, width, height, title)]
    base = top + plot_h
    out.append(f'<line x1="{left}" y1="{_f(base)}" x2="{_f(width - right)}" y2="{_f(base)}" stroke="{AXIS}"/>')
    for i, (label, value) in enumerate(bins):
        x = left + i * slot + (slot - bw) / 2
        h = plot_h * value / vmax
        out.append(f'<rect x="{_f(x)}" y="{top}" width="{_f(bw)}" height="{_f(plot_h)}" rx="3" fill="#f5f6f9"/>')
        if value > 0:
            out.append(f'<rect class="mark" x="{_f(x)}" y="{_f(base - h)}" width="{_f(bw)}" height="{_f(max(h, 1.5))}" rx="3" fill="{color}"><title>{_e(label)}: {_e(fmt_num(value))}</title></rect>')
            out.append(f'<text x="{_f(x + bw / 2)}" y="{_f(base - h - 4)}" text-anchor="middle" fill="{INK}" font-size="11" font-weight="600">{_e(fmt_num(value))}</text>')
        out.append(f'<text x="{_f(x + bw / 2)}" y="{_f(base + 14)}" text-anchor="middle" fill="{MUTED}" font-size="11">{_e(label)}</text>')
    if x_title:
        out.append(f'<text x="{_f(width / 2)}" y="{_f(height - 3)}" text-anchor="middle" fill="{MUTED}" font-size="10">{_e(x_title)}</text>')
    out.append("</svg>")
    return "".join(out)


def grouped_hbar(name: str, title: str, groups: Sequence[tuple[str, Sequence[tuple[str, float | None, str]]]], *, width: float = 520, label_w: float = 120, fmt: Fmt = fmt_num, max_value: float = 1.0) -> str:
    """Groups of bars: ``groups`` of (label, [(series, value, colour)])."""
    if not groups:
        return empty(name, title)
    bar_h, inner, gap, top = 14, 3, 14, 4
    plot_w = width - label_w - 70
    n = max(len(s) for _, s in groups)
    gh = n * bar_h + (n - 1) * inner
    height = top + len(groups) * (gh + gap) + 18
    out = [_open(name, width, height, title)]
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + plot_w * t
        out.append(f'<line x1="{_f(x)}" y1="{top}" x2="{_f(x)}" y2="{_f(height - 16)}" stroke="{GRID}"/>')
        out.append(f'<text x="{_f(x)}" y="{_f(height - 3)}" text-anchor="middle" fill="{MUTED}" font-size="10">{_e(fmt(max_value * t))}</text>')
    for gi, (label, series) in enumerate(groups):
        y0 = top + gi * (gh + gap)
        out.append(f'<text x="{_f(label_w - 8)}" y="{_f(y0 + gh / 2 + 4)}" text-anchor="end" fill="{INK}" font-size="12" font-weight="600">{_e(_trunc(label, 16))}</text>')
        for si, (sname, value, color) in enumerate(series):
            y = y0 + si * (bar_h + inner)
            v = value or 0.0
            w = plot_w * min(v / max_value, 1.0) if max_value else 0
            out.append(
                f'<rect class="mark" x="{_f(label_w)}" y="{_f(y)}" width="{_f(max(w, 1.5))}" height="{bar_h}" rx="3" fill="{color}">'
                f"<title>{_e(label)} · {_e(sname)}: {_e('n/a' if value is None else fmt(v))}</title></rect>"
            )
            out.append(f'<text x="{_f(label_w + max(w, 1.5) + 6)}" y="{_f(y + bar_h - 3)}" fill="{INK}" font-size="11">{_e("n/a" if value is None else fmt(v))}</text>')
    out.append("</svg>")
    return "".join(out)


def _ticks(vmax: float, n: int = 4) -> list[float]:
    return [vmax * i / n for i in range(n + 1)]


def strip(name: str, title: str, rows: Sequence[tuple[str, Sequence[float], str]], *, width: float = 520, label_w: float = 70, fmt: Fmt = fmt_num, unit: str = "", log: bool = False) -> str:
    """One row of dots per series (label, values, colour), with p50 (solid) and p95 (dashed)
    ticks; ``log``: logarithmic axis (decades), for latencies that span orders of magnitude."""
    rows = [r for r in rows if r[1]]
    if not rows:
        return empty(name, title)
    row_h, top = 36, 6
    plot_w = width - label_w - 24
    hi = max(max(v) for _, v, _ in rows)
    if log:
        lo_exp = math.floor(math.log10(max(min(min(v) for _, v, _ in rows), 1)))
        hi_exp = max(math.ceil(math.log10(max(hi, 1))), lo_exp + 1)
        ticks = [10.0**e for e in range(lo_exp, hi_exp + 1)]

        def pos(v: float) -> float:
            return label_w + plot_w * (math.log10(max(v, 10.0**lo_exp)) - lo_exp) / (hi_exp - lo_exp)
    else:
        vmax = nice_max(hi)
        ticks = _ticks(vmax)

        def pos(v: float) -> float:
            return label_w + plot_w * v / vmax

    height = top + len(rows) * row_h + 22
    out = [_open(name, width, height, title)]
    for t in ticks:
        x = pos(t)
        out.append(f'<line x1="{_f(x)}" y1="{top}" x2="{_f(x)}" y2="{_f(height - 18)}" stroke="{GRID}"/>')
        out.append(f'<text x="{_f(x)}" y="{_f(height - 5)}" text-anchor="middle" fill="{MUTED}" font-size="10">{_e(fmt(t))}{_e(unit)}</text>')
    for ri, (label, values, color) in enumerate(rows):
        yc = top + ri * row_h + row_h / 2
        vals = sorted(values)
        out.append(f'<text x="{_f(label_w - 8)}" y="{_f(yc + 4)}" text-anchor="end" fill="{INK}" font-size="12" font-weight="600">{_e(label)}</text>')
        for i, v in enumerate(vals):
            jitter = ((i * 7919) % 11 - 5) * 1.6  # deterministic spread
            x = pos(v)
            out.append(f'<circle class="mark" cx="{_f(x)}" cy="{_f(yc + jitter)}" r="3.5" fill="{color}" fill-opacity="0.55"><title>{_e(label)}: {_e(fmt(v))}{_e(unit)}</title></circle>')
        for p, dash in ((50, ""), (95, ' stroke-dasharray="3 2"')):
            rank = max(1, math.ceil(p / 100 * len(vals)))
            v = vals[rank - 1]
            x = pos(v)
            out.append(f'<line x1="{_f(x)}" y1="{_f(yc - 13)}" x2="{_f(x)}" y2="{_f(yc + 13)}" stroke="{INK}" stroke-width="2"{dash}><title>{_e(label)} p{p}: {_e(fmt(v))}{_e(unit)}</title></line>')
    out.append("</svg>")
    return "".join(out)


def line_chart(name: str, title: str, labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None], str]], *, width: float = 520, height: float = 190, fmt: Fmt = fmt_num, y_max: float | None = None, highlight_last: bool = True) -> str:
    """Lines over runs: ``labels`` (x, oldest first), ``series`` of (name, values, colour)."""
    vals = [v for _, vs, _ in series for v in vs if v is not None]
    if not labels or not vals:
        return empty(name, title)
    left, right, top, bottom = 52, 14, 10, 42
    plot_w, plot_h = width - left - right, height - top - bottom
    vmax = y_max or nice_max(max(vals))
    n = len(labels)

    def px(i: int) -> float:
        return left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def py(v: float) -> float:
        return top + plot_h * (1 - v / vmax)

    out = [_open(name, width, height, title)]
    for t in _ticks(vmax):
        y = py(t)
        out.append(f'<line x1="{left}" y1="{_f(y)}" x2="{_f(width - right)}" y2="{_f(y)}" stroke="{GRID}"/>')
        out.append(f'<text x="{left - 6}" y="{_f(y + 3)}" text-anchor="end" fill="{MUTED}" font-size="10">{_e(fmt(t))}</text>')
    step = max(1, math.ceil(n / 6))
    for i, lab in enumerate(labels):
        if i % step == 0 or i == n - 1:
            anchor = "start" if (i == 0 and n > 1) else ("end" if (i == n - 1 and n > 1) else "middle")
            out.append(f'<text x="{_f(px(i))}" y="{_f(top + plot_h + 14)}" text-anchor="{anchor}" fill="{MUTED}" font-size="10">{_e(_trunc(lab, 16))}</text>')
    for sname, values, color in series:
        pts = [(px(i), py(v), v, labels[i]) for i, v in enumerate(values) if v is not None]
        if len(pts) > 1:
            d = " ".join(f"{'M' if j == 0 else 'L'}{x:.1f} {y:.1f}" for j, (x, y, _, _) in enumerate(pts))
            out.append(f'<path class="mark" d="{d}" fill="none" stroke="{color}" stroke-width="2.2" stroke-linejoin="round"><title>{_e(sname)}</title></path>')
        for j, (x, y, v, lab) in enumerate(pts):
            r = 4.5 if (highlight_last and j == len(pts) - 1) else 3
            out.append(f'<circle class="mark" cx="{_f(x)}" cy="{_f(y)}" r="{r}" fill="#fff" stroke="{color}" stroke-width="2"><title>{_e(sname)} · {_e(lab)}: {_e(fmt(v))}</title></circle>')
    lx = left
    for sname, _, color in series:
        out.append(f'<rect x="{_f(lx)}" y="{_f(height - 14)}" width="10" height="10" rx="2" fill="{color}"/>')
        out.append(f'<text x="{_f(lx + 14)}" y="{_f(height - 5)}" fill="{INK}" font-size="11">{_e(sname)}</text>')
        lx += 22 + 6.5 * len(sname)
    out.append("</svg>")
    return "".join(out)


def stacked_bar(name: str, title: str, parts: Sequence[tuple[str, float, str]], *, width: float = 520, height: float = 64, fmt: Fmt = fmt_num) -> str:
    """One bar split into ``parts`` (label, value, colour), legend below."""
    total = sum(v for _, v, _ in parts)
    if total <= 0:
        return empty(name, title)
    out = [_open(name, width, height, title)]
    x = 0.0
    bh = 26
    out.append(f'<rect x="0" y="0" width="{_f(width)}" height="{bh}" rx="6" fill="#f1f3f7"/>')
    for label, value, color in parts:
        if value <= 0:
            continue
        w = width * value / total
        out.append(f'<rect class="mark" x="{_f(x)}" y="0" width="{_f(w)}" height="{bh}" fill="{color}"><title>{_e(label)}: {_e(fmt(value))} ({100 * value / total:.1f}%)</title></rect>')
        x += w
    lx = 0.0
    for label, value, color in parts:
        out.append(f'<rect x="{_f(lx)}" y="{bh + 14}" width="10" height="10" rx="2" fill="{color}"/>')
        text = f"{label} {fmt(value)} ({100 * value / total:.0f}%)"
        out.append(f'<text x="{_f(lx + 14)}" y="{bh + 23}" fill="{INK}" font-size="11">{_e(text)}</text>')
        lx += 28 + 6.2 * len(text)
    out.append("</svg>")
    return "".join(out)
