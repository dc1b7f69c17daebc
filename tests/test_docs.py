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
    for prize, weight in d.disco_game.prizes.items():
        label = f"€{int(prize[1:]) / 100:,.2f}" if prize[0] == "C" else f"{prize[1:]} Bonuses"
        assert f"| {label} | {weight} |" in text, prize
