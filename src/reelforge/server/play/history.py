"""Looking back at rounds: history (a page of round summaries), recall (one round step by
step) and replay (a finished round re-dealt from its stored draws), for the player (their
own rounds) and the operator (any round, hidden state included)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Row, select

from reelforge.engine.round import Action, InvalidAction
from reelforge.money import InvalidBet
from reelforge.rng import ReplayError, ReplayRandom
from reelforge.server.core.errors import bad_request, conflict, not_found
from reelforge.server.operators.accounts import Operator
from reelforge.server.play import round_store as rs
from reelforge.server.play.context import ServerContext
from reelforge.server.play.sessions import PlayerContext, Sessions
from reelforge.server.storage import schema as t
from reelforge.server.storage import store


class RoundHistory:
    def __init__(self, server: ServerContext, sessions: Sessions) -> None:
        self.server = server
        self.sessions = sessions

    # -- the player's own rounds -------------------------------------------------------------

    def player_history(self, token: str | None, limit: int, before: int | None) -> dict:
        return self.sessions.read(token, lambda conn, ctx: self.history(conn, ctx.player.id, limit, before))

    def player_recall(self, token: str | None, round_id: int) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            row = rs.round_row(conn, round_id, ctx.player.id)
            if row is None:
                raise not_found(f"no round {round_id} for this player")
            return self.recall(conn, row, with_draws=row.status != "pending")

        return self.sessions.read(token, work)

    def player_replay(self, token: str | None, round_id: int) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            row = rs.round_row(conn, round_id, ctx.player.id)
            if row is None:
                raise not_found(f"no round {round_id} for this player")
            return self.replay(conn, row)

        return self.sessions.read(token, work)

    # -- the operator's view: any round ------------------------------------------------------

    def operator_history(self, op: Operator, external_id: str, limit: int, before: int | None) -> dict:
        return self.server.run(
            lambda conn: self.history(conn, store.find_player(conn, op.id, external_id).id, limit, before)
        )

    def operator_recall(self, op: Operator, round_id: int) -> dict:
        def work(conn: Connection) -> dict:
            row = rs.round_row(conn, round_id, operator_id=op.id)
            if row is None:
                raise not_found(f"no round {round_id}")
            out = self.recall(conn, row, with_draws=True)
            out["player"] = conn.execute(
                select(t.players.c.external_id).where(t.players.c.id == row.player_id)
            ).scalar()
            out["state"] = json.loads(row.state)["state"]  # hidden state too: the operator sees all
            return out

        return self.server.run(work)

    def operator_replay(self, op: Operator, round_id: int) -> dict:
        def work(conn: Connection) -> dict:
            row = rs.round_row(conn, round_id, operator_id=op.id)
            if row is None:
                raise not_found(f"no round {round_id}")
            return self.replay(conn, row)

        return self.server.run(work)

    def operator_pending(self, op: Operator, game_id: str | None, limit: int, before: int | None) -> dict:
        """Rounds in play across players, newest first, for support: each one's history line,
        the player, and how long it has waited since its last step; ``next_before`` pages on."""
        if not 1 <= limit <= 100:
            raise bad_request("limit must be between 1 and 100", "invalid_limit")

        def work(conn: Connection) -> dict:
            r, p = t.rounds, t.players
            query = (
                select(r, p.c.external_id.label("player_external_id"))
                .join(p, p.c.id == r.c.player_id)
                .where(r.c.status == "pending", p.c.operator_id == op.id)
            )
            if game_id is not None:
                query = query.where(r.c.game == game_id)
            if before is not None:
                query = query.where(r.c.id < before)
            rows = list(conn.execute(query.order_by(r.c.id.desc()).limit(limit + 1)))
            more = len(rows) > limit
            rows = rows[:limit]
            at = store.now()
            out = []
            for row in rows:
                line = rs.summary(row)
                line.update(
                    player=row.player_external_id,
                    session_id=row.session_id,
                    updated_at=rs.iso(row.updated_at),
                    waiting_seconds=round(at - row.updated_at, 1),
                )
                out.append(line)
            return {"rounds": out, "next_before": rows[-1].id if more else None}

        return self.server.run(work)

    # -- shared ------------------------------------------------------------------------------

    def history(self, conn: Connection, player_id: int, limit: int, before: int | None) -> dict:
        if not 1 <= limit <= 100:
            raise bad_request("limit must be between 1 and 100", "invalid_limit")
        query = select(t.rounds).where(t.rounds.c.player_id == player_id)
        if before is not None:
            query = query.where(t.rounds.c.id < before)
        rows = list(conn.execute(query.order_by(t.rounds.c.id.desc()).limit(limit + 1)))
        more = len(rows) > limit
        rows = rows[:limit]
        side = rs.side_summaries(conn, rows, self.server.side_games())
        out = []
        for r in rows:
            line = rs.summary(r)
            if r.id in side:
                line["side"] = side[r.id]
            out.append(line)
        return {"rounds": out, "next_before": rows[-1].id if more else None}

    def recall(self, conn: Connection, row: Row, *, with_draws: bool) -> dict[str, Any]:
        return rs.recall(conn, row, with_draws=with_draws, side=self.server.side_games().get(row.game, ()))

    def replay(self, conn: Connection, row: Row) -> dict:
        """Re-deal a finished round from its stored draws and actions; marked as a replay."""
        if row.status == "pending":
            raise conflict("a round still in play cannot be replayed", "round_pending")
        game = self.server.game(row.game)
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
