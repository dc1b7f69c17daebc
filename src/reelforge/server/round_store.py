"""Rounds in the database: open, step, settle, void, and the views recall shows."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Row, select

from reelforge.engine.round import Round
from reelforge.server import schema as t
from reelforge.server.sql import q
from reelforge.server.store import dumps, now


def iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")


def insert_round(
    conn: Connection,
    player: Row,
    session_id: int | None,
    autoplay_id: int | None,
    rnd: Round,
    balance_before: int,
    balance_after: int | None,
    completed_by: str,
) -> int:
    """The round's row; a round complete after its first step is stored closed already."""
    ts = now()
    done = rnd.complete
    return int(
        q(
            conn,
            "INSERT INTO rounds (player_id, session_id, autoplay_id, game, game_version, variant, mode,"
            " stake, coin, status, win, step, balance_before, balance_after, state, created_at,"
            " updated_at, completed_at, completed_by) VALUES (:player_id, :session_id, :autoplay_id,"
            " :game, :game_version, :variant, :mode, :stake, :coin, :status, :win, :step,"
            " :balance_before, :balance_after, :state, :ts, :ts, :completed_at, :completed_by)"
            " RETURNING id",
            {
                "player_id": player.id,
                "session_id": session_id,
                "autoplay_id": autoplay_id,
                "game": rnd.game,
                "game_version": rnd.game_version,
                "variant": rnd.variant,
                "mode": rnd.mode,
                "stake": rnd.stake,
                "coin": rnd.coin,
                "status": rnd.status,
                "win": rnd.win,
                "step": rnd.step,
                "balance_before": balance_before,
                "balance_after": balance_after if done else None,
                "state": rnd.model_dump_json(),
                "ts": ts,
                "completed_at": ts if done else None,
                "completed_by": completed_by if done else None,
            },
        ).scalar_one()
    )


def insert_step(
    conn: Connection,
    round_id: int,
    rnd: Round,
    action: dict[str, Any] | None,
    actor: str,
    draws: list[tuple[int, int]],
    new_events: list[dict[str, Any]],
) -> None:
    q(
        conn,
        "INSERT INTO round_steps (round_id, step, action, actor, draws, events, win_after, created_at)"
        " VALUES (:round_id, :step, :action, :actor, :draws, :events, :win_after, :created_at)",
        {
            "round_id": round_id,
            "step": rnd.step,
            "action": None if action is None else dumps(action),
            "actor": actor,
            "draws": dumps([list(d) for d in draws]),
            "events": dumps(new_events),
            "win_after": rnd.win,
            "created_at": now(),
        },
    )


def save_round(conn: Connection, round_id: int, rnd: Round, balance_after: int, completed_by: str) -> None:
    """Store the round's new state; a complete round is closed with its final balance."""
    ts = now()
    params: dict[str, Any] = {
        "id": round_id,
        "state": rnd.model_dump_json(),
        "step": rnd.step,
        "win": rnd.win,
        "ts": ts,
    }
    if rnd.complete:
        params.update(balance_after=balance_after, completed_by=completed_by)
        q(
            conn,
            "UPDATE rounds SET state = :state, step = :step, win = :win, updated_at = :ts,"
            " status = 'complete', balance_after = :balance_after, completed_at = :ts,"
            " completed_by = :completed_by WHERE id = :id",
            params,
        )
    else:
        q(
            conn,
            "UPDATE rounds SET state = :state, step = :step, win = :win, updated_at = :ts WHERE id = :id",
            params,
        )


def round_row(conn: Connection, round_id: int, player_id: int | None = None) -> Row | None:
    if player_id is None:
        return q(conn, "SELECT * FROM rounds WHERE id = :id", {"id": round_id}).first()
    return q(
        conn, "SELECT * FROM rounds WHERE id = :id AND player_id = :p", {"id": round_id, "p": player_id}
    ).first()


def summary(row: Row) -> dict[str, Any]:
    """One line of history."""
    return {
        "id": row.id,
        "game": row.game,
        "game_version": row.game_version,
        "variant": row.variant,
        "mode": row.mode,
        "stake": row.stake,
        "win": row.win,
        "status": row.status,
        "steps": row.step,
        "balance_before": row.balance_before,
        "balance_after": row.balance_after,
        "started_at": iso(row.created_at),
        "completed_at": iso(row.completed_at),
        "completed_by": row.completed_by,
        "autoplay_id": row.autoplay_id,
    }


def public_round(row: Row) -> dict[str, Any]:
    view = Round.model_validate_json(row.state).public_view()
    view["id"] = row.id
    return view


def recall(conn: Connection, row: Row, *, with_draws: bool) -> dict[str, Any]:
    """The whole round, step by step, as recall shows it.  Draws are shown only once the
    round is over (a pending round's draws could reveal hidden state)."""
    steps = []
    for s in conn.execute(
        select(t.round_steps).where(t.round_steps.c.round_id == row.id).order_by(t.round_steps.c.step)
    ):
        step: dict[str, Any] = {
            "step": s.step,
            "at": iso(s.created_at),
            "actor": s.actor,
            "action": None if s.action is None else json.loads(s.action),
            "events": json.loads(s.events),
            "win_after": s.win_after,
        }
        if with_draws:
            step["draws"] = json.loads(s.draws)
        steps.append(step)
    out = summary(row)
    out["steps"] = steps
    out["round"] = public_round(row)
    return out


def step_rows(conn: Connection, round_id: int) -> list[Row]:
    return list(
        conn.execute(
            select(t.round_steps).where(t.round_steps.c.round_id == round_id).order_by(t.round_steps.c.step)
        )
    )
