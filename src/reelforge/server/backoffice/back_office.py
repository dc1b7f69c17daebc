"""The operator's back office: players and their cash (cash-in and cash-out on the server's
own ledger, the ledger listing), voiding a round in play, and the game configuration (the
jurisdiction profile, bets switched off; RTP variants are in
:mod:`reelforge.server.play.bet_variants`); plus demo sessions built from these.
History, recall and replay of rounds are in :mod:`reelforge.server.play.history`."""

from __future__ import annotations

import hashlib
import json
from functools import partial
from typing import Any

from sqlalchemy import Connection, Engine, Row, insert, select, update

from reelforge.engine.game import Game, levels_for
from reelforge.engine.round import Round
from reelforge.server.core import metrics
from reelforge.server.core.errors import bad_request, conflict, not_found
from reelforge.server.core.request_id import request_id
from reelforge.server.operators.accounts import DEFAULT_OPERATOR_ID, Operator
from reelforge.server.play import autoplay_store, bet_variants, bets, currencies
from reelforge.server.play import round_store as rs
from reelforge.server.play.context import ServerContext, fingerprint, operator_scope
from reelforge.server.play.profiles import PROFILES
from reelforge.server.play.sessions import Sessions
from reelforge.server.reports.report_theory import TheoryFn, no_theory, theoretical
from reelforge.server.reports.reports import ReportError, operator_report, report_engine
from reelforge.server.storage import schema as t
from reelforge.server.storage import store
from reelforge.server.storage.sql import q
from reelforge.server.wallets import seamless_books, webhooks

# A demo session's time limit where the profile requires limits (ES).
DEMO_TIME_LIMIT_S = 60 * 60


