"""The game's doc page states the numbers the data file and the exact calculator hold."""

from __future__ import annotations

import re
from pathlib import Path

from reelforge.games.reign_of_gnomes import ReignOfGnomes

DOC = Path(__file__).resolve().parents[1] / "docs" / "games" / "reign-of-gnomes.md"


def test_doc_page_matches_the_data_and_the_exact_rtp(gnomes: ReignOfGnomes) -> None:
    text = DOC.read_text()
    d = gnomes.data()
    exact = gnomes.exact()
    assert f"{exact['rtp'] * 100:.4f}%" in text
    assert exact["rtp_fraction"].replace("/", " / ") in text
    for symbol, pays in d.ways_pays.items():
        row = rf"\| {re.escape(d.symbols[symbol])} \| {symbol} \| {pays[3]} \| {pays[4]} \| {pays[5]} \|"
        assert re.search(row, text), f"paytable row for {symbol}"
    for k, pay in d.scatter_pays.items():
        assert f"| {k} | {pay} | {d.free_spins[k]} |" in text
    for seg in d.wheel:
        assert re.search(rf"\| {seg.weight} \| [\d.]+% \|", text)
    for level in d.ice_diamonds.levels:
        assert f"| {level.award} |" in text
    for name, reels in (("base", d.base_reels), ("free", d.free_reels)):
        for i, strip in enumerate(reels.strips):
            assert f"reel {i + 1} ({len(strip)}): {' '.join(strip)}" in text, f"{name} reel {i + 1}"
    for label, value in exact["components"].items():
        assert f"{value * 100:.4f}%" in text, label


GAMBINI_DOC = DOC.parent / "ghost-of-gambini.md"


def test_gambini_doc_page_matches_the_data_and_the_exact_figures() -> None:
    from reelforge.games import get_game

    game = get_game("ghost-of-gambini")
    text = GAMBINI_DOC.read_text()
    d = game.data()
    base = game.exact()
    assert f"**{base['rtp'] * 100:.4f}%**" in text
    assert base["rtp_fraction"].replace("/", " / ") in text
    for mode in ("buy-lock-spin", "buy-super-lock-spin"):
        assert f"**{game.exact(mode=mode)['rtp'] * 100:.4f}%**" in text, mode
    assert f"{base['hit_frequency'] * 100:.4f}%" in text
    for symbol, pays in d.pays.items():
        assert f"| {d.symbols[symbol]} | {symbol} | {pays[3]} | {pays[4]} | {pays[5]} |" in text, symbol
    for code, credits in d.coin_values.items():
        assert f"| coin | {code} | {credits} |" in text, code
    for code, times in d.jackpots.items():
        assert f"| {code} | {times * d.game.base_credits} | {times} |" in text, code
    for p, strip in enumerate(d.strips):
        where = f"position {p + 1} (reel {p // 3 + 1} row {p % 3 + 1}, {len(strip)})"
        assert f"{where}: {' '.join(strip)}" in text
    for i, line in enumerate(d.lines):
        assert f"{i + 1} | {' '.join(str(r + 1) for r in line)}" in text, f"line {i + 1}"
    weights = [
        f"none {d.magic_shot.none}, Gambini {d.magic_shot.gambini}, ghost {d.magic_shot.ghost}",
        f"fires {d.magic_rewind.center.fire}, skips {d.magic_rewind.center.skip}",
        f"fires {d.magic_rewind.jackpot.fire}, skips {d.magic_rewind.jackpot.skip}",
    ]
    for table in (
        d.ghost_coins.count,
        d.ghost_coins.prizes,
        d.piggies.gambini_toss,
        d.lock_spin.start_ghosts,
        d.lock_spin.ghosts_per_spin,
        d.lock_spin.frames.bronze,
        d.lock_spin.frames.silver,
        d.lock_spin.frames.gold,
        d.super_lock_spin.ghosts_per_spin,
        d.super_lock_spin.frames.gold,
    ):
        weights.append(", ".join(f"{k}: {v}" for k, v in table.items()))
    weights += [f"size {i}: grow {s.grow}, stay {s.stay}" for i, s in enumerate(d.piggies.sizes)]
    for w in weights:
        assert w in text, w
    for label, value in base["components"].items():
        assert f"| {label} | {value * 100:.4f}% |" in text, label
    for row in base["by_state"]:
        left, right = row["piggies"]
        assert f"| {left}, {right} | {row['share']:.4f} | {row['next_spin_rtp'] * 100:.2f}% |" in text


PINGUINOS_DOC = DOC.parent / "los-3-pinguinos.md"


