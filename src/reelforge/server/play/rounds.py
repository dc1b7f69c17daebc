"""Rounds: start one, act in it, finish the ones left waiting.

A round's start checks the bet and the player's limits, takes the stake through the wallet,
draws its first step from the production RNG through a recorder, and stores the round, the
step, its draws and its events in the request's transaction; each action stores one more
step; the completing step pays the win through the wallet.  Nothing of an outcome leaves
before the commit.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, select

from reelforge.engine.game import Game, InsufficientSideBalance, bet_table, levels_for
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.money import InvalidBet, find_bet
from reelforge.rng import RandomSource, RecordingRandom
from reelforge.server.core import metrics
from reelforge.server.core.errors import ApiError, bad_request, conflict, forbidden, not_found
from reelforge.server.play import autoplay_store, bet_variants, bets, currencies
from reelforge.server.play import round_store as rs
from reelforge.server.play.context import ServerContext, fingerprint
from reelforge.server.play.profiles import is_bonus_buy
from reelforge.server.play.sessions import ME_SCOPE, PlayerContext, PlayerRow, Sessions
from reelforge.server.storage import schema as t
from reelforge.server.storage import store
from reelforge.server.storage.sql import q
from reelforge.server.wallets import webhooks
from reelforge.server.wallets.wallet import Account, stake_and_win

# The pre-checks of a start (``Rounds.prechecks``) as SQL columns, the player as ``{p}`` and
# its operator, whose settings these are, as ``{o}``.
PRECHECKS = (
    "(SELECT id FROM autoplays WHERE player_id = {p} AND game = :g AND status = 'running' LIMIT 1)"
    " AS autoplay_id, (SELECT id FROM rounds WHERE player_id = {p} AND game = :g"
    " AND status = 'pending' LIMIT 1) AS pending_id,"
    " (SELECT value FROM server_settings WHERE operator_id = {o} AND key = :vk) AS variant,"
    " (SELECT value FROM server_settings WHERE operator_id = {o} AND key = :bk) AS bet_variant,"
    " (SELECT value FROM server_settings WHERE operator_id = {o} AND key = :dk) AS disabled,"
    " (SELECT value FROM server_settings WHERE operator_id = {o} AND key = :dk || '@' ||"
    " (SELECT currency FROM players WHERE id = {p})) AS disabled_here,"
    " (SELECT value FROM server_settings WHERE operator_id = {o} AND key = :ck) AS currencies"
)
# The request's player as a row ``me`` (its ``id``), for the statements read with the lock;
# with its operator's id (``op``) for a start's pre-checks.
ME_ROW = "(SELECT player_id AS id FROM sessions WHERE token_hash = :h) me"
ME_OP_ROW = (
    "(SELECT s.player_id AS id, p.operator_id AS op FROM sessions s JOIN players p ON p.id = s.player_id"
    " WHERE s.token_hash = :h) me"
)


def precheck_params(game: Game, table: str, stake: int) -> dict[str, Any]:
    """PRECHECKS' settings: the game's variant, the bet's own (bet_variants.py), the table's
    stakes switched off (for every currency, and in the player's where the operator set its
    own), the currencies the game is offered in."""
    return {
        "g": game.id,
        "vk": bet_variants.game_key(game.id),
        "bk": bet_variants.bet_key(game.id, table, stake),
        "dk": bets.bets_key(game.id, table),
        "ck": currencies.currencies_key(game.id),
    }


def round_view(round_id: int, rnd: Round) -> dict[str, Any]:
    """The round as the player sees it."""
    view = rnd.public_view()
    view["id"] = round_id
    return view


class Rounds:
    def __init__(self, server: ServerContext, sessions: Sessions) -> None:
        self.server = server
        self.sessions = sessions

    # -- the player's requests ---------------------------------------------------------------

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
        # What the start reads besides the session and the player goes with the lock, in the
        # same round trip: the key's stored reply, the pre-checks, the player state, the id.
        reads = self.start_reads(game_id, stake, mode, key)

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            game = self.server.game_of(ctx.operator, game_id)
            pre = ctx.then[0] if reads else None
            # A start by hand stops a running autoplay of the game (pressing PLAY).
            round_id, rnd, balance, cancelled = self.open_round(
                conn, ctx, game, stake, mode, script, None, pre=pre
            )
            reply: dict[str, Any] = {"round": round_view(round_id, rnd), "balance": balance}
            if cancelled is not None:
                reply["autoplay"] = cancelled
            if rnd.complete and (closed := self.sessions.close_if_spent(conn, ctx)):
                reply["session_closed"] = closed
            return 201, reply

        return self.server.idempotent(
            self.sessions.scope(holder, token, reads), key, fingerprint("POST", "/rounds", body), work
        )

    def start_reads(
        self, game_id: str, stake: int, mode: str, key: str | None
    ) -> list[tuple[str, dict[str, Any]]] | None:
        """The statement a start reads with the lock (``Sessions.player_context(then=)``):
        the key's stored reply, :meth:`prechecks`, the player state the round starts from and
        (PostgreSQL) the round's id.  None where the game or mode is unknown or the stake's
        state key cannot be had (the request is refused later, in the order it always was,
        or :meth:`open_round` reads what it needs itself)."""
        game = self.server.games.get(game_id)
        if game is None or mode not in game.modes:
            return None
        try:
            table = bet_table(game, mode)
            state_key = game.state_key(stake, mode)
        except (InvalidBet, ValueError, KeyError):
            return None
        columns, join = store.stored_reply_columns(ME_SCOPE)
        state = store.PLAYER_STATE_SQL.format(p="me.id") if state_key is not None else "SELECT NULL"
        sql = (
            # bandit B608 is a false positive: SQL text made of constants, every value bound
            f"SELECT {columns}, {PRECHECKS.format(p='me.id', o='me.op')}, ({state}) AS player_state,"  # nosec B608
            f" {rs.next_round_id_sql(self.server.engine.dialect.name)} AS round_id"
            f" FROM {ME_OP_ROW}{join}"
        )
        params = {"idem_key": key, "sk": state_key, **precheck_params(game, table, stake)}
        return [(sql, params)]

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
        # The key's stored reply and the round are read with the lock, in its round trip.
        columns, join = store.stored_reply_columns(ME_SCOPE)
        reads = [
            (
                # bandit B608 is a false positive: SQL text made of constants, every value bound
                f"SELECT {columns}, r.* FROM {ME_ROW}{join}"  # nosec B608
                " LEFT JOIN rounds r ON r.id = :rid AND r.player_id = me.id",
                {"idem_key": key, "rid": round_id},
            )
        ]

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            row = ctx.then[0]
            if row is None or row.id is None:
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
            game = self.server.game(row.game)
            rnd = Round.model_validate_json(row.state)
            new, _ = self.step(conn, game, row.id, rnd, action, "player", self.server.source(script))
            balance = self.after_step(
                conn,
                ctx.session.id,
                ctx.player,
                game,
                row.id,
                new,
                ctx.balance,
                "player",
                rs.state_key(conn, game, row.id, new),
            )
            reply = {"round": round_view(row.id, new), "balance": balance}
            if new.complete and (closed := self.sessions.close_if_spent(conn, ctx)):
                reply["session_closed"] = closed
            return 200, reply

        return self.server.idempotent(
            self.sessions.scope(holder, token, reads),
            key,
            fingerprint("POST", f"/rounds/{round_id}/actions", body),
            work,
        )

    def pending(self, token: str | None, game_id: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            query = select(t.rounds).where(
                t.rounds.c.player_id == ctx.player.id, t.rounds.c.status == "pending"
            )
            if game_id is not None:
                query = query.where(t.rounds.c.game == game_id)
            return {"rounds": [rs.public_round(r) for r in conn.execute(query.order_by(t.rounds.c.id))]}

        return self.sessions.read(token, work)

    # -- rounds left waiting -----------------------------------------------------------------

    def complete_stale_rounds(self, older_than: float | None = None, operator_id: int | None = None) -> int:
        """Finish rounds nobody has touched for ``pending_timeout_seconds`` (or ``older_than``;
        0: every round in play) with the default play, of every operator or (``operator_id``)
        one's; each default step is stored like any other.  Returns how many were finished."""
        timeout = self.server.settings.pending_timeout_seconds if older_than is None else older_than
        cutoff = store.now() - timeout
        query = select(t.rounds.c.id, t.rounds.c.player_id).where(
            t.rounds.c.status == "pending", t.rounds.c.updated_at < cutoff
        )
        if operator_id is not None:
            mine = select(t.players.c.id).where(t.players.c.operator_id == operator_id)
            query = query.where(t.rounds.c.player_id.in_(mine.scalar_subquery()))
        with self.server.engine.connect() as conn:
            stale = list(conn.execute(query))
        done = 0
        for round_id, player_id in stale:

            def work(conn: Connection, round_id: int = round_id, player_id: int = player_id) -> bool:
                player = store.lock_player(conn, player_id)
                row = rs.round_row(conn, round_id)
                if row is None or row.status != "pending" or row.updated_at >= cutoff:
                    return False  # someone moved it on meanwhile
                game = self.server.game(row.game)
                rnd = Round.model_validate_json(row.state)
                balance = player.balance
                state_key = rs.state_key(conn, game, round_id, rnd)
                while not rnd.complete:
                    rnd, _ = self.step(
                        conn, game, round_id, rnd, rnd.default_action(), "server", self.server.rng_factory()
                    )
                    balance = self.after_step(
                        conn, row.session_id, player, game, round_id, rnd, balance, "server", state_key
                    )
                return True

            if self.server.run(work):
                done += 1
        return done

    # -- the steps, shared with autoplay -----------------------------------------------------

    def prechecks(self, conn: Connection, player: PlayerRow, game: Game, table: str, stake: int) -> Any:
        """In one query (PRECHECKS): a running autoplay of the game, a pending round of it, the
        game's variant, the bet's own, the stakes of the bet table ``table`` switched off (the
        player's operator's settings)."""
        params = {"p": player.id, "o": player.operator_id, **precheck_params(game, table, stake)}
        return q(conn, "SELECT " + PRECHECKS.format(p=":p", o=":o"), params).one()

    def open_round(
        self,
        conn: Connection,
        ctx: PlayerContext,
        game: Game,
        stake: int,
        mode: str,
        script: list[int] | None,
        autoplay_id: int | None,
        pre: Any = None,
    ) -> tuple[int, Round, int, dict[str, Any] | None]:
        """Checks, debit, first step, all in the caller's transaction.  Returns the round's id,
        the round, the balance and, for a start by hand (``autoplay_id`` None) while an autoplay
        of the game runs, that autoplay stopped: pressing PLAY stops it (Los 3 Pinguinos' seed,
        2.1).  It is stopped in this transaction, so a start refused for any reason leaves it
        running.

        ``stake`` is the bet level, what :meth:`Game.start` takes; the debit is
        ``game.cost(stake, mode)`` (a bought feature costs a multiple of the bet), and the
        round's ``stake`` field must say the same, since refunds and history read it.

        ``pre``: the row :meth:`start_reads` read with the lock (the pre-checks, the player
        state, the round id), or None to read them here."""
        if mode not in game.modes:
            raise bad_request(f"{game.id} has no mode {mode!r}; offered: {game.modes}", "invalid_mode")
        if is_bonus_buy(mode) and not ctx.profile.bonus_buy:
            raise forbidden("buying a feature is not allowed under this jurisdiction", "bonus_buy_forbidden")
        # A mode with bets of its own (Los 3 Pinguinos' upper game) is staked and switched off
        # from its own table: its stake 100 is not the base game's.
        table = bet_table(game, mode)
        checks = self.prechecks(conn, ctx.player, game, table, stake) if pre is None else pre
        # A round is in the player's wallet currency: a game not offered in it is refused first.
        currencies.check_offered(game, ctx.player.currency, currencies.offered_from(game, checks.currencies))
        running_autoplay, pending_id = checks.autoplay_id, checks.pending_id
        disabled = bets.parse_bets(checks.disabled if checks.disabled_here is None else checks.disabled_here)
        # The table shown is the game's variant's; the round is dealt at the bet's own variant
        # where the operator set one (the game's otherwise), and records it.
        shown = checks.variant or game.default_variant
        variant = checks.bet_variant or shown
        cancelled = None
        if running_autoplay is not None and autoplay_id is None:
            cancelled = autoplay_store.cancel(conn, running_autoplay)
        try:
            find_bet(levels_for(game, shown, mode), stake)
            cost = game.cost(stake, mode)
        except InvalidBet as exc:
            raise bad_request(str(exc), "invalid_bet") from None
        bets.check_enabled(game, stake, disabled, table)
        self.sessions.check_spend(ctx, cost)
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
        # Refused here, before any draw, on the balance the request found; the wallet's debit
        # below still has the last word (and may refuse, which undoes the whole start).
        if ctx.balance < cost:
            raise ApiError(
                402, "insufficient_funds", f"the balance {ctx.balance} does not cover the stake {cost}"
            )
        state_key = game.state_key(stake, mode)
        if pre is None:
            player_state = store.load_player_state(conn, ctx.player.id, game.id, state_key)
        else:
            player_state = None if pre.player_state is None else store.loads(pre.player_state)
        rec = RecordingRandom(self.server.source(script))
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
        expected = balance_before - cost + win
        actor = "autoplay" if autoplay_id else "player"
        wallet = self.server.wallet_for(ctx.operator)
        # A seamless wallet takes the stake here, outside this transaction (StakeFirst), and
        # names the id the round must have.
        reserved = wallet.round_id_for_stake(conn, ctx.player, cost)
        round_id = rs.insert_round(
            conn, ctx.player, ctx.session.id, autoplay_id, rnd, balance_before, expected, actor,
            reserved if reserved is not None or pre is None else pre.round_id,
        )  # fmt: skip
        start_action = {"name": "start", "stake": stake, "mode": mode, "player_state": player_state}
        rs.insert_step(conn, round_id, rnd, start_action, actor, rec.draws, rnd.events)
        # Just before the wallet's own change of the player's row (where that is ours, the two
        # go as one UPDATE: sql.combine).
        store.set_last_round_at(conn, ctx.player.id, ts)
        # The stake, and the win of a round over at its first step, in one wallet call where
        # the wallet has one (the ledger's: two statements that return nothing); the seamless
        # wallet books its stake taken beforehand, then queues the credit.
        balance = stake_and_win(
            wallet, conn, ctx.player, cost, win, round_id=round_id, balance=balance_before,
            debit_reference=f"round:{round_id}:stake", credit_reference=f"round:{round_id}:win",
        ).balance  # fmt: skip
        if rnd.complete:
            if not win:
                wallet.close_round(conn, ctx.player, round_id=round_id, reference=f"round:{round_id}:win")
            if balance != expected:  # a wallet that also moves money elsewhere
                rs.set_balance_after(conn, round_id, balance)
            webhooks.round_completed(
                conn, ctx.operator.settings, ctx.player, round_id, rnd, balance, actor, ctx.session.id
            )
        self.sessions.count_play(conn, ctx.session.id, cost, win)
        if rnd.player_state is not None and state_key is not None:
            if game.side_balances:
                store.record_side_movements(
                    conn, ctx.player.id, game.id, game.side_balances, state_key, round_id, rnd.step,
                    player_state, rnd.player_state,
                )  # fmt: skip
            store.save_player_state(conn, ctx.player.id, game.id, state_key, rnd.player_state)
        currency = ctx.player.currency
        self.server.after_commit(partial(metrics.round_started, game.id, mode, currency, cost))
        if rnd.complete:
            self.server.after_commit(partial(metrics.round_completed, game.id, mode, currency, win))
        return round_id, rnd, balance, cancelled

    def step(
        self,
        conn: Connection,
        game: Game,
        round_id: int,
        rnd: Round,
        action: Action,
        actor: str,
        rng: RandomSource,
    ) -> tuple[Round, list[tuple[int, int]]]:
        """One action on a round in play, its draws recorded and stored as the next step."""
        rec = RecordingRandom(rng)
        try:
            new = game.act(rnd, action, rec)
        except InvalidAction as exc:
            raise conflict(str(exc), "action_not_allowed") from None
        rs.insert_step(
            conn, round_id, new, action.model_dump(), actor, rec.draws, new.events[len(rnd.events) :]
        )
        return new, rec.draws

    def after_step(
        self,
        conn: Connection,
        session_id: int | None,
        player: Account,
        game: Game,
        round_id: int,
        rnd: Round,
        balance: int,
        completed_by: str,
        state_key: str | None,
    ) -> int:
        """Store a step's outcome; when the round completes, credit its win (once).  Side
        balances the step changed are recorded against the stored player state.  Returns the
        balance after the step (``balance`` is the one before it)."""
        if rnd.player_state is not None and state_key is not None:
            if game.side_balances:
                store.record_side_movements(
                    conn, player.id, game.id, game.side_balances, state_key, round_id, rnd.step,
                    store.load_player_state(conn, player.id, game.id, state_key), rnd.player_state,
                )  # fmt: skip
            store.save_player_state(conn, player.id, game.id, state_key, rnd.player_state)
        operator = self.server.operator_of(conn, player) if rnd.complete else None
        if rnd.complete and rnd.win:
            reference = f"round:{round_id}:win"
            balance = (
                self.server.wallet_for(operator)
                .credit(conn, player, rnd.win, round_id=round_id, reference=reference)
                .balance
            )
            if session_id is not None:
                self.sessions.count_play(conn, session_id, 0, rnd.win)
        elif rnd.complete:
            wallet = self.server.wallet_for(operator)
            wallet.close_round(conn, player, round_id=round_id, reference=f"round:{round_id}:win")
        rs.save_round(conn, round_id, rnd, balance, completed_by)
        if operator is not None:  # the round ended: the other place (open_round has the first)
            webhooks.round_completed(
                conn, operator.settings, player, round_id, rnd, balance, completed_by, session_id
            )
            count = partial(metrics.round_completed, game.id, rnd.mode, player.currency, rnd.win)
            self.server.after_commit(count)
        return balance
