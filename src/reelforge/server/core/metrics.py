"""What the server counts for an operator's monitoring, in Prometheus' client library
(``GET /metrics``, text format; docs/server.md "Monitoring").

Counters move after the transaction they describe commits (``ServerContext.after_commit``),
so a rolled-back request counts nothing.  The outbox's depth and age and the database pool's
use are read when scraped (``server/http/observability.py``).  With several worker processes
(``reelforge serve --workers N``) the values are shared through files in
``PROMETHEUS_MULTIPROC_DIR`` (set by ``serve``), so any worker's answer is the whole server's.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Histogram

ROUNDS = Counter(
    "reelforge_rounds",
    "Rounds by game, mode and outcome: started, completed_win, completed_no_win, voided.",
    ["game", "mode", "outcome"],
)
STAKED = Counter(
    "reelforge_staked_minor_units", "Stakes taken, in minor units of the currency.", ["game", "currency"]
)
WON = Counter("reelforge_won_minor_units", "Wins paid, in minor units of the currency.", ["game", "currency"])
REQUESTS = Counter(
    "reelforge_http_requests", "HTTP requests by method, route and status.", ["method", "route", "status"]
)
LATENCY = Histogram(
    "reelforge_http_request_duration_seconds",
    "Time from a request's arrival to its reply's last byte, by method and route.",
    ["method", "route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
WALLET = Counter(
    "reelforge_wallet_calls",
    "Wallet calls by wallet (internal, seamless), operation and result (ok, refused, error).",
    ["wallet", "operation", "result"],
)


# Each metric's children by their label values, found with one dict lookup: ``labels()``
# validates its arguments and takes a lock at every call (a few per request).  The label
# values are few (routes, games, statuses), so this stays small, as the metrics' own do.
_CHILDREN: dict[tuple[int, tuple[str, ...]], Any] = {}


def child(metric: Any, *values: str) -> Any:
    """``metric.labels(*values)``, made once."""
    key = (id(metric), values)
    found = _CHILDREN.get(key)
    if found is None:
        found = _CHILDREN[key] = metric.labels(*values)
    return found


def round_started(game: str, mode: str, currency: str, stake: int) -> None:
    child(ROUNDS, game, mode, "started").inc()
    child(STAKED, game, currency).inc(stake)


def round_completed(game: str, mode: str, currency: str, win: int) -> None:
    child(ROUNDS, game, mode, "completed_win" if win else "completed_no_win").inc()
    if win:
        child(WON, game, currency).inc(win)


def round_voided(game: str, mode: str) -> None:
    child(ROUNDS, game, mode, "voided").inc()


def wallet_call(wallet: str, operation: str, result: str) -> None:
    child(WALLET, wallet, operation, result).inc()
