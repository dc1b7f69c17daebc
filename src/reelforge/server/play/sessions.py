"""Player sessions: opening one (operator), authenticating its token, and the player
protection it carries (time and spend limits, reality checks, the limits page), plus the
player's play settings, which live with the session."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Connection, insert, select, update

from reelforge.engine.game import Game
from reelforge.server.core.errors import ApiError, SessionClosed, bad_request, conflict, forbidden
from reelforge.server.operators.accounts import ACTIVE, DEFAULT_OPERATOR_ID, Operator
from reelforge.server.play import round_store as rs
from reelforge.server.play import session_store
from reelforge.server.play.context import ServerContext, fingerprint, operator_scope
from reelforge.server.play.profiles import PROFILES, Profile
from reelforge.server.play.tokens import derive_token, new_nonce, token_hash
from reelforge.server.storage import schema as t
from reelforge.server.storage import store
from reelforge.server.storage.sql import for_update, q, q_many, x

__all__ = [
    "PlayerContext",
    "PlayerRow",
    "SessionClosed",
    "SessionRow",
    "Sessions",
    "check_limits_url",
    "effective_settings",
    "stored_play_settings",
]


@dataclass(frozen=True)
class SessionRow:
    id: int
    player_id: int
    profile: str
    created_at: float
    expires_at: float
    closed_at: float | None
    close_reason: str | None
    time_limit_seconds: int | None
    spend_limit: int | None
    staked: int
    won: int
    play_settings: str | None = None  # JSON {game: {name: bool}}: what the player set
    reality_check_seconds: int | None = None  # None: the profile's interval
    reality_checks_acknowledged: int | None = None  # intervals the player has seen; None: 0
    limits_url: str | None = None


@dataclass(frozen=True)
class PlayerRow:
    id: int
    balance: int
    last_round_at: float | None
    external_id: str
    currency: str
    operator_id: int = DEFAULT_OPERATOR_ID
    operator_version: int | None = None  # the operator's settings version read with the session


@dataclass
class PlayerContext:
    session: SessionRow
    player: PlayerRow  # locked for the transaction
    profile: Profile
    operator: Operator  # the player's (its settings as cached at the version read)
    # The rows of the statements read together with the lock (``player_context(then=…)``).
    then: list[Any] = field(default_factory=list)

    @property
    def balance(self) -> int:
        """The balance as the request found it (before it moved any money)."""
        return int(self.player.balance)


def stored_play_settings(raw: str | None) -> dict[str, dict[str, bool]]:
    return json.loads(raw) if raw else {}


def effective_settings(game: Game, stored: dict[str, dict[str, bool]]) -> dict[str, bool]:
    """The game's switches with the player's choices over its defaults (a name the game no
    longer offers is ignored)."""
    chosen = stored.get(game.id, {})
    return {name: bool(chosen.get(name, default)) for name, default in game.play_settings().items()}


def check_limits_url(url: str) -> str:
    """The operator's limits page, shown to the player as a link: an absolute http(s) URL
    with a host, no credentials and no spaces or control characters (a ``javascript:`` or
    ``data:`` link never reaches the page)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if (
        parts is None
        or len(url) > 2048
        or parts.scheme not in ("http", "https")
        or not host
        or parts.username is not None
        or any(c.isspace() or not c.isprintable() for c in url)
    ):
        raise bad_request("limits_url must be an absolute http or https URL", "invalid_limits_url")
    return url


# The player of the request's token, for statements read with the lock (``then``), and the
# player's idempotency scope as SQL.  Uncorrelated subqueries, so that the planner sees a
# value it can look an index up with: a join on ``'player:' || me.id`` was planned as a scan
# of the idempotency table when the statement was prepared on a near-empty one, and the
# prepared plan kept scanning as the table grew (measured: 2,000 rows read per spin).
ME = "(SELECT player_id FROM sessions WHERE token_hash = :h)"
ME_SCOPE = "(SELECT 'player:' || player_id FROM sessions WHERE token_hash = :h)"


