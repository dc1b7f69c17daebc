"""The bets a game offers, per bet table, and the ones the operator switched off.

A game's base bets and the bets of each mode with bets of its own (``own_bet_modes``: Los 3
Pinguinos' upper game, whose stake 100 is €0.20 + 1 Bonus, not the lower game's €1) are two
tables, switched on and off apart: one server setting per table.  Every other mode (a bought
feature) is played at the base bets, so the base switches apply to it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from reelforge.engine.game import Game, levels_for, own_bet_modes
from reelforge.server.core.errors import bad_request

BASE = "base"


def bets_key(game_id: str, table: str = BASE, currency: str | None = None) -> str:
    """The server setting holding the stakes of a game's bet table the operator switched off
    (the base table keeps the key it always had): for every currency, or (``currency``) the
    currency's own, which replaces it for rounds in that currency."""
    key = f"bets_disabled:{game_id}" if table == BASE else f"bets_disabled:{game_id}:{table}"
    return key if currency is None else f"{key}@{currency}"


def disabled_in(settings: Mapping[str, str], game_id: str, table: str, currency: str | None) -> list[int]:
    """The stakes switched off for rounds in ``currency``: its own list where the operator set
    one, else the list for every currency."""
    own = settings.get(bets_key(game_id, table, currency)) if currency is not None else None
    return parse_bets(own if own is not None else settings.get(bets_key(game_id, table)))


def parse_bets(raw: str | None) -> list[int]:
    return sorted(json.loads(raw)) if raw else []


def table_of(game: Game, mode: str | None) -> str:
    """The bet table an operator request names by its mode: ``base`` (no mode), or a mode with
    bets of its own; a mode played at the base bets, or no mode of the game, is refused (400)."""
    if mode is None or mode == BASE:
        return BASE
    if mode in own_bet_modes(game):
        return mode
    if mode in game.modes:
        raise bad_request(
            f"{game.id}'s mode {mode!r} is played at the base bets: switch those (no mode)", "invalid_mode"
        )
    raise bad_request(f"{game.id} has no mode {mode!r}; offered: {game.modes}", "invalid_mode")


def check_enabled(game: Game, stake: int, disabled: list[int], table: str = BASE) -> None:
    if stake in disabled:
        where = "" if table == BASE else f" {table}"
        raise bad_request(
            f"the{where} stake {stake} of {game.id} is switched off by the operator", "bet_disabled"
        )


def view(
    game: Game, variant: str, table: str, disabled: list[int], own: dict[int, str] | None = None
) -> dict[str, Any]:
    """What ``GET /operator/games/{game}/bets`` shows of one table (the base one as always; an
    own-bet mode's says which); ``own``: the stakes dealt at a variant of their own
    (bet_variants.py), listed as ``bet_variants`` when there are any."""
    stakes = [b.stake for b in levels_for(game, variant, table)]
    out: dict[str, Any] = {"game": game.id, "variant": variant}
    if table != BASE:
        out["mode"] = table
    out.update(
        stakes=stakes,
        enabled=[s for s in stakes if s not in disabled],
        disabled=[s for s in stakes if s in disabled],
    )
    if own and (listed := [{"stake": s, "variant": own[s]} for s in stakes if s in own]):
        out["bet_variants"] = listed
    return out


def _described(game: Game, info: dict[str, Any], table: str) -> dict[int, dict[str, Any]]:
    """What the game's ``info()[table]["bets"]`` says of each stake (an upper bet's cash,
    Bonuses, fraction, maximum prize...), for a client to show the bet."""
    section = info.get(table)
    bets = section.get("bets") if isinstance(section, dict) else None
    if not isinstance(bets, list):
        return {}
    return {b["stake"]: {k: v for k, v in b.items() if k != "stake"} for b in bets if isinstance(b, dict)}


def listing(
    game: Game, variant: str, info: dict[str, Any], settings: dict[str, str], currency: str | None = None
) -> dict[str, Any]:
    """``GET /games``'s bet keys: ``bet_levels`` / ``bets_disabled`` of the base table, as
    ever, and ``bet_levels_by_mode`` / ``bets_disabled_by_mode`` for each own-bet mode, whose
    enabled levels carry what the game describes of each bet; in ``currency`` (a player's), its
    own switches where the operator set them."""
    disabled = disabled_in(settings, game.id, BASE, currency)
    levels = levels_for(game, variant)
    out: dict[str, Any] = {
        "bet_levels": [b.to_json() for b in levels if b.stake not in disabled],
        "bets_disabled": [b.stake for b in levels if b.stake in disabled],
        "bet_levels_by_mode": {},
        "bets_disabled_by_mode": {},
    }
    for mode in own_bet_modes(game):
        off = disabled_in(settings, game.id, mode, currency)
        described = _described(game, info, mode)
        levels = levels_for(game, variant, mode)
        out["bet_levels_by_mode"][mode] = [
            {**b.to_json(), **described.get(b.stake, {})} for b in levels if b.stake not in off
        ]
        out["bets_disabled_by_mode"][mode] = [b.stake for b in levels if b.stake in off]
    return out
