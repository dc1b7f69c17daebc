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
