"""The stored max-win sequences: ``games/<game>/max_win_draws.json`` (where the game says),
and their replay through the game's readable rules (``Game.start`` / ``Game.act``).

A file holds ``{"game": id, "method": text, "sequences": [...]}``; each sequence is one
variant, mode and stake: the machine's ``player_state`` before its first round (null: new)
and its ``rounds``, each ``{"draws": [[n, value], ...], "actions": [{"name", "choice"}],
"win": minor units}``.  Rounds before the last only build the player state the last one
needs (Ghost of Gambini's piggy banks, Los 3 Pinguinos' Bonuses and accumulator); such a round
may name its own ``mode`` and ``stake``.  ``expected_win`` is the last round's win.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reelforge.engine.game import Game
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.rng import ReplayRandom


def sequence_path(game_id: str) -> Path:
    """The game's stored sequences, in its own folder (its ``max_win_draws_path``)."""
    path: Path = get_game(game_id).max_win_draws_path()  # type: ignore[attr-defined]
    return path


def load_sequences(game_id: str) -> dict[str, Any]:
    path = sequence_path(game_id)
    if not path.exists():
        return {"game": game_id, "method": "", "sequences": []}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@dataclass(frozen=True)
class Replayed:
    win: int  # the last round's win, minor units
    wins: list[int]  # every round's
    complete: bool  # every round ended and used every draw
    error: str = ""


def play_round(
    game: Game, seq: dict[str, Any], rnd_data: dict[str, Any], player_state: dict[str, Any] | None
) -> Round:
    """One stored round through the rules; raises if it asks for a draw it does not hold,
    an action is refused, or draws are left over."""
    rng = ReplayRandom(rnd_data["draws"])
    mode = rnd_data.get("mode", seq["mode"])
    stake = rnd_data.get("stake", seq["stake"])
    rnd = game.start(stake, rng, variant=seq["variant"], mode=mode, player_state=player_state)
    for a in rnd_data["actions"]:
        rnd = game.act(rnd, Action(name=a["name"], choice=a.get("choice")), rng)
    if not rnd.complete:
        raise RuntimeError(f"the round is still pending after {len(rnd_data['actions'])} actions")
    if not rng.exhausted:
        raise RuntimeError(f"{len(rng.draws) - rng.position} stored draws were not used")
    return rnd


def replay(game: Game, seq: dict[str, Any]) -> Replayed:
    state = seq.get("player_state")
    wins: list[int] = []
    try:
        for rnd_data in seq["rounds"]:
            rnd = play_round(game, seq, rnd_data, state)
            wins.append(rnd.win)
            state = rnd.player_state
    except Exception as exc:  # a finding for the report, not a crash of it
        return Replayed(wins[-1] if wins else 0, wins, False, f"{type(exc).__name__}: {exc}")
    return Replayed(wins[-1], wins, True)
