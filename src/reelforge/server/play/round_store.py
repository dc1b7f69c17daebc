"""Rounds in the database: open, step, settle, void, and the views recall shows."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Row, select

from reelforge.engine.game import Game
from reelforge.engine.round import Round
from reelforge.server.core.request_id import request_id
from reelforge.server.storage import schema as t
from reelforge.server.storage.sql import q, x
from reelforge.server.storage.store import dumps, iso, now, side_value
from reelforge.server.wallets import seamless_books


def insert_round(
    conn: Connection,
    player: Row,
    session_id: int | None,
    autoplay_id: int | None,
    rnd: Round,
    balance_before: int,
    balance_after: int | None,
    completed_by: str,
    round_id: int | None = None,
) -> int:
    """The round's row; a round complete after its first step is stored closed already.
    ``round_id``: the id to store it under (one its seamless debit named, or one taken
    beforehand with :func:`next_round_id_sql`), so nothing has to be read back and the insert
    can go with the request's other writes; None: the database's next."""
    if round_id is None:
        round_id = seamless_books.reserved_round_id(conn)
    ts = now()
    done = rnd.complete
    params = {
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
    }
    columns = (
        "player_id, session_id, autoplay_id, game, game_version, variant, mode, stake, coin, status, win,"
        " step, balance_before, balance_after, state, created_at, updated_at, completed_at, completed_by"
    )
    values = (
        ":player_id, :session_id, :autoplay_id, :game, :game_version, :variant, :mode, :stake, :coin,"
        " :status, :win, :step, :balance_before, :balance_after, :state, :ts, :ts, :completed_at,"
        " :completed_by"
    )
    if round_id is not None:
        # bandit B608 is a false positive: SQL text made of constants, every value bound
        x(conn, f"INSERT INTO rounds (id, {columns}) VALUES (:id, {values})", {**params, "id": round_id})  # nosec B608
        return round_id
    # bandit B608 is a false positive: SQL text made of constants, every value bound
    return int(q(conn, f"INSERT INTO rounds ({columns}) VALUES ({values}) RETURNING id", params).scalar_one())  # nosec B608


def next_round_id_sql(dialect: str) -> str:
    """SQL for the next round id, to read with a request's first statements (PostgreSQL's
    sequence; None elsewhere: SQLite assigns it at the insert, where reading it back costs
    no round trip)."""
    if dialect == "postgresql":
        # The SERIAL column's sequence, as migration 0001 made it (a constant the prepared
        # statement resolves once; pg_get_serial_sequence would look it up at every call).
        return "nextval('rounds_id_seq')"
    return "NULL"


def insert_step(
    conn: Connection,
    round_id: int,
    rnd: Round,
    action: dict[str, Any] | None,
    actor: str,
    draws: list[tuple[int, int]],
    new_events: list[dict[str, Any]],
) -> None:
    x(
        conn,
        "INSERT INTO round_steps (round_id, step, action, actor, draws, events, win_after, created_at,"
        " request_id) VALUES (:round_id, :step, :action, :actor, :draws, :events, :win_after, :created_at,"
        " :request_id)",
        {
            "round_id": round_id,
            "step": rnd.step,
            "action": None if action is None else dumps(action),
            "actor": actor,
            "draws": dumps([list(d) for d in draws]),
            "events": dumps(new_events),
            "win_after": rnd.win,
            "created_at": now(),
            "request_id": request_id(),  # none for the sweeper's steps (observability.py)
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
        x(
            conn,
            "UPDATE rounds SET state = :state, step = :step, win = :win, updated_at = :ts,"
            " status = 'complete', balance_after = :balance_after, completed_at = :ts,"
            " completed_by = :completed_by WHERE id = :id",
            params,
        )
    else:
        x(
            conn,
            "UPDATE rounds SET state = :state, step = :step, win = :win, updated_at = :ts WHERE id = :id",
            params,
        )


def set_balance_after(conn: Connection, round_id: int, balance: int) -> None:
    """Correct a closed round's final balance to what the wallet reported."""
    x(conn, "UPDATE rounds SET balance_after = :b WHERE id = :id", {"b": balance, "id": round_id})


