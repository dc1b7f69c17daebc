"""The sheet's stylesheet, inlined into every sheet: screen and print (A4) alike."""

CSS = """
:root { --ink: #1b1f24; --muted: #5b6470; --line: #d5dae1; --head: #eef2f6; --accent: #1f4e79;
        --bad: #b3261e; --bad-bg: #fde7e5; --ok: #1e6b3a;
        --sim: #7a4b00; --sim-bg: #fff6e0; }
* { box-sizing: border-box; }
html { font: 13px/1.4 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: var(--ink);
       background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.85em; margin: 0 0 2px; color: var(--accent); }
h2 { font-size: 1.3em; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--accent);
     color: var(--accent); break-after: avoid; }
p { margin: 6px 0; }
.sub { color: var(--muted); margin: 0 0 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
thead th { background: var(--head); font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
td.mono, .mono { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; }
td.total, th.total { font-weight: 600; background: #f7f9fb; }
td.na, .na { color: var(--muted); font-style: italic; }
td.muted { color: var(--muted); }
td.note-cell { color: var(--muted); font-size: 0.85em; max-width: 320px; }
table.meta th { background: var(--head); width: 150px; }
table.meta td.mono { font-size: 0.85em; word-break: break-all; }
figure { margin: 12px 0 16px; }
figure.block { display: inline-block; vertical-align: top; margin-right: 18px; break-inside: avoid;
               max-width: 100%; }
figure.block > table { max-width: 100%; }
figcaption { font-weight: 600; margin: 0 0 4px; }
figure.chart { display: block; break-inside: avoid; }
figure.chart figcaption { font-weight: 400; color: var(--muted); font-size: 0.85em; }
figure.chart svg { width: 100%; max-width: 900px; height: auto; display: block; }
.note { color: var(--muted); font-size: 0.85em; max-width: 760px; margin: 4px 0 0; }
.kpis { display: flex; flex-wrap: wrap; gap: 10px; }
.kpi { border: 1px solid var(--line); border-left: 4px solid var(--accent); padding: 6px 12px;
       min-width: 170px; background: #fafbfc; }
.kpi span { display: block; color: var(--muted); font-size: 0.85em; }
.kpi b { font-size: 1.25em; }
.alert { padding: 6px 10px; border-left: 4px solid var(--muted); background: #f3f4f6; }
.alert.outside, p.outside { border-left-color: var(--bad); background: var(--bad-bg); color: var(--bad);
                            font-weight: 600; }
.ok { color: var(--ok); font-weight: 600; }
tr.outside td, td.outside { background: var(--bad-bg); }
td.flag.outside { color: var(--bad); font-weight: 700; letter-spacing: .04em; }
figure.simulated figcaption::after { content: " — SIMULATED"; color: var(--sim); }
figure.simulated > table { border-left: 4px solid var(--sim); }
p.simulated { background: var(--sim-bg); padding: 6px 10px; color: var(--sim);
              border-left: 4px solid var(--sim); }
figure.counts td { padding: 2px 6px; }
figure.strips { display: inline-block; margin-right: 12px; }
figure.strips table { font-size: 0.8em; }
figure.strips td { padding: 0 5px; }
@page { size: A4; margin: 12mm 10mm; }
@media print {
  html { font-size: 9.5px; }
  main { max-width: none; padding: 0; }
  h2 { margin-top: 16px; }
  section { break-before: auto; }
  #appendix { break-before: page; }
  figure.chart svg { max-width: 100%; }
  .kpi { background: none; }
}
"""
