"""The maximum win each game declares (what a stored sequence must reach), in minor units
at a stake, read from the game's data where the game itself applies it."""

from __future__ import annotations

from typing import Any

from reelforge.engine.game import Game, levels_for


def stakes_for(game: Game, variant: str, mode: str) -> list[int]:
    """The stakes a max-win sequence is stored for: the lowest of the mode's table, and in
    Los 3 Pinguinos every bet (each upper bet has its own maximum prize, each lower bet its
    own Disco table)."""
    levels = [b.stake for b in levels_for(game, variant, mode)]
    return levels if game.id == "los-3-pinguinos" else levels[:1]


def declared_max_win(game: Game, variant: str, mode: str, stake: int) -> tuple[int, str]:
    """``(minor units, where it comes from)`` of the largest win one round may pay."""
    d: Any = game.data(variant)  # type: ignore[attr-defined]
    if game.id == "reign-of-gnomes":
        return (
            d.game.max_win * stake,
            f"game.max_win = {d.game.max_win:,}× the stake (the cap, rules._add_credits)",
        )
    if game.id == "ghost-of-gambini":
        coin = stake // d.game.base_credits
        return (
            d.max_win_credits * coin,
            f"game.max_win = {d.game.max_win:,}× the total bet, a bought feature too (rules._add_credits)",
        )
    if game.id == "los-3-pinguinos":
        if mode == "upper":
            _, bet = d.upper_bet(stake)
            return 2 * bet.max_prize, (
                "twice the bet's maximum prize: the paid game and the WINNING SPIN it may owe each pay "
                "at most max_prize (upper_round)"
            )
        from reelforge.games.los_3_pinguinos.kernel import max_round_win

        coin = stake // d.game.unit
        return max_round_win(d, coin), (
            "kernel.max_round_win: the top prize of one round (one prize a round; the Disco's at the bet)"
        )
    raise KeyError(f"no declared max win for {game.id}")
