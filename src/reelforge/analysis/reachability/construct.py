"""Writes ``games/<game>/max_win_draws.json``: for every variant, mode and stake, a sequence
of draws (and decisions) that the readable rules turn into the maximum win, found by the
game's construction (its ``max_win_plan``, in ``games/<game>/reach_construct.py``) and
checked by replaying it before it is written.

Run ``python -m reelforge.analysis.reachability.construct [game-id ...]`` after a data file
changes; tests/test_reachability.py replays what is stored.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from reelforge.engine.capabilities import has
from reelforge.engine.game import Game
from reelforge.engine.report.script import Planned, drawn
from reelforge.games import get_game, registry

from .sequences import replay, sequence_path

SEARCH_TRIES = 10_000


def _round(game: Game, variant: str, mode: str, stake: int, plan: Planned, state: Any) -> dict[str, Any]:
    mode = plan.mode or mode
    stake = plan.stake or stake
    for attempt in range(SEARCH_TRIES if plan.accept else 1):
        source = plan.start(attempt)
        rnd = game.start(stake, source, variant=variant, mode=mode, player_state=state)
        if plan.accept is not None and not plan.accept(rnd):
            continue
        draws = list(drawn(source))
        actions: list[dict[str, Any]] = []
        while not rnd.complete:
            if plan.step is None:
                raise RuntimeError("the round is pending and the plan has no step")
            action, src = plan.step(rnd)
            rnd = game.act(rnd, action, src)
            draws += drawn(src)
            actions.append(action.model_dump(exclude_none=True))
        own = {"mode": mode, "stake": stake} if plan.mode or plan.stake else {}
        return {
            **own,
            "draws": [list(x) for x in draws],
            "actions": actions,
            "win": rnd.win,
            "player_state": rnd.player_state,
            "search_seed": attempt if plan.accept else None,
        }
    raise RuntimeError(f"no try of {SEARCH_TRIES} was accepted")


def build_sequence(game: Game, variant: str, mode: str, stake: int) -> dict[str, Any]:
    plans, note, state = game.max_win_plan(variant, mode, stake)  # type: ignore[attr-defined]
    declared, _ = game.declared_max_win(variant, mode, stake)  # type: ignore[attr-defined]
    seq: dict[str, Any] = {
        "variant": variant,
        "mode": mode,
        "stake": stake,
        "player_state": state,
        "note": note,
        "rounds": [],
    }
    for plan in plans:
        r = _round(game, variant, mode, stake, plan, state)
        state = r.pop("player_state")
        if r["search_seed"] is None:
            del r["search_seed"]
        seq["rounds"].append(r)
    seq["expected_win"] = seq["rounds"][-1]["win"]
    seq["declared_max_win"] = declared
    check = replay(game, seq)
    if not check.complete or check.win != seq["expected_win"]:
        raise RuntimeError(f"{game.id} {variant} {mode}: the stored sequence does not replay ({check.error})")
    return seq


def build(game_id: str) -> dict[str, Any]:
    game = get_game(game_id)
    seqs = [
        build_sequence(game, v, m, s)
        for v in game.variants
        for m in game.modes
        for s in game.max_win_stakes(v, m)  # type: ignore[attr-defined]
    ]
    return {"game": game_id, "method": game.max_win_method(), "sequences": seqs}  # type: ignore[attr-defined]


def write(game_id: str) -> None:
    data = build(game_id)
    path = sequence_path(game_id)
    # One sequence per line keeps the file diffable and small enough to read.
    body = ",\n".join("    " + json.dumps(s, separators=(",", ":")) for s in data["sequences"])
    head = json.dumps({k: v for k, v in data.items() if k != "sequences"})[:-1]
    path.write_text(f'{head}, "sequences": [\n{body}\n]}}\n')
    short = [s for s in data["sequences"] if s["expected_win"] < s["declared_max_win"]]
    print(f"{path}: {len(data['sequences'])} sequences, {len(short)} below the declared max win")


def main(argv: list[str]) -> None:
    for game_id in argv or [g.id for g in registry().values() if has(g, "reachability")]:
        write(game_id)


if __name__ == "__main__":
    main(sys.argv[1:])
