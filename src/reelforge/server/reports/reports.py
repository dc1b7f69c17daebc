"""Operator reports over the database: play per game, RTP variant and mode, and per player.

What is counted: completed rounds (``rounds.status = 'complete'``) whose ``completed_at``
falls in the period ``[from, to)``; their cash stakes (``rounds.stake``, what the ledger
debited) and cash wins (``rounds.win``, what it credited), in integer minor units.  Voided
rounds (stake refunded, no win) are only counted, by the time they were voided; rounds still
pending are not counted (the totals say how many started in the period).  Side currencies
(Los 3 Pinguinos' Bonuses, kept in ``player_state``) are not money and are not counted.

Each row's RTP in play, ``sum(win) / sum(stake)``, is set against the theoretical RTP
(:mod:`.report_theory`) with a 99% band for the rounds played.  With ``win_i = stake_i X_i``
and the ``X_i`` independent with mean ``mu`` (the RTP) and SD ``sigma`` (in stakes),

    Var(sum win / sum stake) = sigma^2 sum(stake_i^2) / (sum stake_i)^2,

so the band is ``mu ± z sigma sqrt(sum stake^2) / sum stake`` with ``z = 2.5758`` (the normal
99% point; for equal stakes this is ``mu ± z sigma / sqrt(n)``).  A row outside it is flagged.

The interface the HTTP route calls is :func:`operator_report` (ISO dates in, a JSON-ready
dict out, :class:`ReportError` on bad parameters); :func:`build_report` takes epoch seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from statistics import NormalDist
from typing import Any

from sqlalchemy import Connection, Engine, Float, and_, case, cast, create_engine, event, func, or_, select
from sqlalchemy.engine import make_url
from sqlalchemy.sql.elements import ColumnElement

from reelforge.server.storage import schema as t

from .report_theory import Theory, TheoryFn, theoretical

Z99 = NormalDist().inv_cdf(0.995)  # 2.5758...: a two-sided 99% band

# The values of a row's "flag".
OK = "ok"
OUTSIDE = "outside"  # the RTP in play is outside the 99% band
NO_BAND = "no band"  # no exact SD: the RTP in play is shown, not judged
NOT_COMPARABLE = "not comparable"  # the theoretical RTP counts more than cash
NO_THEORY = "no theory"  # no theoretical RTP at all
NO_ROUNDS = "no rounds"  # only voided rounds in the period


class ReportError(ValueError):
    """Bad report parameters (a date that does not parse, an empty period)."""


@dataclass(frozen=True)
class Period:
    """``[start, end)`` in epoch seconds (UTC), either end open (None)."""

    start: float | None = None
    end: float | None = None

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.start >= self.end:
            raise ReportError(
                f"the period is empty: from {_iso(self.start)} is not before to {_iso(self.end)}"
            )

    @classmethod
    def parse(cls, start: str | None = None, end: str | None = None) -> Period:
        return cls(parse_time(start, "from"), parse_time(end, "to"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "from": None if self.start is None else _iso(self.start),
            "to": None if self.end is None else _iso(self.end),
            "from_epoch": self.start,
            "to_epoch": self.end,
        }

    def where(self, column: Any) -> ColumnElement[bool]:
        terms = [column.is_not(None)]
        if self.start is not None:
            terms.append(column >= self.start)
        if self.end is not None:
            terms.append(column < self.end)
        return and_(*terms)


def parse_time(text: str | None, name: str = "time") -> float | None:
    """An ISO 8601 date or date-time as epoch seconds; without a zone it is UTC
    (``2024-06-01`` is that day's midnight UTC)."""
    if text is None or text == "":
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ReportError(f"--{name}: not an ISO date or date-time: {text!r} (e.g. 2024-06-01)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def _int(value: Any) -> int:
    # PostgreSQL's SUM of a bigint is a numeric (a Decimal here); SQLite's an int or None.
    return int(value or 0)


def band(rtp: float, sd: float, stakes: int, stakes_squared: float) -> dict[str, float]:
    """The 99% band of ``sum(win) / sum(stake)`` around ``rtp`` (see the module doc)."""
    se = sd * math.sqrt(stakes_squared) / stakes
    # No return is below 0: a lower end under it would only read as a possible RTP.
    return {"low": max(0.0, rtp - Z99 * se), "high": rtp + Z99 * se, "se": se, "z": Z99}


def judge(theory: Theory, rounds: int, stakes: int, wins: int, stakes_squared: float) -> dict[str, Any]:
    """A row's band, z-score and flag from its money and its theoretical figures."""
    out: dict[str, Any] = {"band": None, "z_score": None}
    if rounds == 0 or stakes == 0:
        return {**out, "flag": NO_ROUNDS}
    if theory.rtp is None:
        return {**out, "flag": NO_THEORY}
    if not theory.comparable:
        return {**out, "flag": NOT_COMPARABLE}
    if theory.sd is None:
        return {**out, "flag": NO_BAND}
    b = band(theory.rtp, theory.sd, stakes, stakes_squared)
    deviation = wins / stakes - theory.rtp
    if b["se"] > 0:
        z: float | None = deviation / b["se"]
        outside = abs(deviation / b["se"]) > Z99
    else:  # a game whose every round pays the same: any deviation is one (z is infinite)
        z, outside = None, deviation != 0
    return {"band": b, "z_score": z, "flag": OUTSIDE if outside else OK}


# -- queries -------------------------------------------------------------------------------

_R, _P = t.rounds.c, t.players.c


def _filters(period: Period, game: str | None, status: str) -> list[ColumnElement[bool]]:
    terms = [_R.status == status, period.where(_R.completed_at)]
    if game is not None:
        terms.append(_R.game == game)
    return terms


def _money_columns() -> list[Any]:
    complete = _R.status == "complete"
    return [
        func.sum(case((complete, 1), else_=0)).label("rounds"),
        func.sum(case((complete, _R.stake), else_=0)).label("stakes"),
        func.sum(case((complete, _R.win), else_=0)).label("wins"),
        # Float: only the band reads it, and an integer sum of squares could overflow.
        func.sum(case((complete, cast(_R.stake, Float) * cast(_R.stake, Float)), else_=0.0)).label("sq"),
        func.sum(case((_R.status == "voided", 1), else_=0)).label("voided"),
    ]


def _counted(period: Period, game: str | None, operator_id: int | None = None) -> ColumnElement[bool]:
    """Completed rounds completed in the period, and voided ones voided in it (of one
    operator's players, or of all)."""
    either = or_(and_(*_filters(period, game, "complete")), and_(*_filters(period, game, "voided")))
    return either if operator_id is None else and_(either, _P.operator_id == operator_id)


_JOINED = t.rounds.join(t.players, t.players.c.id == _R.player_id)


def _game_rows(conn: Connection, period: Period, game: str | None, operator_id: int | None) -> list[Any]:
    keys = [_R.game, _R.variant, _R.mode, _P.currency]
    stmt = (
        select(*keys, *_money_columns())
        .select_from(_JOINED)
        .where(_counted(period, game, operator_id))
        .group_by(*keys)
        .order_by(*keys)
    )
    return list(conn.execute(stmt))


def _versions(
    conn: Connection, period: Period, game: str | None, operator_id: int | None
) -> dict[tuple[str, str, str], list[str]]:
    terms = _filters(period, game, "complete")
    if operator_id is not None:
        terms.append(_P.operator_id == operator_id)
    stmt = select(_R.game, _R.variant, _R.mode, _R.game_version).select_from(_JOINED).where(*terms).distinct()
    out: dict[tuple[str, str, str], list[str]] = {}
    for r in conn.execute(stmt):
        out.setdefault((r.game, r.variant, r.mode), []).append(r.game_version)
    return {k: sorted(v) for k, v in out.items()}


def _pending(
    conn: Connection, period: Period, game: str | None, operator_id: int | None
) -> dict[str, dict[str, int]]:
    """Rounds started in the period and still in play, per currency (not counted above)."""
    terms = [_R.status == "pending", period.where(_R.created_at)]
    if game is not None:
        terms.append(_R.game == game)
    if operator_id is not None:
        terms.append(_P.operator_id == operator_id)
    stmt = (
        select(_P.currency, func.count().label("n"), func.sum(_R.stake).label("stakes"))
        .select_from(_JOINED)
        .where(*terms)
        .group_by(_P.currency)
    )
    return {r.currency: {"pending": _int(r.n), "pending_stakes": _int(r.stakes)} for r in conn.execute(stmt)}


def _player_rows(conn: Connection, period: Period, game: str | None, operator_id: int | None) -> list[Any]:
    keys = [_P.external_id, _P.currency]
    stmt = (
        select(*keys, *_money_columns())
        .select_from(_JOINED)
        .where(_counted(period, game, operator_id))
        .group_by(_P.id, *keys)
        .order_by(_P.external_id)
    )
    return list(conn.execute(stmt))


# -- the report ----------------------------------------------------------------------------


def _rtp(stakes: int, wins: int) -> float | None:
    return wins / stakes if stakes else None


def _game_entry(row: Any, versions: list[str], theory: Theory) -> dict[str, Any]:
    rounds, stakes, wins = _int(row.rounds), _int(row.stakes), _int(row.wins)
    entry: dict[str, Any] = {
        "game": row.game,
        "variant": row.variant,
        "mode": row.mode,
        "currency": row.currency,
        "rounds": rounds,
        "stakes": stakes,
        "wins": wins,
        "ggr": stakes - wins,
        "rtp": _rtp(stakes, wins),
        "voided": _int(row.voided),
        "game_versions": versions,
        "theoretical": theory.as_dict(),
    }
    entry.update(judge(theory, rounds, stakes, wins, float(row.sq or 0.0)))
    return entry


def _zero(currency: str) -> dict[str, Any]:
    return {"currency": currency, "rounds": 0, "stakes": 0, "wins": 0, "voided": 0}


def _totals(games: list[dict[str, Any]], pending: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """One row per currency (amounts in different currencies do not add up)."""
    out: dict[str, dict[str, Any]] = {}
    for g in games:
        tot = out.setdefault(g["currency"], _zero(g["currency"]))
        for k in ("rounds", "stakes", "wins", "voided"):
            tot[k] += g[k]
    for currency in pending:
        out.setdefault(currency, _zero(currency))
    rows = []
    for currency in sorted(out):
        tot = out[currency]
        tot["ggr"] = tot["stakes"] - tot["wins"]
        tot["rtp"] = _rtp(tot["stakes"], tot["wins"])
        tot.update(pending.get(currency, {"pending": 0, "pending_stakes": 0}))
        rows.append(tot)
    return rows


def _player_entry(row: Any) -> dict[str, Any]:
    staked, won = _int(row.stakes), _int(row.wins)
    return {
        "player": row.external_id,
        "currency": row.currency,
        "rounds": _int(row.rounds),
        "staked": staked,
        "won": won,
        "net": won - staked,  # the player's result: negative when the player lost
        "voided": _int(row.voided),
    }


def report_engine(url: str) -> Engine:
    """An engine for reading reports from outside the server (the CLI).  On SQLite each
    transaction begins deferred: the report's queries read one WAL snapshot and take no
    write lock (the server's own engine begins IMMEDIATE, for its writers)."""
    engine = create_engine(url, pool_pre_ping=True, **_sqlite_args(url))
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            dbapi_conn.execute("PRAGMA busy_timeout=30000")

        @event.listens_for(engine, "begin")
        def _begin(conn) -> None:  # type: ignore[no-untyped-def]
            conn.exec_driver_sql("BEGIN")

    return engine


def _sqlite_args(url: str) -> dict[str, Any]:
    return {"connect_args": {"timeout": 30}} if make_url(url).get_backend_name() == "sqlite" else {}


def _snapshot(engine: Engine) -> Connection:
    conn = engine.connect()
    if engine.dialect.name == "postgresql":  # every query of the report sees one snapshot
        conn = conn.execution_options(isolation_level="REPEATABLE READ")
    return conn


COUNTS = (
    "completed rounds by completed_at in [from, to): cash stakes and cash wins in minor units; "
    "voided rounds counted apart (refunded, no win); side currencies (Bonuses) not counted"
)


def build_report(
    engine: Engine,
    period: Period | None = None,
    *,
    game: str | None = None,
    players: bool = False,
    theory: TheoryFn = theoretical,
    operator_id: int | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict: ``games`` (one row per game, variant, mode and
    currency), ``totals`` (per currency) and, with ``players``, ``players``; of one
    operator's players (``operator_id``), or across every operator (None)."""
    period = period or Period()
    with _snapshot(engine) as conn, conn.begin():
        game_rows = _game_rows(conn, period, game, operator_id)
        versions = _versions(conn, period, game, operator_id)
        pending = _pending(conn, period, game, operator_id)
        player_rows = _player_rows(conn, period, game, operator_id) if players else []
    games = [
        _game_entry(r, versions.get((r.game, r.variant, r.mode), []), theory(r.game, r.variant, r.mode))
        for r in game_rows
    ]
    report: dict[str, Any] = {
        "period": period.as_dict(),
        "game": game,
        "counts": COUNTS,
        "band": "theoretical RTP ± 2.5758 × SD × sqrt(sum stake²) / sum stake (99%, rounds independent)",
        "games": games,
        "totals": _totals(games, pending),
    }
    if players:
        report["players"] = [_player_entry(r) for r in player_rows]
    return report


def operator_report(
    engine: Engine,
    *,
    start: str | None = None,
    end: str | None = None,
    game: str | None = None,
    players: bool = False,
    theory: TheoryFn = theoretical,
    operator_id: int | None = None,
) -> dict[str, Any]:
    """What an HTTP route calls: ISO 8601 ``start`` / ``end`` (the period ``[start, end)``,
    UTC where no zone is given), an optional game id, and whether to list players; one
    operator's (``operator_id``) or every operator's.  Raises :class:`ReportError` (a
    ValueError) on bad parameters.  The first call per process computes the theoretical
    figures (up to about a minute); later calls reuse them."""
    return build_report(
        engine,
        Period.parse(start, end),
        game=game or None,
        players=players,
        theory=theory,
        operator_id=operator_id,
    )


def studio_report(
    engine: Engine, *, start: str | None = None, end: str | None = None, theory: TheoryFn = theoretical
) -> dict[str, Any]:
    """The studio's report across operators: the money per operator and currency (rounds,
    stakes, wins, GGR = stakes - wins, RTP), and every game, variant and mode in play against
    its exact RTP over all operators' rounds (``games``, as in the operator report)."""
    period = Period.parse(start, end)
    across = build_report(engine, period, theory=theory)
    keys = [_P.operator_id, t.operators.c.name, _P.currency]
    stmt = (
        select(*keys, *_money_columns())
        .select_from(_JOINED.join(t.operators, t.operators.c.id == _P.operator_id))
        .where(_counted(period, None))
        .group_by(*keys)
        .order_by(*keys)
    )
    with _snapshot(engine) as conn, conn.begin():
        rows = list(conn.execute(stmt))
    operators = [
        {
            "operator_id": r.operator_id,
            "name": r.name,
            "currency": r.currency,
            "rounds": _int(r.rounds),
            "voided": _int(r.voided),
            "stakes": _int(r.stakes),
            "wins": _int(r.wins),
            "ggr": _int(r.stakes) - _int(r.wins),
            "rtp": _rtp(_int(r.stakes), _int(r.wins)),
        }
        for r in rows
    ]
    return {
        "period": across["period"],
        "counts": COUNTS,
        "operators": operators,
        "games": across["games"],
        "totals": across["totals"],
        "band": across["band"],
    }
