"""The HTML report's look: series colours and the inline style sheet."""

from __future__ import annotations

COLORS = {
    "kept": "#2f9e73",
    "dropped": "#e4572e",
    "http": "#3867d6",
    "render": "#8854d0",
    "pdf": "#d99a00",
    "other": "#7f8c8d",
    "escalation": "#fa8231",
    "drop_reason": "#e4572e",
    "fetch": "#3867d6",
}

_CSS = """
:root{--ink:#1f2633;--muted:#5b6577;--line:#e6e9ef;--bg:#f4f6fa;--card:#fff;--good:#2f9e73;--bad:#d63c1f;--warn:#b86e00}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header.top{background:linear-gradient(120deg,#1f2633,#2d3a54);color:#fff;padding:22px 32px 20px}
header.top h1{margin:0 0 4px;font-size:22px;font-weight:700;letter-spacing:.2px}
header.top .meta{color:#c9d1e0;font-size:13px}
header.top code{color:#fff;background:rgba(255,255,255,.1);padding:1px 6px;border-radius:4px}
main{max-width:1220px;margin:0 auto;padding:20px 24px 40px}
.alerts{margin:0 0 18px;display:grid;gap:8px}
.alert{border-radius:10px;padding:10px 14px;border:1px solid;display:flex;gap:10px;align-items:flex-start}
.alert.drift{background:#fff4ec;border-color:#f6c3a3;color:#7a2e0b}
.alert.ok{background:#eef8f3;border-color:#bfe3d1;color:#1d5e43}
.alert.info{background:#eef2fb;border-color:#c9d6f2;color:#23406f}
.alert b{white-space:nowrap}
.alert ul{margin:4px 0 0;padding-left:18px}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(128px,1fr));gap:12px;margin-bottom:18px}
.kpi{background:var(--card);border-radius:12px;padding:12px 14px;box-shadow:0 1px 2px rgba(20,30,50,.06),0 0 0 1px var(--line)}
.kpi .v{font-size:24px;font-weight:700;line-height:1.2}
.kpi .l{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.5px}
.kpi .d{font-size:12px;color:var(--muted);margin-top:2px}
.kpi .d.bad{color:var(--bad)}.kpi .d.good{color:var(--good)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:16px}
.card{background:var(--card);border-radius:12px;padding:16px 18px;box-shadow:0 1px 2px rgba(20,30,50,.06),0 0 0 1px var(--line);min-width:0}
.card.wide{grid-column:1/-1}
.card h2{margin:0 0 2px;font-size:15px}
.card p.sub{margin:0 0 12px;color:var(--muted);font-size:12.5px}
.smalls{display:flex;flex-wrap:wrap;gap:8px 18px}
.smalls figure{margin:0}
.smalls figcaption{font-size:12px;font-weight:600;color:var(--muted);margin-bottom:2px}
svg.chart{width:100%;height:auto;display:block}
.smalls svg.chart{width:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:11.5px;text-transform:uppercase;letter-spacing:.4px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.url{max-width:420px;overflow-wrap:anywhere}
.pill{display:inline-block;padding:1px 8px;border-radius:999px;font-size:11.5px;font-weight:600;background:#fde8e1;color:#9a2d11}
.pill.kept{background:#e2f4ec;color:#1d6b4b}
.pos{color:var(--bad)}.neg{color:var(--good)}.zero{color:var(--muted)}
.formula{font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f6f7fa;border:1px solid var(--line);border-radius:8px;padding:8px 10px;overflow-wrap:anywhere}
.big{font-size:30px;font-weight:700}
.row{display:flex;gap:24px;flex-wrap:wrap;align-items:baseline;margin-bottom:10px}
.muted{color:var(--muted)}
details summary{cursor:pointer;color:var(--muted);margin:8px 0}
footer{color:var(--muted);font-size:12px;margin-top:24px}
a{color:#2456c4}
"""
