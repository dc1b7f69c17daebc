"""What a player reads outside a round: the games on offer (variant, bets, RTP, modes and
autoplay cap under the jurisdiction's profile), the balance, and the stored player state."""

from __future__ import annotations

from functools import partial
from typing import Any

from sqlalchemy import Connection, select

from reelforge.engine.game import Game, own_bet_modes
from reelforge.server.operators.accounts import Operator
from reelforge.server.play import bet_variants, bets, currencies
from reelforge.server.play.autoplay_service import autoplay_limit
from reelforge.server.play.context import ServerContext
from reelforge.server.play.profiles import Profile, is_bonus_buy
from reelforge.server.play.sessions import PlayerContext, Sessions
from reelforge.server.storage import schema as t
from reelforge.server.storage import store


def _settings(conn: Connection, operator_id: int) -> dict[str, str]:
    """The operator's settings rows, {key: value}."""
    table = t.settings_table
    rows = conn.execute(select(table.c.key, table.c.value).where(table.c.operator_id == operator_id))
    return dict(rows.all())


class Lobby:
    def __init__(self, server: ServerContext, sessions: Sessions) -> None:
        self.server = server
        self.sessions = sessions

    def list_games(self, token: str | None) -> dict:
        """The games offered in the player's wallet currency, priced in it."""

        def work(conn: Connection, ctx: PlayerContext) -> tuple[Any, ...]:
            op = ctx.operator
            variants = {g.id: self.server.variant_for(conn, g, op.id) for g in self.server.games.values()}
            return ctx.profile, variants, _settings(conn, op.id), ctx.player.currency, op

        profile, variants, settings, currency, op = self.sessions.read(token, work)
        return self._listing(op, profile, variants, settings, operator=False, currency=currency)

    def operator_games(self, op: Operator) -> dict:
        """``GET /games`` with the operator key: every game as the operator sees it, whatever
        the profile lets players see: every mode (``modes_offered``: those players get under
        the profile in force), every RTP variant (``variant``: the one dealt, with its exact
        ``rtp``), every stake of each bet table with those switched off."""

        def work(conn: Connection) -> tuple[Profile, dict[str, str], dict[str, str]]:
            variants = {g.id: self.server.variant_for(conn, g, op.id) for g in self.server.games.values()}
            return self.server.profile(conn, op.id), variants, _settings(conn, op.id)

        profile, variants, settings = self.server.run(work)
        return self._listing(op, profile, variants, settings, operator=True)

    def _listing(
        self,
        op: Operator,
        profile: Profile,
        variants: dict[str, str],
        settings: dict[str, str],
        *,
        operator: bool,
        currency: str | None = None,
    ) -> dict:
        # The exact RTP is computed after the transaction: a game's first one takes seconds
        # (Ghost of Gambini's), and on SQLite a transaction holds this process's lock.
        out = []
        for game in self.server.games.values():
            if not op.settings.offers(game.id):
                continue  # a game the operator does not offer is not its
            offered = currencies.offered(game, settings)
            if currency is not None and currency not in offered:
                continue  # not offered in the player's currency: not listed for them
            variant = variants[game.id]
            info = dict(game.info())
            info["variant"] = variant
            if currency is not None:
                info["currency"] = currency  # a round is in the player's wallet currency
            info.update(bets.listing(game, variant, info, settings, currency))
            # A bet dealt at a variant of its own lists it with that variant's exact RTP.
            own = bet_variants.own_variants(settings, game)
            rtp = partial(self._rtp, game)
            bet_variants.annotate(info["bet_levels"], own[bets.BASE], rtp)
            for mode, levels in info["bet_levels_by_mode"].items():
                bet_variants.annotate(levels, own[mode], rtp)
            info["side_balances"] = list(game.side_balances)
            info["play_settings"] = game.play_settings()
            info["autoplay_max_spins"] = autoplay_limit(profile, game, op.settings)
            info["rtp"] = self.server.exact_for(game, variant)["rtp"]
            modes = [m for m in game.modes if profile.bonus_buy or not is_bonus_buy(m)]
            # Each feature buy on offer with its own exact RTP (shown beside its price).
            info["buy_rtp"] = {
                m: self.server.exact_for(game, variant, m)["rtp"] for m in modes if is_bonus_buy(m)
            }
            if operator:
                info["modes"] = list(game.modes)
                info["modes_offered"] = modes
                info["currencies"] = list(game.currencies)
                info["currencies_offered"] = offered
                info["variants"] = list(game.variants)
                info["default_variant"] = game.default_variant
                info["bets"] = {
                    table: bets.view(
                        game,
                        variant,
                        table,
                        bets.parse_bets(settings.get(bets.bets_key(game.id, table))),
                        own[table],
                    )
                    for table in (bets.BASE, *own_bet_modes(game))
                }
            else:
                info["modes"] = modes
            out.append(info)
        return {"games": out, "profile": profile.name}

    def _rtp(self, game: Game, variant: str) -> float:
        return float(self.server.exact_for(game, variant)["rtp"])

    def balance(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            side = self.server.side_games()
            out: dict[str, Any] = {
                "balance": self.server.wallet_for(ctx.operator).balance(conn, ctx.player),
                "currency": ctx.player.currency,
            }
            out["side"] = store.side_balances(conn, ctx.player.id, side) if side else {}
            return out

        return self.sessions.read(token, work)

    def player_state(self, token: str | None, game_id: str | None) -> dict:
        return self.sessions.read(
            token, lambda conn, ctx: {"states": store.all_player_state(conn, ctx.player.id, game_id)}
        )
