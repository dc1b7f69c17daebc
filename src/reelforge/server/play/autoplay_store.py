"""Autoplay runs in the database: find, save, stop, and the view the player gets.  Shared by
the autoplay service and by rounds (a start by hand stops a running autoplay)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, select, update

from reelforge.engine.autoplay import Autoplay
from reelforge.server.core.errors import conflict
from reelforge.server.storage import schema as t
from reelforge.server.storage import store


def running(conn: Connection, player_id: int) -> Row | None:
    return conn.execute(
        select(t.autoplays).where(t.autoplays.c.player_id == player_id, t.autoplays.c.status == "running")
    ).first()


def require(conn: Connection, player_id: int) -> tuple[Row, Autoplay]:
    """The player's running autoplay, or 409."""
    row = running(conn, player_id)
    if row is None:
        raise conflict("no autoplay is running", "autoplay_not_running")
    return row, Autoplay.model_validate_json(row.state)


def save(conn: Connection, autoplay_id: int, ap: Autoplay) -> None:
    conn.execute(
        update(t.autoplays)
        .where(t.autoplays.c.id == autoplay_id)
        .values(
            state=ap.model_dump_json(),
            status="running" if ap.running else "stopped",
            updated_at=store.now(),
        )
    )


def view(autoplay_id: int, game_id: str, ap: Autoplay) -> dict[str, Any]:
    return {"id": autoplay_id, "game": game_id, **ap.model_dump()}


def cancel(conn: Connection, autoplay_id: int) -> dict[str, Any]:
    """Stop a running autoplay (``cancelled``), as pressing PLAY does: its view."""
    row = conn.execute(select(t.autoplays).where(t.autoplays.c.id == autoplay_id)).one()
    ap = Autoplay.model_validate_json(row.state)
    ap.stop("cancelled")
    save(conn, row.id, ap)
    return view(row.id, row.game, ap)


def stop_all(conn: Connection, player_id: int, ts: float) -> None:
    """Stop every running autoplay of the player, leaving its state as it was (a void)."""
    conn.execute(
        update(t.autoplays)
        .where(t.autoplays.c.player_id == player_id, t.autoplays.c.status == "running")
        .values(status="stopped", updated_at=ts)
    )
