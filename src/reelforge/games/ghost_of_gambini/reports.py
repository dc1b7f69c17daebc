"""What Ghost of Gambini tells the analysis layer (its capabilities beyond play): tuning
knobs, PAR-sheet tables, every prize's odds and the max win's construction.  The modules
behind them load on first use (the PAR adapter's replay compiles the numba kernel)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reelforge.engine.report.max_wins import StoredMaxWins

from .data_model import GambiniData


class GambiniReports(StoredMaxWins):
    if TYPE_CHECKING:
        data: Callable[..., GambiniData]  # the game's Variants.data

    def tuning(self) -> Any:
        from .tuning import TUNING

        return TUNING

    def par_adapter(self, variant: str, mode: str) -> Any:
        from .par_sheet import GambiniAdapter

        return GambiniAdapter(self, variant, mode)

    def prize_odds(self, variant: str, mode: str) -> Any:
        from .reach_odds import odds

        return odds(self.data(variant), mode)

    def declared_max_win(self, variant: str, mode: str, stake: int) -> tuple[int, str]:
        d = self.data(variant)
        coin = stake // d.game.base_credits
        return (
            d.max_win_credits * coin,
            f"game.max_win = {d.game.max_win:,}× the total bet, a bought feature too (rules._add_credits)",
        )

    def max_win_plan(self, variant: str, mode: str, stake: int) -> Any:
        from .reach_construct import BUY_SUPER, construct_base, construct_buy

        d = self.data(variant)
        if mode == "base":
            return (*construct_base(d), None)
        return (*construct_buy(d, BUY_SUPER[mode]), None)

    def max_win_method(self) -> str:
        from .reach_construct import METHOD

        return METHOD

    def terminal_view(self, console: Any, info: dict[str, Any], mode: str) -> Any:
        from .terminal import GambiniView

        return GambiniView(console, info, mode)
