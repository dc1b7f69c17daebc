"""The registry of games: id -> game instance, built once on first use.

Games written only as data (a folder with ``data/*.toml`` naming an engine kind, e.g.
``golden-scarab``) are found by :mod:`.data_only` and registered beside the others.

Test-only games (e.g. ``test-meter``, which exercises persistent state, holds and a gamble
ladder) are registered only when ``REELFORGE_TEST_GAMES=1``; production never sees them.
"""

from __future__ import annotations

import os
from functools import cache

from reelforge.engine.capabilities import check_game
from reelforge.engine.game import Game


def test_games_enabled() -> bool:
    return os.environ.get("REELFORGE_TEST_GAMES") == "1"


@cache
def _build(include_test_games: bool) -> dict[str, Game]:
    from reelforge.games.data_only import discover
    from reelforge.games.ghost_of_gambini import GhostOfGambini
    from reelforge.games.los_3_pinguinos import LosTresPinguinos
    from reelforge.games.reign_of_gnomes import ReignOfGnomes

    games: list[Game] = [ReignOfGnomes(), GhostOfGambini(), LosTresPinguinos(), *discover()]
    if include_test_games:
        from reelforge.games.test_meter import TestMeter

        games.append(TestMeter())
    for game in games:
        check_game(game)  # the protocol, and what it says it can do, before anyone plays it
    return {g.id: g for g in games}


def registry() -> dict[str, Game]:
    return _build(test_games_enabled())


def get_game(game_id: str) -> Game:
    games = registry()
    try:
        return games[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; registered: {sorted(games)}") from None
