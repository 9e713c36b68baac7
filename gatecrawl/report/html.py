"""The HTML report: one self-contained file (inline CSS and SVG, no script, no network).

A Content-Security-Policy meta tag forbids every fetch (``default-src 'none'``), so the file
cannot make a request even when opened from a web server. Quarantined pages link to their
packets: ``packet_href(key)`` returns the link (a relative path for a local store) or None
(the key is shown as text, e.g. for S3).

The page's sections are laid out here; colours and the style sheet are in
:mod:`gatecrawl.report.style`, formats, tiles and cards in :mod:`gatecrawl.report.widgets`,
charts in :mod:`gatecrawl.report.svg`.

Pure: no Scrapy imports.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from gatecrawl.report import svg
from gatecrawl.report.style import _CSS, COLORS
from gatecrawl.report.widgets import (_UP_IS_BAD, _bytes, _card, _delta_cls, _e, _kpi,
    _metric_delta, _money, _ms, _num, _path, _pct, _run_label, _signed)

__all__ = ["render_html", "COLORS"]


def render_html(summary: Mapping[str, Any], record: Mapping[str, Any], *, packet_href: Callable[[str], str | None] | None = None) -> str:
    s = summary
    site, run_id = s["site"], s["run_id"]
    counts, rates = s["counts"], s["rates"]
    cost = s["cost"]
    cur = cost.get("currency") or ""
    pages: Sequence[Mapping[str, Any]] = record.get("pages") or []
    parts: list[str] = []

    # -- header and alerts ---------------------------------------------------------------
    against = s.get("against_run_id")
    meta = [f"crawl <code>{_e(s['crawl_id'])}</code> (all workers)" if s.get("crawl_id") else f"run <code>{_e(run_id)}</code>"]
    if s["run"].get("finished_at"):
        meta.append(f"finished {_e(s['run']['finished_at'])}")
    if against:
        meta.append(f"compared with <code>{_e(against)}</code>")
    digest = (s["run"].get("recipe") or {}).get("digest")
    if digest:
        meta.append(f"recipe {_e(str(digest)[:19])}…")
    parts.append(f'<header class="top"><h1>Crawl report · {_e(site)}</h1><div class="meta">{" · ".join(meta)}</div></header><main>')

    alerts = (s.get("drift") or {}).get("alerts") or []
    parts.append('<div class="alerts">')
    for a in alerts:
        extra = ""
        if a.get("pages"):
            lis = "".join(f"<li>{_e(_path(u))}</li>" for u in a["pages"][:8])
            extra = f"<ul>{lis}</ul>"
        parts.append(f'<div class="alert drift" data-alert="{_e(a["kind"])}"><b>Drift</b><div>{_e(a["message"])}{extra}</div></div>')
    if not alerts and against:
        th = (s.get("drift") or {}).get("thresholds") or {}
        parts.append(
            f'<div class="alert ok"><b>No drift</b><div>Escalation rate and drop rate are within '
            f'{_pct(th.get("escalation_rate"))} / {_pct(th.get("drop_rate"))} of run <code>{_e(against)}</code>; every recipe selector still matches.</div></div>'
        )
    if not against:
        parts.append('<div class="alert info"><b>First run</b><div>No earlier run of this site is stored: stability and drift appear from the next run on.</div></div>')
    parts.append("</div>")

    # -- KPI tiles -----------------------------------------------------------------------
    stab = s.get("stability") or {}
    kt = []
    d_txt, d = _metric_delta(s, "pages", "num")
    kt.append(_kpi("Pages", _num(counts["pages"]), d_txt))
    d_txt, d = _metric_delta(s, "kept", "num")
    kt.append(_kpi("Kept", _num(counts["kept"]), d_txt, _delta_cls(d, False)))
    d_txt, d = _metric_delta(s, "drop_rate", "rate")
    kt.append(_kpi("Drop rate", _pct(rates["drop_rate"]), d_txt, _delta_cls(d, True), f"{counts['dropped']} dropped"))
    d_txt, d = _metric_delta(s, "escalation_rate", "rate")
    kt.append(_kpi("Escalation rate", _pct(rates["escalation_rate"]), d_txt, _delta_cls(d, True), f"{counts['escalated']} pages flagged for the browser"))
    d_txt, d = _metric_delta(s, "render_rate", "rate")
    kt.append(_kpi("Render rate", _pct(rates["render_rate"]), d_txt, _delta_cls(d, True), f"{counts['rendered']} pages read by the browser"))
    d_txt, d = _metric_delta(s, "cost_per_1000_clean_pages", "money")
    kt.append(_kpi("Cost / 1,000 clean", _money(cost["per_1000_clean_pages"], cur), d_txt, _delta_cls(d, True)))
    kt.append(_kpi("Stability", _pct(stab.get("identical_share"), 0) if stab else "–", (f"{stab.get('identical')}/{stab.get('compared')} pages byte-identical" if stab else "needs two runs"), "", "Share of pages kept in both runs whose Markdown is byte-identical"))
    kt.append(_kpi("Markdown", f"{_num(s['volume']['markdown_chars'])}", f"chars from {_bytes(s['volume']['bytes_in'])} in"))
    parts.append(f'<div class="kpis">{"".join(kt)}</div><div class="grid">')

    # -- outcomes and drop reasons ----------------------------------------------------------
    donut = svg.donut(
        "outcomes",
        "Pages by outcome",
        [("kept", counts["kept"], COLORS["kept"]), ("dropped", counts["dropped"], COLORS["dropped"])],
        center=_pct(rates.get("keep_rate"), 0),
        center_sub="kept",
    )
    by_reader_rows = "".join(
        f"<tr><td>{_e(r)}</td><td class='n'>{v['pages']}</td><td class='n'>{v['kept']}</td><td class='n'>{v['dropped']}</td></tr>"
        for r, v in s["by_reader"].items()
        if v["pages"]
    )
    parts.append(_card("Outcomes", f"{counts['pages']} pages, each counted once (by canonical URL).", donut + f"<table><tr><th>reader</th><th class='n'>pages</th><th class='n'>kept</th><th class='n'>dropped</th></tr>{by_reader_rows}</table>", cid="outcomes"))
    reasons = sorted(counts["dropped_by_reason"].items(), key=lambda kv: (-kv[1], kv[0]))
    parts.append(
        _card(
            "Drop reasons",
            f"{counts['dropped']} dropped pages by typed reason; every one has a packet in quarantine (table below).",
            svg.hbar("drop-reasons", "Dropped pages by reason", [(r, n, COLORS["drop_reason"]) for r, n in reasons]) if reasons else svg.empty("drop-reasons", "Dropped pages by reason", "Nothing was dropped"),
            cid="drops",
        )
    )

    # -- changes since the earlier runs (changed-only recrawls) -------------------------------
    ch = s.get("changes") or {}
    if any(ch.get(k) for k in ("added", "changed", "removed", "unchanged")):
        rows = "".join(f"<tr><td>{_e(k)}</td><td class='n'>{_num(ch.get(k, 0))}</td></tr>" for k in ("added", "changed", "removed", "unchanged"))
        sub = (
            f"Kept pages against what earlier runs stored; {_num(ch.get('not_modified', 0))} answered 304 Not Modified and "
            f"{_num(ch.get('skipped_lastmod', 0))} were skipped by their sitemap lastmod (stored objects kept, nothing rewritten). "
            f"The URLs: <code>{_e(ch.get('key'))}</code>."
        )
        parts.append(_card("Changes", sub, f"<table><tr><th>change</th><th class='n'>pages</th></tr>{rows}</table>", cid="changes"))

    # -- learned render routing -------------------------------------------------------------
    ro = s.get("routing") or {}
    if any(ro.get(k) for k in ("routed", "rechecked", "mispredicted")):
        rows = "".join(f"<tr><td>{_e(k)}</td><td class='n'>{_num(ro.get(k, 0))}</td></tr>" for k in ("routed", "rechecked", "mispredicted"))
        parts.append(
            _card(
                "Render routing",
                "Pages of URL templates that always needed the browser went straight to it (routed); a share still took the plain fetch (re-checked); "
                "a re-checked page that read fine without the browser is a misprediction, and its template is fetched plain again from the next crawl on.",
                f"<table><tr><th>pages</th><th class='n'>count</th></tr>{rows}</table>",
                cid="routing",
            )
        )

    # -- page types -----------------------------------------------------------------------
    groups = []
    for t, v in s["by_page_type"].items():
        groups.append((f"{t} ({v['pages']})", [("escalation rate", v["escalation_rate"], COLORS["escalation"]), ("render rate", v["render_rate"], COLORS["render"])]))
    legend = (
        f'<span class="muted" style="font-size:12px"><span style="color:{COLORS["escalation"]}">■</span> escalation rate (flagged for the browser) '
        f'&nbsp; <span style="color:{COLORS["render"]}">■</span> render rate (read by the browser)</span>'
    )
    parts.append(_card("Escalation and render rate by page type", "Share of each page type that the plain fetch could not read, and that the browser actually read.", svg.grouped_hbar("page-types", "Escalation and render rate by page type", groups, fmt=lambda x: f"{100 * x:.0f}%") + legend, cid="page-types"))

    # -- quality scores ---------------------------------------------------------------------
    smalls = []
    ymax = max((n for v in s["by_reader"].values() for n in v["quality_scores"].values()), default=1) or 1
    for r, v in s["by_reader"].items():
        if not v["pages"]:
            continue
        bins = [(k, v["quality_scores"].get(k, 0)) for k in ("0", "1", "2", "3", "4")]
        if v["quality_scores"].get("none"):
            bins.append(("n/a", v["quality_scores"]["none"]))
        mean = v.get("quality_score_mean")
        smalls.append(
            f'<figure><figcaption>{_e(r)} · {v["pages"]} pages{"" if mean is None else f" · mean {mean:.2f}"}</figcaption>'
            + svg.histogram(f"scores-{r}", f"Quality score distribution, reader {r}", bins, color=COLORS.get(r, COLORS["other"]), y_max=ymax, x_title="gate score (0-4)")
            + "</figure>"
        )
    parts.append(_card("Quality score by reader", "The extraction gate's score (0-4) per page. HTTP scores falling while escalations stay flat means broken selectors.", f'<div class="smalls">{"".join(smalls) or svg.empty("scores", "Quality scores")}</div>', cid="scores"))

    # -- latency --------------------------------------------------------------------------
    rows = []
    for r in s["by_reader"]:
        vals = [p["latency_ms"] for p in pages if str(p.get("reader")) == r and p.get("latency_ms") is not None]
        if vals:
            rows.append((r, vals, COLORS.get(r, COLORS["other"])))
    lat_rows = "".join(
        f"<tr><td>{_e(r)}</td><td class='n'>{v['latency_ms']['count']}</td><td class='n'>{_ms(v['latency_ms']['p50'])}</td><td class='n'>{_ms(v['latency_ms']['p95'])}</td><td class='n'>{_bytes(v['bytes_in'])}</td><td class='n'>{_num(v['chars_out'])}</td></tr>"
        for r, v in s["by_reader"].items()
        if v["pages"]
    )
    parts.append(
        _card(
            "Latency by reader",
            "Each dot is a page (log scale); solid tick p50, dashed tick p95 (nearest rank).",
            svg.strip("latency", "Latency distribution by reader", rows, fmt=lambda x: f"{x:,.0f}", unit=" ms", log=True)
            + f"<table><tr><th>reader</th><th class='n'>pages</th><th class='n'>p50</th><th class='n'>p95</th><th class='n'>bytes in</th><th class='n'>Markdown chars</th></tr>{lat_rows}</table>",
            cid="latency",
        )
    )

    # -- cost -------------------------------------------------------------------------------
    uc, usage, cp = cost["unit_costs"], cost["usage"], cost["parts"]
    cost_body = (
        f'<div class="row"><div><div class="big">{_money(cost["per_1000_clean_pages"], cur)}</div><div class="muted">per 1,000 clean (kept) pages</div></div>'
        f'<div><div class="big">{_money(cost["total"], cur)}</div><div class="muted">this run, {cost["kept"]} kept</div></div></div>'
        + svg.stacked_bar("cost", "Cost of this run by line item", [("fetches", cp["fetch"], COLORS["fetch"]), ("render", cp["render"], COLORS["render"]), ("PDF pages", cp["pdf"], COLORS["pdf"])], fmt=lambda x: _money(x, cur))
        + "<table><tr><th>line item</th><th class='n'>usage</th><th class='n'>unit cost</th><th class='n'>cost</th></tr>"
        + f"<tr><td>plain fetches</td><td class='n'>{usage['fetches']:,}</td><td class='n'>{_money(uc['fetch'], cur)}</td><td class='n'>{_money(cp['fetch'], cur)}</td></tr>"
        + f"<tr><td>render seconds</td><td class='n'>{usage['render_seconds']:,.1f}</td><td class='n'>{_money(uc['render_second'], cur)}</td><td class='n'>{_money(cp['render'], cur)}</td></tr>"
        + f"<tr><td>PDF pages</td><td class='n'>{usage['pdf_pages']:,}</td><td class='n'>{_money(uc['pdf_page'], cur)}</td><td class='n'>{_money(cp['pdf'], cur)}</td></tr></table>"
        + f'<p class="formula">{_e(cost["formula"])}</p>'
    )
    parts.append(_card("Cost", "From the unit costs in settings (GATECRAWL_COST_*). Dropped pages cost too.", cost_body, cid="cost"))

    # -- rendering --------------------------------------------------------------------------
    rend = s["render"]
    if rend["pages"]:
        rr = sorted(rend["readiness_reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
        body = (
            f'<div class="row"><div><div class="big">{_ms(rend["elapsed_ms"]["p50"])}</div><div class="muted">render time p50</div></div>'
            f'<div><div class="big">{_ms(rend["elapsed_ms"]["p95"])}</div><div class="muted">render time p95</div></div>'
            f'<div><div class="big">{rend["readiness_passed"]}/{rend["pages"]}</div><div class="muted">readiness passed</div></div></div>'
            + svg.hbar("readiness", "Render readiness reasons", [(k, n, COLORS["render"]) for k, n in rr])
        )
    else:
        body = svg.empty("readiness", "Render readiness reasons", f"No page was rendered in this run ({counts['escalated']} flagged for the browser)")
    parts.append(_card("Rendering", "Why the browser considered each rendered page ready, and how long renders took.", body, cid="rendering"))

    # -- volume and selection ----------------------------------------------------------------
    vol = s["volume"]
    rules = sorted((s.get("selection_rules") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    sel = s.get("selectors") or {}
    sel_rows = "".join(f"<tr><td><code>{_e(k)}</code></td><td class='n'>{v}</td></tr>" for k, v in sel.items())
    vol_body = (
        f'<div class="row"><div><div class="big">{_num(vol["markdown_chars"])}</div><div class="muted">Markdown chars kept</div></div>'
        f'<div><div class="big">{_num(vol["markdown_chars_p50"])}</div><div class="muted">chars per kept page (p50)</div></div>'
        f'<div><div class="big">{_bytes(vol["bytes_in"])}</div><div class="muted">bytes in</div></div></div>'
        + (svg.hbar("selection-rules", "Kept pages by main-content selection rule", [(k, n, COLORS["kept"]) for k, n in rules], label_w=190) if rules else svg.empty("selection-rules", "Selection rules", "Nothing was kept"))
        + (f"<table><tr><th>recipe main selector</th><th class='n'>pages matched</th></tr>{sel_rows}</table>" if sel_rows else "<p class='muted'>The recipe names no main-content selectors.</p>")
    )
    parts.append(_card("Volume and selection", "How much text was kept, and which rule chose each kept page's main content.", vol_body, cid="volume"))

    # -- run over run -----------------------------------------------------------------------
    hist = s.get("history") or []
    labels = [_run_label(h) for h in hist]
    rates_chart = svg.line_chart(
        "history-rates",
        "Rates over runs",
        labels,
        [
            ("escalation rate", [h["escalation_rate"] for h in hist], COLORS["escalation"]),
            ("drop rate", [h["drop_rate"] for h in hist], COLORS["dropped"]),
            ("render rate", [h["render_rate"] for h in hist], COLORS["render"]),
        ],
        fmt=lambda x: f"{100 * x:.0f}%",
        y_max=svg.nice_max(max([v for h in hist for v in (h["escalation_rate"], h["drop_rate"], h["render_rate"]) if v is not None] or [0.01])),
    )
    cost_chart = svg.line_chart("history-cost", "Cost per 1,000 clean pages over runs", labels, [(f"cost / 1,000 clean ({cur})", [h["cost_per_1000_clean_pages"] for h in hist], COLORS["fetch"])], fmt=lambda x: f"{x:.3g}")
    comp = s.get("comparison")
    comp_html = ""
    if comp:
        kinds = {"drop_rate": "rate", "escalation_rate": "rate", "render_rate": "rate", "http_latency_p50_ms": "ms", "http_latency_p95_ms": "ms"}
        trs = []
        for name, m in comp["metrics"].items():
            kind = kinds.get(name, "num")
            fmt = (lambda x: _pct(x)) if kind == "rate" else ((lambda x: _ms(x)) if kind == "ms" else (lambda x: _money(x, cur) if name.startswith("cost") else _num(x)))
            trs.append(f"<tr><td>{_e(name.replace('_', ' '))}</td><td class='n'>{_e(fmt(m['previous']))}</td><td class='n'>{_e(fmt(m['current']))}</td><td class='n'>{_signed(m['delta'], kind, _UP_IS_BAD.get(name))}</td></tr>")
        for r, v in comp["dropped_by_reason"].items():
            trs.append(f"<tr><td>dropped: {_e(r)}</td><td class='n'>{v['previous']}</td><td class='n'>{v['current']}</td><td class='n'>{_signed(v['current'] - v['previous'])}</td></tr>")
        comp_html = f"<h3 style='font-size:13px;margin:14px 0 4px'>This run against <code>{_e(comp['against_run_id'])}</code></h3><table><tr><th>metric</th><th class='n'>previous</th><th class='n'>this run</th><th class='n'>change</th></tr>{''.join(trs)}</table>"
    parts.append(_card("Run over run", f"The last {len(hist)} run(s) of {_e(site)}, oldest first, by finished time.", f'<div class="smalls"><figure>{rates_chart}</figure><figure>{cost_chart}</figure></div>{comp_html}', wide=True, cid="runs"))

    # -- stability --------------------------------------------------------------------------
    if stab:
        st_rows = "".join(
            f"<tr><td class='url'>{_e(_path(c['url']))}</td><td class='n'>{c['heading_jaccard']:.2f}</td><td>{_e(', '.join(c['headings_added'][:4]))}</td><td>{_e(', '.join(c['headings_removed'][:4]))}</td></tr>"
            for c in stab["changed_pages"]
        )
        oc_rows = "".join(
            f"<tr><td class='url'>{_e(_path(o['url']))}</td><td>{_e(o['previous'])} {_e(o['previous_reason'] or '')}</td><td>{_e(o['current'])} {_e(o['current_reason'] or '')}</td></tr>"
            for o in stab["outcome_changed"]
        )
        gauge = svg.stacked_bar(
            "stability",
            "Pages kept in both runs: identical vs changed Markdown",
            [("byte-identical", stab["identical"], COLORS["kept"]), ("changed", stab["changed"], COLORS["escalation"])],
            fmt=lambda x: f"{x:,.0f}",
        ) if stab["compared"] else svg.empty("stability", "Stability", "No page was kept in both runs")
        jm = "–" if stab["heading_jaccard_mean"] is None else f"{stab['heading_jaccard_mean']:.2f}"
        sc = "–" if stab["score"] is None else f"{stab['score']:.3f}"
        body = (
            f'<div class="row"><div><div class="big">{_pct(stab["identical_share"], 1)}</div><div class="muted">byte-identical Markdown ({stab["identical"]} of {stab["compared"]})</div></div>'
            f'<div><div class="big">{jm}</div><div class="muted">heading Jaccard, changed pages</div></div>'
            f'<div><div class="big">{sc}</div><div class="muted">stability score</div></div>'
            f'<div><div class="big">{stab["added"]}/{stab["removed"]}</div><div class="muted">pages added / gone</div></div></div>'
            + gauge
            + (f"<h3 style='font-size:13px;margin:14px 0 4px'>Changed pages</h3><table><tr><th>page</th><th class='n'>heading Jaccard</th><th>headings added</th><th>headings removed</th></tr>{st_rows}</table>" if st_rows else "")
            + (f"<h3 style='font-size:13px;margin:14px 0 4px'>Outcome changed</h3><table><tr><th>page</th><th>previous</th><th>this run</th></tr>{oc_rows}</table>" if oc_rows else "")
        )
        parts.append(_card("Stability", f"Against run <code>{_e(stab['against_run_id'])}</code>, over pages kept in both runs.", body, wide=True, cid="stability"))

    # -- quarantine -------------------------------------------------------------------------
    q_rows = []
    has_detail = any((q.get("drop_detail") or "") for q in s.get("quarantine") or [])
    detail_th = "<th>detail</th>" if has_detail else ""
    for q in s.get("quarantine") or []:
        key = q.get("packet_key")
        href = packet_href(key) if (packet_href and key) else None
        link = f'<a href="{_e(href)}">packet</a>' if href else (f"<code>{_e(key)}</code>" if key else "–")
        detail_td = f"<td>{_e(q.get('drop_detail') or '')}</td>" if has_detail else ""
        q_rows.append(
            f"<tr><td class='url' title='{_e(q['url'])}'>{_e(_path(q['url']))}</td><td><span class='pill'>{_e(q['drop_reason'])}</span></td>"
            f"{detail_td}<td>{_e(q.get('reader'))}</td><td class='n'>{_e(q.get('http_status') or '')}</td><td class='n'>{_e('' if q.get('quality_score') is None else q['quality_score'])}</td><td>{link}</td></tr>"
        )
    qt = (
        f"<table><tr><th>page</th><th>reason</th>{detail_th}<th>reader</th><th class='n'>status</th><th class='n'>score</th><th>evidence</th></tr>" + "".join(q_rows) + "</table>"
        if q_rows
        else "<p class='muted'>Nothing was quarantined in this run.</p>"
    )
    parts.append(_card("Quarantine", f"{len(q_rows)} dropped pages of this run, each linked to its evidence packet.", qt, wide=True, cid="quarantine"))

    # -- every page (collapsed) ----------------------------------------------------------------
    all_rows = "".join(
        f"<tr><td class='url'>{_e(_path(p.get('url')))}</td><td><span class='pill{' kept' if p.get('outcome') == 'kept' else ''}'>{_e(p.get('outcome'))}</span> {_e(p.get('drop_reason') or '')}</td>"
        f"<td>{_e(p.get('page_type'))}</td><td>{_e(p.get('reader'))}</td><td>{'yes' if p.get('escalated') else ''}</td><td class='n'>{_e('' if p.get('quality_score') is None else p['quality_score'])}</td>"
        f"<td class='n'>{_e(_ms(p.get('latency_ms')))}</td><td class='n'>{_num(p.get('chars_out'))}</td></tr>"
        for p in sorted(pages, key=lambda p: p.get("url") or "")
    )
    parts.append(
        _card(
            "All pages",
            f"{len(pages)} pages of this run.",
            f"<details><summary>Show every page</summary><table><tr><th>page</th><th>outcome</th><th>type</th><th>reader</th><th>escalated</th><th class='n'>score</th><th class='n'>latency</th><th class='n'>chars</th></tr>{all_rows}</table></details>",
            wide=True,
            cid="pages",
        )
    )

    parts.append("</div>")
    keys = s.get("keys") or {}
    where = (
        f"merged crawl manifest <code>{_e(keys.get('crawl'))}</code>"
        if keys.get("crawl")
        else f"JSON summary <code>{_e(keys.get('summary'))}</code> · per-run record <code>{_e(keys.get('record'))}</code>"
    )
    parts.append(f"<footer>gatecrawl {_e(s['schema_version'])} · generated {_e(s.get('generated_at'))} · store {_e(s.get('store_uri'))} · {where}</footer></main>")
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Crawl report · {_e(site)} · {_e(run_id)}</title><style>{_CSS}</style></head><body>"
        + "".join(parts)
        + "</body></html>\n"
    )
