"""The server's operations, independent of HTTP.

Every state-changing operation runs in one database transaction: it locks the player's
row, answers a repeated Idempotency-Key with the first reply, draws from the production
RNG through a recorder, and commits the round step, its draws, its events and its ledger
rows together.  Nothing of an outcome leaves before the commit.  Server processes keep no
state of their own, so any number of them can serve the same database.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, Engine, Row, insert, select, update
from sqlalchemy.exc import IntegrityError

from reelforge.engine.autoplay import Autoplay, AutoplayLimits
from reelforge.engine.game import Game, InsufficientSideBalance, autoplay_cap, bet_table, levels_for
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.games import registry
from reelforge.money import InvalidBet, find_bet
from reelforge.rng import (
    RandomSource,
    RecordingRandom,
    ReplayError,
    ReplayRandom,
    ScriptedRandom,
    SeededRandom,
    SystemRandom,
)
from reelforge.server import bets, store
from reelforge.server import round_store as rs
from reelforge.server import schema as t
from reelforge.server.config import Settings
from reelforge.server.db import make_engine, migrate
from reelforge.server.errors import ApiError, bad_request, conflict, forbidden, not_found
from reelforge.server.profiles import PROFILES, Profile, is_bonus_buy
from reelforge.server.sql import for_update, q
from reelforge.server.tokens import derive_token, new_nonce, token_hash

log = logging.getLogger("reelforge.server")

OPERATOR_SCOPE = "operator"


class SessionClosed(ApiError):
    """A session limit was reached: the session is closed (in its own transaction)."""

    def __init__(self, session_id: int, reason: str) -> None:
        super().__init__(403, "session_closed", f"the session is closed: {reason}")
        self.session_id = session_id
        self.reason = reason


@dataclass(frozen=True)
class SessionRow:
    id: int
    player_id: int
    profile: str
    created_at: float
    expires_at: float
    closed_at: float | None
    close_reason: str | None
    time_limit_seconds: int | None
    spend_limit: int | None
    staked: int
    won: int
    play_settings: str | None = None  # JSON {game: {name: bool}}: what the player set


@dataclass(frozen=True)
class PlayerRow:
    id: int
    balance: int
    last_round_at: float | None
    external_id: str
    currency: str


@dataclass
class PlayerContext:
    session: SessionRow
    player: PlayerRow  # locked for the transaction
    profile: Profile

    @property
    def balance(self) -> int:
        return int(self.player.balance)


def fingerprint(method: str, path: str, body: Any) -> str:
    return hashlib.sha256(f"{method} {path} {store.dumps(body)}".encode()).hexdigest()


def stored_play_settings(raw: str | None) -> dict[str, dict[str, bool]]:
    return json.loads(raw) if raw else {}


def effective_settings(game: Game, stored: dict[str, dict[str, bool]]) -> dict[str, bool]:
    """The game's switches with the player's choices over its defaults (a name the game no
    longer offers is ignored)."""
    chosen = stored.get(game.id, {})
    return {name: bool(chosen.get(name, default)) for name, default in game.play_settings().items()}


def check_key(key: str | None) -> str:
    if not key:
        raise bad_request("an Idempotency-Key header is required for this request", "idempotency_key_missing")
    if len(key) > 128 or not key.isprintable():
        raise bad_request("the Idempotency-Key must be 1-128 printable characters", "idempotency_key_invalid")
    return key


class GameServer:
    def __init__(
        self,
        settings: Settings,
        engine: Engine | None = None,
        rng_factory: Callable[[], RandomSource] = SystemRandom,
    ) -> None:
        self.settings = settings
        if settings.test_games:
            os.environ["REELFORGE_TEST_GAMES"] = "1"  # the registry adds the test-only games
        self.engine = engine or make_engine(settings.database_url(), settings.pool_size)
        self.operator_key = settings.resolved_operator_key()
        # Tokens are derived from a secret all processes share; the operator key is one.
        self.token_secret = "session-token:" + self.operator_key
        self.rng_factory = rng_factory
        if settings.test_seed is not None:
            if not settings.allow_scripted_draws:
                raise ValueError("test_seed is a test facility: it needs allow_scripted_draws")
            stream = SeededRandom(settings.test_seed)
            self.rng_factory = lambda: stream
        # SQLite has one writer at a time: queue this process's transactions on a lock rather
        # than on SQLite's busy-wait, whose back-off made tail latencies seconds long.
        self._serial: AbstractContextManager[Any] = (
            threading.Lock() if self.engine.dialect.name == "sqlite" else nullcontext()
        )
        self.games: dict[str, Game] = dict(registry())
        self._exact_cache: dict[tuple[str, str], dict[str, Any]] = {}

    def migrate(self) -> None:
        migrate(self.engine)

    # -- plumbing --------------------------------------------------------------------------

    def run(self, work: Callable[[Connection], Any]) -> Any:
        """Run ``work`` in one transaction.  A reached session limit is recorded in a
        transaction of its own, since the request's own is rolled back."""
        try:
            with self._serial, self.engine.begin() as conn:
                return work(conn)
        except SessionClosed as closed:
            with self.engine.begin() as conn:
                conn.execute(
                    update(t.sessions)
                    .where(t.sessions.c.id == closed.session_id, t.sessions.c.closed_at.is_(None))
                    .values(closed_at=store.now(), close_reason=closed.reason)
                )
            raise
        except IntegrityError as exc:
            log.warning("integrity error: %s", exc.orig)
            raise conflict("the request conflicts with one already made", "conflict") from None

    def idempotent(
        self,
        scope_of: Callable[[Connection], str],
        key: str | None,
        fp: str,
        work: Callable[[Connection], tuple[int, dict]],
        prepare: Callable[[Connection], Any] | None = None,
    ) -> tuple[int, dict]:
        """A state-changing request: the first reply to a key is stored with the change and
        returned again, unchanged, for every repeat of that key."""
        key = check_key(key)

        def tx(conn: Connection) -> tuple[int, dict]:
            scope = scope_of(conn)  # locks the player before looking at the key
            old = store.remembered(conn, scope, key, fp)
            if old is not None:
                return old
            status, body = work(conn)
            store.remember(conn, scope, key, fp, status, body)
            return status, body

        return self.run(tx)

    def game(self, game_id: str) -> Game:
        try:
            return self.games[game_id]
        except KeyError:
            raise not_found(f"unknown game {game_id!r}; offered: {sorted(self.games)}") from None

    def prechecks(
        self, conn: Connection, player_id: int, game: Game, table: str = bets.BASE
    ) -> tuple[int | None, int | None, str, list[int]]:
        """In one query: a running autoplay of the game, a pending round of it, the variant,
        the stakes of the bet table ``table`` the operator switched off."""
        row = q(
            conn,
            "SELECT (SELECT id FROM autoplays WHERE player_id = :p AND game = :g AND status = 'running'"
            " LIMIT 1) AS autoplay_id, (SELECT id FROM rounds WHERE player_id = :p AND game = :g"
            " AND status = 'pending' LIMIT 1) AS pending_id,"
            " (SELECT value FROM server_settings WHERE key = :vk) AS variant,"
            " (SELECT value FROM server_settings WHERE key = :dk) AS disabled",
            {"p": player_id, "g": game.id, "vk": f"variant:{game.id}", "dk": bets.bets_key(game.id, table)},
        ).one()
        disabled = bets.parse_bets(row.disabled)
        return row.autoplay_id, row.pending_id, row.variant or game.default_variant, disabled

    def variant_for(self, conn: Connection, game: Game) -> str:
        return store.get_setting(conn, f"variant:{game.id}", game.default_variant)

    def disabled_bets(self, conn: Connection, game: Game, table: str = bets.BASE) -> list[int]:
        return bets.parse_bets(store.get_setting(conn, bets.bets_key(game.id, table), "[]"))

    def profile(self, conn: Connection) -> Profile:
        return PROFILES[store.get_setting(conn, "profile", "default")]

    # -- player authentication -------------------------------------------------------------

    def player_context(self, conn: Connection, token: str | None, *, lock: bool = True) -> PlayerContext:
        """The session and its player, in one query; with ``lock`` both rows stay locked until
        the transaction ends, so one player's requests run one at a time."""
        if not token:
            raise ApiError(401, "unauthorized", "a session token is required (Authorization: Bearer …)")
        row = q(
            conn,
            "SELECT s.id, s.player_id, s.profile, s.created_at, s.expires_at, s.closed_at, s.close_reason,"
            " s.time_limit_seconds, s.spend_limit, s.staked, s.won, s.play_settings, p.balance,"
            " p.last_round_at, p.external_id, p.currency FROM sessions s JOIN players p ON p.id = s.player_id"
            " WHERE s.token_hash = :h" + (for_update(conn, "p, s") if lock else ""),
            {"h": token_hash(token)},
        ).first()
        if row is None:
            raise ApiError(401, "invalid_token", "the session token is not valid")
        session = SessionRow(
            row.id, row.player_id, row.profile, row.created_at, row.expires_at, row.closed_at,
            row.close_reason, row.time_limit_seconds, row.spend_limit, row.staked, row.won,
            row.play_settings,
        )  # fmt: skip
        if session.closed_at is not None:
            raise forbidden(f"the session is closed: {session.close_reason}", "session_closed")
        ts = store.now()
        if ts >= session.expires_at:
            raise ApiError(401, "session_expired", "the session has expired; open a new one")
        if session.time_limit_seconds is not None and ts - session.created_at >= session.time_limit_seconds:
            raise SessionClosed(session.id, "time limit reached")
        player = PlayerRow(row.player_id, row.balance, row.last_round_at, row.external_id, row.currency)
        return PlayerContext(session, player, PROFILES[session.profile])

    def _scope(self, ctx_holder: list[PlayerContext], token: str | None) -> Callable[[Connection], str]:
        def scope(conn: Connection) -> str:
            ctx = self.player_context(conn, token)
            ctx_holder.append(ctx)
            return f"player:{ctx.player.id}"

        return scope

    # -- rounds ----------------------------------------------------------------------------

    def _source(self, script: list[int] | None) -> RandomSource:
        """The production RNG, or (test deployments only) a script dealt before it."""
        base = self.rng_factory()
        if script is not None:
            if not self.settings.allow_scripted_draws:
                raise forbidden(
                    "scripted draws are a test facility and are refused here", "scripted_draws_refused"
                )
            base = ScriptedRandom(script, base)
        return base

    def _min_stake(self) -> int:
        return min(b.stake for g in self.games.values() for b in g.bet_levels())

    def _spent(self, net_loss: int, spend_limit: int) -> bool:
        """The spend limit is reached once not even the smallest stake fits under it."""
        return net_loss + self._min_stake() > spend_limit

    def _check_spend(self, ctx: PlayerContext, cost: int) -> None:
        """Refuse a round whose debit (``cost``) could take the session past its spend limit."""
        s = ctx.session
        if s.spend_limit is None:
            return
        net_loss = s.staked - s.won
        if self._spent(net_loss, s.spend_limit):
            raise SessionClosed(s.id, "spend limit reached")
        if net_loss + cost > s.spend_limit:
            raise ApiError(403, "spend_limit", f"a stake of {cost} could pass the session's spend limit")

    def _bet_stake(self, conn: Connection, round_id: int, rnd: Round) -> int:
        """The bet level a stored round was opened at (what ``state_key`` takes): the round's
        stake for a plain spin, the start action's stake when the round cost more (a buy)."""
        if rnd.mode == "base":
            return rnd.stake
        action = conn.execute(
            select(t.round_steps.c.action).where(
                t.round_steps.c.round_id == round_id, t.round_steps.c.step == 1
            )
        ).scalar_one()
        return int(json.loads(action)["stake"])

    def _state_key(self, conn: Connection, game: Game, round_id: int, rnd: Round) -> str | None:
        return game.state_key(self._bet_stake(conn, round_id, rnd), rnd.mode)

    def _open_round(
        self,
        conn: Connection,
        ctx: PlayerContext,
        game: Game,
        stake: int,
        mode: str,
        script: list[int] | None,
        autoplay_id: int | None,
    ) -> tuple[int, Round, int, dict[str, Any] | None]:
        """Checks, debit, first step, all in the caller's transaction.  Returns the round's id,
        the round, the balance and, for a start by hand (``autoplay_id`` None) while an autoplay
        of the game runs, that autoplay stopped: pressing PLAY stops it (Los 3 Pinguinos' seed,
        2.1).  It is stopped in this transaction, so a start refused for any reason leaves it
        running.

        ``stake`` is the bet level, what :meth:`Game.start` takes; the debit is
        ``game.cost(stake, mode)`` (a bought feature costs a multiple of the bet), and the
        round's ``stake`` field must say the same, since refunds and history read it."""
        if mode not in game.modes:
            raise bad_request(f"{game.id} has no mode {mode!r}; offered: {game.modes}", "invalid_mode")
        if is_bonus_buy(mode) and not ctx.profile.bonus_buy:
            raise forbidden("buying a feature is not allowed under this jurisdiction", "bonus_buy_forbidden")
        # A mode with bets of its own (Los 3 Pinguinos' upper game) is staked and switched off
        # from its own table: its stake 100 is not the base game's.
        table = bet_table(game, mode)
        running_autoplay, pending_id, variant, disabled = self.prechecks(conn, ctx.player.id, game, table)
        cancelled = None
        if running_autoplay is not None and autoplay_id is None:
            cancelled = self._cancel_autoplay(conn, running_autoplay)
        try:
            find_bet(levels_for(game, variant, mode), stake)
            cost = game.cost(stake, mode)
        except InvalidBet as exc:
            raise bad_request(str(exc), "invalid_bet") from None
        bets.check_enabled(game, stake, disabled, table)
        self._check_spend(ctx, cost)
        ts = store.now()
        if ctx.profile.min_cycle_seconds and ctx.player.last_round_at is not None:
            wait = ctx.player.last_round_at + ctx.profile.min_cycle_seconds - ts
            if wait > 0:
                raise ApiError(
                    429,
                    "too_soon",
                    f"a game cycle takes at least {ctx.profile.min_cycle_seconds} s here; wait {wait:.2f} s",
                    {"Retry-After": str(max(1, round(wait + 0.5)))},
                )
        if pending_id is not None:
            raise conflict(
                f"round {pending_id} of {game.id} is still in play: finish it first", "round_pending"
            )
        if ctx.balance < cost:
            raise ApiError(
                402, "insufficient_funds", f"the balance {ctx.balance} does not cover the stake {cost}"
            )
        state_key = game.state_key(stake, mode)
        player_state = store.load_player_state(conn, ctx.player.id, game.id, state_key)
        rec = RecordingRandom(self._source(script))
        try:
            rnd = game.start(stake, rec, variant=variant, mode=mode, player_state=player_state)
        except InsufficientSideBalance as exc:  # checked before any draw or write: nothing moved
            raise ApiError(402, f"insufficient_{exc.currency}", str(exc)) from None
        except InvalidBet as exc:
            raise bad_request(str(exc), "invalid_bet") from None
        if rnd.stake != cost:  # the round row, refunds and the audit read the round's stake
            raise RuntimeError(f"{game.id} opened a {mode} round of stake {rnd.stake}, but it costs {cost}")
        # Everything about the round is known now: write it once, closed if it is over.
        balance_before = ctx.balance
        win = rnd.win if rnd.complete else 0
        balance = balance_before - cost + win
        actor = "autoplay" if autoplay_id else "player"
        round_id = rs.insert_round(
            conn, ctx.player, ctx.session.id, autoplay_id, rnd, balance_before, balance, actor
        )
        start_action = {"name": "start", "stake": stake, "mode": mode, "player_state": player_state}
        rs.insert_step(conn, round_id, rnd, start_action, actor, rec.draws, rnd.events)
        store.ledger_entry(
            conn, ctx.player.id, -cost, balance_before - cost, "stake", f"round:{round_id}:stake", round_id
        )
        if win:
            store.ledger_entry(conn, ctx.player.id, win, balance, "win", f"round:{round_id}:win", round_id)
        store.set_balance(conn, ctx.player.id, balance, last_round_at=ts)
        q(
            conn,
            "UPDATE sessions SET staked = staked + :stake, won = won + :win WHERE id = :id",
            {"stake": cost, "win": win, "id": ctx.session.id},
        )
        if rnd.player_state is not None and state_key is not None:
            if game.side_balances:
                store.record_side_movements(
                    conn, ctx.player.id, game.id, game.side_balances, state_key, round_id, rnd.step,
                    player_state, rnd.player_state,
                )  # fmt: skip
            store.save_player_state(conn, ctx.player.id, game.id, state_key, rnd.player_state)
        return round_id, rnd, balance, cancelled

    def _after_step(
        self,
        conn: Connection,
        session_id: int | None,
        player_id: int,
        game: Game,
        round_id: int,
        rnd: Round,
        balance: int,
        completed_by: str,
        state_key: str | None,
    ) -> int:
        """Store a step's outcome; when the round completes, credit its win (once).  Side
        balances the step changed are recorded against the stored player state."""
        if rnd.player_state is not None and state_key is not None:
            if game.side_balances:
                store.record_side_movements(
                    conn, player_id, game.id, game.side_balances, state_key, round_id, rnd.step,
                    store.load_player_state(conn, player_id, game.id, state_key), rnd.player_state,
                )  # fmt: skip
            store.save_player_state(conn, player_id, game.id, state_key, rnd.player_state)
        if rnd.complete and rnd.win:
            balance += rnd.win
            store.ledger_entry(conn, player_id, rnd.win, balance, "win", f"round:{round_id}:win", round_id)
            store.set_balance(conn, player_id, balance)
            if session_id is not None:
                q(
                    conn,
                    "UPDATE sessions SET won = won + :win WHERE id = :id",
                    {"win": rnd.win, "id": session_id},
                )
        rs.save_round(conn, round_id, rnd, balance, completed_by)
        return balance

    def _close_if_spent(self, conn: Connection, ctx: PlayerContext) -> str | None:
        """After a round: a session whose net loss reached its spend limit closes now."""
        if ctx.session.spend_limit is None:
            return None
        s = conn.execute(select(t.sessions).where(t.sessions.c.id == ctx.session.id)).one()
        if s.spend_limit is not None and s.closed_at is None and self._spent(s.staked - s.won, s.spend_limit):
            conn.execute(
                update(t.sessions)
                .where(t.sessions.c.id == s.id)
                .values(closed_at=store.now(), close_reason="spend limit reached")
            )
            return "spend limit reached"
        return None

    def _step(
        self,
        conn: Connection,
        game: Game,
        round_id: int,
        rnd: Round,
        action: Action,
        actor: str,
        rng: RandomSource,
    ) -> tuple[Round, list[tuple[int, int]]]:
        rec = RecordingRandom(rng)
        try:
            new = game.act(rnd, action, rec)
        except InvalidAction as exc:
            raise conflict(str(exc), "action_not_allowed") from None
        rs.insert_step(
            conn, round_id, new, action.model_dump(), actor, rec.draws, new.events[len(rnd.events) :]
        )
        return new, rec.draws

    def start_round(
        self,
        token: str | None,
        key: str | None,
        game_id: str,
        stake: int,
        mode: str,
        script: list[int] | None,
    ) -> tuple[int, dict]:
        body = {"game": game_id, "stake": stake, "mode": mode, "script": script}
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            game = self.game(game_id)
            # A start by hand stops a running autoplay of the game (pressing PLAY).
            round_id, rnd, balance, cancelled = self._open_round(conn, ctx, game, stake, mode, script, None)
            reply: dict[str, Any] = {"round": self._view(round_id, rnd), "balance": balance}
            if cancelled is not None:
                reply["autoplay"] = cancelled
            if rnd.complete and (closed := self._close_if_spent(conn, ctx)):
                reply["session_closed"] = closed
            return 201, reply

        return self.idempotent(self._scope(holder, token), key, fingerprint("POST", "/rounds", body), work)

    def act(
        self,
        token: str | None,
        key: str | None,
        round_id: int,
        name: str,
        choice: int | None,
        expected_step: int | None,
        script: list[int] | None = None,
    ) -> tuple[int, dict]:
        body = {
            "round": round_id,
            "action": name,
            "choice": choice,
            "expected_step": expected_step,
            "script": script,
        }
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row = rs.round_row(conn, round_id, ctx.player.id)
            if row is None:
                raise not_found(f"no round {round_id} for this player")
            if row.status != "pending":
                raise conflict(f"round {round_id} is {row.status}: no action is allowed", "round_not_pending")
            if expected_step is not None and expected_step != row.step:
                raise conflict(
                    f"round {round_id} is at step {row.step}, not {expected_step}", "step_mismatch"
                )
            try:
                action = Action(name=name, choice=choice)
            except ValidationError:
                raise bad_request("an action needs a name of 1-32 characters", "invalid_action") from None
            game = self.game(row.game)
            rnd = Round.model_validate_json(row.state)
            new, _ = self._step(conn, game, row.id, rnd, action, "player", self._source(script))
            balance = self._after_step(
                conn,
                ctx.session.id,
                ctx.player.id,
                game,
                row.id,
                new,
                ctx.balance,
                "player",
                self._state_key(conn, game, row.id, new),
            )
            reply = {"round": self._view(row.id, new), "balance": balance}
            if new.complete and (closed := self._close_if_spent(conn, ctx)):
                reply["session_closed"] = closed
            return 200, reply

        return self.idempotent(
            self._scope(holder, token), key, fingerprint("POST", f"/rounds/{round_id}/actions", body), work
        )

    @staticmethod
    def _view(round_id: int, rnd: Round) -> dict[str, Any]:
        view = rnd.public_view()
        view["id"] = round_id
        return view

    # -- reads -----------------------------------------------------------------------------

    def read(self, token: str | None, work: Callable[[Connection, PlayerContext], Any]) -> Any:
        return self.run(lambda conn: work(conn, self.player_context(conn, token, lock=False)))

    def pending(self, token: str | None, game_id: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            query = select(t.rounds).where(
                t.rounds.c.player_id == ctx.player.id, t.rounds.c.status == "pending"
            )
            if game_id is not None:
                query = query.where(t.rounds.c.game == game_id)
            return {"rounds": [rs.public_round(r) for r in conn.execute(query.order_by(t.rounds.c.id))]}

        return self.read(token, work)

    def history(self, conn: Connection, player_id: int, limit: int, before: int | None) -> dict:
        if not 1 <= limit <= 100:
            raise bad_request("limit must be between 1 and 100", "invalid_limit")
        query = select(t.rounds).where(t.rounds.c.player_id == player_id)
        if before is not None:
            query = query.where(t.rounds.c.id < before)
        rows = list(conn.execute(query.order_by(t.rounds.c.id.desc()).limit(limit + 1)))
        more = len(rows) > limit
        rows = rows[:limit]
        side = rs.side_summaries(conn, rows, self.side_games())
        out = []
        for r in rows:
            line = rs.summary(r)
            if r.id in side:
                line["side"] = side[r.id]
            out.append(line)
        return {"rounds": out, "next_before": rows[-1].id if more else None}

    def side_games(self) -> dict[str, tuple[str, ...]]:
        """{game id: its side balances} for the games that keep any."""
        return {g.id: tuple(g.side_balances) for g in self.games.values() if g.side_balances}

    def _recall(self, conn: Connection, row: Row, *, with_draws: bool) -> dict[str, Any]:
        return rs.recall(conn, row, with_draws=with_draws, side=self.side_games().get(row.game, ()))

    def player_history(self, token: str | None, limit: int, before: int | None) -> dict:
        return self.read(token, lambda conn, ctx: self.history(conn, ctx.player.id, limit, before))

    def player_recall(self, token: str | None, round_id: int) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            row = rs.round_row(conn, round_id, ctx.player.id)
            if row is None:
                raise not_found(f"no round {round_id} for this player")
            return self._recall(conn, row, with_draws=row.status != "pending")

        return self.read(token, work)

    def replay(self, conn: Connection, row: Row) -> dict:
        """Re-deal a finished round from its stored draws and actions; marked as a replay."""
        if row.status == "pending":
            raise conflict("a round still in play cannot be replayed", "round_pending")
        game = self.game(row.game)
        steps = rs.step_rows(conn, row.id)
        first = json.loads(steps[0].action)
        out_steps: list[dict[str, Any]] = []
        matches = True
        try:
            rng = ReplayRandom(json.loads(steps[0].draws))
            rnd = game.start(
                first["stake"],
                rng,
                variant=row.variant,
                mode=first["mode"],
                player_state=first["player_state"],
            )
            matches &= rng.exhausted and rnd.events == json.loads(steps[0].events)
            out_steps.append({"step": 1, "action": first, "events": rnd.events})
            for s in steps[1:]:
                if s.actor == "operator":  # a void: no draws, nothing to re-deal
                    out_steps.append({"step": s.step, "action": None, "events": json.loads(s.events)})
                    continue
                before = len(rnd.events)
                action = Action.model_validate(json.loads(s.action))
                rng = ReplayRandom(json.loads(s.draws))
                rnd = game.act(rnd, action, rng)
                new_events = rnd.events[before:]
                matches &= rng.exhausted and new_events == json.loads(s.events)
                out_steps.append({"step": s.step, "action": action.model_dump(), "events": new_events})
        except (ReplayError, InvalidAction, InvalidBet) as exc:
            raise conflict(f"the stored round does not replay: {exc}", "replay_failed") from None
        if row.status == "complete":
            matches &= rnd.win == row.win
        return {
            "replay": True,
            "round_id": row.id,
            "game": row.game,
            "game_version": row.game_version,
            "variant": row.variant,
            "stake": row.stake,
            "win": rnd.win,
            "recorded_win": row.win,
            "matches_record": bool(matches),
            "steps": out_steps,
        }

    def player_replay(self, token: str | None, round_id: int) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            row = rs.round_row(conn, round_id, ctx.player.id)
            if row is None:
                raise not_found(f"no round {round_id} for this player")
            return self.replay(conn, row)

        return self.read(token, work)

    def balance(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            side = self.side_games()
            out: dict[str, Any] = {"balance": ctx.balance, "currency": ctx.player.currency}
            out["side"] = store.side_balances(conn, ctx.player.id, side) if side else {}
            return out

        return self.read(token, work)

    def session_info(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            s = ctx.session
            info: dict[str, Any] = {
                "profile": s.profile,
                "player": ctx.player.external_id,
                "opened_at": rs.iso(s.created_at),
                "expires_at": rs.iso(s.expires_at),
                "elapsed_seconds": round(store.now() - s.created_at, 1),
                "staked": s.staked,
                "won": s.won,
                "net_position": s.won - s.staked,
                "time_limit_seconds": s.time_limit_seconds,
                "spend_limit": s.spend_limit,
                "rules": {
                    "autoplay_max_spins": ctx.profile.autoplay_max_spins,
                    "bonus_buy": ctx.profile.bonus_buy,
                    "min_cycle_seconds": ctx.profile.min_cycle_seconds,
                    "shows_net_position": ctx.profile.shows_net_position,
                },
                "play_settings": self._all_settings(s),
            }
            return info

        return self.read(token, work)

    def _all_settings(self, session: SessionRow) -> dict[str, dict[str, bool]]:
        stored = stored_play_settings(session.play_settings)
        return {g.id: effective_settings(g, stored) for g in self.games.values() if g.play_settings()}

    def get_play_settings(self, token: str | None, game_id: str) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            game = self.game(game_id)
            return {
                "game": game.id,
                "settings": effective_settings(game, stored_play_settings(ctx.session.play_settings)),
                "defaults": game.play_settings(),
            }

        return self.read(token, work)

    def set_play_settings(
        self, token: str | None, key: str | None, game_id: str, body: dict[str, Any]
    ) -> tuple[int, dict]:
        """Set some of a game's play switches for this session: names the body leaves out keep
        their value.  An unknown name or a value other than true/false is refused (400)."""
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            game = self.game(game_id)
            offered = game.play_settings()
            if not isinstance(body, dict):
                raise bad_request("play settings are a JSON object of name: true/false", "invalid_setting")
            unknown = sorted(str(name) for name in body if name not in offered)
            if unknown:
                raise bad_request(
                    f"{game.id} has no play setting {', '.join(unknown)}; offered: {sorted(offered)}",
                    "invalid_setting",
                )
            for name, value in body.items():
                if not isinstance(value, bool):
                    raise bad_request(f"play setting {name} must be true or false", "invalid_setting")
            stored = stored_play_settings(ctx.session.play_settings)
            if body:
                stored[game.id] = {**stored.get(game.id, {}), **body}
                q(
                    conn,
                    "UPDATE sessions SET play_settings = :ps WHERE id = :id",
                    {"ps": store.dumps(stored), "id": ctx.session.id},
                )
            return 200, {"game": game.id, "settings": effective_settings(game, stored)}

        return self.idempotent(
            self._scope(holder, token),
            key,
            fingerprint("PUT", f"/settings?game={game_id}", body),
            work,
        )

    def player_state(self, token: str | None, game_id: str | None) -> dict:
        return self.read(
            token, lambda conn, ctx: {"states": store.all_player_state(conn, ctx.player.id, game_id)}
        )

    def exact_for(self, game: Game, variant: str) -> dict[str, Any]:
        key = (game.id, variant)
        if key not in self._exact_cache:
            self._exact_cache[key] = game.exact(variant)
        return self._exact_cache[key]

    def list_games(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> tuple[Profile, dict[str, str], dict[str, str]]:
            settings = dict(conn.execute(select(t.settings_table.c.key, t.settings_table.c.value)).all())
            return ctx.profile, {g.id: self.variant_for(conn, g) for g in self.games.values()}, settings

        profile, variants, settings = self.read(token, work)
        # The exact RTP is computed after the transaction: a game's first one takes seconds
        # (Ghost of Gambini's), and on SQLite a transaction holds this process's lock.
        out = []
        for game in self.games.values():
            variant = variants[game.id]
            info = dict(game.info())
            info["variant"] = variant
            info.update(bets.listing(game, variant, info, settings))
            info["side_balances"] = list(game.side_balances)
            info["play_settings"] = game.play_settings()
            info["autoplay_max_spins"] = self.autoplay_limit(profile, game)
            info["rtp"] = self.exact_for(game, variant)["rtp"]
            info["modes"] = [m for m in game.modes if profile.bonus_buy or not is_bonus_buy(m)]
            out.append(info)
        return {"games": out, "profile": profile.name}

    # -- autoplay --------------------------------------------------------------------------

    def _running_autoplay(self, conn: Connection, player_id: int) -> Row | None:
        return conn.execute(
            select(t.autoplays).where(t.autoplays.c.player_id == player_id, t.autoplays.c.status == "running")
        ).first()

    def _require_autoplay(self, conn: Connection, player_id: int) -> tuple[Row, Autoplay]:
        """The player's running autoplay, or 409."""
        row = self._running_autoplay(conn, player_id)
        if row is None:
            raise conflict("no autoplay is running", "autoplay_not_running")
        return row, Autoplay.model_validate_json(row.state)

    def _cancel_autoplay(self, conn: Connection, autoplay_id: int) -> dict[str, Any]:
        """Stop a running autoplay (``cancelled``), as pressing PLAY does: its view."""
        row = conn.execute(select(t.autoplays).where(t.autoplays.c.id == autoplay_id)).one()
        ap = Autoplay.model_validate_json(row.state)
        ap.stop("cancelled")
        self._save_autoplay(conn, row.id, ap)
        return self._autoplay_view(row.id, row.game, ap)

    @staticmethod
    def autoplay_limit(profile: Profile, game: Game) -> int | None:
        """The most rounds one autoplay run of ``game`` may play under ``profile``: the
        smaller of the profile's cap and the game's own; None when autoplay is forbidden."""
        if profile.autoplay_max_spins is None:
            return None
        caps = [profile.autoplay_max_spins, autoplay_cap(game)]
        return min(c for c in caps if c is not None)

    def _save_autoplay(self, conn: Connection, autoplay_id: int, ap: Autoplay) -> None:
        conn.execute(
            update(t.autoplays)
            .where(t.autoplays.c.id == autoplay_id)
            .values(
                state=ap.model_dump_json(),
                status="running" if ap.running else "stopped",
                updated_at=store.now(),
            )
        )

    @staticmethod
    def _autoplay_view(autoplay_id: int, game_id: str, ap: Autoplay) -> dict[str, Any]:
        return {"id": autoplay_id, "game": game_id, **ap.model_dump()}

    def autoplay_start(self, token: str | None, key: str | None, body: dict[str, Any]) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            if not ctx.profile.autoplay_allowed:
                raise forbidden("autoplay is not allowed under this jurisdiction", "autoplay_forbidden")
            game = self.game(str(body.get("game")))
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
                find_bet(levels_for(game, self.variant_for(conn, game), mode), stake)
                game_cap = autoplay_cap(game)
                if game_cap is not None and limits.spins > game_cap:
                    raise ValueError(f"{game.name} plays at most {game_cap} games, {limits.spins} asked")
                ap = Autoplay.begin(
                    limits,
                    stake,
                    max_spins=ctx.profile.autoplay_max_spins,
                    mode=mode,
                    cost=game.cost(stake, mode),  # an upper bet's cash part: its Bonuses are no money
                )
            except (ValidationError, ValueError) as exc:
                raise bad_request(f"autoplay refused: {exc}", "invalid_autoplay") from None
            bets.check_enabled(game, stake, self.disabled_bets(conn, game, table), table)
            if self._running_autoplay(conn, ctx.player.id) is not None:
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
            return 201, {"autoplay": self._autoplay_view(autoplay_id, game.id, ap)}

        return self.idempotent(self._scope(holder, token), key, fingerprint("POST", "/autoplay", body), work)

    def autoplay_next(self, token: str | None, key: str | None) -> tuple[int, dict]:
        """Play the next autoplay round: the server checks every limit before the spin,
        plays free spins on, and stops where the player must act."""
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row, ap = self._require_autoplay(conn, ctx.player.id)
            game = self.game(row.game)
            balance = ctx.balance
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
                    self._save_autoplay(conn, row.id, ap)
                    return 200, {
                        "autoplay": self._autoplay_view(row.id, game.id, ap),
                        "round": None,
                        "balance": balance,
                    }
                try:
                    self._check_spend(ctx, game.cost(ap.stake, ap.mode))
                except ApiError:
                    ap.stop("loss_limit")
                    self._save_autoplay(conn, row.id, ap)
                    return 200, {
                        "autoplay": self._autoplay_view(row.id, game.id, ap),
                        "round": None,
                        "balance": balance,
                    }
                try:
                    round_id, rnd, balance, _ = self._open_round(
                        conn, ctx, game, ap.stake, ap.mode, None, row.id
                    )
                except ApiError as exc:
                    # The seed (3.2): a new game only while the balance *and the Bonuses* cover
                    # the bet.  The start was refused before it moved anything.
                    if exc.code != "insufficient_bonuses":
                        raise
                    ap.stop("insufficient_bonuses")
                    self._save_autoplay(conn, row.id, ap)
                    return 200, {
                        "autoplay": self._autoplay_view(row.id, game.id, ap),
                        "round": None,
                        "balance": balance,
                    }
                ap.round_started()
            state_key = self._state_key(conn, game, round_id, rnd)
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
                rnd, _ = self._step(conn, game, round_id, rnd, action, "autoplay", self.rng_factory())
                balance = self._after_step(
                    conn, ctx.session.id, ctx.player.id, game, round_id, rnd, balance, "player", state_key
                )
            reply: dict[str, Any] = {"round": self._view(round_id, rnd), "balance": balance}
            if rnd.complete:
                ap.round_finished(rnd.win)
                if closed := self._close_if_spent(conn, ctx):
                    ap.stop("loss_limit")
                    reply["session_closed"] = closed
            self._save_autoplay(conn, row.id, ap)
            reply["autoplay"] = self._autoplay_view(row.id, game.id, ap)
            return 200, reply

        return self.idempotent(
            self._scope(holder, token), key, fingerprint("POST", "/autoplay/next", {}), work
        )

    def autoplay_stop(self, token: str | None, key: str | None) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row, ap = self._require_autoplay(conn, ctx.player.id)
            ap.stop("cancelled")
            self._save_autoplay(conn, row.id, ap)
            return 200, {"autoplay": self._autoplay_view(row.id, row.game, ap)}

        return self.idempotent(
            self._scope(holder, token), key, fingerprint("POST", "/autoplay/stop", {}), work
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
            return {
                "autoplay": self._autoplay_view(row.id, row.game, Autoplay.model_validate_json(row.state))
            }

        return self.read(token, work)

    def close_session(self, token: str | None, key: str | None) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            conn.execute(
                update(t.sessions)
                .where(t.sessions.c.id == ctx.session.id)
                .values(closed_at=store.now(), close_reason="closed by the player")
            )
            return 200, {"closed": True}

        return self.idempotent(
            self._scope(holder, token), key, fingerprint("POST", "/session/close", {}), work
        )

    # -- operator --------------------------------------------------------------------------

    def check_operator(self, key: str | None) -> None:
        import hmac

        if not key or not hmac.compare_digest(key.encode(), self.operator_key.encode()):
            raise ApiError(401, "unauthorized", "a valid X-Operator-Key header is required")

    def create_player(self, external_id: str, currency: str) -> tuple[int, dict]:
        def work(conn: Connection) -> tuple[int, dict]:
            row = conn.execute(select(t.players).where(t.players.c.external_id == external_id)).first()
            if row is not None:
                return 200, self._player_view(row)
            conn.execute(
                insert(t.players).values(
                    external_id=external_id, currency=currency, balance=0, created_at=store.now()
                )
            )
            return 201, self._player_view(store.find_player(conn, external_id))

        return self.run(work)

    @staticmethod
    def _player_view(row: Row) -> dict[str, Any]:
        return {
            "id": row.id,
            "external_id": row.external_id,
            "currency": row.currency,
            "balance": row.balance,
        }

    def get_player(self, external_id: str) -> dict:
        return self.run(lambda conn: self._player_view(store.find_player(conn, external_id)))

    def wallet_move(self, key: str | None, external_id: str, amount: int, kind: str) -> tuple[int, dict]:
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise bad_request("amount must be a positive integer of minor units", "invalid_amount")
        signed = amount if kind == "deposit" else -amount
        body = {"player": external_id, "amount": amount, "kind": kind}

        def scope(conn: Connection) -> str:
            store.find_player(conn, external_id, lock=True)
            return OPERATOR_SCOPE

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, external_id)
            balance = store.move_money(conn, player, player.balance, signed, kind, f"op:{key}")
            return 200, {"player": external_id, "balance": balance, "amount": signed, "kind": kind}

        return self.idempotent(scope, key, fingerprint("POST", f"/wallet/{kind}", body), work)

    def open_session(
        self, key: str | None, external_id: str, time_limit_seconds: int | None, spend_limit: int | None
    ) -> tuple[int, dict]:
        body = {"player": external_id, "time_limit_seconds": time_limit_seconds, "spend_limit": spend_limit}

        def scope(conn: Connection) -> str:
            store.find_player(conn, external_id, lock=True)
            return OPERATOR_SCOPE

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, external_id)
            profile = self.profile(conn)
            if profile.requires_session_limits and (time_limit_seconds is None or spend_limit is None):
                raise bad_request(
                    f"the {profile.name} profile needs time_limit_seconds and spend_limit "
                    "set before the session",
                    "session_limits_required",
                )
            for name, value in (("time_limit_seconds", time_limit_seconds), ("spend_limit", spend_limit)):
                if value is not None and (not isinstance(value, int) or value <= 0):
                    raise bad_request(f"{name} must be a positive integer", "invalid_limit")
            nonce = new_nonce()
            ts = store.now()
            expires = ts + self.settings.token_ttl_seconds
            conn.execute(
                insert(t.sessions).values(
                    player_id=player.id,
                    token_hash=token_hash(derive_token(self.token_secret, nonce)),
                    profile=profile.name,
                    created_at=ts,
                    expires_at=expires,
                    time_limit_seconds=time_limit_seconds,
                    spend_limit=spend_limit,
                    staked=0,
                    won=0,
                )
            )
            # The stored reply holds the nonce, never the token; see open_session_reply.
            return 201, {
                "player": external_id,
                "profile": profile.name,
                "expires_at": rs.iso(expires),
                "time_limit_seconds": time_limit_seconds,
                "spend_limit": spend_limit,
                "_nonce": nonce,
            }

        status, reply = self.idempotent(scope, key, fingerprint("POST", "/sessions", body), work)
        reply = dict(reply)
        reply["token"] = derive_token(self.token_secret, reply.pop("_nonce"))
        return status, reply

    def demo_session(self, key: str | None) -> tuple[int, dict]:
        """Demo mode only: a fresh player with play money and an open session.  Built from
        the operator calls with keys derived from the request's, so a repeat is a no-op."""
        if not self.settings.demo_mode:
            raise not_found("demo sessions are not offered by this server")
        key = check_key(key)
        player = "demo-" + hashlib.sha256(key.encode()).hexdigest()[:16]
        self.create_player(player, "GBP")
        if self.settings.demo_balance:
            self.wallet_move(f"demo:{key}:credit", player, self.settings.demo_balance, "deposit")
        return self.open_session(f"demo:{key}:session", player, None, None)

    def operator_history(self, external_id: str, limit: int, before: int | None) -> dict:
        return self.run(
            lambda conn: self.history(conn, store.find_player(conn, external_id).id, limit, before)
        )

    def operator_recall(self, round_id: int) -> dict:
        def work(conn: Connection) -> dict:
            row = rs.round_row(conn, round_id)
            if row is None:
                raise not_found(f"no round {round_id}")
            out = self._recall(conn, row, with_draws=True)
            out["player"] = conn.execute(
                select(t.players.c.external_id).where(t.players.c.id == row.player_id)
            ).scalar()
            out["state"] = json.loads(row.state)["state"]  # hidden state too: the operator sees all
            return out

        return self.run(work)

    def operator_replay(self, round_id: int) -> dict:
        def work(conn: Connection) -> dict:
            row = rs.round_row(conn, round_id)
            if row is None:
                raise not_found(f"no round {round_id}")
            return self.replay(conn, row)

        return self.run(work)

    def void_round(self, key: str | None, round_id: int, reason: str) -> tuple[int, dict]:
        def scope(conn: Connection) -> str:
            row = rs.round_row(conn, round_id)
            if row is None:
                raise not_found(f"no round {round_id}")
            store.lock_player(conn, row.player_id)
            return OPERATOR_SCOPE

        def work(conn: Connection) -> tuple[int, dict]:
            row = rs.round_row(conn, round_id)
            assert row is not None
            if row.status != "pending":
                raise conflict(
                    f"round {round_id} is {row.status}; only a round in play can be voided", "not_pending"
                )
            player = store.lock_player(conn, row.player_id)
            balance = store.move_money(
                conn, player, player.balance, row.stake, "refund", f"round:{round_id}:refund", round_id
            )
            ts = store.now()
            step = row.step + 1
            side = self._reverse_side_movements(conn, row, step)
            event: dict[str, Any] = {"type": "void", "reason": reason, "refund": row.stake}
            if side:
                event["side"] = side
            restored = self._restore_player_state(conn, row)
            if restored is not None:
                event["player_state"] = restored
            conn.execute(
                insert(t.round_steps).values(
                    round_id=round_id,
                    step=step,
                    action=None,
                    actor="operator",
                    draws="[]",
                    events=store.dumps([event]),
                    win_after=0,
                    created_at=ts,
                )
            )
            conn.execute(
                update(t.rounds)
                .where(t.rounds.c.id == round_id)
                .values(
                    status="voided",
                    win=0,
                    step=step,
                    balance_after=balance,
                    updated_at=ts,
                    completed_at=ts,
                    completed_by="void",
                )
            )
            conn.execute(
                update(t.autoplays)
                .where(t.autoplays.c.player_id == row.player_id, t.autoplays.c.status == "running")
                .values(status="stopped", updated_at=ts)
            )
            reply = {"round_id": round_id, "status": "voided", "refund": row.stake, "balance": balance}
            if side:
                reply["side"] = side
            return 200, reply

        return self.idempotent(
            scope, key, fingerprint("POST", f"/rounds/{round_id}/void", {"reason": reason}), work
        )

    def _restore_player_state(self, conn: Connection, row: Row) -> dict[str, Any] | None:
        """A void puts the player state back as the round found it (stored with its start
        step): Los 3 Pinguinos' counter and accumulators, Gambini's piggies, not only the side
        balances.  Exact, since no other round of the game can move that state while this one
        is in play.  Returns {"before": state at the void, "after": state restored}, or None
        when the game keeps no state for the round."""
        game = self.game(row.game)
        rnd = Round.model_validate_json(row.state)
        state_key = self._state_key(conn, game, row.id, rnd)
        if state_key is None:
            return None
        steps = t.round_steps.c
        start_action = conn.execute(
            select(steps.action).where(steps.round_id == row.id, steps.step == 1)
        ).scalar_one()
        at_start = json.loads(start_action).get("player_state")
        now_state = store.load_player_state(conn, row.player_id, row.game, state_key)
        for currency in game.side_balances:  # the side ledger's reversal must already agree
            back = store.side_value(at_start or {}, currency)
            if store.side_value(now_state or {}, currency) != back:
                raise conflict(
                    f"voiding round {row.id}: {currency} does not return to its start value",
                    "side_balance_mismatch",
                )
        if at_start is None:
            store.delete_player_state(conn, row.player_id, row.game, state_key)
        else:
            store.save_player_state(conn, row.player_id, row.game, state_key, at_start)
        return {"before": now_state, "after": at_start}

    @staticmethod
    def _reverse_side_movements(conn: Connection, row: Row, step: int) -> dict[str, int]:
        """A void takes back what the round moved of each side balance, as it refunds the
        stake: one side-ledger row per currency at the void's step, and the stored player state
        set back.  While a round is in play no other round of its game can move that player
        state (one pending round per game), so what is taken back is exactly what the round
        added: the balance returns to its value when the round started and cannot go below 0.
        Returns {currency: amount moved by the void} (empty when the round moved nothing)."""
        totals = q(
            conn,
            "SELECT state_key, currency, SUM(amount) AS total FROM side_ledger WHERE round_id = :id"
            " GROUP BY state_key, currency ORDER BY state_key, currency",
            {"id": row.id},
        ).all()
        moved: dict[str, int] = {}
        states: dict[str, dict] = {}
        for m in totals:
            if not m.total:
                continue
            state = states.setdefault(
                m.state_key, store.load_player_state(conn, row.player_id, row.game, m.state_key) or {}
            )
            new = store.side_value(state, m.currency) - int(m.total)
            if new < 0:  # only if the stored state was changed behind the server's back
                raise conflict(
                    f"voiding round {row.id} would take {m.currency} below zero", "side_balance_negative"
                )
            state[m.currency] = new
            store.side_entry(
                conn, row.player_id, row.game, m.state_key, m.currency, row.id, step, -int(m.total), new
            )
            moved[m.currency] = moved.get(m.currency, 0) - int(m.total)
        for state_key, state in states.items():
            store.save_player_state(conn, row.player_id, row.game, state_key, state)
        return moved

    def get_bets(self, game_id: str, mode: str | None = None) -> dict:
        """The stakes of a game's bet table and which are switched off: the base table, or
        (``mode``) the table of a mode with bets of its own."""
        game = self.game(game_id)
        table = bets.table_of(game, mode)
        return self.run(lambda conn: self._bets_view(conn, game, table))

    def _bets_view(self, conn: Connection, game: Game, table: str = bets.BASE) -> dict[str, Any]:
        variant = self.variant_for(conn, game)
        return bets.view(game, variant, table, self.disabled_bets(conn, game, table))

    def set_bets(
        self, key: str | None, game_id: str, disabled: list[int], mode: str | None = None
    ) -> tuple[int, dict]:
        """Switch off some stakes of a game's bet table (the list replaces the one before; []
        switches every stake on): the base table, or (``mode``) an own-bet mode's, so each
        upper bet of Los 3 Pinguinos goes off on its own.  Unknown stakes, or all of a table's,
        are refused (400)."""
        game = self.game(game_id)
        table = bets.table_of(game, mode)
        wanted = sorted(set(disabled))

        def work(conn: Connection) -> tuple[int, dict]:
            variant = self.variant_for(conn, game)
            stakes = [b.stake for b in levels_for(game, variant, table)]
            where = "" if table == bets.BASE else f" in mode {table}"
            unknown = [s for s in wanted if s not in stakes]
            if unknown:
                raise bad_request(
                    f"{game.id} offers no stake {unknown}{where} (variant {variant}); offered: {stakes}",
                    "invalid_bet",
                )
            if len(wanted) == len(stakes):
                raise bad_request(
                    f"every stake of {game.id}{where} cannot be switched off: keep one on",
                    "all_bets_disabled",
                )
            store.put_setting(conn, bets.bets_key(game.id, table), json.dumps(wanted))
            return 200, self._bets_view(conn, game, table)

        body: dict[str, Any] = {"disabled": wanted}
        if table != bets.BASE:
            body["mode"] = table
        return self.idempotent(
            lambda conn: OPERATOR_SCOPE, key, fingerprint("PUT", f"/games/{game.id}/bets", body), work
        )

    def set_profile(self, name: str) -> dict:
        if name not in PROFILES:
            raise bad_request(f"unknown profile {name!r}; offered: {sorted(PROFILES)}", "invalid_profile")
        self.run(lambda conn: store.put_setting(conn, "profile", name))
        return {"profile": name}

    def get_profile(self) -> dict:
        return self.run(lambda conn: {"profile": self.profile(conn).name})

    def set_variant(self, game_id: str, variant: str) -> dict:
        game = self.game(game_id)
        if variant not in game.variants:
            raise bad_request(
                f"{game_id} has no RTP variant {variant!r}; offered: {game.variants}", "invalid_variant"
            )
        self.run(lambda conn: store.put_setting(conn, f"variant:{game.id}", variant))
        return {"game": game.id, "variant": variant}

    def ledger(self, external_id: str, limit: int, before: int | None) -> dict:
        def work(conn: Connection) -> dict:
            player = store.find_player(conn, external_id)
            query = select(t.ledger).where(t.ledger.c.player_id == player.id)
            if before is not None:
                query = query.where(t.ledger.c.id < before)
            rows = list(conn.execute(query.order_by(t.ledger.c.id.desc()).limit(limit)))
            return {
                "player": external_id,
                "balance": player.balance,
                "entries": [
                    {
                        "id": r.id,
                        "amount": r.amount,
                        "balance_after": r.balance_after,
                        "kind": r.kind,
                        "round_id": r.round_id,
                        "reference": r.reference,
                        "at": rs.iso(r.created_at),
                    }
                    for r in rows
                ],
            }

        return self.run(work)

    # -- rounds left waiting -----------------------------------------------------------------

    def complete_stale_rounds(self, older_than: float | None = None) -> int:
        """Finish rounds nobody has touched for ``pending_timeout_seconds`` with the default
        play; each default step is stored like any other.  Returns how many were finished."""
        cutoff = store.now() - (self.settings.pending_timeout_seconds if older_than is None else older_than)
        with self.engine.connect() as conn:
            stale = list(
                conn.execute(
                    select(t.rounds.c.id, t.rounds.c.player_id).where(
                        t.rounds.c.status == "pending", t.rounds.c.updated_at < cutoff
                    )
                )
            )
        done = 0
        for round_id, player_id in stale:

            def work(conn: Connection, round_id: int = round_id, player_id: int = player_id) -> bool:
                player = store.lock_player(conn, player_id)
                row = rs.round_row(conn, round_id)
                if row is None or row.status != "pending" or row.updated_at >= cutoff:
                    return False  # someone moved it on meanwhile
                game = self.game(row.game)
                rnd = Round.model_validate_json(row.state)
                balance = player.balance
                state_key = self._state_key(conn, game, round_id, rnd)
                while not rnd.complete:
                    rnd, _ = self._step(
                        conn, game, round_id, rnd, rnd.default_action(), "server", self.rng_factory()
                    )
                    balance = self._after_step(
                        conn, row.session_id, player.id, game, round_id, rnd, balance, "server", state_key
                    )
                return True

            if self.run(work):
                done += 1
        return done

    # -- checks used by tests and the load bench -------------------------------------------------

    def audit(self) -> dict[str, Any]:
        """Every balance equals its ledger's sum, and the ledger agrees with the rounds."""
        from sqlalchemy import func

        with self.engine.connect() as conn:
            ledger_sums = dict(
                conn.execute(
                    select(t.ledger.c.player_id, func.sum(t.ledger.c.amount)).group_by(t.ledger.c.player_id)
                ).all()
            )
            balances = dict(conn.execute(select(t.players.c.id, t.players.c.balance)).all())
            round_money = dict(
                conn.execute(
                    select(t.ledger.c.round_id, func.sum(t.ledger.c.amount))
                    .where(t.ledger.c.round_id.is_not(None))
                    .group_by(t.ledger.c.round_id)
                ).all()
            )
            rounds_rows = list(
                conn.execute(select(t.rounds.c.id, t.rounds.c.status, t.rounds.c.stake, t.rounds.c.win))
            )
            side = self._side_audit(conn)
            chain = self._state_chain_audit(conn)
        bad_balances = [p for p, b in balances.items() if b != int(ledger_sums.get(p, 0) or 0) or b < 0]
        bad_rounds = []
        for r in rounds_rows:
            expected = {"pending": -r.stake, "complete": r.win - r.stake, "voided": 0}[r.status]
            if int(round_money.get(r.id, 0) or 0) != expected:
                bad_rounds.append(r.id)
        return {
            "players": len(balances),
            "rounds": len(rounds_rows),
            "balances_match_ledger": not bad_balances,
            "rounds_match_ledger": not bad_rounds,
            "bad_players": bad_balances,
            "bad_rounds": bad_rounds,
            **side,
            **chain,
        }

    def _state_chain_audit(self, conn: Connection) -> dict[str, Any]:
        """Every player state (Bonuses, Los 3 Pinguinos' counter and accumulators, Gambini's
        piggies) moves only inside round steps: each round starts from the state the previous
        round of that state key left (a voided round leaves the state it found), and the stored
        state is what the last round left.  Anything else (a state edited behind the rounds)
        is listed."""
        r, st = t.rounds.c, t.round_steps.c
        rows = conn.execute(
            select(r.id, r.player_id, r.game, r.status, r.state, st.action)
            .join(t.round_steps, (st.round_id == r.id) & (st.step == 1))
            .order_by(r.id)
        )
        last: dict[tuple[int, str, str], Any] = {}
        broken: list[dict[str, Any]] = []
        for row in rows:
            game = self.games.get(row.game)
            start = json.loads(row.action) if row.action else {}
            if game is None or "stake" not in start:
                continue
            try:
                key = game.state_key(start["stake"], start.get("mode", "base"))
            except InvalidBet:
                continue
            if key is None:
                continue
            where = (row.player_id, row.game, key)
            found = start.get("player_state")
            if last.get(where) != found:
                broken.append({"round_id": row.id, "game": row.game, "state_key": key, "starts_from": found,
                               "previous_left": last.get(where)})  # fmt: skip
            left = json.loads(row.state).get("player_state")
            last[where] = found if row.status == "voided" else left
        ps = t.player_state.c
        seen = set()
        for row in conn.execute(select(ps.player_id, ps.game, ps.state_key, ps.state)):
            where = (row.player_id, row.game, row.state_key)
            seen.add(where)
            stored = json.loads(row.state)
            if row.game in self.games and last.get(where) != stored:
                broken.append({"player_id": row.player_id, "game": row.game, "state_key": row.state_key,
                               "stored": stored, "last_round_left": last.get(where)})  # fmt: skip
        for where, left in last.items():
            if left is not None and where not in seen:
                broken.append({"player_id": where[0], "game": where[1], "state_key": where[2],
                               "stored": None, "last_round_left": left})  # fmt: skip
        return {"player_states_follow_rounds": not broken, "bad_player_states": broken}

    def _side_audit(self, conn: Connection) -> dict[str, Any]:
        """Every stored side balance equals the sum of its side-ledger movements and is a
        non-negative integer; a voided round's movements add up to nothing."""
        from sqlalchemy import func

        sl = t.side_ledger
        sums: dict[tuple[int, str, str, str], int] = {
            (r.player_id, r.game, r.state_key, r.currency): int(r.total)
            for r in conn.execute(
                select(
                    sl.c.player_id,
                    sl.c.game,
                    sl.c.state_key,
                    sl.c.currency,
                    func.sum(sl.c.amount).label("total"),
                ).group_by(sl.c.player_id, sl.c.game, sl.c.state_key, sl.c.currency)
            )
        }
        side_games = self.side_games()
        moved_names: dict[tuple[int, str, str], set[str]] = {}
        for k in sums:
            moved_names.setdefault(k[:3], set()).add(k[3])
        games = set(side_games) | {k[1] for k in sums}
        stored: dict[tuple[int, str, str, str], Any] = {}
        if games:
            ps = t.player_state
            query = select(ps.c.player_id, ps.c.game, ps.c.state_key, ps.c.state)
            for r in conn.execute(query.where(ps.c.game.in_(sorted(games)))):
                state = json.loads(r.state) or {}
                where = (r.player_id, r.game, r.state_key)
                for name in set(side_games.get(r.game, ())) | moved_names.get(where, set()):
                    stored[(*where, name)] = state.get(name, 0)
        bad = []
        for k in sorted(set(sums) | set(stored)):
            value, moved = stored.get(k, 0), sums.get(k, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value != moved:
                bad.append(
                    {
                        "player_id": k[0],
                        "game": k[1],
                        "state_key": k[2],
                        "currency": k[3],
                        "stored": value,
                        "ledger": moved,
                    }
                )
        voided_nonzero = [
            r.round_id
            for r in conn.execute(
                select(sl.c.round_id, sl.c.currency, func.sum(sl.c.amount).label("total"))
                .join(t.rounds, t.rounds.c.id == sl.c.round_id)
                .where(t.rounds.c.status == "voided")
                .group_by(sl.c.round_id, sl.c.currency)
            )
            if r.total
        ]
        return {
            "side_balances_match_ledger": not bad and not voided_nonzero,
            "bad_side_balances": bad,
            "bad_side_rounds": sorted(set(voided_nonzero)),
        }


def wait_seconds(seconds: float) -> None:  # pragma: no cover - tiny indirection for tests
    time.sleep(seconds)
