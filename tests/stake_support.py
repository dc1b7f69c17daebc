"""Shared by the Stake Engine export tests: which modes the registry can export, and a small
export of each (books and search budgets cut to what a test needs: every band still covered)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reelforge.analysis.stake.export import ModeExport, export_mode
from reelforge.analysis.stake.files import write_export
from reelforge.analysis.stake.modes import refusal
from reelforge.games import registry

BOOKS = 300
BUDGET = {"search_rounds": 3_000, "split_rounds": 60_000, "fill_rounds": 1_000}


@cache
def refusals() -> dict[tuple[str, str], str | None]:
    """Every mode of every registered game: None where it can be exported, else the reason."""
    return {(g.id, m): refusal(g, g.default_variant, m) for g in registry().values() for m in g.modes}


def exportable() -> list[tuple[str, str]]:
    return [key for key, why in refusals().items() if why is None]


def export_game(game_id: str, folder: Path) -> list[ModeExport]:
    game = registry()[game_id]
    modes = [m for g, m in exportable() if g == game_id]
    done = [export_mode(game, game.default_variant, m, books=BOOKS, seed=7, **BUDGET) for m in modes]
    refused = {m: why for (g, m), why in refusals().items() if g == game_id and why}
    write_export(folder, game, game.default_variant, done, refused)
    return done
