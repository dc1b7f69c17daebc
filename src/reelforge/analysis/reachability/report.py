"""The reachability section of a game's certification bundle: every prize's exact odds per
variant and mode, the stored max-win sequences replayed through the rules, and the verdict.

``reachability(game_id)`` returns the data (JSON-ready); ``write_reachability`` writes it as
``reachability.json`` and a self-contained ``reachability.html`` (no external CSS or JS).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reelforge.engine.game import Game
from reelforge.games import get_game

from .model import RARE, MaxWinOdds, ModeSection, Odds
from .sequences import load_sequences, replay, sequence_path


def _odds(game: Game, variant: str, mode: str) -> tuple[list[Odds], MaxWinOdds]:
    return game.prize_odds(variant, mode)  # type: ignore[attr-defined, no-any-return]


def _max_wins(game: Game, variant: str, mode: str, stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for seq in (s for s in stored if s["variant"] == variant and s["mode"] == mode):
        r = replay(game, seq)
        declared, where = game.declared_max_win(variant, mode, seq["stake"])  # type: ignore[attr-defined]
        ok = r.complete and r.win == seq["expected_win"] == declared
        out.append(
            {
                "stake": seq["stake"],
                "rounds": len(seq["rounds"]),
                "draws": sum(len(x["draws"]) for x in seq["rounds"]),
                "actions": sum(len(x["actions"]) for x in seq["rounds"]),
                "start_player_state": seq.get("player_state"),
                "expected_win": seq["expected_win"],
                "replayed_win": r.win,
                "declared_max_win": declared,
                "declared_from": where,
                "gap": declared - r.win,
                "ok": ok,
                "error": r.error,
                "how": seq.get("note", ""),
            }
        )
    return out


def sections(game_id: str, variants: list[str] | None = None) -> list[ModeSection]:
    game = get_game(game_id)
    stored = load_sequences(game_id)["sequences"]
    out = []
    for v in variants or game.variants:
        for m in game.modes:
            rows, mw = _odds(game, v, m)
            out.append(ModeSection(v, m, rows, mw, _max_wins(game, v, m, stored)))
    return out


def reachability(game_id: str, variants: list[str] | None = None) -> dict[str, Any]:
    """The section's data; ``passed``: every max-win sequence replays to the declared max
    win, and no prize is unreachable unless the data rules it out (``design``)."""
    game = get_game(game_id)
    secs = sections(game_id, variants)
    stored = load_sequences(game_id)
    path = sequence_path(game_id)
    body = []
    for s in secs:
        body.append(
            {
                "variant": s.variant,
                "mode": s.mode,
                "prizes": [o.to_json() for o in s.odds],
                "rare": [o.name for o in s.odds if o.rare] + (["max win"] if s.max_win_odds.rare else []),
                "zero_rows": [o.name for o in s.odds if o.zero],
                "unreachable": s.unreachable,
                "unexpected_unreachable": s.unexpected,
                "max_win_odds": s.max_win_odds.to_json(),
                "max_win": s.max_wins,
                "max_win_ok": s.max_win_ok,
                "passed": s.max_win_ok and not s.unexpected,
            }
        )
    return {
        "game": game.id,
        "name": game.name,
        "version": game.version,
        "rare_threshold": float(RARE),
        "sequence_file": f"src/reelforge/games/{path.parent.name}/{path.name}",
        "sequence_method": stored.get("method", ""),
        "sections": body,
        "passed": all(b["passed"] for b in body),
    }


def write_reachability(game_id: str, out_dir: Path, *, variants: list[str] | None = None) -> list[Path]:
    """Write ``reachability.json`` and ``reachability.html`` for every variant (or only
    ``variants``) and mode of the game into ``out_dir``; returns the paths written."""
    from .html import render

    data = reachability(game_id, variants)
    out_dir.mkdir(parents=True, exist_ok=True)
    js = out_dir / "reachability.json"
    js.write_text(json.dumps(data, indent=1) + "\n")
    page = out_dir / "reachability.html"
    page.write_text(render(data))
    return [js, page]