def test_pinguinos_doc_page_matches_the_data_and_the_exact_figures() -> None:
    from reelforge.games import get_game

    game = get_game("los-3-pinguinos")
    text = PINGUINOS_DOC.read_text()
    for variant in game.variants:
        d = game.data(variant)
        r = game.exact(variant=variant)
        plays = r["rtp_by_play"]
        row = (
            f"| {variant} | {d.hold.yes} / {d.hold.yes + d.hold.no} | {d.nudges.offer.yes} / "
            f"{d.nudges.offer.yes + d.nudges.offer.no} | {plays['auto'] * 100:.4f}% | "
            f"{plays['default'] * 100:.4f}% | {plays['auto_risk'] * 100:.4f}% |"
        )
        assert row in text, variant
        assert r["rtp_by_play_fraction"]["auto"].replace("/", " / ") in text, variant
    d = game.data()
    for i in range(16):
        cells = " | ".join(d.strips[r][i] + (" ⋮" if i in d.vertical_lines[r] else "") for r in range(3))
        assert f"| {i} | {cells} |" in text, f"stop {i}"
    for symbol, cents in d.pays.items():
        assert f"({symbol}) | €{cents / 100:,.2f} |" in text, symbol
    for i, c in enumerate(d.ladders.scale[:-1]):
        a, b = d.ladders.sube_bonos[i], d.ladders.sube_nada[i]
        assert f"| {i} | €{c / 100:,.2f} | {a.up} / {a.fail} | {b.up} / {b.fail} |" in text, f"level {i}"
    # every bet's own Disco table, side by side: row i holds each bet's i-th prize and weight
    tables = [list(d.disco_table(bet // d.game.unit).items()) for bet in d.game.bets]
    for i in range(len(tables[0])):
        cells = []
        for table in tables:
            prize, weight = table[i]
            n = int(prize[1:])
            label = f"€{n / 100:,.2f}" if prize[0] == "C" else f"{n} Bonus{'' if n == 1 else 'es'}"
            cells.append(f"{label} | {weight}")
        assert f"| {i + 1} | " + " | ".join(cells) + " |" in text, i


def test_pinguinos_upper_game_section_matches_the_data_and_the_exact_figures() -> None:
    from fractions import Fraction

    from reelforge.games import get_game
    from reelforge.games.los_3_pinguinos import upper_exact as U
    from reelforge.games.los_3_pinguinos.exact import upper_components

    game = get_game("los-3-pinguinos")
    text = PINGUINOS_DOC.read_text()
    assert "## The upper game" in text
    text = text[text.index("## The upper game") :]

    def eur(cents: int) -> str:
        return f"€{cents / 100:,.2f}"

    def pc(x: Fraction | float) -> str:
        return f"{float(x) * 100:.4f}%"

    def bet_name(cash: int, bonuses: int) -> str:
        return f"{eur(cash)} + {bonuses} Bonus" + ("" if bonuses == 1 else "es")

    def one_in(p: Fraction) -> str:
        return f"1 in {float(1 / p):,.1f}"

    d = game.data()
    u = d.upper
    for k in range(16):
        assert f"| {k} | " + " | ".join(u.strips[r][k] for r in range(3)) + " |" in text, f"stop {k}"
    for n, line in enumerate(u.lines, 1):
        assert f"| {n} | {' '.join(str(r) for r in line)} |" in text, f"payline {n}"
    for s, c in u.pays.items():
        row = f"({s}){' → ' + u.minigames[s].capitalize() if s in u.minigames else ''} | {c} | "
        assert row + " | ".join(eur(c * b.multiplier) for b in u.bets) + " |" in text, s
    for b, stake in zip(u.bets, d.upper_stakes, strict=True):
        mixed = ", ".join(f"{eur(k)}: {w}" for k, w in b.mixed.items()) or "none"
        row = (
            f"| {bet_name(b.cash, b.bonuses)} | {eur(stake)} | {b.multiplier} | {eur(b.fraction)} | "
            f"{eur(b.minigame_floor)} | {eur(b.max_prize)} | {mixed} |"
        )
        assert row in text, row
    assert ", ".join(str(s) for s in u.roulette.sections) in text.replace("\n", " ")
    assert f"yes {u.roulette.again.yes}, no {u.roulette.again.no}" in text
    for k, w in u.fishing.catch.items():
        assert f"| {'cross (the penguin stops)' if k == 'X' else k[1:]} | {w} |" in text, k
    for k, w in u.slides.prizes.items():
        assert f"| {k[1:]} | {w} |" in text, k
    assert (
        f"{u.accumulator_pieces} pieces; gain weights "
        + ", ".join(f"{k} piece{'s' if k > 1 else ''}: {w}" for k, w in u.accumulator_step.items())
        in text
    )
    assert "gain weights " + ", ".join(f"+{k}: {w}" for k, w in u.vertical_step.items()) in text
    f0 = U.bet_figures(d, 0)
    assert f"r = {f0.fills.numerator}/{f0.fills.denominator}" in text
    assert f"1 − π(0) = {pc(f0.eight_share)}" in text
    for variant in game.variants:
        dv = game.data(variant)
        row = f"| {variant} | double {dv.upper.double.double}, Bonuses {dv.upper.double.bonuses} | "
        offers = list(zip(dv.upper.minigame_offer, dv.upper.minigame_offer_8, strict=True))
        offer_cells = [f"{o.yes} / {o.yes + o.no}; {o8.yes} / {o8.yes + o8.no}" for o, o8 in offers]
        assert row + " | ".join(offer_cells) + " |" in text
        for i, b in enumerate(dv.upper.bets):
            f = U.bet_figures(dv, i)
            row = (
                f"| {variant} | {bet_name(b.cash, b.bonuses)} | {offer_cells[i]} | "
                f"**{pc(f.rtp('collect'))}** | {pc(f.rtp('risk'))} | {pc(f.rtp('collect', 5))} | "
                f"{pc(f.rtp('collect', 8))} | {pc(f.rtp('risk', 5))} | {pc(f.rtp('risk', 8))} |"
            )
            assert row in text, row
            odds = {x.name: x for x in U.prize_odds(dv, i)}
            cells = []
            for kind in ("roulette", "fishing", "slides"):
                least = odds[f"{kind} least"]
                cells += [one_in(odds[f"{kind} top"].chance), f"{eur(least.cents)}: {one_in(least.chance)}"]
            cells.append(f"{eur(odds['maximum'].cents)}: {one_in(odds['maximum'].chance)}")
            assert f"| {variant} {bet_name(b.cash, b.bonuses)} | " + " | ".join(cells) + " |" in text
        comps = upper_components(dv, 0)
        assert (
            f"| {variant} | " + " | ".join(pc(x) for x in comps.values()) + f" | {pc(sum(comps.values()))} |"
            in text
        )
    for s, p in U.line_symbol_chances(d, 0).items():
        assert f"({s}) | {p.numerator} / {p.denominator} | {float(1 / p):,.1f} |" in text, s
    for i, b in enumerate(u.bets):
        if b.mixed:
            mixed = [x for x in U.prize_odds(d, i) if x.name.startswith("mixed")]
            row = f"| {bet_name(b.cash, b.bonuses)} | " + "; ".join(
                f"{eur(x.cents)}: {one_in(x.chance)}" for x in mixed
            )
            assert row + " |" in text
    assert "### Monte Carlo" in text


def test_gnomes_doc_page_states_every_rtp_variant(gnomes: ReignOfGnomes) -> None:
    """The tuned variants' row, exact fraction and changed strips (section "RTP variants")."""
    text = DOC.read_text()
    default = gnomes.data()
    for variant in gnomes.variants:
        d, r = gnomes.data(variant), gnomes.exact(variant)
        row = (
            f"| {variant} | `rtp-{variant.replace('.', '')}.toml` | **{r['rtp'] * 100:.4f}%** | "
            f"{r['hit_frequency'] * 100:.4f}% | 1 in {1 / r['free_spins_frequency']:.2f} |"
        )
        assert row in text, row
        assert f"{r['components']['base_ways'] * 100:.4f}%" in text, variant
        if variant == gnomes.default_variant:
            continue
        assert f"{variant} = {r['rtp_fraction'].replace('/', ' / ')}" in text, variant
        for i, (old, strip) in enumerate(zip(default.base_reels.strips, d.base_reels.strips, strict=True)):
            line = f"{variant} base reel {i + 1} ({len(strip)}): {' '.join(strip)}"
            assert (line in text) == (old != strip), line


def test_gambini_doc_page_states_every_rtp_variant() -> None:
    from reelforge.games import get_game

    game = get_game("ghost-of-gambini")
    text = GAMBINI_DOC.read_text()
    for variant in game.variants:
        base = game.exact(variant)
        buys = [game.exact(variant, mode)["rtp"] for mode in ("buy-lock-spin", "buy-super-lock-spin")]
        row = (
            f"| {variant} | `rtp-{variant.replace('.', '')}.toml` | **{base['rtp'] * 100:.4f}%** | "
            + " | ".join(f"**{x * 100:.4f}%**" for x in buys)
            + f" | {base['hit_frequency'] * 100:.4f}% | 1 in {base['feature_one_in']:.2f} |"
        )
        assert row in text, row
        if variant != game.default_variant:
            cells = " | ".join(f"{v * 100:.4f}%" for v in base["components"].values())
            assert f"| {variant} | {cells} |" in text, variant
