# ruff: noqa: E501  (table rows are long literals)
"""Rewrite the computed tables of docs/games/los-3-pinguinos.md (the lower game and the whole
machine) from the data files, in place.

Usage: .venv/bin/python scripts/pinguinos_doc_tables.py [--mc DIR]

Every table is found by the line that introduces it and replaced whole; the prose around them
is left alone.  With ``--mc DIR`` the lower game's Monte Carlo record is rewritten from the
JSON files ``DIR/mc_V.json`` that ``bench/game_mc.py --game los-3-pinguinos --variant V
--rounds 100000000 --seed 2024`` printed.  The tests check the page against the same figures
(tests/test_docs.py, tests/test_pinguinos_distribution.py): run this after changing the data.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from reelforge.games import get_game  # noqa: E402
from reelforge.games.los_3_pinguinos import strategy as S  # noqa: E402
from test_pinguinos_distribution import PLAY_LABEL, band_row, lower_row  # noqa: E402

DOC = ROOT / "docs" / "games" / "los-3-pinguinos.md"
TABLE = re.compile(r"\n(\|[^\n]*\n)+")


def pct(x: float) -> str:
    return f"{x * 100:.4f}%"


def replace_table(text: str, anchor: str, table: str) -> str:
    """The first markdown table after ``anchor``, replaced by ``table``."""
    i = text.index(anchor)
    m = TABLE.search(text, i + len(anchor) - 1)
    assert m is not None, anchor
    return text[: m.start()] + "\n" + table + "\n" + text[m.end() :]


def replace_lines(text: str, anchor: str, lines: str) -> str:
    """The block of lines right after ``anchor`` (up to the next blank line)."""
    i = text.index(anchor) + len(anchor)
    j = text.index("\n\n", i)
    return text[:i] + lines + text[j:]


def intro(g, rep) -> str:
    v = g.variants
    rows = ["| | " + " | ".join(v) + " |", "|---|" + "---|" * len(v)]

    def row(label: str, cell) -> None:
        rows.append(f"| {label} | " + " | ".join(cell(x) for x in v) + " |")

    m = {x: rep[x]["machine_rtp_by_play"] for x in v}
    row(
        "**The promised RTP: the whole machine's cash return under the best play** (no play returns more)",
        lambda x: f"**{pct(m[x]['best']['rtp'])}**",
    )
    row(
        "attained by the machine's AUTO play (whatever the counter does)",
        lambda x: pct(m[x]["best"]["attained"]),
    )
    for play, label in (
        ("default", "the default play (what the machine suggests), €0.20 pairing"),
        ("auto_risk", "AUTO-RISK (every ladder and Double-or-Bonuses fraction risked), €0.20 pairing"),
        ("worst", "the worst reasonable play (never hold, never nudge, collect), €0.20 pairing"),
    ):
        row(label, lambda x, p=play: pct(m[x][p]["by_pairing"][0]["rtp"]))
    row(
        "a Bonus's cash worth (what the upper game returns per Bonus staked)",
        lambda x: f"{g.data(x).bonus_worth} cents",
    )
    row(
        "lower game alone, best play = AUTO (Bonuses at their worth)",
        lambda x: pct(rep[x]["rtp_by_play"]["best"]),
    )
    return "\n".join(rows)


def disco_label(prize: str) -> str:
    n = int(prize[1:])
    if prize[0] == "C":
        return f"€{n / 100:,.2f}"
    return f"{n} Bonus" if n == 1 else f"{n} Bonuses"


def disco(d) -> str:
    """Every bet's own Disco table, side by side (the tables list their prizes in the same
    order: cash from the least, then Bonuses)."""
    tables = [list(d.disco_table(b // d.game.unit).items()) for b in d.game.bets]
    head = "| # | " + " | ".join(f"at €{b / 100:,.2f} | weight" for b in d.game.bets) + " |"
    rows = [head, "|---" * (1 + 2 * len(tables)) + "|"]
    for i in range(max(len(t) for t in tables)):
        cells = [f"{disco_label(t[i][0])} | {t[i][1]}" if i < len(t) else " | " for t in tables]
        rows.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    rows.append("| total | " + " | ".join(f" | {sum(w for _, w in t)}" for t in tables) + " |")
    return "\n".join(rows)


def ladders(g) -> str:
    out = []
    for v in g.variants:
        d = g.data(v)
        out += [
            f"Variant {v} (a Bonus worth {d.bonus_worth} cents):",
            "",
            "| level | prize at €0.20 | Sube-Bonos up / fail | Sube-Nada up / fail | Sube-Bonos played to the end "
            "| Sube-Nada played to the end |",
            "|---|---|---|---|---|---|",
        ]
        sb, sn = S.ladder_values(d, "sube_bonos"), S.ladder_values(d, "sube_nada")
        for i, c in enumerate(d.ladders.scale[:-1]):
            a, b = d.ladders.sube_bonos[i], d.ladders.sube_nada[i]
            out.append(
                f"| {i} | €{c / 100:,.2f} | {a.up} / {a.fail} | {b.up} / {b.fail} | €{float(sb[i]) / 100:,.2f} | "
                f"€{float(sn[i]) / 100:,.2f} |"
            )
        top = d.ladders.scale[-1]
        out += [f"| {len(d.ladders.scale) - 1} | €{top / 100:,.2f} | top: paid | top: paid | €{top / 100:,.2f} | "
                f"€{top / 100:,.2f} |", ""]  # fmt: skip
    return "\n".join(out).rstrip("\n")


def decisions(d) -> tuple[str, str]:
    """The hold and nudge statistics of the best play and the default play (variant 95)."""
    best, default = S.values(d, "best"), S.values(d, "default")
    from reelforge.games.los_3_pinguinos.payline import evaluate, line_symbols

    outcomes = [evaluate(d, line_symbols(d, s)) for s in S.ALL_STOPS]
    pair = [i for i, o in enumerate(outcomes) if o.kind == "none" and o.pairs]
    avg_best = sum((best.hold[i] for i in pair), Fraction(0)) / len(pair)
    avg_sugg = sum((default.hold[i] for i in pair), Fraction(0)) / len(pair)
    differ = sum(1 for i in pair if best.hold_mask[i] != outcomes[i].pairs[0])
    near = [i for i, n in enumerate(S.near_misses(d, False)) if n]
    offer = Fraction(d.nudges.offer.yes, d.nudges.offer.yes + d.nudges.offer.no)
    gain = sum(((best.landed_paid[i] - best.final_paid[i]) / offer for i in near), Fraction(0)) / len(near)
    hold = (
        f"{len(pair)} of 4096 paid lines hold a pair without a prize; a held game is worth "
        f"€{float(avg_best) / 100:.2f} on average with the best hold and €{float(avg_sugg) / 100:.2f} with the "
        f"suggested one (Bonuses at their worth); the best hold differs from the suggested one on {differ} of "
        "those lines."
    )
    nudge = (
        f"{len(near)} of 4096 paid lines are near misses; an offer of nudges there adds "
        f"€{float(gain) / 100:.2f} on average (AUTO-ADVANCE)."
    )
    return hold, nudge


def machine(g, rep) -> tuple[str, str, str]:
    ratios = ["| variant | round | E[cash + worth × ΔBonuses] / cash in |", "|---|---|---|"]
    fracs = []
    table = [
        "| variant | play | €0.20 pairing | €1 | €5 | €10 | €15 + 75 | €15 + 150 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = {"auto": "AUTO", "default": "default", "auto_risk": "AUTO-RISK", "worst": "worst"}
    for v in g.variants:
        m = rep[v]["machine_rtp_by_play"]
        b = m["best"]
        for k, x in b["round_ratios"].items():
            ratios.append(f"| {v} | {k} | {pct(x)} |")
        lo, hi = b["bounds"]
        fracs.append(f"- {v}: attained {lo.replace('/', ' / ')}; bound {hi.replace('/', ' / ')}")
        table.append(
            f"| {v} | **best** (bound no play beats; attained) | **{pct(b['rtp'])}**; {pct(b['attained'])} | | | | | |"
        )
        for play, name in names.items():
            cells = []
            for r in m[play]["by_pairing"]:
                a, c = sorted((r["rtp_5_lines"], r["rtp_8_lines"]))
                cells.append(f"{a * 100:.4f}–{c * 100:.4f}%" + (" ≈" if r.get("approximate") else ""))
            table.append(f"| {v} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(ratios), "\n".join(fracs), "\n".join(table)


def mc_rows(directory: Path, variants: list[str]) -> str:
    rows = []
    for v in variants:
        r = json.loads((directory / f"mc_{v}.json").read_text())
        lo, hi = r["ci99"]
        rows.append(
            f"| {v} | {pct(r['exact_rtp'])} | {pct(r['rtp'])} | [{pct(lo)}, {pct(hi)}] | "
            f"{'yes' if r['exact_inside_uncapped_ci99'] else 'NO'} | {r['std_per_round']:.3f} | "
            f"{r['max_win_x_stake']:.0f} | {r['seconds']:.1f} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mc", type=Path, help="folder of bench/game_mc.py JSON outputs mc_V.json")
    args = parser.parse_args()
    g = get_game("los-3-pinguinos")
    rep = {v: g.exact(variant=v) for v in g.variants}
    text = DOC.read_text()
    i = text.index("| | " + " | ".join(g.variants) + " |")
    j = TABLE.search(text, i - 1)
    assert j is not None
    text = text[: j.start()] + "\n" + intro(g, rep) + "\n" + text[j.end() :]
    k = text.index("### Ladders\n")
    first = text.index("Variant ", k)
    end = text.index("### Disco prizes", k)
    text = text[:first] + ladders(g) + "\n\n" + text[end:]
    variants = [
        "| variant | hold offer | nudge offer | AUTO | default play | AUTO-RISK |",
        "|---|---|---|---|---|---|",
    ]
    for v in g.variants:
        d, p = g.data(v), rep[v]["rtp_by_play"]
        variants.append(
            f"| {v} | {d.hold.yes} / {d.hold.yes + d.hold.no} | {d.nudges.offer.yes} / "
            f"{d.nudges.offer.yes + d.nudges.offer.no} | {pct(p['auto'])} | {pct(p['default'])} | {pct(p['auto_risk'])} |"
        )
    text = replace_table(text, "### Variants\n", "\n".join(variants))
    text = replace_table(text, "### Disco prizes", disco(g.data("95")))
    comps = [
        "| variant | line cash | line Bonuses | line Disco | held games | nudges |",
        "|---|---|---|---|---|---|",
    ]
    for v in g.variants:
        c = rep[v]["components"]
        keys = ("line_cash", "line_bonuses", "line_disco", "held_games", "nudges")
        comps.append(f"| {v} | " + " | ".join(pct(c[k]) for k in keys) + " |")
    text = replace_table(text, "### Components under AUTO", "\n".join(comps))
    fr = []
    for v in g.variants:
        f = rep[v]["rtp_by_play_fraction"]
        fr.append(
            f"- {v}: "
            + "; ".join(
                f"{p} {f[p].replace('/', ' / ')}" for p in ("best", "auto", "default", "auto_risk", "worst")
            )
        )
    text = replace_lines(text, "### Fractions\n\n", "\n".join(fr))
    hold, nudge = decisions(g.data("95"))
    text = re.sub(r"\nhold: \d+ of 4096 paid lines[^\n]*", "\nhold: " + hold, text)
    text = re.sub(r"\nnudges: \d+ of 4096 paid lines[^\n]*", "\nnudges: " + nudge, text)
    text = re.sub(r"\n- \d+ of 4096 paid lines hold a pair[^\n]*", "\n- " + hold, text)
    text = re.sub(r"\n- \d+ of 4096 paid lines are near misses[^\n]*", "\n- " + nudge, text)
    dist = [
        "| variant | play | RTP | volatility index (SD, × bet) | no win | maximum win | its chance (exact) | odds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    bands = []
    for v in g.variants:
        for play in PLAY_LABEL:
            dist.append(lower_row(g, v, play))
            bands.append(band_row(g, v, play))
    text = replace_table(text, "## Win distribution\n", "\n".join(dist))
    i = text.index("Bands of one round's win")
    m = TABLE.search(text, i)
    assert m is not None
    header = text[m.start() + 1 :].split("\n")[:2]
    text = text[: m.start()] + "\n" + "\n".join(header + bands) + "\n" + text[m.end() :]
    ratios, fracs, table = machine(g, rep)
    text = replace_table(text, "tuning's rounding:", ratios)
    text = replace_lines(text, "Fractions (the best play lies between them):\n\n", fracs)
    text = replace_table(text, "risked whole):", table)
    if args.mc:
        i = text.index("## Simulation record")
        m = TABLE.search(text, i)
        assert m is not None
        header = text[m.start() + 1 :].split("\n")[:2]
        rows = mc_rows(args.mc, g.variants)
        text = text[: m.start()] + "\n" + "\n".join(header) + "\n" + rows + "\n" + text[m.end() :]
    DOC.write_text(text)
    print(f"rewrote the computed tables of {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