class BackOffice:
    def __init__(self, server: ServerContext, sessions: Sessions) -> None:
        self.server = server
        self.sessions = sessions
        self.report_theory: TheoryFn = theoretical  # tests swap in quick figures
        self._report_engine: Engine | None = None

    def check_operator(self, key: str | None) -> Operator:
        """The operator whose live key this is (401 otherwise, 403 when it is suspended)."""
        return self.server.operators.authenticate(key)

    # -- players and their cash --------------------------------------------------------------

    def create_player(self, op: Operator, external_id: str, currency: str) -> tuple[int, dict]:
        """Create the operator's player (201), or find it (200) when it exists in the same
        currency; in another currency it is refused (409 ``currency_mismatch``): a wallet has
        one currency, and one the operator does not offer is refused (400).  Two creates
        racing for one id both answer, one 201 and one 200 (no key is needed)."""
        allowed = op.settings.currencies
        if allowed is not None and currency not in allowed:
            raise bad_request(
                f"this casino's players hold {', '.join(allowed)}, not {currency}", "currency_not_offered"
            )

        def work(conn: Connection) -> tuple[int, dict]:
            created = q(
                conn,
                "INSERT INTO players (operator_id, external_id, currency, balance, created_at)"
                " VALUES (:o, :e, :c, 0, :ts) ON CONFLICT (operator_id, external_id) DO NOTHING RETURNING id",
                {"o": op.id, "e": external_id, "c": currency, "ts": store.now()},
            ).first()
            row = store.find_player(conn, op.id, external_id)
            if created is None and row.currency != currency:
                raise conflict(
                    f"player {external_id!r} exists with currency {row.currency}, not {currency}",
                    "currency_mismatch",
                )
            return (201 if created is not None else 200), self._player_view(row)

        return self.server.run(work)

    @staticmethod
    def _player_view(row: Row) -> dict[str, Any]:
        return {
            "id": row.id,
            "external_id": row.external_id,
            "currency": row.currency,
            "balance": row.balance,
        }

    def get_player(self, op: Operator, external_id: str) -> dict:
        return self.server.run(lambda conn: self._player_view(store.find_player(conn, op.id, external_id)))

    def wallet_move(
        self, op: Operator, key: str | None, external_id: str, amount: int, kind: str
    ) -> tuple[int, dict]:
        """The operator's cash-in (``deposit``) or cash-out (``withdrawal``): always on the
        server's own ledger, whichever wallet the rounds use."""
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise bad_request("amount must be a positive integer of minor units", "invalid_amount")
        signed = amount if kind == "deposit" else -amount
        body = {"player": external_id, "amount": amount, "kind": kind}

        def scope(conn: Connection) -> str:
            return operator_scope(store.find_player(conn, op.id, external_id, lock=True).id)

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, op.id, external_id)
            seamless_books.refuse_cash_move(conn, player.id)
            reference = f"op:{key}"
            balance = self.server.ledger.cash_move(conn, player, signed, kind, reference)
            # The row just written is the player's newest: the player is locked until the commit.
            (entry,) = self.server.ledger.entries(conn, player.id, 1, None)
            assert entry["reference"] == reference, entry
            return 200, {
                "player": external_id,
                "balance": balance,
                "amount": signed,
                "kind": kind,
                "entry": entry,
            }

        return self.server.idempotent(scope, key, fingerprint("POST", f"/wallet/{kind}", body), work)

    def ledger(self, op: Operator, external_id: str, limit: int, before: int | None) -> dict:
        """A page of the player's ledger, newest first; ``next_before`` pages on (None: the
        last page), as history does."""

        def work(conn: Connection) -> dict:
            player = store.find_player(conn, op.id, external_id)
            entries = self.server.ledger.entries(conn, player.id, limit + 1, before)
            more = len(entries) > limit
            entries = entries[:limit]
            return {
                "player": external_id,
                "currency": player.currency,
                "balance": player.balance,
                "entries": entries,
                "next_before": entries[-1]["id"] if more else None,
            }

        return self.server.run(work)

    def demo_terms(self) -> dict:
        """Demo mode only: what a demo session holds, and whether the profile needs the player
        to choose a time and a spend limit first (the browser client asks for them)."""
        settings = self.server.settings
        if not settings.demo_mode:
            raise not_found("demo sessions are not offered by this server")
        profile = self.server.run(lambda conn: self.server.profile(conn, DEFAULT_OPERATOR_ID))
        return {
            "profile": profile.name,
            "currency": profile.currency,
            "balance": settings.demo_balance,
            "requires_session_limits": profile.requires_session_limits,
            "time_limit_seconds": DEMO_TIME_LIMIT_S,
            "spend_limit": max(settings.demo_balance, 1),
        }

    def demo_session(
        self, key: str | None, time_limit_seconds: int | None = None, spend_limit: int | None = None
    ) -> tuple[int, dict]:
        """Demo mode only: a fresh player with play money and an open session, with the limits
        the player chose where given.  Built from the operator calls with keys derived from
        the request's, so a repeat is a no-op."""
        settings = self.server.settings
        if not settings.demo_mode:
            raise not_found("demo sessions are not offered by this server")
        key = store.check_key(key)
        player = "demo-" + hashlib.sha256(key.encode()).hexdigest()[:16]
        # Demo players are the deployment's own operator's; play money in the jurisdiction's
        # currency (ES: euros, GB: pounds).
        op = self.server.run(lambda conn: self.server.operator(conn, DEFAULT_OPERATOR_ID))
        profile = self.server.run(lambda conn: self.server.profile(conn, op.id))
        self.create_player(op, player, profile.currency)
        if settings.demo_balance:
            self.wallet_move(op, f"demo:{key}:credit", player, settings.demo_balance, "deposit")
        # Where the jurisdiction needs limits set before a session (ES), the player's (the
        # client asks for them: GET /demo); a call that brings none gets the ones a player
        # would most plainly choose: an hour, and the play money it holds.
        limits = (time_limit_seconds, spend_limit)
        if profile.requires_session_limits and None in limits:
            limits = (time_limit_seconds or DEMO_TIME_LIMIT_S, spend_limit or max(settings.demo_balance, 1))
        return self.sessions.open_session(op, f"demo:{key}:session", player, *limits)

    # -- voiding a round in play -------------------------------------------------------------

    def void_round(self, op: Operator, key: str | None, round_id: int, reason: str) -> tuple[int, dict]:
        """Close a round in play with no win: the stake goes back through the wallet, side
        balances and player state return to where the round found them, and the player's
        running autoplay stops."""

        def scope(conn: Connection) -> str:
            row = rs.round_row(conn, round_id, operator_id=op.id)
            if row is None:
                raise not_found(f"no round {round_id}")
            store.lock_player(conn, row.player_id)
            return operator_scope(row.player_id)  # a void names the round's player

        def work(conn: Connection) -> tuple[int, dict]:
            row = rs.round_row(conn, round_id)
            assert row is not None
            if row.status != "pending":
                raise conflict(
                    f"round {round_id} is {row.status}; only a round in play can be voided", "not_pending"
                )
            player = store.lock_player(conn, row.player_id)
            balance = (
                self.server.wallet_for(op)
                .refund(
                    conn,
                    player,
                    row.stake,
                    round_id=round_id,
                    reference=f"round:{round_id}:refund",
                    cancels=f"round:{round_id}:stake",
                )
                .balance
            )
            ts = store.now()
            step = row.step + 1
            side = self._reverse_side_movements(conn, row, step)
            event: dict[str, Any] = {"type": "void", "reason": reason, "refund": row.stake}
            self.server.after_commit(partial(metrics.round_voided, row.game, row.mode))
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
                    request_id=request_id(),
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
            autoplay_store.stop_all(conn, row.player_id, ts)
            webhooks.round_voided(conn, op.settings, player, row, reason, balance, side, ts)
            reply = {"round_id": round_id, "status": "voided", "refund": row.stake, "balance": balance}
            if side:
                reply["side"] = side
            return 200, reply

        return self.server.idempotent(
            scope, key, fingerprint("POST", f"/rounds/{round_id}/void", {"reason": reason}), work
        )

    def _restore_player_state(self, conn: Connection, row: Row) -> dict[str, Any] | None:
        """A void puts the player state back as the round found it (stored with its start
        step): Los 3 Pinguinos' counter and accumulators, Gambini's piggies, not only the side
        balances.  Exact, since no other round of the game can move that state while this one
        is in play.  Returns {"before": state at the void, "after": state restored}, or None
        when the game keeps no state for the round."""
        game = self.server.game(row.game)
        rnd = Round.model_validate_json(row.state)
        state_key = rs.state_key(conn, game, row.id, rnd)
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

    # -- game configuration ------------------------------------------------------------------

    def get_bets(
        self, op: Operator, game_id: str, mode: str | None = None, currency: str | None = None
    ) -> dict:
        """The stakes of a game's bet table and which are switched off: the base table, or
        (``mode``) the table of a mode with bets of its own; for every currency, or (``currency``)
        for rounds in one."""
        game = self.server.game_of(op, game_id)
        table = bets.table_of(game, mode)
        if currency is not None:
            currencies.check_currency(game, currency)
        return self.server.run(lambda conn: self._bets_view(conn, op.id, game, table, currency))

    def _bets_view(
        self, conn: Connection, op: int, game: Game, table: str = bets.BASE, currency: str | None = None
    ) -> dict[str, Any]:
        variant = self.server.variant_for(conn, game, op)
        own = bet_variants.own_variants(bet_variants.read_settings(conn, game, op), game)[table]
        disabled = self.server.disabled_bets(conn, game, op, table, currency)
        view = bets.view(game, variant, table, disabled, own)
        return view if currency is None else {**view, "currency": currency}

    def set_bets(
        self,
        op: Operator,
        key: str | None,
        game_id: str,
        disabled: list[int],
        mode: str | None = None,
        currency: str | None = None,
    ) -> tuple[int, dict]:
        """Switch off some stakes of a game's bet table (the list replaces the one before; []
        switches every stake on): the base table, or (``mode``) an own-bet mode's, so each
        upper bet of Los 3 Pinguinos goes off on its own; for every currency, or (``currency``)
        for rounds in one, whose own list then replaces the list for every currency.  Unknown
        stakes, all of a table's, or a currency the game has no tables in are refused (400)."""
        game = self.server.game_of(op, game_id)
        table = bets.table_of(game, mode)
        if currency is not None:
            currencies.check_currency(game, currency)
        wanted = sorted(set(disabled))

        def work(conn: Connection) -> tuple[int, dict]:
            variant = self.server.variant_for(conn, game, op.id)
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
            store.put_setting(
                conn, bets.bets_key(game.id, table, currency), json.dumps(wanted), operator_id=op.id
            )
            return 200, self._bets_view(conn, op.id, game, table, currency)

        body: dict[str, Any] = {"disabled": wanted}
        if table != bets.BASE:
            body["mode"] = table
        if currency is not None:
            body["currency"] = currency
        return self.server.idempotent(
            lambda conn: op.settings_scope(), key, fingerprint("PUT", f"/games/{game.id}/bets", body), work
        )

    def get_currencies(self, op: Operator, game_id: str) -> dict:
        """The currencies a game has tables in, and those the operator offers it in."""
        game = self.server.game_of(op, game_id)
        offered = self.server.run(lambda conn: self.server.offered_currencies(conn, game, op.id))
        return {"game": game.id, "currencies": list(game.currencies), "offered": offered}

    def set_currencies(
        self, op: Operator, key: str | None, game_id: str, wanted: list[str]
    ) -> tuple[int, dict]:
        """Offer a game in these of its currencies (the list replaces the one before); one it
        has no tables in, or none at all, is refused (400)."""
        game = self.server.game_of(op, game_id)
        chosen = currencies.check_choice(game, list(dict.fromkeys(wanted)))

        def work(conn: Connection) -> tuple[int, dict]:
            store.put_setting(conn, currencies.currencies_key(game.id), json.dumps(chosen), operator_id=op.id)
            return 200, {"game": game.id, "currencies": list(game.currencies), "offered": chosen}

        body = {"currencies": chosen}
        return self.server.idempotent(
            lambda conn: op.settings_scope(),
            key,
            fingerprint("PUT", f"/games/{game.id}/currencies", body),
            work,
        )

    def set_profile(self, op: Operator, name: str) -> dict:
        if name not in PROFILES:
            raise bad_request(f"unknown profile {name!r}; offered: {sorted(PROFILES)}", "invalid_profile")
        self.server.run(lambda conn: store.put_setting(conn, "profile", name, operator_id=op.id))
        return {"profile": name}

    def get_profile(self, op: Operator) -> dict:
        return self.server.run(lambda conn: {"profile": self.server.profile(conn, op.id).name})

    # -- reports -----------------------------------------------------------------------------

    def report(
        self,
        op: Operator | None,
        start: str | None,
        end: str | None,
        game: str | None,
        players: bool,
        theory: bool = True,
    ) -> dict:
        """The operator report (:func:`reelforge.server.reports.reports.operator_report`); a bad period
        is 400 ``invalid_report``.  Its first call per process computes the theoretical figures
        (up to a minute), after its one read transaction."""
        try:
            return operator_report(
                self.reports_db(),
                start=start,
                end=end,
                game=game,
                players=players,
                theory=self.report_theory if theory else no_theory,
                operator_id=None if op is None else op.id,
            )
        except ReportError as exc:
            raise bad_request(str(exc), "invalid_report") from None

    def reports_db(self) -> Engine:
        # On SQLite the server's engine begins IMMEDIATE (a write lock); a report reads a
        # snapshot through an engine of its own that begins deferred, and locks out no writer.
        engine = self.server.engine
        if engine.dialect.name != "sqlite":
            return engine
        if self._report_engine is None:
            self._report_engine = report_engine(self.server.settings.database_url())
        return self._report_engine
