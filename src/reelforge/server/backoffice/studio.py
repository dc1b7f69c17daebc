"""The studio's side: the operator accounts one server carries (the admin API, /api/v1/admin/,
and ``reelforge operators``): create one with its first API key, list and show them, configure
them, add and revoke keys, suspend and resume, and the report across operators.

A key is shown once, when it is made; the database keeps its SHA-256.  Suspending an operator
closes its players' sessions, stops their autoplays and finishes their rounds in play by the
game's default play (each win paid through the operator's wallet, as the sweeper would); its
keys then answer 403 until it is resumed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection

from reelforge.server.core.errors import ApiError, bad_request
from reelforge.server.operators import directory as d
from reelforge.server.operators.accounts import ACTIVE, SUSPENDED, Operator, OperatorSettings, effective
from reelforge.server.play import autoplay_store, session_store
from reelforge.server.play.context import ServerContext
from reelforge.server.play.profiles import PROFILES
from reelforge.server.play.round_store import iso
from reelforge.server.play.rounds import Rounds
from reelforge.server.reports.report_theory import TheoryFn, theoretical
from reelforge.server.reports.reports import ReportError, studio_report
from reelforge.server.storage import store
from reelforge.server.storage.sql import q

SUSPENDED_REASON = "operator suspended"


def invalid(exc: ValidationError) -> ApiError:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}" for e in exc.errors()
    )
    return ApiError(422, "invalid_settings", problems[:1000])


class Studio:
    def __init__(self, server: ServerContext, rounds: Rounds) -> None:
        self.server = server
        self.rounds = rounds
        self.report_theory: TheoryFn = theoretical  # tests swap in quick figures

    # -- reading ---------------------------------------------------------------------------

    def view(self, conn: Connection, op: Operator) -> dict[str, Any]:
        e = op.settings
        return {
            "id": op.id,
            "name": op.name,
            "status": op.status,
            "server_defaults": op.server_defaults,
            "settings": op.own.public(),
            "in_force": {
                "wallet_mode": e.wallet_mode,
                "wallet_url": e.wallet_url or None,
                "webhook_url": e.webhook_url or None,
                "currencies": list(e.currencies) if e.currencies is not None else None,
                "games": self.server.offered_games(op),
                "rate_limit_per_second": e.rate_limit_per_second,
                "rate_limit_burst": e.rate_limit_burst,
                "operator_rate_limit_per_second": e.operator_rate_limit_per_second,
                "operator_rate_limit_burst": e.operator_rate_limit_burst,
                "token_ttl_seconds": e.token_ttl_seconds,
                "max_sessions_per_player": e.max_sessions_per_player,
                "autoplay": e.autoplay,
                "autoplay_max_spins": e.autoplay_max_spins,
            },
            "profile": self.server.profile(conn, op.id).name,
            "created_at": iso(op.created_at),
            "updated_at": iso(op.updated_at),
            "suspended_at": None if op.suspended_at is None else iso(op.suspended_at),
            "keys": [_key_view(k) for k in d.keys(conn, op.id)],
        }

    def list(self) -> dict[str, Any]:
        return self.server.run(
            lambda conn: {"operators": [self.view(conn, o) for o in self.server.operators.all(conn)]}
        )

    def show(self, operator_id: int) -> dict[str, Any]:
        return self.server.run(lambda conn: self.view(conn, self.server.operator(conn, operator_id)))

    # -- changing --------------------------------------------------------------------------

    def create(
        self, name: str, settings: dict[str, Any] | None = None, profile: str | None = None
    ) -> dict[str, Any]:
        """A new operator with its first key: ``{"operator": ..., "key": ..., "key_id": ...}``."""
        own = self._settings(OperatorSettings(), settings or {})
        _check_profile(profile)
        key = d.new_key()

        def work(conn: Connection) -> dict[str, Any]:
            operator_id = d.create(conn, name, own)
            key_id = d.add_key(conn, operator_id, key, "first key")
            if profile is not None:
                store.put_setting(conn, "profile", profile, operator_id=operator_id)
            return {
                "operator": self.view(conn, self.server.operator(conn, operator_id)),
                "key": key,
                "key_id": key_id,
            }

        return self.server.run(work)

    def configure(
        self, operator_id: int, changes: dict[str, Any] | None, profile: str | None = None
    ) -> dict[str, Any]:
        """Apply ``changes`` to the operator's settings (a None value clears one) and set its
        profile; every process uses the new settings from its next request."""
        _check_profile(profile)

        def work(conn: Connection) -> dict[str, Any]:
            row = d.lock(conn, operator_id)
            own = self._settings(OperatorSettings.model_validate_json(row.settings), changes or {})
            self._check_in_force(operator_id, own, bool(row.server_defaults))
            d.save_settings(conn, operator_id, own)
            if profile is not None:
                store.put_setting(conn, "profile", profile, operator_id=operator_id)
            return self.view(conn, self.server.operator(conn, operator_id))

        return self.server.run(work)

    def _settings(self, own: OperatorSettings, changes: dict[str, Any]) -> OperatorSettings:
        try:
            merged = own.merged(changes)
        except ValidationError as exc:
            raise invalid(exc) from None
        unknown = sorted(set(merged.games or ()) - set(self.server.games))
        if unknown:
            raise bad_request(
                f"no game {unknown}; registered: {sorted(self.server.games)}", "invalid_settings"
            )
        return merged

    def _check_in_force(self, operator_id: int, own: OperatorSettings, server_defaults: bool) -> None:
        """The settings as they would be in force must make sense: a seamless wallet has its
        endpoint, a webhook URL its secret."""
        trial = effective(operator_id, own, self.server.settings, server_defaults)
        if trial.wallet_mode == "seamless" and not (trial.wallet_url and trial.wallet_secret):
            raise bad_request("a seamless wallet needs wallet_url and wallet_secret", "invalid_settings")
        if trial.webhook_url and not trial.webhook_secret:
            raise bad_request("webhook_url needs webhook_secret: every webhook is signed", "invalid_settings")

    def add_key(self, operator_id: int, label: str | None = None) -> dict[str, Any]:
        """A new key for the operator, beside its others (rotate: add, move the casino to it,
        then revoke the old one).  The key is in this reply only."""
        key = d.new_key()

        def work(conn: Connection) -> dict[str, Any]:
            d.lock(conn, operator_id)
            key_id = d.add_key(conn, operator_id, key, label)
            return {"operator": operator_id, "key": key, "key_id": key_id}

        return self.server.run(work)

    def revoke_key(self, operator_id: int, key_id: int) -> dict[str, Any]:
        """The key is refused (401) from now on; requests it already passed finish."""

        def work(conn: Connection) -> dict[str, Any]:
            d.lock(conn, operator_id)
            return {"operator": operator_id, "key": _key_view(d.revoke_key(conn, operator_id, key_id))}

        return self.server.run(work)

    def suspend(self, operator_id: int) -> dict[str, Any]:
        """Close the operator: its keys refused (403), its players' sessions closed and
        autoplays stopped, then its rounds in play finished by the default play."""

        def close(conn: Connection) -> tuple[int, int]:
            d.lock(conn, operator_id)
            d.set_status(conn, operator_id, SUSPENDED)
            ts = store.now()
            sessions = q(
                conn,
                "SELECT s.id FROM sessions s JOIN players p ON p.id = s.player_id"
                " WHERE p.operator_id = :o AND s.closed_at IS NULL ORDER BY s.id",
                {"o": operator_id},
            ).all()
            closed = sum(
                session_store.close(conn, self.server.operators, s.id, SUSPENDED_REASON, ts) for s in sessions
            )
            running = q(
                conn,
                "SELECT DISTINCT a.player_id FROM autoplays a JOIN players p ON p.id = a.player_id"
                " WHERE p.operator_id = :o AND a.status = 'running'",
                {"o": operator_id},
            ).all()
            for r in running:
                autoplay_store.stop_all(conn, r.player_id, ts)
            return closed, len(running)

        closed, stopped = self.server.run(close)
        finished = self.rounds.complete_stale_rounds(older_than=0, operator_id=operator_id)
        return {
            "operator": self.show(operator_id),
            "sessions_closed": closed,
            "autoplays_stopped": stopped,
            "rounds_finished": finished,
        }

    def resume(self, operator_id: int) -> dict[str, Any]:
        """Open the operator again: its live keys work; the sessions suspension closed stay closed."""

        def work(conn: Connection) -> dict[str, Any]:
            d.lock(conn, operator_id)
            d.set_status(conn, operator_id, ACTIVE)
            return self.view(conn, self.server.operator(conn, operator_id))

        return self.server.run(work)

    # -- the report across operators -------------------------------------------------------

    def report(self, start: str | None, end: str | None, engine: Any) -> dict[str, Any]:
        try:
            return studio_report(engine, start=start, end=end, theory=self.report_theory)
        except ReportError as exc:
            raise bad_request(str(exc), "invalid_report") from None


def _check_profile(profile: str | None) -> None:
    if profile is not None and profile not in PROFILES:
        raise bad_request(f"unknown profile {profile!r}; offered: {sorted(PROFILES)}", "invalid_profile")


def _key_view(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "prefix": row["prefix"],
        "label": row["label"],
        "created_at": iso(row["created_at"]),
        "revoked_at": None if row["revoked_at"] is None else iso(row["revoked_at"]),
    }
