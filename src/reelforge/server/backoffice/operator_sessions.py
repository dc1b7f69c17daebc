"""The operator's view of a player's sessions: list them, and revoke one or all (a player who
self-excludes, a token that leaked).

A revoked session is closed like any other (``closed_at``, ``close_reason``): its token gets
the error every closed session gets (403 ``session_closed``, "the session is closed: revoked
by the operator"), and a ``session.closed`` webhook goes out.  Rounds belong to the player, not
the session, so a round in play when its session was revoked is waiting for the player in the
next session (``GET /rounds/pending``); the player's autoplay of a revoked session stops.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

from reelforge.server.core.errors import bad_request, conflict, not_found
from reelforge.server.operators.accounts import Operator
from reelforge.server.play import autoplay_store, session_store
from reelforge.server.play.context import ServerContext, fingerprint, operator_scope
from reelforge.server.storage import store


class OperatorSessions:
    def __init__(self, server: ServerContext) -> None:
        self.server = server

    def list_sessions(
        self, op: Operator, external_id: str, open_: bool | None, limit: int, before: int | None
    ) -> dict:
        """A page of the player's sessions, newest first (``open_``: only the live ones, or
        only the others); ``next_before`` pages on, as history does."""
        if not 1 <= limit <= 100:
            raise bad_request("limit must be between 1 and 100", "invalid_limit")

        def work(conn: Connection) -> dict:
            player = store.find_player(conn, op.id, external_id)
            at = store.now()
            rows, next_before = session_store.page(conn, player.id, open_, limit, before, at)
            return {
                "player": external_id,
                "sessions": [session_store.view(r, at) for r in rows],
                "next_before": next_before,
            }

        return self.server.run(work)

    def revoke(
        self, op: Operator, key: str | None, external_id: str, session_id: int, reason: str
    ) -> tuple[int, dict]:
        """Close one live session of the player; 404 for a session of another player, 409
        ``session_not_open`` for one already closed or expired."""

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, op.id, external_id)
            at = store.now()
            row = session_store.find(conn, player.id, session_id)
            if row is None:
                raise not_found(f"no session {session_id} for player {external_id!r}")
            seen = session_store.view(row, at)
            if not seen["open"]:
                why = f": {seen['close_reason']}" if seen["close_reason"] else ""
                raise conflict(f"session {session_id} is already {seen['state']}{why}", "session_not_open")
            self._close(conn, player.id, [row.id], reason, at)
            return 200, {"player": external_id, "session": self._view(conn, player.id, row.id, at)}

        body = {"player": external_id, "session": session_id, "reason": reason}
        return self.server.idempotent(
            self._scope(op, external_id), key, fingerprint("POST", "/sessions/revoke", body), work
        )

    def revoke_all(self, op: Operator, key: str | None, external_id: str, reason: str) -> tuple[int, dict]:
        """Close every live session of the player (none is fine: 200 with ``revoked: []``)."""

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, op.id, external_id)
            at = store.now()
            ids = [r.id for r in session_store.live(conn, player.id, at)]
            closed = self._close(conn, player.id, ids, reason, at)
            return 200, {
                "player": external_id,
                "revoked": [self._view(conn, player.id, i, at) for i in closed],
            }

        body = {"player": external_id, "reason": reason}
        return self.server.idempotent(
            self._scope(op, external_id), key, fingerprint("POST", "/sessions/revoke-all", body), work
        )

    # -- shared ------------------------------------------------------------------------------

    @staticmethod
    def _scope(op: Operator, external_id: str) -> Callable[[Connection], str]:
        # Locks the player first: its sessions cannot be opened or used meanwhile.
        return lambda conn: operator_scope(store.find_player(conn, op.id, external_id, lock=True).id)

    def _close(self, conn: Connection, player_id: int, ids: list[int], reason: str, at: float) -> list[int]:
        closed = [i for i in ids if session_store.close(conn, self.server.operators, i, reason, at)]
        running = autoplay_store.running(conn, player_id)
        if running is not None and running.session_id in closed:
            autoplay_store.cancel(conn, running.id)
        return closed

    @staticmethod
    def _view(conn: Connection, player_id: int, session_id: int, at: float) -> dict:
        row = session_store.find(conn, player_id, session_id)
        assert row is not None
        return session_store.view(row, at)
