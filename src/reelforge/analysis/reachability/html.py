"""The reachability section as one self-contained HTML page (inline CSS, no scripts)."""

from __future__ import annotations

from html import escape
from typing import Any

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:80em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin-top:1.2em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
tr.rare td{background:#fff6d5}tr.zero td{background:#fde2e2}
.pass{color:#0a6b2d;font-weight:bold}.fail{color:#a40000;font-weight:bold}
.note{color:#555;font-size:.92em}
"""
PRIZE_HEAD = ("prize", "pays", "per", "probability", "odds", "flag", "source")
MAX_HEAD = (
    "stake",
    "rounds",
    "draws",
    "actions",
    "replayed win",
    "declared max win",
    "gap",
    "verdict",
    "how",
)


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return "0" if x == 0 else f"{x:.6g}"


def _one_in(x: float | None) -> str:
    if x is None:
        return "never"
    return f"1 in {x:,.1f}" if x < 1e7 else f"1 in {x:.4g}"


def _verdict(ok: bool) -> str:
    return '<span class="pass">PASS</span>' if ok else '<span class="fail">FAIL</span>'


def _table(head: tuple[str, ...]) -> str:
    return "<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>"


def _tr(cells: list[tuple[str, str]], cls: str = "", title: str = "") -> str:
    """A row of ``(class, html)`` cells; ``title`` goes on the probability cell (the 4th)."""
    tds = []
    for i, (c, h) in enumerate(cells):
        attrs = f' class="{c}"' if c else ""
        if i == 3 and title:
            attrs += f' title="{escape(title)}"'
        tds.append(f"<td{attrs}>{h}</td>")
    return (f'<tr class="{cls}">' if cls else "<tr>") + "".join(tds) + "</tr>"


def _flag(r: dict[str, Any]) -> tuple[str, str]:
    if r["zero"]:
        return "zero", "0: " + (r.get("design") or "unreachable")
    if r["rarer_than_1_in_100m"]:
        return "rare", "rarer than 1 in 100,000,000"
    return "", ""


def _prizes(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    group = None
    for r in rows:
        if r["group"] != group:
            if group is not None:
                out.append("</table>")
            group = r["group"]
            out.append(f"<h3>{escape(group)}</h3>" + _table(PRIZE_HEAD))
        cls, flag = _flag(r)
        measure = " (expected count)" if r["measure"] != "probability" else ""
        cells = [
            ("", escape(r["name"])),
            ("", escape(r["pays"])),
            ("", escape(r["per"])),
            ("num", _num(r["probability"]) + measure),
            ("num", _one_in(r["one_in"])),
            ("", escape(flag)),
            ("note", escape(r["source"])),
        ]
        out.append(_tr(cells, cls, f"exact: {r['exact']}" if r.get("exact") else ""))
    if group is not None:
        out.append("</table>")
    return out


def _max_win(sec: dict[str, Any]) -> list[str]:
    out = ["<h3>Maximum win, replayed through the rules</h3>" + _table(MAX_HEAD)]
    for m in sec["max_win"]:
        how = m["how"] + (f" — error: {m['error']}" if m["error"] else "")
        if m["start_player_state"]:
            how += f" — player state at the start: {m['start_player_state']}"
        cells = [
            ("num", f"{m['stake']:,}"),
            ("num", str(m["rounds"])),
            ("num", str(m["draws"])),
            ("num", str(m["actions"])),
            ("num", f"{m['replayed_win']:,}"),
            ("num", f"{m['declared_max_win']:,}"),
            ("num", f"{m['gap']:,}"),
            ("", _verdict(m["ok"])),
            ("note", f"{escape(how)}; declared: {escape(m['declared_from'])}"),
        ]
        out.append(_tr(cells))
    out.append("</table>")
    mw = sec["max_win_odds"]
    if mw["high"] is None and mw["low"] is not None:
        text = f"at least {_num(mw['low'])} ({_one_in(1 / mw['low'])})"
    elif mw["high"] is None:
        text = "not computed"
    elif mw["exact"]:
        text = f"{_num(mw['high'])} ({_one_in(1 / mw['high'] if mw['high'] else None)})"
    elif mw["low"] is None:
        text = f"at most {_num(mw['high'])}"
    else:
        text = f"between {_num(mw['low'])} and {_num(mw['high'])}"
    out.append(
        f'<p class="note">Chance of the max win per round: {escape(text)} — {escape(mw["source"])}</p>'
    )
    return out


def render(data: dict[str, Any]) -> str:
    title = f"Reachability: {data['name']} {data['version']}"
    parts = [
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>',
        f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>",
        f"<p>Overall: {_verdict(data['passed'])}. Rows rarer than 1 in 100,000,000 are shaded yellow, rows "
        "of probability 0 red (with the data's reason where it rules the prize out). Max-win sequences: "
        f"<code>{escape(data['sequence_file'])}</code>, {escape(data['sequence_method'])}.</p>",
    ]
    for sec in data["sections"]:
        head = f"Variant {escape(sec['variant'])}, mode {escape(sec['mode'])}"
        parts.append(f"<h2>{head}: {_verdict(sec['passed'])}</h2>")
        if sec["unreachable"]:
            unexplained = ", ".join(sec["unexpected_unreachable"]) or "none"
            parts.append(
                f"<p>Unreachable in this mode: {escape(', '.join(sec['unreachable']))} "
                f"(unexplained by the data: {escape(unexplained)}).</p>"
            )
        parts += _max_win(sec)
        parts += _prizes(sec["prizes"])
    parts.append("</body></html>\n")
    return "\n".join(parts)
