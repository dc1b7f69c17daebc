"""What the server counts for an operator's monitoring, in Prometheus' client library
(``GET /metrics``, text format; docs/server.md "Monitoring").

Counters move after the transaction they describe commits (``ServerContext.after_commit``),
so a rolled-back request counts nothing.  The outbox's depth and age and the database pool's
use are read when scraped (``server/http/observability.py``).  With several worker processes
(``reelforge serve --workers N``) the values are shared through files in
``PROMETHEUS_MULTIPROC_DIR`` (set by ``serve``), so any worker's answer is the whole server's.
"""

from __future__ import annotations

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


def round_started(game: str, mode: str, currency: str, stake: int) -> None:
    ROUNDS.labels(game, mode, "started").inc()
    STAKED.labels(game, currency).inc(stake)


def round_completed(game: str, mode: str, currency: str, win: int) -> None:
    ROUNDS.labels(game, mode, "completed_win" if win else "completed_no_win").inc()
    if win:
        WON.labels(game, currency).inc(win)


def round_voided(game: str, mode: str) -> None:
    ROUNDS.labels(game, mode, "voided").inc()


def wallet_call(wallet: str, operation: str, result: str) -> None:
    WALLET.labels(wallet, operation, result).inc()
