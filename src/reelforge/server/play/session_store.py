"""Sessions in the database, below the services: closing one (the one place a session
closes, so each close sends its ``session.closed`` webhook once), the sessions a player
holds live, and the operator's view of a session.  Every function runs in the caller's
transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from reelforge.server.operators.directory import Directory
from reelforge.server.storage.sql import q
from reelforge.server.storage.store import iso, now
from reelforge.server.wallets import webhooks

REPLACED = "replaced"
REVOKED = "revoked by the operator"
MAX_REASON = 64  # sessions.close_reason

_COLUMNS = (
    "id, player_id, profile, created_at, expires_at, closed_at, close_reason, time_limit_seconds,"
    " spend_limit, staked, won, reality_check_seconds, limits_url"
)
# Usable by its token now: not closed, not expired, its time limit not passed.
_LIVE = (
    "closed_at IS NULL AND expires_at > :now"
    " AND (time_limit_seconds IS NULL OR created_at + time_limit_seconds > :now)"
)


def close(
    conn: Connection, directory: Directory, session_id: int, reason: str, at: float | None = None
) -> bool:
    """Close a session that is not closed yet (with ``reason``, at most 64 characters) and
    enqueue its webhook to its operator; False if it was already closed (nothing happens then)."""
    ts = now() if at is None else at
    row = q(
        conn,
        "UPDATE sessions SET closed_at = :ts, close_reason = :reason WHERE id = :id AND closed_at IS NULL"
        " RETURNING id, player_id, profile, created_at, staked, won",
        {"ts": ts, "reason": reason[:MAX_REASON], "id": session_id},
    ).first()
    if row is None:
        return False
    player = q(
        conn, "SELECT external_id, currency, operator_id FROM players WHERE id = :id", {"id": row.player_id}
    ).one()
    target = directory.get(conn, player.operator_id).settings
    if webhooks.enabled(target):
        webhooks.session_closed(conn, target, row, player, reason[:MAX_REASON], ts)
    return True


def live(conn: Connection, player_id: int, at: float | None = None) -> list[Any]:
    """The player's sessions a token can still use, oldest first."""
    return q(
        conn,
        # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
        f"SELECT {_COLUMNS} FROM sessions WHERE player_id = :p AND {_LIVE} ORDER BY id",  # nosec B608
        {"p": player_id, "now": now() if at is None else at},
    ).all()


def replace_others(conn: Connection, directory: Directory, player_id: int, keep: int, at: float) -> list[int]:
    """Before a new session opens: close the player's oldest live sessions (``replaced``) so
    that at most ``keep`` others stay live; the ids closed."""
    sessions = live(conn, player_id, at)
    excess = sessions[: max(0, len(sessions) - keep)]
    return [s.id for s in excess if close(conn, directory, s.id, REPLACED, at)]


def find(conn: Connection, player_id: int, session_id: int) -> Any | None:
    return q(
        conn,
        # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
        f"SELECT {_COLUMNS} FROM sessions WHERE id = :id AND player_id = :p",  # nosec B608
        {"id": session_id, "p": player_id},
    ).first()


def page(
    conn: Connection, player_id: int, open_: bool | None, limit: int, before: int | None, at: float
) -> tuple[list[Any], int | None]:
    """A page of the player's sessions, newest first (``open_``: only the live ones, or only
    the others), and the cursor to the next page."""
    where = ["player_id = :p"]
    if before is not None:
        where.append("id < :before")
    if open_ is True:
        where.append(_LIVE)
    elif open_ is False:
        where.append(f"NOT ({_LIVE})")
    rows = q(
        conn,
        # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
        f"SELECT {_COLUMNS} FROM sessions WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT :n",  # nosec B608
        {"p": player_id, "before": before, "now": at, "n": limit + 1},
    ).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, rows[-1].id if more else None


def view(row: Any, at: float) -> dict[str, Any]:
    """A session as the operator sees it.  ``state``: ``open`` (its token works), ``closed``
    or ``expired`` (past ``expires_at``, never closed).  A time limit that passed unnoticed
    (the player did not come back) shows as closed, at the limit, as the next request would
    record it."""
    closed_at, reason = row.closed_at, row.close_reason
    if closed_at is not None:
        state = "closed"
    elif row.time_limit_seconds is not None and at - row.created_at >= row.time_limit_seconds:
        state, closed_at, reason = "closed", row.created_at + row.time_limit_seconds, "time limit reached"
    elif at >= row.expires_at:
        state = "expired"
    else:
        state = "open"
    return {
        "id": row.id,
        "state": state,
        "open": state == "open",
        "profile": row.profile,
        "created_at": iso(row.created_at),
        "expires_at": iso(row.expires_at),
        "closed_at": iso(closed_at),
        "close_reason": reason,
        "staked": row.staked,
        "won": row.won,
        "net_position": row.won - row.staked,
        "time_limit_seconds": row.time_limit_seconds,
        "spend_limit": row.spend_limit,
        "reality_check_seconds": row.reality_check_seconds,
        "limits_url": row.limits_url,
    }