class Sessions:
    def __init__(self, server: ServerContext) -> None:
        self.server = server

    # -- authentication ----------------------------------------------------------------------

    def player_context(
        self,
        conn: Connection,
        token: str | None,
        *,
        lock: bool = True,
        then: list[tuple[str, dict[str, Any]]] | None = None,
    ) -> PlayerContext:
        """The session and its player, in one query; with ``lock`` both rows stay locked until
        the transaction ends, so one player's requests run one at a time.

        ``then``: statements run right after that one, in the same round trip (pipelined on
        PostgreSQL), their rows left in ``PlayerContext.then``.  They run once the lock is
        held, on a snapshot taken then, so they see whatever the request that held the lock
        before committed (a pending round it opened, the reply it stored).  They find the
        player as :data:`ME`, an SQL expression of the token's hash ``:h``."""
        if not token:
            raise ApiError(401, "unauthorized", "a session token is required (Authorization: Bearer …)")
        h = token_hash(token)
        # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
        first = (
            "SELECT s.id, s.player_id, s.profile, s.created_at, s.expires_at, s.closed_at, s.close_reason,"  # nosec B608
            " s.time_limit_seconds, s.spend_limit, s.staked, s.won, s.play_settings,"
            " s.reality_check_seconds, s.reality_checks_acknowledged, s.limits_url, p.balance,"
            " p.last_round_at, p.external_id, p.currency, p.operator_id, o.version AS operator_version,"
            " o.status AS operator_status FROM sessions s JOIN players p ON p.id = s.player_id"
            " JOIN operators o ON o.id = p.operator_id"
            " WHERE s.token_hash = :h" + (for_update(conn, "p, s") if lock else "")
        )
        if then:
            results = q_many(conn, [(first, {"h": h}), *((sql, {**params, "h": h}) for sql, params in then)])
            row, after = results[0].first(), [r.first() for r in results[1:]]
        else:
            row, after = q(conn, first, {"h": h}).first(), []
        if row is None:
            raise ApiError(401, "invalid_token", "the session token is not valid")
        session = SessionRow(
            row.id, row.player_id, row.profile, row.created_at, row.expires_at, row.closed_at,
            row.close_reason, row.time_limit_seconds, row.spend_limit, row.staked, row.won,
            row.play_settings, row.reality_check_seconds, row.reality_checks_acknowledged,
            row.limits_url,
        )  # fmt: skip
        if session.closed_at is not None:
            raise forbidden(f"the session is closed: {session.close_reason}", "session_closed")
        ts = store.now()
        if ts >= session.expires_at:
            raise ApiError(401, "session_expired", "the session has expired; open a new one")
        if session.time_limit_seconds is not None and ts - session.created_at >= session.time_limit_seconds:
            raise SessionClosed(session.id, "time limit reached")
        if row.operator_status != ACTIVE:
            raise forbidden("the session's operator is suspended", "operator_suspended")
        player = PlayerRow(
            row.player_id, row.balance, row.last_round_at, row.external_id, row.currency,
            row.operator_id, row.operator_version,
        )  # fmt: skip
        operator = self.server.operator_of(conn, player)
        self.server.operators.note_token(bytes.fromhex(h), operator.id)  # its rate limits
        return PlayerContext(session, player, PROFILES[session.profile], operator, after)

    def scope(
        self,
        holder: list[PlayerContext],
        token: str | None,
        then: list[tuple[str, dict[str, Any]]] | None = None,
    ) -> Callable[[Connection], str | store.Scoped]:
        """The idempotency scope of a player's request; it locks the player and leaves the
        context in ``holder`` for the request's work.  With ``then`` (see
        :meth:`player_context`) the first statement's row is also the key's stored reply
        (its columns made with :func:`store.stored_reply_columns`, scope :data:`ME_SCOPE`)."""

        def scope(conn: Connection) -> str | store.Scoped:
            ctx = self.player_context(conn, token, then=then)
            holder[:] = [ctx]  # a request run again (a seamless stake) uses its own context
            name = f"player:{ctx.player.id}"
            return store.Scoped(name, ctx.then[0]) if then else name

        return scope

    def read(self, token: str | None, work: Callable[[Connection, PlayerContext], Any]) -> Any:
        """A player's read: the session is checked, nothing is locked."""
        return self.server.run(lambda conn: work(conn, self.player_context(conn, token, lock=False)))

    # -- spend limit -------------------------------------------------------------------------

    def _min_stake(self) -> int:
        return min(b.stake for g in self.server.games.values() for b in g.bet_levels())

    def _spent(self, net_loss: int, spend_limit: int) -> bool:
        """The spend limit is reached once not even the smallest stake fits under it."""
        return net_loss + self._min_stake() > spend_limit

    def check_spend(self, ctx: PlayerContext, cost: int) -> None:
        """Refuse a round whose debit (``cost``) could take the session past its spend limit."""
        s = ctx.session
        if s.spend_limit is None:
            return
        net_loss = s.staked - s.won
        if self._spent(net_loss, s.spend_limit):
            raise SessionClosed(s.id, "spend limit reached")
        if net_loss + cost > s.spend_limit:
            raise ApiError(403, "spend_limit", f"a stake of {cost} could pass the session's spend limit")

    def count_play(self, conn: Connection, session_id: int, staked: int, won: int) -> None:
        """Add a round's stake or win to the session's totals (the spend limit reads them)."""
        x(
            conn,
            "UPDATE sessions SET staked = staked + :stake, won = won + :win WHERE id = :id",
            {"stake": staked, "win": won, "id": session_id},
        )

    def close_if_spent(self, conn: Connection, ctx: PlayerContext) -> str | None:
        """After a round: a session whose net loss reached its spend limit closes now."""
        if ctx.session.spend_limit is None:
            return None
        s = conn.execute(select(t.sessions).where(t.sessions.c.id == ctx.session.id)).one()
        if s.spend_limit is not None and s.closed_at is None and self._spent(s.staked - s.won, s.spend_limit):
            session_store.close(conn, self.server.operators, s.id, "spend limit reached")
            return "spend limit reached"
        return None

    # -- opening and closing -----------------------------------------------------------------

    def open_session(
        self,
        operator: Operator,
        key: str | None,
        external_id: str,
        time_limit_seconds: int | None,
        spend_limit: int | None,
        reality_check_seconds: int | None = None,
        limits_url: str | None = None,
        keep_other_sessions: bool = False,
    ) -> tuple[int, dict]:
        """Open a session for the player.  The player keeps at most
        ``max_sessions_per_player`` live sessions: the oldest beyond that are closed
        (``replaced``) in this transaction, unless ``keep_other_sessions`` asks to close none."""
        body: dict[str, Any] = {
            "player": external_id, "time_limit_seconds": time_limit_seconds, "spend_limit": spend_limit,
        }  # fmt: skip
        # The newer fields join the fingerprint only when given, so keys stored before them
        # still match their repeats.
        if reality_check_seconds is not None:
            body["reality_check_seconds"] = reality_check_seconds
        if limits_url is not None:
            body["limits_url"] = limits_url = check_limits_url(limits_url)
        if keep_other_sessions:
            body["keep_other_sessions"] = True

        def scope(conn: Connection) -> str:
            # The lock also serialises two opens for one player: the replacement below is exact.
            return operator_scope(store.find_player(conn, operator.id, external_id, lock=True).id)

        def work(conn: Connection) -> tuple[int, dict]:
            player = store.find_player(conn, operator.id, external_id)
            profile = self.server.profile(conn, operator.id)
            if profile.requires_session_limits and (time_limit_seconds is None or spend_limit is None):
                raise bad_request(
                    f"the {profile.name} profile needs time_limit_seconds and spend_limit "
                    "set before the session",
                    "session_limits_required",
                )
            for name, value in (
                ("time_limit_seconds", time_limit_seconds),
                ("spend_limit", spend_limit),
                ("reality_check_seconds", reality_check_seconds),
            ):
                if value is not None and (not isinstance(value, int) or value <= 0):
                    raise bad_request(f"{name} must be a positive integer", "invalid_limit")
            if reality_check_seconds is not None and reality_check_seconds > profile.reality_check_seconds:
                raise bad_request(
                    f"the {profile.name} profile has a reality check at least every "
                    f"{profile.reality_check_seconds} s; ask for that or less",
                    "invalid_reality_check",
                )
            interval = reality_check_seconds or profile.reality_check_seconds
            nonce = new_nonce()
            ts = store.now()
            settings = operator.settings
            replaced: list[int] = []
            if not keep_other_sessions:
                keep = settings.max_sessions_per_player - 1
                replaced = session_store.replace_others(conn, self.server.operators, player.id, keep, ts)
            expires = ts + settings.token_ttl_seconds
            session_id = conn.execute(
                insert(t.sessions)
                .values(
                    player_id=player.id,
                    token_hash=token_hash(derive_token(self.server.token_secret, nonce)),
                    profile=profile.name,
                    created_at=ts,
                    expires_at=expires,
                    time_limit_seconds=time_limit_seconds,
                    spend_limit=spend_limit,
                    staked=0,
                    won=0,
                    reality_check_seconds=interval,
                    limits_url=limits_url,
                )
                .returning(t.sessions.c.id)
            ).scalar_one()
            # The stored reply holds the nonce, never the token: the token is derived anew for
            # each repeat of the key below.
            return 201, {
                "player": external_id,
                "session_id": session_id,
                "replaced": replaced,
                "profile": profile.name,
                "expires_at": rs.iso(expires),
                "time_limit_seconds": time_limit_seconds,
                "spend_limit": spend_limit,
                "reality_check_seconds": interval,
                "limits_url": limits_url,
                "_nonce": nonce,
            }

        status, reply = self.server.idempotent(scope, key, fingerprint("POST", "/sessions", body), work)
        reply = type(reply)(reply)  # a copy, still marked if it is a replay
        reply["token"] = derive_token(self.server.token_secret, reply.pop("_nonce"))
        return status, reply

    def close_session(self, token: str | None, key: str | None) -> tuple[int, dict]:
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            session_store.close(conn, self.server.operators, holder[0].session.id, "closed by the player")
            return 200, {"closed": True}

        return self.server.idempotent(
            self.scope(holder, token), key, fingerprint("POST", "/session/close", {}), work
        )

    # -- what the player sees of the session -------------------------------------------------

    def session_info(self, token: str | None) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            s = ctx.session
            elapsed = store.now() - s.created_at
            info: dict[str, Any] = {
                "profile": s.profile,
                "player": ctx.player.external_id,
                "opened_at": rs.iso(s.created_at),
                "expires_at": rs.iso(s.expires_at),
                "elapsed_seconds": round(elapsed, 1),
                "staked": s.staked,
                "won": s.won,
                "net_position": s.won - s.staked,
                "time_limit_seconds": s.time_limit_seconds,
                "spend_limit": s.spend_limit,
                "rules": {
                    "autoplay_max_spins": ctx.profile.autoplay_max_spins,
                    "bonus_buy": ctx.profile.bonus_buy,
                    "min_cycle_seconds": ctx.profile.min_cycle_seconds,
                },
                "reality_check": self._reality_check_view(s, ctx.profile, elapsed),
                "limits_url": s.limits_url,
                "play_settings": self._all_settings(s),
            }
            return info

        return self.read(token, work)

    # -- reality checks ----------------------------------------------------------------------

    @staticmethod
    def _reality_interval(session: SessionRow, profile: Profile) -> int:
        return int(session.reality_check_seconds or profile.reality_check_seconds)

    def _reality_check_view(self, session: SessionRow, profile: Profile, elapsed: float) -> dict[str, Any]:
        """Checks fall due every ``interval`` seconds of the session (server time, from its
        start, so a reload moves nothing); one the player has not acknowledged stays due."""
        interval = self._reality_interval(session, profile)
        next_at = ((session.reality_checks_acknowledged or 0) + 1) * interval
        return {"interval_seconds": interval, "next_at_seconds": next_at, "due": elapsed >= next_at}

    def acknowledge_reality_check(self, token: str | None, key: str | None) -> tuple[int, dict]:
        """The player chose Continue: every interval passed so far is acknowledged (one check
        stands for all the intervals the player was away), and the next falls due after the
        next whole interval.  409 ``reality_check_not_due`` when none is due."""
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            s = ctx.session
            elapsed = store.now() - s.created_at
            passed = int(elapsed // self._reality_interval(s, ctx.profile))
            if passed <= (s.reality_checks_acknowledged or 0):
                raise conflict("no reality check is due", "reality_check_not_due")
            conn.execute(
                update(t.sessions).where(t.sessions.c.id == s.id).values(reality_checks_acknowledged=passed)
            )
            seen = replace(s, reality_checks_acknowledged=passed)
            return 200, {
                "elapsed_seconds": round(elapsed, 1),
                "net_position": s.won - s.staked,
                "reality_check": self._reality_check_view(seen, ctx.profile, elapsed),
            }

        return self.server.idempotent(
            self.scope(holder, token), key, fingerprint("POST", "/session/reality-check", {}), work
        )

    # -- play settings -----------------------------------------------------------------------

    def _all_settings(self, session: SessionRow) -> dict[str, dict[str, bool]]:
        stored = stored_play_settings(session.play_settings)
        return {g.id: effective_settings(g, stored) for g in self.server.games.values() if g.play_settings()}

    def get_play_settings(self, token: str | None, game_id: str) -> dict:
        def work(conn: Connection, ctx: PlayerContext) -> dict:
            game = self.server.game(game_id)
            return {
                "game": game.id,
                "settings": effective_settings(game, stored_play_settings(ctx.session.play_settings)),
                "defaults": game.play_settings(),
            }

        return self.read(token, work)

    def set_play_settings(
        self, token: str | None, key: str | None, game_id: str, body: dict[str, Any]
    ) -> tuple[int, dict]:
        """Set some of a game's play switches for this session: names the body leaves out keep
        their value.  An unknown name or a value other than true/false is refused (400)."""
        holder: list[PlayerContext] = []

        def work(conn: Connection) -> tuple[int, dict]:
            ctx = holder[0]
            game = self.server.game(game_id)
            offered = game.play_settings()
            if not isinstance(body, dict):
                raise bad_request("play settings are a JSON object of name: true/false", "invalid_setting")
            unknown = sorted(str(name) for name in body if name not in offered)
            if unknown:
                raise bad_request(
                    f"{game.id} has no play setting {', '.join(unknown)}; offered: {sorted(offered)}",
                    "invalid_setting",
                )
            for name, value in body.items():
                if not isinstance(value, bool):
                    raise bad_request(f"play setting {name} must be true or false", "invalid_setting")
            stored = stored_play_settings(ctx.session.play_settings)
            if body:
                stored[game.id] = {**stored.get(game.id, {}), **body}
                q(
                    conn,
                    "UPDATE sessions SET play_settings = :ps WHERE id = :id",
                    {"ps": store.dumps(stored), "id": ctx.session.id},
                )
            return 200, {"game": game.id, "settings": effective_settings(game, stored)}

        return self.server.idempotent(
            self.scope(holder, token),
            key,
            fingerprint("PUT", f"/settings?game={game_id}", body),
            work,
        )
