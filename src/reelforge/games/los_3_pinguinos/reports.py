"""What Los 3 Pinguinos tells the analysis layer and the terminal (its capabilities beyond
play): PAR-sheet tables, every prize's odds, the max win's construction, and a new machine
holding some Bonuses.  The modules behind them load on first use."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reelforge.engine.game import levels_for
from reelforge.engine.report.max_wins import StoredMaxWins

from .data_model import LowerData


class PinguinosReports(StoredMaxWins):
    if TYPE_CHECKING:
        data: Callable[..., LowerData]  # the game's Variants.data

    def par_adapter(self, variant: str, mode: str) -> Any:
        from .par_sheet import PinguinosAdapter

        return PinguinosAdapter(self, variant, mode)

    def prize_odds(self, variant: str, mode: str) -> Any:
        from .reach_odds import odds

        return odds(self.data(variant), mode)

    def max_win_stakes(self, variant: str, mode: str) -> list[int]:
        """Every bet: each upper bet has its own maximum prize, each lower bet its own Disco table."""
        return [b.stake for b in levels_for(self, variant, mode)]  # type: ignore[arg-type]

    def declared_max_win(self, variant: str, mode: str, stake: int) -> tuple[int, str]:
        d = self.data(variant)
        if mode == "upper":
            _, bet = d.upper_bet(stake)
            return 2 * bet.max_prize, (
                "twice the bet's maximum prize: the paid game and the WINNING SPIN it may owe each pay "
                "at most max_prize (upper_round)"
            )
        from .kernel import max_round_win

        coin = stake // d.game.unit
        return max_round_win(d, coin), (
            "kernel.max_round_win: the top prize of one round (one prize a round; the Disco's at the bet)"
        )

    def max_win_plan(self, variant: str, mode: str, stake: int) -> Any:
        from .reach_construct import construct_lower, construct_upper

        d = self.data(variant)
        if mode == "upper":
            return construct_upper(d, stake)
        return (*construct_lower(d, stake), None)

    def max_win_method(self) -> str:
        from .reach_construct import METHOD

        return METHOD

    def fresh_player_state(self, variant: str | None, side: dict[str, int]) -> dict[str, Any]:
        """A new machine holding ``side["bonuses"]`` Bonuses (play money, like a balance)."""
        from .rules import read_machine

        return {**read_machine(self.data(variant), None), "bonuses": side.get("bonuses", 0)}

    def terminal_view(self, console: Any, info: dict[str, Any], mode: str) -> Any:
        from .terminal import PinguinosView

        return PinguinosView(console, info, mode)
