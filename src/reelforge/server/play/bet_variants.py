"""RTP variants per bet: the operator may deal one bet of a game at a variant of its own
(Los 3 Pinguinos' seed: "Configurable RTP with bet: 70%-80%-90%-95%"), for any game.

A round is dealt at, in this order: the variant set for its bet (game, bet table, stake), the
variant set for its game, the game's default.  The bet table is the one the round is staked
from (``engine.game.bet_table``: ``base``, or a mode with bets of its own such as Los 3
Pinguinos' ``upper``), so a bought feature is dealt at its base bet's variant, as the bet
switches apply to it.  Both settings are server settings (``variant:<game>`` as ever, and
``variant:<game>:<table>:<stake>``), read by every process at each start: no schema change.
A bet's own variant stays when the game's changes (it pins that bet); clearing it (``null``)
puts the bet back on the game's.  The round records the variant it was dealt at
(``rounds.variant``): its later steps, recall, replay, webhooks and reports read that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from sqlalchemy import Connection, delete, select

from reelforge.engine.game import Game, levels_for, own_bet_modes
from reelforge.server.core.errors import bad_request
from reelforge.server.operators.accounts import Operator
from reelforge.server.play import bets
from reelforge.server.play.context import ServerContext, fingerprint
from reelforge.server.storage import schema as t
from reelforge.server.storage import store

Own = dict[str, dict[int, str]]
"""{bet table: {stake: variant}}: the bets of one game with a variant of their own."""


def game_key(game_id: str) -> str:
    return f"variant:{game_id}"


def bet_key(game_id: str, table: str, stake: int) -> str:
    return f"variant:{game_id}:{table}:{stake}"


def tables(game: Game) -> tuple[str, ...]:
    return (bets.BASE, *own_bet_modes(game))


def own_variants(settings: Mapping[str, str], game: Game) -> Own:
    """The game's bets with a variant of their own, from the server settings (all of them,
    or those :func:`read_settings` read)."""
    prefix = game_key(game.id) + ":"
    out: Own = {table: {} for table in tables(game)}
    for key, value in settings.items():
        if key.startswith(prefix):
            table, _, stake = key[len(prefix) :].rpartition(":")
            if table in out and stake.isdigit():
                out[table][int(stake)] = value
    return out


def read_settings(conn: Connection, game: Game, operator_id: int) -> dict[str, str]:
    """The operator's variant settings of the game: the game's own and its bets'."""
    c = t.settings_table.c
    query = select(c.key, c.value).where(
        c.operator_id == operator_id, c.key.startswith(game_key(game.id), autoescape=True)
    )
    return {row.key: row.value for row in conn.execute(query)}


def dealt(game_variant: str, own: Own, table: str, stake: int) -> str:
    """The variant a round at ``stake`` of ``table`` is dealt at."""
    return own.get(table, {}).get(stake, game_variant)


def annotate(levels: list[dict[str, Any]], own: dict[int, str], rtp: Callable[[str], float]) -> None:
    """A listed bet dealt at a variant of its own says so (``variant``) with that variant's
    exact ``rtp``; the others are dealt at the game's ``variant`` and ``rtp``."""
    for level in levels:
        variant = own.get(level["stake"])
        if variant is not None:
            level["variant"] = variant
            level["rtp"] = rtp(variant)


def table_variants(game: Game, game_variant: str, own: dict[int, str], table: str) -> list[dict[str, Any]]:
    """Each stake of a bet table with the variant it is dealt at; ``own``: set for the bet."""
    return [
        {"stake": b.stake, "variant": own.get(b.stake, game_variant), "own": b.stake in own}
        for b in levels_for(game, game_variant, table)
    ]


def check_offered(game: Game, variant: str, table: str, stake: int) -> None:
    stakes = [b.stake for b in levels_for(game, variant, table)]
    if stake not in stakes:
        where = "" if table == bets.BASE else f" in mode {table}"
        raise bad_request(
            f"{game.id} offers no stake {stake}{where} (variant {variant}); offered: {stakes}", "invalid_bet"
        )


class BetVariants:
    """The operator's reads and writes of a game's variants, the game's and its bets'."""

    def __init__(self, server: ServerContext) -> None:
        self.server = server

    def get(self, op: Operator, game_id: str) -> dict[str, Any]:
        game = self.server.game_of(op, game_id)
        return self.server.run(lambda conn: self.view(conn, game, op.id))

    def view(self, conn: Connection, game: Game, operator_id: int) -> dict[str, Any]:
        """``GET /operator/games/{game}/variant``: the game's variant, and every bet of each
        table with the variant it is dealt at (the operator's)."""
        settings = read_settings(conn, game, operator_id)
        variant = settings.get(game_key(game.id), game.default_variant)
        own = own_variants(settings, game)
        return {
            "game": game.id,
            "variant": variant,
            "default_variant": game.default_variant,
            "variants": list(game.variants),
            "bets": {table: table_variants(game, variant, own[table], table) for table in tables(game)},
        }

    def put(
        self,
        op: Operator,
        key: str | None,
        game_id: str,
        variant: str | None,
        mode: str | None,
        stake: int | None,
    ) -> tuple[int, dict[str, Any]]:
        """Set the game's variant (no ``stake``), or one bet's (``stake``, of the base table or
        ``mode``'s own; ``variant`` None clears it).  Refusals (400) change nothing.  With an
        Idempotency-Key the first reply is stored and returned again; a bet's variant needs
        one, the game's (as before) does not."""
        game = self.server.game_of(op, game_id)
        if stake is None and mode is not None:
            raise bad_request("a mode names a bet table: give the stake too", "invalid_bet")
        table = bets.table_of(game, mode)
        if variant is not None and variant not in game.variants:
            raise bad_request(
                f"{game.id} has no RTP variant {variant!r}; offered: {game.variants}", "invalid_variant"
            )
        work: Callable[[Connection], tuple[int, dict[str, Any]]]
        if stake is not None:
            work = partial(self._set_bet, game=game, table=table, stake=stake, variant=variant, op=op.id)
        elif variant is None:
            raise bad_request(
                "a game is always dealt at a variant: only a bet's own variant can be cleared",
                "invalid_variant",
            )
        else:
            work = partial(self._set_game, game=game, variant=variant, op=op.id)
            if key is None:  # the game's variant, as it always was: no key needed
                return self.server.run(work)
        body = {"variant": variant, "mode": None if stake is None else table, "stake": stake}
        fp = fingerprint("PUT", f"/games/{game.id}/variant", body)
        return self.server.idempotent(lambda conn: op.settings_scope(), key, fp, work)

    def _set_game(self, conn: Connection, *, game: Game, variant: str, op: int) -> tuple[int, dict[str, Any]]:
        store.put_setting(conn, game_key(game.id), variant, operator_id=op)
        return 200, self.view(conn, game, op)

    def _set_bet(
        self, conn: Connection, *, game: Game, table: str, stake: int, variant: str | None, op: int
    ) -> tuple[int, dict[str, Any]]:
        # The stake must be on the table players are shown (the game's variant's) and dealable
        # at the bet's variant.
        shown = store.get_setting(conn, game_key(game.id), game.default_variant, operator_id=op)
        check_offered(game, shown, table, stake)
        if variant is not None:
            check_offered(game, variant, table, stake)
        name = bet_key(game.id, table, stake)
        if variant is None:
            c = t.settings_table.c
            conn.execute(delete(t.settings_table).where(c.operator_id == op, c.key == name))
        else:
            store.put_setting(conn, name, variant, operator_id=op)
        return 200, self.view(conn, game, op)
