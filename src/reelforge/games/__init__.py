"""The registry of games: id -> game instance, built once on first use."""

from __future__ import annotations

from functools import cache

from reelforge.engine.game import Game


@cache
def registry() -> dict[str, Game]:
    from reelforge.games.reign_of_gnomes import ReignOfGnomes

    games: list[Game] = [ReignOfGnomes()]
    return {g.id: g for g in games}


def get_game(game_id: str) -> Game:
    games = registry()
    try:
        return games[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; registered: {sorted(games)}") from None
