"""What a game tells its PAR sheet beyond the Game protocol: its data model is its own (reel
sets, paytables, the odds its calculators offer), so each game has a small adapter.

The base class is the fallback for a game without one: it shows what ``info()`` and
``exact()`` give and says what is missing; it never guesses.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.engine.distribution import Bounded
from reelforge.engine.game import Game

from .fmt import one_in_cell, prob_cell
from .tables import Cell, MaxWin, RateCheck, ReelSet, Table


class Adapter:
    """Defaults for a game the sheet knows nothing special about."""

    def __init__(self, game: Game, variant: str, mode: str) -> None:
        self.game = game
        self.variant = variant
        self.mode = mode

    # -- the data ---------------------------------------------------------------------------

    def data_files(self) -> list[Path]:
        return []

    def reel_sets(self) -> list[ReelSet]:
        return []

    def paytables(self) -> list[Table]:
        info = self.game.info()
        rows: list[list[Cell | str]] = [
            [k, str(v)] for k, v in info.items() if k not in ("bet_levels", "variants", "modes")
        ]
        return [Table("Game information (info())", ["field", "value"], rows)]

    # -- the exact figures ------------------------------------------------------------------

    def prize_odds(self, exact: dict[str, Any]) -> list[Table]:
        return []

    def extra_tables(self, exact: dict[str, Any]) -> list[Table]:
        return []

    def max_win(self, exact: dict[str, Any]) -> MaxWin:
        return MaxWin(None, None, "the game offers no maximum-win figure")

    def checks(self, exact: dict[str, Any]) -> list[RateCheck]:
        return []

    def hit_comparable(self) -> tuple[bool, str]:
        """Whether the exact ``hit_frequency`` counts the event the simulation's ``hits`` does."""
        return True, ""

    def notes(self, exact: dict[str, Any]) -> list[str]:
        """What a reader of the sheet must know of the game's figures (its accounting, how far
        the simulated intervals hold)."""
        return []

    def distribution_note(self) -> str:
        return ""

    def exact_sd(self) -> Bounded | None:
        """The volatility index (SD of a round, in stakes) where the game knows it exactly but
        has no whole law; None: the sheet takes it from the law or the simulation."""
        return None

    # -- the simulation ---------------------------------------------------------------------

    @property
    def stake_credits(self) -> int | None:
        """The simulation's stake in the units of its round wins (None: not known)."""
        return None

    @property
    def cap_credits(self) -> int | None:
        return None

    def replay(self, seed: np.random.SeedSequence, rounds: int) -> np.ndarray | None:
        """The capped win of each of the ``rounds`` rounds that ``simulate_chunk`` plays from
        ``seed``, one by one (None: the game cannot replay its rounds)."""
        return None


# -- helpers the adapters share ---------------------------------------------------------------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def variant_file(data_dir: Path, variant: str) -> Path:
    """The data file of ``data_dir`` whose ``[game] variant`` is ``variant``."""
    for path in sorted(data_dir.glob("*.toml")):
        raw = tomllib.loads(path.read_text())
        if str(raw.get("game", {}).get("variant")) == variant:
            return path
    raise FileNotFoundError(f"no data file of variant {variant!r} in {data_dir}")


def weights_table(title: str, weights: Mapping[Any, int], outcome: str = "outcome", note: str = "") -> Table:
    """A weight table with each outcome's probability (weight / total)."""
    total = sum(weights.values())
    rows: list[list[Cell | str]] = []
    for k, w in weights.items():
        p = Fraction(w, total) if total else Fraction(0)
        rows.append([str(k), Cell(f"{w:,}", cls="num"), prob_cell(p), one_in_cell(p)])
    rows.append([Cell("total", cls="total"), Cell(f"{total:,}", cls="num total"), "", ""])
    return Table(title, [outcome, "weight", "probability", "odds"], rows, note)


def capped_wins(rows: np.ndarray) -> np.ndarray:
    """Column 0 of every kernel's ``play_rounds`` rows: the round's win after the cap."""
    return np.ascontiguousarray(rows[:, 0], dtype=np.int64)