def bet_stake(conn: Connection, round_id: int, rnd: Round) -> int:
    """The bet level a stored round was opened at (what ``state_key`` takes): the round's
    stake for a plain spin, the start action's stake when the round cost more (a buy)."""
    if rnd.mode == "base":
        return rnd.stake
    action = conn.execute(
        select(t.round_steps.c.action).where(t.round_steps.c.round_id == round_id, t.round_steps.c.step == 1)
    ).scalar_one()
    return int(json.loads(action)["stake"])


def state_key(conn: Connection, game: Game, round_id: int, rnd: Round) -> str | None:
    """The key of the player state a stored round plays with (None: the game keeps none)."""
    return game.state_key(bet_stake(conn, round_id, rnd), rnd.mode)


def round_row(
    conn: Connection, round_id: int, player_id: int | None = None, *, operator_id: int | None = None
) -> Row | None:
    """The round, if it is the player's (``player_id``) or its operator's (``operator_id``)."""
    if operator_id is not None:
        return q(
            conn,
            "SELECT r.* FROM rounds r JOIN players p ON p.id = r.player_id"
            " WHERE r.id = :id AND p.operator_id = :o",
            {"id": round_id, "o": operator_id},
        ).first()
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


def side_summaries(
    conn: Connection, rows: list[Row], side_games: dict[str, tuple[str, ...]]
) -> dict[int, dict[str, dict[str, int]]]:
    """For the rounds of games with side balances: {round id: {currency: {before, after}}}.
    ``before`` is the value the round started from (the player state its start step recorded),
    ``after`` that plus the round's movements in the side ledger (a void's reversal included)."""
    ids = [r.id for r in rows if side_games.get(r.game)]
    if not ids:
        return {}
    params = {f"r{i}": rid for i, rid in enumerate(ids)}
    marks = ", ".join(f":r{i}" for i in range(len(ids)))
    starts = {
        r.round_id: json.loads(r.action).get("player_state")
        for r in q(
            conn,
            # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
            f"SELECT round_id, action FROM round_steps WHERE step = 1 AND round_id IN ({marks})",  # nosec B608
            params,
        ).all()
    }
    moved: dict[tuple[int, str], int] = {
        (r.round_id, r.currency): int(r.total)
        for r in q(
            conn,
            # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
            "SELECT round_id, currency, SUM(amount) AS total FROM side_ledger"  # nosec B608
            f" WHERE round_id IN ({marks}) GROUP BY round_id, currency",
            params,
        ).all()
    }
    out: dict[int, dict[str, dict[str, int]]] = {}
    for r in rows:
        if r.id not in starts:
            continue
        view = {}
        for currency in side_games[r.game]:
            before = side_value(starts[r.id], currency)
            view[currency] = {"before": before, "after": before + moved.get((r.id, currency), 0)}
        out[r.id] = view
    return out


def recall(conn: Connection, row: Row, *, with_draws: bool, side: tuple[str, ...] = ()) -> dict[str, Any]:
    """The whole round, step by step, as recall shows it.  Draws are shown only once the
    round is over (a pending round's draws could reveal hidden state).  For a game with side
    balances (``side``), the round shows each one's before/after and every step its moves."""
    moves: dict[int, dict[str, dict[str, int]]] = {}
    if side:
        for m in q(
            conn,
            "SELECT step, currency, amount, balance_after FROM side_ledger WHERE round_id = :id ORDER BY id",
            {"id": row.id},
        ).all():
            moves.setdefault(m.step, {})[m.currency] = {"amount": m.amount, "balance_after": m.balance_after}
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
        if s.request_id is not None:
            step["request_id"] = s.request_id
        if with_draws:
            step["draws"] = json.loads(s.draws)
        if side:
            step["side"] = moves.get(s.step, {})
        steps.append(step)
    out = summary(row)
    if side:
        out["side"] = side_summaries(conn, [row], {row.game: side}).get(row.id, {})
    out["steps"] = steps
    out["round"] = public_round(row)
    return out


def step_rows(conn: Connection, round_id: int) -> list[Row]:
    return list(
        conn.execute(
            select(t.round_steps).where(t.round_steps.c.round_id == round_id).order_by(t.round_steps.c.step)
        )
    )
