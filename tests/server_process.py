"""Real ``reelforge serve`` processes for the kill-and-resume and scale-out tests.

A :class:`ServerProcess` runs the server command as a child process on a free port with a
given environment, waits until ``/api/v1/health`` answers, and is ended with SIGKILL (no
shutdown hook runs: a crash).  A :class:`ServerPool` remembers every process it started so
that a fixture's finaliser kills them all, whatever the test did.  :func:`check_books`
checks the wallet and the rounds directly in the database after a test.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

# A new httpx.Client loads the CA bundle (about 45 ms of CPU) even for plain http: the tests'
# clients share one SSL context, and one-off requests go through one client that keeps no
# connection alive (the servers here are killed and restarted on the same port).
SSL = ssl.create_default_context()
LOCAL = httpx.Client(verify=SSL, limits=httpx.Limits(max_keepalive_connections=0))


def local_client(**options: Any) -> httpx.Client:
    """An httpx.Client on the shared SSL context (see ``SSL``)."""
    return httpx.Client(verify=SSL, **options)


OPERATOR_KEY = "process-test-operator-key"
OP_HEADERS = {"X-Operator-Key": OPERATOR_KEY}
# Runs the installed CLI (``reelforge serve``) with this interpreter, whatever the PATH.
_CLI = "import sys; from reelforge.cli import app; sys.argv[0] = 'reelforge'; app()"

# The fork server: a process that has made the imports every server start pays (about 1.5 s of
# CPU of a 2.4 s start) and forks a fresh ``reelforge serve`` for each order it reads, one JSON
# line: argv, environment, working directory and log file.  The child is a new session of its
# own (killed as one group), has touched no database and made no game before it runs, so it is
# the same server a cold start makes, only without the imports; ``random`` is reseeded at fork
# by Python itself.  Children are reaped by the kernel (SIGCHLD ignored), so a dead one is gone
# from the process table: that is how the test sees it died.
_FORK_SERVER = r"""
import json, os, signal, sys
import uvicorn
import reelforge.cli, reelforge.server.http.api, reelforge.server.http.app, reelforge.server.runtime.service
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
while line := sys.stdin.readline():
    order = json.loads(line)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        log = os.open(order["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.chdir(order["cwd"])
        os.environ.clear()
        os.environ.update(order["env"])
        sys.argv = ["reelforge", *order["args"]]
        code = 0
        try:
            reelforge.cli.app()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.stdout.write(f"{pid}\n")
    sys.stdout.flush()
"""


class _ForkServer:
    """This test process's fork server, started on first use (see ``_FORK_SERVER``)."""

    proc: subprocess.Popen[str] | None = None

    @classmethod
    def spawn(cls, args: list[str], env: Mapping[str, str], log: Path) -> _Forked | None:
        """A forked server, or None where a cold start is needed: the fork server could not
        be had, or ``env`` differs from its own outside the REELFORGE_* settings (which are
        read when the server starts, never at import)."""
        base = server_env()
        if _outside_settings(env) != _outside_settings(base):
            return None
        if cls.proc is None or cls.proc.poll() is not None:
            cls.proc = subprocess.Popen(
                [sys.executable, "-c", _FORK_SERVER],
                env=base,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                start_new_session=True,
            )
        order = {"args": args, "env": dict(env), "cwd": os.getcwd(), "log": str(log)}
        try:
            assert cls.proc.stdin is not None and cls.proc.stdout is not None
            cls.proc.stdin.write(json.dumps(order) + "\n")
            cls.proc.stdin.flush()
            pid = int(cls.proc.stdout.readline())
        except (OSError, ValueError):  # it died (killed, or a broken install): start cold
            cls.proc.kill()
            cls.proc = None
            return None
        return _Forked(pid)


def _outside_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not k.startswith("REELFORGE_")}


class _Forked:
    """The part of ``Popen`` a :class:`ServerProcess` uses, for a child of the fork server."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = -1  # gone; its exit status went to the kernel, not to us
        return self.returncode

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout)
            time.sleep(0.005)
        assert self.returncode is not None
        return self.returncode


@atexit.register
def _stop_fork_server() -> None:
    if _ForkServer.proc is not None:
        _ForkServer.proc.kill()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test process's environment without its REELFORGE_* settings, plus the test
    server's: test games, scripted draws, a fixed operator key, and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELFORGE_")}
    env.update(
        REELFORGE_TEST_GAMES="1",
        REELFORGE_ALLOW_SCRIPTED_DRAWS="1",
        REELFORGE_OPERATOR_KEY=OPERATOR_KEY,
        REELFORGE_RATE_LIMIT_PER_SECOND="0",  # machine-speed clients; the browser tests keep it
        PYTHONUNBUFFERED="1",
    )
    env.update(extra or {})
    return env


class ServerProcess:
    """One ``reelforge serve`` process (one worker) on the given database."""

    def __init__(self, db_url: str, data_dir: Path, env: Mapping[str, str] | None = None) -> None:
        self.db_url = db_url
        self.data_dir = Path(data_dir)
        self.env = server_env(env)
        self.proc: subprocess.Popen[bytes] | _Forked | None = None
        self.port = 0
        self.starts = 0
        self.kills = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def log_path(self) -> Path:
        return self.data_dir / f"server-{self.starts}.log"

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def launch(self) -> None:
        """Start the process without waiting for it (see :meth:`wait_ready`)."""
        assert not self.alive, "the server is already running"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        self.port = free_port()
        args = [
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--data-dir",
            str(self.data_dir),
        ]
        self.proc = _ForkServer.spawn(args, self.env, self.log_path)
        if self.proc is not None:
            return
        command = [sys.executable, "-c", _CLI, *args]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                command,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed as one
            )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Poll the health endpoint until it answers; fail with the log if the process dies."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"reelforge serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if LOCAL.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"reelforge serve did not answer within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.02)

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start and wait until it serves; a port taken meanwhile is retried on another."""
        for attempt in range(3):
            self.launch()
            try:
                self.wait_ready(timeout)
                return self
            except RuntimeError:
                if attempt == 2 or "address already in use" not in self.log_tail().lower():
                    raise
        raise AssertionError("unreachable")

    def kill(self) -> None:
        """SIGKILL the process (its whole group) and reap it: nothing of it runs after."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.kills += 1
        self.proc.wait(timeout=30)

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()

    def client(self, timeout: float = 30.0) -> httpx.Client:
        return local_client(base_url=self.url, timeout=timeout)


class ServerPool:
    """Every process a test starts; :meth:`close` kills them all (fixture finaliser)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.processes: list[ServerProcess] = []

    def new(self, db_url: str, name: str = "server", env: Mapping[str, str] | None = None) -> ServerProcess:
        proc = ServerProcess(db_url, self.data_dir / f"{name}-{len(self.processes)}", env)
        self.processes.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.processes:
            with contextlib.suppress(Exception):  # keep killing the others
                proc.kill()


# -- after a test: the books, read directly from the database --------------------------------


def check_books(db_url: str, data_dir: Path, credits: Mapping[str, int]) -> dict[str, Any]:
    """The server's own audit, and the same checks made here on the raw tables: for every
    player ``balance == deposits + sum(round money)`` with the deposits equal to the opening
    credit; every round has exactly one stake row, at most one win row (equal to its win
    when complete, none while pending or voided), one refund row of its stake when voided and
    none otherwise, and no other money; every side-ledger row (a game's
    second currency, e.g. Bonuses) belongs to a round of its player and game and continues the
    balance of its currency before it; every player state is the one its rounds left.  Returns
    the audit."""
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer
    from reelforge.server.storage import schema as t

    server = GameServer(
        Settings(db=db_url, data_dir=Path(data_dir), operator_key=OPERATOR_KEY, test_games=True)
    )
    try:
        audit = server.audit()
        assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
        assert audit["side_balances_match_ledger"], audit
        assert audit["player_states_follow_rounds"], audit["bad_player_states"]
        with server.engine.connect() as conn:
            players = {r.id: r for r in conn.execute(select(t.players))}
            ledger = list(conn.execute(select(t.ledger).order_by(t.ledger.c.id)))
            rounds = list(conn.execute(select(t.rounds)))
            side = list(conn.execute(select(t.side_ledger).order_by(t.side_ledger.c.id)))
    finally:
        server.engine.dispose()
    assert {p.external_id for p in players.values()} == set(credits), "unexpected players"
    for pid, player in players.items():
        rows = [r for r in ledger if r.player_id == pid]
        deposits = sum(r.amount for r in rows if r.kind == "deposit")
        assert deposits == credits[player.external_id], (player.external_id, deposits)
        assert player.balance == credits[player.external_id] + sum(
            r.amount for r in rows if r.kind != "deposit"
        )
        assert player.balance == sum(r.amount for r in rows) >= 0
        running = 0
        for r in rows:  # every row's balance_after continues the one before it
            running += r.amount
            assert r.balance_after == running, (player.external_id, r.id)
    by_round: dict[int, list[Any]] = {}
    for r in ledger:
        if r.kind in ("stake", "win", "refund"):
            assert r.round_id is not None, r
        if r.round_id is not None:
            by_round.setdefault(r.round_id, []).append(r)
    for rnd in rounds:
        rows = by_round.pop(rnd.id, [])
        stakes = [r for r in rows if r.kind == "stake"]
        wins = [r for r in rows if r.kind == "win"]
        refunds = [r for r in rows if r.kind == "refund"]
        assert len(stakes) == 1 and stakes[0].amount == -rnd.stake, (rnd.id, rows)
        assert len(wins) <= 1, (rnd.id, rows)
        assert len(rows) == len(stakes) + len(wins) + len(refunds), (rnd.id, rows)
        if rnd.status == "complete" and rnd.win:
            assert len(wins) == 1 and wins[0].amount == rnd.win, (rnd.id, rows)
        else:
            assert not wins, (rnd.id, rnd.status, rows)
        if rnd.status == "voided":  # the stake given back once, and nothing else
            assert [r.amount for r in refunds] == [rnd.stake], (rnd.id, rows)
        else:
            assert not refunds, (rnd.id, rnd.status, rows)
        assert rnd.status in ("pending", "complete", "voided"), (rnd.id, rnd.status)
    assert not by_round, f"ledger rows for unknown rounds: {by_round}"
    owners = {r.id: (r.player_id, r.game) for r in rounds}
    running: dict[tuple[int, str, str, str], int] = {}
    for r in side:
        assert owners.get(r.round_id) == (r.player_id, r.game), r
        where = (r.player_id, r.game, r.state_key, r.currency)
        running[where] = running.get(where, 0) + r.amount
        assert r.amount != 0 and r.balance_after == running[where] >= 0, r
    return audit
