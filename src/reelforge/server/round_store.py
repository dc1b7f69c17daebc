"""Rounds in the database: open, step, settle, void, and the views recall shows."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from reelforge.engine.round import Round
from reelforge.server import schema as t
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
    return int(
        conn.execute(
            insert(t.rounds)
            .values(
                player_id=player.id,
                session_id=session_id,
                autoplay_id=autoplay_id,
                game=rnd.game,
                game_version=rnd.game_version,
                variant=rnd.variant,
                mode=rnd.mode,
                stake=rnd.stake,
                coin=rnd.coin,
                status=rnd.status,
                win=rnd.win,
                step=rnd.step,
                balance_before=balance_before,
                balance_after=balance_after if rnd.complete else None,
                state=rnd.model_dump_json(),
                created_at=ts,
                updated_at=ts,
                completed_at=ts if rnd.complete else None,
                completed_by=completed_by if rnd.complete else None,
            )
            .returning(t.rounds.c.id)
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
    conn.execute(
        insert(t.round_steps).values(
            round_id=round_id,
            step=rnd.step,
            action=None if action is None else dumps(action),
            actor=actor,
            draws=dumps([list(d) for d in draws]),
            events=dumps(new_events),
            win_after=rnd.win,
            created_at=now(),
        )
    )


def save_round(conn: Connection, round_id: int, rnd: Round, balance_after: int, completed_by: str) -> None:
    """Store the round's new state; a complete round is closed with its final balance."""
    values: dict[str, Any] = {
        "state": rnd.model_dump_json(),
        "step": rnd.step,
        "win": rnd.win,
        "updated_at": now(),
    }
    if rnd.complete:
        values.update(
            status="complete",
            balance_after=balance_after,
            completed_at=values["updated_at"],
            completed_by=completed_by,
        )
    conn.execute(update(t.rounds).where(t.rounds.c.id == round_id).values(**values))


def round_row(conn: Connection, round_id: int, player_id: int | None = None) -> Row | None:
    query = select(t.rounds).where(t.rounds.c.id == round_id)
    if player_id is not None:
        query = query.where(t.rounds.c.player_id == player_id)
    return conn.execute(query).first()


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
