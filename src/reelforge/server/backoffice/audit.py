"""The books' self-check, used by the tests and the load bench: every balance equals its
ledger's sum, the ledger agrees with the rounds, every side balance equals its movements, and
every player state moves only inside round steps."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, func, select

from reelforge.money import InvalidBet
from reelforge.server.play.context import ServerContext
from reelforge.server.storage import schema as t
from reelforge.server.wallets import seamless_books


class Audit:
    def __init__(self, server: ServerContext) -> None:
        self.server = server

    def check(self) -> dict[str, Any]:
        """Every balance equals its ledger's sum, and the ledger agrees with the rounds."""
        with self.server.engine.connect() as conn:
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
            wallet = seamless_books.audit(conn)
        # A seamless player's balance is our running figure of the operator's money: the
        # ledger's sum too (its reconciliations are ledger rows), but the operator's debit, not
        # ours, decides whether it may go below zero.
        seamless = set(wallet["seamless_players"])
        bad_balances = [
            p
            for p, b in balances.items()
            if b != int(ledger_sums.get(p, 0) or 0) or (b < 0 and p not in seamless)
        ]
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
            **wallet,
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
            game = self.server.games.get(row.game)
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
            if row.game in self.server.games and last.get(where) != stored:
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
        side_games = self.server.side_games()
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
