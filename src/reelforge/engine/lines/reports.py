"""What a lines game tells the analysis layer beyond play (its capabilities): the PAR
sheet's tables, every prize's odds and the max win's construction.  The modules behind them
load on first use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reelforge.engine.report.max_wins import FILE_NAME, StoredMaxWins

from .data_model import LinesData


class LinesReports(StoredMaxWins):
    if TYPE_CHECKING:
        data: Callable[..., LinesData]  # the game's Variants.data
        folder: Path
        id: str

        def win_distribution(self, variant: str | None = None, mode: str = "base") -> Any: ...

    def max_win_draws_path(self) -> Path:
        """In the game's own folder, beside its data."""
        return self.folder / FILE_NAME

    def par_adapter(self, variant: str, mode: str) -> Any:
        from .par_sheet import LinesAdapter

        return LinesAdapter(self, variant, mode)

    def prize_odds(self, variant: str, mode: str) -> Any:
        from .reach import prize_odds

        top, p = self.win_distribution(variant, mode).max_win()
        return prize_odds(self.data(variant), mode, (top, p.low, p.high))

    def declared_max_win(self, variant: str, mode: str, stake: int) -> tuple[int, str]:
        d = self.data(variant)
        cap = d.game.max_win
        return cap * stake, f"game.max_win = {cap:,}× the stake (the cap, LinesGame._add)"

    def max_win_plan(self, variant: str, mode: str, stake: int) -> Any:
        from .reach import max_win_plan

        return max_win_plan(self.data(variant))

    def max_win_method(self) -> str:
        from .reach import METHOD

        return METHOD
