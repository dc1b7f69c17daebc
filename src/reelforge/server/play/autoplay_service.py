"""Autoplay: a run of rounds the server plays for the player, one per request, each within
the limits the player set and the jurisdiction allows (the rules are the engine's
:class:`~reelforge.engine.autoplay.Autoplay`; this module stores and drives them)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, insert, select

from reelforge.engine.autoplay import Autoplay, AutoplayLimits
from reelforge.engine.game import Game, autoplay_cap, bet_table, levels_for
from reelforge.engine.round import InvalidAction, Round
from reelforge.money import find_bet
from reelforge.server.core.errors import ApiError, bad_request, conflict, forbidden
from reelforge.server.operators.accounts import Effective
from reelforge.server.play import autoplay_store, bets, currencies
from reelforge.server.play import round_store as rs
from reelforge.server.play.context import ServerContext, fingerprint
from reelforge.server.play.profiles import Profile, is_bonus_buy
from reelforge.server.play.rounds import Rounds, round_view
from reelforge.server.play.sessions import PlayerContext, Sessions, effective_settings, stored_play_settings
from reelforge.server.storage import schema as t
from reelforge.server.storage import store


def autoplay_limit(profile: Profile, game: Game, operator: Effective | None = None) -> int | None:
    """The most rounds one autoplay run of ``game`` may play under ``profile`` for the
    operator: the smallest of the profile's cap, the operator's and the game's own; None when
    autoplay is forbidden (by the profile or the operator)."""
    if profile.autoplay_max_spins is None or (operator is not None and not operator.autoplay):
        return None
    caps = [profile.autoplay_max_spins, autoplay_cap(game), operator and operator.autoplay_max_spins]
    return min(c for c in caps if c is not None)


class Autoplays:
    def __init__(self, server: ServerContext, sessions: Sessions, rounds: Rounds) -> None:
        self.server = server
        self.sessions = sessions
        self.rounds = rounds

    def autoplay_start(self, token: str | None, key: str | None, body: dict[str, Any]) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            if not ctx.profile.autoplay_allowed:
                raise forbidden("autoplay is not allowed under this jurisdiction", "autoplay_forbidden")
            op = ctx.operator
            if not op.settings.autoplay:
                raise forbidden("autoplay is not offered by this casino", "autoplay_forbidden")
            game = self.server.game_of(op, str(body.get("game")))
            offered = self.server.offered_currencies(conn, game, op.id)
            currencies.check_offered(game, ctx.player.currency, offered)
            stake = body.get("stake")
            mode = str(body.get("mode") or "base")
            if mode not in game.modes:
                raise bad_request(f"{game.id} has no mode {mode!r}; offered: {game.modes}", "invalid_mode")
            table = bet_table(game, mode)
            try:
                if is_bonus_buy(mode):
                    raise ValueError("autoplay buys no feature")
                limits = AutoplayLimits.model_validate(
                    {k: body.get(k) for k in ("spins", "loss_limit", "single_win_limit", "total_win_limit")}
                )
                if not isinstance(stake, int):
                    raise ValueError("stake must be an integer of minor units")
                find_bet(levels_for(game, self.server.variant_for(conn, game, op.id), mode), stake)
                game_cap = autoplay_cap(game)
                if game_cap is not None and limits.spins > game_cap:
                    raise ValueError(f"{game.name} plays at most {game_cap} games, {limits.spins} asked")
                ap = Autoplay.begin(
                    limits,
                    stake,
                    max_spins=autoplay_limit(ctx.profile, game, op.settings),
                    mode=mode,
                    cost=game.cost(stake, mode),  # an upper bet's cash part: its Bonuses are no money
                )
            except (ValidationError, ValueError) as exc:
                raise bad_request(f"autoplay refused: {exc}", "invalid_autoplay") from None
            disabled = self.server.disabled_bets(conn, game, op.id, table, ctx.player.currency)
            bets.check_enabled(game, stake, disabled, table)
            if autoplay_store.running(conn, ctx.player.id) is not None:
                raise conflict("an autoplay is already running", "autoplay_running")
            pending = conn.execute(
                select(t.rounds.c.id).where(
                    t.rounds.c.player_id == ctx.player.id,
                    t.rounds.c.game == game.id,
                    t.rounds.c.status == "pending",
                )
            ).first()
            if pending is not None:
                raise conflict(f"round {pending.id} is still in play: finish it first", "round_pending")
            ts = store.now()
            autoplay_id = conn.execute(
                insert(t.autoplays)
                .values(
                    player_id=ctx.player.id,
                    session_id=ctx.session.id,
                    game=game.id,
                    status="running",
                    state=ap.model_dump_json(),
                    created_at=ts,
                    updated_at=ts,
                )
                .returning(t.autoplays.c.id)
            ).scalar_one()
            return 201, {"autoplay": autoplay_store.view(autoplay_id, game.id, ap)}

        return self.server.idempotent(
            self.sessions.scope(holder, token), key, fingerprint("POST", "/autoplay", body), work
        )

    def autoplay_next(self, token: str | None, key: str | None) -> tuple[int, dict]:
        """Play the next autoplay round: the server checks every limit before the spin,
        plays free spins on, and stops where the player must act."""
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row, ap = autoplay_store.require(conn, ctx.player.id)
            game = self.server.game(row.game)
            balance = ctx.balance

            def stopped(reason: str | None = None) -> tuple[int, dict]:
                """No round this time: the run stops (``reason``) or its limits stopped it."""
                if reason is not None:
                    ap.stop(reason)
                autoplay_store.save(conn, row.id, ap)
                return 200, {
                    "autoplay": autoplay_store.view(row.id, game.id, ap),
                    "round": None,
                    "balance": balance,
                }

            pending = conn.execute(
                select(t.rounds).where(
                    t.rounds.c.player_id == ctx.player.id,
                    t.rounds.c.game == game.id,
                    t.rounds.c.status == "pending",
                )
            ).first()
            if pending is not None:  # resume a round a crash or a pick left in play
                round_id, rnd = pending.id, Round.model_validate_json(pending.state)
            else:
                if not ap.may_start_round(balance):
                    return stopped()
                try:
                    self.sessions.check_spend(ctx, game.cost(ap.stake, ap.mode))
                except ApiError:
                    return stopped("loss_limit")
                try:
                    round_id, rnd, balance, _ = self.rounds.open_round(
                        conn, ctx, game, ap.stake, ap.mode, None, row.id
                    )
                except ApiError as exc:
                    # The seed (3.2): a new game only while the balance *and the Bonuses* cover
                    # the bet.  The start was refused before it moved anything.
                    if exc.code != "insufficient_bonuses":
                        raise
                    return stopped("insufficient_bonuses")
                ap.round_started()
            state_key = rs.state_key(conn, game, round_id, rnd)
            settings = effective_settings(game, stored_play_settings(ctx.session.play_settings))
            while not rnd.complete:
                # The game says what these settings play here; None: a human must decide.
                action = game.auto_action(rnd, settings)
                if action is None:
                    ap.stop("player_action")
                    break
                try:
                    rnd.allowed(action)
                except InvalidAction as exc:
                    raise RuntimeError(f"{game.id}.auto_action chose an action not allowed: {exc}") from None
                rnd, _ = self.rounds.step(
                    conn, game, round_id, rnd, action, "autoplay", self.server.rng_factory()
                )
                balance = self.rounds.after_step(
                    conn, ctx.session.id, ctx.player, game, round_id, rnd, balance, "player", state_key
                )
            reply: dict[str, Any] = {"round": round_view(round_id, rnd), "balance": balance}
            if rnd.complete:
                ap.round_finished(rnd.win)
                if closed := self.sessions.close_if_spent(conn, ctx):
                    ap.stop("loss_limit")
                    reply["session_closed"] = closed
            autoplay_store.save(conn, row.id, ap)
            reply["autoplay"] = autoplay_store.view(row.id, game.id, ap)
            return 200, reply

        return self.server.idempotent(
            self.sessions.scope(holder, token), key, fingerprint("POST", "/autoplay/next", {}), work
        )

    def autoplay_stop(self, token: str | None, key: str | None) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row, ap = autoplay_store.require(conn, ctx.player.id)
            ap.stop("cancelled")
            autoplay_store.save(conn, row.id, ap)
            return 200, {"autoplay": autoplay_store.view(row.id, row.game, ap)}

        return self.server.idempotent(
            self.sessions.scope(holder, token), key, fingerprint("POST", "/autoplay/stop", {}), work
        )

    def autoplay_status(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            row = conn.execute(
                select(t.autoplays)
                .where(t.autoplays.c.player_id == ctx.player.id)
                .order_by(t.autoplays.c.id.desc())
            ).first()
            if row is None:
                return {"autoplay": None}
            ap = Autoplay.model_validate_json(row.state)
            return {"autoplay": autoplay_store.view(row.id, row.game, ap)}

        return self.sessions.read(token, work)
