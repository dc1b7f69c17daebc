"""Load test of the game server: concurrent players spinning Reign of Gnomes over HTTP.

Usage: python bench/server_load.py [--db postgresql|sqlite] [--workers 2] [--players 32]
                                   [--seconds 20] [--warmup 3] [--stake 40] [--pool-size N]
                                   [--keep] [--py-spy DIR] [--app MODULE:FACTORY] [--mix]
                                   [--ceiling [--repeat N]]

Starts ``reelforge serve`` as a subprocess on a free loopback port over a fresh database
(PostgreSQL: a database created for the run and dropped afterwards unless ``--keep``;
SQLite: a file in a temporary data directory), creates the players with a large opening
balance and one session each, then runs the load generator in this process: asyncio with
one raw keep-alive HTTP/1.1 connection per player (hand-built requests, the status line
and Content-Length parsed), each player spinning in a loop (POST /rounds, then the
round's actions until it is complete).  With ``--mix`` the players are spread over
SCENARIOS (Gnomes spins, Ghost of Gambini's base game and a bought Lock & Spin, Los 3
Pinguinos' base game with its holds and nudges, Golden Scarab), the decisions picked at
random among those offered, and each scenario's figures are printed apart.

Counted: the rounds and requests that complete in the ``--seconds`` window after
``--warmup``; per-request latency percentiles; errors by status; CPU seconds of this
client, of the server's process tree and (PostgreSQL) of this run's database backends,
from the scheduler's exact per-thread run time, and the machine's busy time none of those
account for (``other_cpu_seconds``: other work on the machine; trust the figures when it
is near 0).  Then the audit, straight from the database: every balance equals the opening
balance plus the player's ledger movements and the last balance the client was given;
every stake and win is in the ledger to the cent; the rounds table agrees with the
client's counts; and ``GameServer.audit()``.  Prints one JSON object and exits 1 when
an audit check fails (2 when the run itself failed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import case, create_engine, func, select, text
from sqlalchemy.engine import make_url

from reelforge.server.storage import schema as t

ROOT = Path(__file__).resolve().parents[1]
# ``reelforge serve`` run by this interpreter, so the server is the code this bench imports
# (a worktree's src on PYTHONPATH, not whatever the virtualenv's entry point was installed from).
SERVE = [sys.executable, "-c", "import sys; from reelforge.cli import app; sys.argv[0] = 'reelforge'; app()"]
PY_SPY = Path(sys.executable).parent / "py-spy"
PG_ADMIN = os.environ.get("REELFORGE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
OPERATOR_KEY = "bench-operator-key"
GAME = "reign-of-gnomes"
OPENING = 10_000_000
# ``--mix``: what each kind of player plays (game, mode, stake in pence), and how many of
# every 16 players play it.  Bought features cost their price (the round's ``stake``);
# Ghost of Gambini's base game and Los 3 Pinguinos' base game ask the player to decide
# (a magic rewind, holds and nudges): a mixed player picks among the offered choices.
SCENARIOS: dict[str, tuple[str, str, int, int]] = {
    "gnomes": ("reign-of-gnomes", "base", 40, 6),
    "gambini": ("ghost-of-gambini", "base", 40, 3),
    "gambini-buy": ("ghost-of-gambini", "buy-lock-spin", 40, 2),
    "pinguinos": ("los-3-pinguinos", "base", 20, 3),
    "scarab": ("golden-scarab", "base", 20, 2),
}


# -- a minimal HTTP/1.1 keep-alive client ------------------------------------------------


class HttpError(Exception):
    pass


class Conn:
    """One keep-alive connection; requests are sent one at a time (no pipelining)."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.head = f"Host: {host}:{port}\r\n".encode()
        self.replayed = False  # the last reply carried ``Idempotency-Replayed: true``

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
            self.reader = self.writer = None

    async def request(
        self, method: str, path: str, headers: bytes = b"", body: Any = None
    ) -> tuple[int, Any, float]:
        """Send one request; returns (status, decoded JSON body or None, seconds)."""
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        req = b"".join(
            (
                f"{method} {path} HTTP/1.1\r\n".encode(),
                self.head,
                headers,
                b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload),
                payload,
            )
        )
        start = time.perf_counter()
        self.writer.write(req)
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = None
        close = False
        self.replayed = False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
            elif name == b"idempotency-replayed":
                self.replayed = value.strip().lower() == b"true"
        if length is None:
            raise HttpError(f"{method} {path}: no Content-Length in the reply ({status})")
        data = await self.reader.readexactly(length) if length else b""
        elapsed = time.perf_counter() - start
        if close:
            await self.close()
        return status, (json.loads(data) if data else None), elapsed


# -- the players -------------------------------------------------------------------------


@dataclass
class Player:
    external_id: str
    token: str = ""
    kind: str = "gnomes"  # a SCENARIOS key
    conn: Conn | None = None
    rounds: int = 0  # rounds completed (all of them, warm-up included)
    staked: int = 0
    won: int = 0
    last_balance: int | None = None


@dataclass
class Stats:
    """What one load run saw; only requests and rounds finished inside the window count."""

    t0: float = 0.0
    t1: float = 0.0
    latencies: list[float] = field(default_factory=list)
    requests: int = 0
    rounds: int = 0
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    # per scenario (--mix): rounds, requests and latencies in the window
    by_kind: dict[str, dict[str, Any]] = field(default_factory=dict)

    def kind(self, name: str) -> dict[str, Any]:
        return self.by_kind.setdefault(name, {"rounds": 0, "requests": 0, "latencies": []})

    def in_window(self, now: float) -> bool:
        return self.t0 <= now <= self.t1

    def error(self, what: str, detail: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1
        if len(self.error_samples) < 10:
            self.error_samples.append(detail[:300])


_keys = itertools.count(1)


def idem() -> bytes:
    return b"Idempotency-Key: b%d-%d\r\n" % (os.getpid(), next(_keys))


async def timed(
    p: Player, stats: Stats, method: str, path: str, headers: bytes, body: Any
) -> tuple[int, Any]:
    assert p.conn is not None
    status, data, elapsed = await p.conn.request(method, path, headers, body)
    if stats.in_window(time.perf_counter()):
        stats.requests += 1
        stats.latencies.append(elapsed)
        mine = stats.kind(p.kind)
        mine["requests"] += 1
        mine["latencies"].append(elapsed)
        if status >= 400:
            stats.error(str(status), f"{method} {path}: {status} {data}")
    elif status >= 400:
        stats.error(f"{status} (outside the window)", f"{method} {path}: {status} {data}")
    return status, data


async def finish(p: Player, stats: Stats, auth: bytes, rnd: dict[str, Any]) -> dict[str, Any] | None:
    """Play a pending round to the end with its first offered action (and its default)."""
    while rnd["status"] != "complete":
        body = _decide(p, rnd["actions"])
        status, data = await timed(
            p, stats, "POST", f"/api/v1/rounds/{rnd['id']}/actions", auth + idem(), body
        )
        if status != 200:
            return None
        rnd = data["round"]
        p.last_balance = data["balance"]
        if stats.in_window(time.perf_counter()):
            stats.actions += 1
    return rnd


async def recover(p: Player, stats: Stats, auth: bytes) -> None:
    """After an error: finish whatever round the player has left pending."""
    assert p.conn is not None
    game = SCENARIOS[p.kind][0]
    status, data, _ = await p.conn.request("GET", f"/api/v1/rounds/pending?game={game}", auth)
    if status != 200:
        return
    for rnd in data["rounds"]:
        done = await finish(p, stats, auth, rnd)
        if done is not None:
            p.rounds += 1
            p.staked += done["stake"]
            p.won += done["win"]


def _decide(p: Player, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The next action: a plain player takes the first offered with its default; a mixed
    Gambini or Pinguinos player picks an offered action and choice at random (seeded)."""
    rng = _RNG.setdefault(p.external_id, random.Random(p.external_id))
    spec = actions[0] if p.kind == "gnomes" else rng.choice(actions)
    body: dict[str, Any] = {"action": spec["name"]}
    choices = spec.get("choices")
    if choices is not None:
        body["choice"] = spec["default"] if p.kind == "gnomes" or not choices else _pick(rng, choices)
    return body


def _pick(rng: random.Random, choices: list[int]) -> int:
    return rng.choice(choices)


_RNG: dict[str, random.Random] = {}


async def spin_loop(p: Player, stats: Stats, stake: int, stop_at: float) -> None:
    auth = f"Authorization: Bearer {p.token}\r\n".encode()
    game, mode, mixed_stake, _ = SCENARIOS[p.kind]
    body: dict[str, Any] = {"game": game, "stake": stake if p.kind == "gnomes" else mixed_stake}
    if mode != "base":
        body["mode"] = mode
    while time.perf_counter() < stop_at:
        try:
            status, data = await timed(p, stats, "POST", "/api/v1/rounds", auth + idem(), body)
            if status != 201:
                await recover(p, stats, auth)
                continue
            p.last_balance = data["balance"]
            rnd = await finish(p, stats, auth, data["round"])
            if rnd is None:
                await recover(p, stats, auth)
                continue
            p.rounds += 1
            p.staked += rnd["stake"]
            p.won += rnd["win"]
            if stats.in_window(time.perf_counter()):
                stats.rounds += 1
                stats.kind(p.kind)["rounds"] += 1
        except (OSError, asyncio.IncompleteReadError, HttpError, ValueError) as exc:
            stats.error(type(exc).__name__, repr(exc))
            if p.conn is not None:
                await p.conn.close()
            await asyncio.sleep(0.05)
            with contextlib.suppress(OSError, asyncio.IncompleteReadError, HttpError, ValueError):
                await recover(p, stats, auth)


def kinds_of(n: int, mix: bool) -> list[str]:
    """Each player's scenario: all "gnomes", or (``--mix``) SCENARIOS' shares of every 16."""
    if not mix:
        return ["gnomes"] * n
    cycle = [k for k, (_, _, _, share) in SCENARIOS.items() for _ in range(share)]
    return [cycle[i % len(cycle)] for i in range(n)]


async def setup_players(host: str, port: int, n: int, opening: int, mix: bool = False) -> list[Player]:
    op = f"X-Operator-Key: {OPERATOR_KEY}\r\n".encode()
    players = [Player(f"bench-{i:04d}", kind=k) for i, k in enumerate(kinds_of(n, mix))]

    async def one(p: Player) -> None:
        p.conn = Conn(host, port)
        await p.conn.open()
        base = f"/api/v1/operator/players/{p.external_id}"
        for method, path, headers, body, want in (
            ("POST", "/api/v1/operator/players", op, {"external_id": p.external_id}, 201),
            ("POST", f"{base}/credit", op + idem(), {"amount": opening}, 200),
            ("POST", f"{base}/sessions", op + idem(), {}, 201),
        ):
            status, data, _ = await p.conn.request(method, path, headers, body)
            if status != want:
                raise HttpError(f"{method} {path}: {status} {data}")
        p.token = data["token"]
        p.last_balance = opening

    # A few at a time: the setup is not measured, and SQLite serialises writers anyway.
    sem = asyncio.Semaphore(8)

    async def limited(p: Player) -> None:
        async with sem:
            await one(p)

    await asyncio.gather(*(limited(p) for p in players))
    return players


def setup_players_in_process(db_url: str, data_dir: Path, n: int, opening: int) -> list[Player]:
    """The same players as :func:`setup_players` (names, opening balance, one session each),
    made through ``GameServer`` in this process: for the ceiling, which serves no operator API."""
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    server = GameServer(Settings(db=db_url, operator_key=OPERATOR_KEY, data_dir=data_dir, pool_size=1))
    server.migrate()
    op = server.default_operator()
    players = [Player(f"bench-{i:04d}") for i in range(n)]
    for p in players:
        server.create_player(op, p.external_id, "GBP")
        server.wallet_move(op, f"deposit-{p.external_id}", p.external_id, opening, "deposit")
        p.token = server.open_session(op, f"session-{p.external_id}", p.external_id, None, None)[1]["token"]
        p.last_balance = opening
    server.engine.dispose()
    return players


async def setup_and_load(
    host: str,
    port: int,
    n: int,
    stake: int,
    warmup: float,
    seconds: float,
    on_window: Any,
    players: list[Player] | None = None,
    mix: bool = False,
) -> tuple[list[Player], Stats]:
    """Create the players (unless given, made already), then spin; one event loop for both
    (the connections stay open)."""
    if players is None:
        players = await setup_players(host, port, n, OPENING, mix)
    else:
        for p in players:
            p.conn = Conn(host, port)
            await p.conn.open()
    stats = Stats()
    start = time.perf_counter()
    stats.t0 = start + warmup
    stats.t1 = stats.t0 + seconds
    tasks = [asyncio.create_task(spin_loop(p, stats, stake, stats.t1)) for p in players]
    await asyncio.sleep(max(0.0, stats.t0 - time.perf_counter()))
    on_window("start")
    await asyncio.sleep(max(0.0, stats.t1 - time.perf_counter()))
    on_window("end")
    await asyncio.gather(*tasks)
    for p in players:
        if p.conn is not None:
            await p.conn.close()
    return players, stats


# -- CPU accounting ----------------------------------------------------------------------


def tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def postgres_procs(db_name: str) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """(this run's: its database's backends and the shared auxiliary processes such as the
    WAL writer and checkpointer; all PostgreSQL processes, other databases' included)."""
    ours, every = [], []
    for p in psutil.process_iter(["name", "cmdline"]):
        if p.info["name"] not in ("postgres", "postgresql"):
            continue
        every.append(p)
        title = " ".join(p.info["cmdline"] or [])
        if db_name in title or not any(c in title for c in ("idle", "(", "authentication")):
            ours.append(p)
    return ours, every


def cpu_of(procs: list[psutil.Process]) -> dict[int, float]:
    """CPU seconds per process: the scheduler's exact run time (/proc/PID/task/*/schedstat,
    nanoseconds) where readable, else psutil's tick-sampled user+system.  The ticks miss a
    great deal of processes that run in short bursts, as PostgreSQL backends do here."""
    out = {}
    for p in procs:
        try:
            total = 0
            for task in Path(f"/proc/{p.pid}/task").iterdir():
                total += int((task / "schedstat").read_text().split()[0])
            out[p.pid] = total / 1e9
            continue
        except (OSError, ValueError, IndexError):
            pass
        try:
            c = p.cpu_times()
            out[p.pid] = c.user + c.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return out


def thread_cpu(procs: list[psutil.Process]) -> dict[tuple[int, int], tuple[str, float]]:
    """CPU seconds per thread of the server's workers: {(pid, tid): (role, seconds)}, role
    ``loop`` for a process's main thread (uvicorn's event loop: HTTP, routing, the hand-off's
    loop side), ``pool`` for the thread pool serving requests, ``other`` for the rest."""
    out = {}
    for p in procs:
        try:
            for task in Path(f"/proc/{p.pid}/task").iterdir():
                tid = int(task.name)
                comm = (task / "comm").read_text().strip()
                role = "loop" if tid == p.pid else "pool" if comm.startswith("AnyIO") else "other"
                out[(p.pid, tid)] = (role, int((task / "schedstat").read_text().split()[0]) / 1e9)
        except (OSError, ValueError, IndexError):
            continue
    return out


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(v - before.get(pid, 0.0) for pid, v in after.items())


BUSY = ("user", "nice", "system", "irq", "softirq")


class CpuMeter:
    """CPU seconds spent in the window by this client, the server's tree, the database,
    and by anything else on the machine (interference: the figures hold when it is ~0)."""

    def __init__(self, server_pid: int, db_name: str | None) -> None:
        self.server_pid = server_pid
        self.db_name = db_name
        self.marks: dict[str, Any] = {}

    def mark(self, name: str) -> None:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        ours, every = postgres_procs(self.db_name) if self.db_name else ([], [])
        self.marks[name] = {
            "client": ru.ru_utime + ru.ru_stime,
            "server": cpu_of(tree(self.server_pid)),
            "threads": thread_cpu(tree(self.server_pid)),
            "db": cpu_of(ours),
            "all_pg": cpu_of(every),
            "machine": psutil.cpu_times(),
            "wall": time.perf_counter(),
        }

    def report(self, rounds: int) -> dict[str, Any]:
        a, b = self.marks["start"], self.marks["end"]
        wall = b["wall"] - a["wall"]
        machine = {f: getattr(b["machine"], f) - getattr(a["machine"], f) for f in b["machine"]._fields}
        busy = sum(machine.get(f, 0.0) for f in BUSY)
        everything = sum(machine.values()) - machine.get("guest", 0.0) - machine.get("guest_nice", 0.0)
        client = b["client"] - a["client"]
        server = cpu_delta(a["server"], b["server"])
        db = cpu_delta(a["db"], b["db"])
        out = {
            "window_seconds": round(wall, 3),
            "client_cpu_seconds": round(client, 3),
            "server_cpu_seconds": round(server, 3),
            "server_processes": len(b["server"]),
            "server_cpu_ms_per_spin": round(server / rounds * 1000, 3) if rounds else None,
        }
        roles: dict[str, float] = {}
        for key, (role, seconds) in b["threads"].items():
            roles[role] = roles.get(role, 0.0) + seconds - a["threads"].get(key, (role, 0.0))[1]
        if rounds:
            by_thread = {r: round(v / rounds * 1000, 3) for r, v in roles.items()}
            out["server_cpu_ms_per_spin_by_thread"] = by_thread
        if self.db_name:
            out["db_cpu_seconds"] = round(db, 3)
            out["db_cpu_ms_per_spin"] = round(db / rounds * 1000, 3) if rounds else None
            out["all_postgres_cpu_seconds"] = round(cpu_delta(a["all_pg"], b["all_pg"]), 3)
        out.update(
            {
                "machine_cpus": psutil.cpu_count(),
                "machine_busy_fraction": round(busy / everything, 3) if everything else None,
                "other_cpu_seconds": round(busy - client - server - db, 3),
            }
        )
        return out


class PySpy:
    """Optional: ``py-spy record`` on every server worker in the window: raw collapsed stacks
    of the thread holding the GIL (``--gil``), i.e. where the worker's Python CPU goes; plain
    sampling would count the threadpool's threads blocked in psycopg's socket wait as busy."""

    def __init__(self, outdir: Path | None, server_pid: int, seconds: float) -> None:
        self.outdir = outdir
        self.server_pid = server_pid
        self.seconds = seconds
        self.procs: list[subprocess.Popen] = []

    def start(self) -> None:
        if self.outdir is None:
            return
        self.outdir.mkdir(parents=True, exist_ok=True)
        procs = tree(self.server_pid)
        # With several workers the root is uvicorn's supervisor: sample its children only.
        # (multiprocessing's resource tracker, if any, is idle and harmless to sample.)
        targets = procs[1:] if len(procs) > 1 else procs
        for p in targets:
            out = self.outdir / f"worker-{p.pid}.txt"
            self.procs.append(
                subprocess.Popen(
                    [str(PY_SPY), "record", "--pid", str(p.pid), "--duration", str(int(self.seconds)),
                     "--rate", "200", "--gil", "--format", "raw", "--nonblocking", "--output", str(out)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip

    def wait(self) -> None:
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


# -- server and database -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def create_pg_database(name: str) -> str:
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)


def drop_pg_database(name: str) -> None:
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


CEILING_APP = "ceiling_app:create"  # bench/ceiling_app.py


def start_server(
    db_url: str,
    workers: int,
    data_dir: Path,
    port: int,
    pool_size: int | None,
    app: str | None = None,
    uvicorn_args: list[str] | None = None,
) -> subprocess.Popen:
    """``reelforge serve``; or, to try a server change without touching src/, uvicorn on
    another app factory (``module:function``, found on PYTHONPATH, ``bench/`` included) over
    the migrated database, with the options ``reelforge serve`` gives uvicorn."""
    env = dict(os.environ, REELFORGE_OPERATOR_KEY=OPERATOR_KEY, REELFORGE_DB=db_url)
    env["REELFORGE_DATA_DIR"] = str(data_dir)
    # A load generator's player spins far faster than a person: the per-session rate limit
    # stays on (its cost is part of the spin) but set too high to bind.
    env.setdefault("REELFORGE_RATE_LIMIT_PER_SECOND", "1000000")
    env.setdefault("REELFORGE_RATE_LIMIT_BURST", "1000000")
    env["PYTHONPATH"] = os.pathsep.join(x for x in (env.get("PYTHONPATH"), str(ROOT / "bench")) if x)
    if pool_size is not None:
        env["REELFORGE_POOL_SIZE"] = str(pool_size)
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 - closed with the process
    if app is None:
        cmd = [*SERVE, "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db_url]
        cmd += ["--workers", str(workers), "--data-dir", str(data_dir)]
    else:
        from reelforge.server.core.config import Settings
        from reelforge.server.runtime.service import GameServer

        server = GameServer(Settings(db=db_url, operator_key=OPERATOR_KEY, data_dir=data_dir, pool_size=1))
        server.migrate()
        server.engine.dispose()
        cmd = [sys.executable, "-m", "uvicorn", app, "--factory", "--host", "127.0.0.1", "--port", str(port)]
        cmd += ["--workers", str(workers), "--log-level", "warning", "--no-access-log", *(uvicorn_args or [])]
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_healthy(proc: subprocess.Popen, port: int, timeout: float = 60.0) -> None:
    """Poll /api/v1/health until it answers 200 (every worker of a multi-worker server
    has to be up too: they share the listening socket, so ask a few times in a row)."""

    async def poll() -> None:
        deadline = time.monotonic() + timeout
        ok_in_a_row = 0
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}")
            conn = Conn("127.0.0.1", port)
            try:
                status, _, _ = await conn.request("GET", "/api/v1/health")
                ok_in_a_row = ok_in_a_row + 1 if status == 200 else 0
            except (OSError, asyncio.IncompleteReadError, HttpError):
                ok_in_a_row = 0
            finally:
                await conn.close()
            if ok_in_a_row >= 5:
                return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"the server did not answer /api/v1/health within {timeout} s")

    asyncio.run(poll())


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # our own process group (start_new_session)
            proc.wait()


# -- audit -------------------------------------------------------------------------------


def audit(db_url: str, players: list[Player], opening: int, stake: int, data_dir: Path) -> dict[str, Any]:
    """The books after the run, from the database, against what the client saw."""
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = {
            r.external_id: r
            for r in conn.execute(select(t.players.c.id, t.players.c.external_id, t.players.c.balance))
        }
        ledger = {
            (r.player_id, r.kind): (int(r.total), int(r.n))
            for r in conn.execute(
                select(
                    t.ledger.c.player_id,
                    t.ledger.c.kind,
                    func.sum(t.ledger.c.amount).label("total"),
                    func.count().label("n"),
                ).group_by(t.ledger.c.player_id, t.ledger.c.kind)
            )
        }
        by_round = {
            r.player_id: r
            for r in conn.execute(
                select(
                    t.rounds.c.player_id,
                    func.count().label("n"),
                    func.sum(t.rounds.c.stake).label("staked"),
                    func.sum(t.rounds.c.win).label("won"),
                    func.sum(case((t.rounds.c.status != "complete", 1), else_=0)).label("open"),
                ).group_by(t.rounds.c.player_id)
            )
        }
        round_ledger_mismatches = conn.execute(
            text(
                "SELECT count(*) FROM rounds r LEFT JOIN (SELECT round_id, sum(amount) AS s "
                "FROM ledger WHERE round_id IS NOT NULL GROUP BY round_id) l ON l.round_id = r.id "
                "WHERE r.status = 'complete' AND coalesce(l.s, 0) <> r.win - r.stake"
            )
        ).scalar_one()
    engine.dispose()

    problems: list[str] = []
    balance_ok = ledger_ok = rounds_ok = client_ok = True
    for p in players:
        row = rows.get(p.external_id)
        if row is None:
            problems.append(f"{p.external_id}: missing")
            balance_ok = False
            continue
        kinds = {k: v for (pid, k), v in ledger.items() if pid == row.id}
        total = sum(v[0] for v in kinds.values())
        deposit = kinds.get("deposit", (0, 0))[0]
        stakes, n_stakes = kinds.get("stake", (0, 0))
        wins = kinds.get("win", (0, 0))[0]
        r = by_round.get(row.id)
        n_rounds, staked, won, open_ = (0, 0, 0, 0) if r is None else (r.n, int(r.staked), int(r.won), r.open)
        if row.balance != total or deposit != opening or row.balance != opening + total - deposit:
            balance_ok = False
            problems.append(f"{p.external_id}: balance {row.balance}, ledger {total}, deposit {deposit}")
        cost = stake if p.kind == "gnomes" else None  # a bought feature costs its price
        if -stakes != staked or n_stakes != n_rounds or wins != won or open_ or (
            cost is not None and staked != n_rounds * cost
        ):
            ledger_ok = False
            problems.append(
                f"{p.external_id}: rounds {n_rounds} (open {open_}) staked {staked} won {won}; "
                f"ledger stakes {stakes} x{n_stakes} wins {wins}"
            )
        if n_rounds != p.rounds or staked != p.staked or won != p.won:
            rounds_ok = False
            problems.append(
                f"{p.external_id}: client saw {p.rounds} rounds, {p.staked} staked, {p.won} won; "
                f"db {n_rounds}, {staked}, {won}"
            )
        if row.balance != p.last_balance or row.balance != opening - p.staked + p.won:
            client_ok = False
            problems.append(
                f"{p.external_id}: db balance {row.balance}, last reply {p.last_balance}, "
                f"opening - staked + won {opening - p.staked + p.won}"
            )

    # The server's own audit (every balance is its ledger's sum; ledger agrees with rounds).
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    server = GameServer(Settings(db=db_url, operator_key=OPERATOR_KEY, data_dir=data_dir, pool_size=1))
    own = server.audit()
    server.engine.dispose()

    return {
        "players": len(players),
        "rounds_in_db": sum(int(r.n) for r in by_round.values()),
        "balances_equal_opening_plus_ledger": balance_ok,
        "ledger_matches_rounds": ledger_ok and round_ledger_mismatches == 0,
        "rounds_match_client": rounds_ok,
        "balances_match_client": client_ok,
        "server_audit_balances": bool(own["balances_match_ledger"]),
        "server_audit_rounds": bool(own["rounds_match_ledger"]),
        "problems": problems[:20],
    }


# -- main --------------------------------------------------------------------------------


def percentiles(samples: list[float]) -> dict[str, float | None]:
    if not samples:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    s = sorted(samples)

    def q(f: float) -> float:
        return round(s[min(len(s) - 1, int(f * len(s)))] * 1000, 2)

    return {"p50": q(0.50), "p95": q(0.95), "p99": q(0.99), "max": round(s[-1] * 1000, 2)}


def run_once(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """One load run on a fresh database: ``kind`` "reelforge" (``reelforge serve``, or
    ``--app``) or "ceiling" (bench/ceiling_app.py, the same players made in process)."""
    data_dir = Path(tempfile.mkdtemp(prefix="rf_bench_"))
    db_name = f"rf_bench_{os.getpid()}_{kind}"
    app = CEILING_APP if kind == "ceiling" else args.app
    result: dict[str, Any] = {
        "kind": kind,
        "db": args.db,
        "workers": args.workers,
        "players": args.players,
        "duration": args.seconds,
        "warmup": args.warmup,
        "stake": args.stake,
        "pool_size": args.pool_size,
        "server": app or "reelforge serve",
        "uvicorn_args": args.uvicorn_arg if kind != "ceiling" else [],
        "loadavg_before": [round(x, 2) for x in os.getloadavg()],
        # The server runs the reelforge this interpreter imports (PYTHONPATH is passed on).
        "reelforge_src": str(Path(t.__file__).resolve().parents[1]),
    }
    proc: subprocess.Popen | None = None
    spy_dir = None if args.py_spy is None else args.py_spy / kind if args.ceiling else args.py_spy
    try:
        if args.db == "postgresql":
            db_url = create_pg_database(db_name)
        else:
            db_url = f"sqlite:///{(data_dir / 'bench.db').as_posix()}"
        made = None
        if kind == "ceiling":
            made = setup_players_in_process(db_url, data_dir, args.players, OPENING)
        port = free_port()
        proc = start_server(
            db_url, args.workers, data_dir, port, args.pool_size, app,
            args.uvicorn_arg if kind != "ceiling" else [],
        )  # fmt: skip
        try:
            wait_healthy(proc, port)
            meter = CpuMeter(proc.pid, db_name if args.db == "postgresql" else None)
            spy = PySpy(spy_dir, proc.pid, args.seconds)

            def on_window(what: str) -> None:
                meter.mark(what)
                if what == "start":
                    spy.start()

            players, stats = asyncio.run(
                setup_and_load(
                    "127.0.0.1", port, args.players, args.stake, args.warmup, args.seconds, on_window, made,
                    args.mix,
                )
            )
            spy.wait()
        except Exception as exc:  # report what is known, with the server's log
            stop_server(proc)
            result["failed"] = f"{type(exc).__name__}: {exc}"
            result["server_log_tail"] = (data_dir / "server.log").read_text(errors="replace")[-3000:]
            return result
        stop_server(proc)
        result.update(
            {
                "rounds": stats.rounds,
                "requests": stats.requests,
                "actions": stats.actions,
                "spins_per_second": round(stats.rounds / args.seconds, 1),
                "requests_per_second": round(stats.requests / args.seconds, 1),
                "latency_ms": percentiles(stats.latencies),
                **({"scenarios": scenarios(stats, args.seconds)} if args.mix else {}),
                "errors": stats.errors,
                "error_samples": stats.error_samples,
                "cpu": meter.report(stats.rounds),
                "audit": audit(db_url, players, OPENING, args.stake, data_dir),
            }
        )
    finally:
        if proc is not None:
            stop_server(proc)
        cleanup(args, db_name, data_dir)
    checks = [v for v in result["audit"].values() if isinstance(v, bool)]
    result["audit_ok"] = all(checks)
    p99 = result["latency_ms"]["p99"]
    result["target_met"] = result["spins_per_second"] >= 1000 and p99 is not None and p99 < 100
    return result


def scenarios(stats: Stats, seconds: float) -> dict[str, Any]:
    """Per scenario of ``--mix``: what it is, rounds and requests a second, latencies."""
    out = {}
    for kind, (game, mode, stake, _) in SCENARIOS.items():
        seen = stats.by_kind.get(kind, {"rounds": 0, "requests": 0, "latencies": []})
        out[kind] = {
            "game": game,
            "mode": mode,
            "stake": stake,
            "rounds_per_second": round(seen["rounds"] / seconds, 1),
            "requests_per_second": round(seen["requests"] / seconds, 1),
            "requests_per_round": round(seen["requests"] / seen["rounds"], 2) if seen["rounds"] else None,
            "latency_ms": percentiles(seen["latencies"]),
        }
    return out


def brief(run: dict[str, Any]) -> dict[str, Any]:
    """A run's headline figures (the pairs' summary)."""
    if "failed" in run:
        return {"failed": run["failed"]}
    cpu = run["cpu"]
    return {
        "spins_per_second": run["spins_per_second"],
        **{k: run["latency_ms"][k] for k in ("p50", "p95", "p99")},
        "server_cpu_ms_per_spin": cpu["server_cpu_ms_per_spin"],
        "db_cpu_ms_per_spin": cpu.get("db_cpu_ms_per_spin"),
        "machine_busy_fraction": cpu["machine_busy_fraction"],
        "other_cpu_seconds": cpu["other_cpu_seconds"],
        "errors": sum(run["errors"].values()),
        "audit_ok": run["audit_ok"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    ap.add_argument("--workers", type=int, default=2, help="server worker processes")
    ap.add_argument("--players", type=int, default=32, help="concurrent players (one connection each)")
    ap.add_argument("--seconds", type=float, default=20.0, help="measured window")
    ap.add_argument("--warmup", type=float, default=3.0, help="spinning before the window opens")
    ap.add_argument("--stake", type=int, default=40)
    ap.add_argument("--pool-size", type=int, default=None, help="REELFORGE_POOL_SIZE for the server")
    ap.add_argument("--keep", action="store_true", help="keep the database (and data dir) afterwards")
    ap.add_argument(
        "--app",
        default=None,
        metavar="MODULE:FACTORY",
        help="serve this uvicorn app factory instead of `reelforge serve` (experiments)",
    )
    ap.add_argument(
        "--uvicorn-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra uvicorn option with --app, e.g. --uvicorn-arg=--http=h11 (repeatable)",
    )
    ap.add_argument("--py-spy", type=Path, default=None, metavar="DIR",
                    help="record raw py-spy stacks of each worker during the window into DIR")  # fmt: skip
    ap.add_argument(
        "--ceiling",
        action="store_true",
        help="also run the ceiling (bench/ceiling_app.py) back to back with reelforge; PostgreSQL",
    )
    ap.add_argument(
        "--mix",
        action="store_true",
        help="players over SCENARIOS (Gnomes spins, Gambini and Pinguinos decisions, a bought feature)",
    )
    ap.add_argument("--repeat", type=int, default=1, help="with --ceiling: pairs of runs (order alternates)")
    args = ap.parse_args()
    if args.py_spy is not None and not PY_SPY.exists():
        ap.error(f"--py-spy needs {PY_SPY} (.venv/bin/pip install py-spy)")
    if args.uvicorn_arg and args.app is None:
        ap.error("--uvicorn-arg needs --app (reelforge serve takes no uvicorn options)")
    if args.ceiling and args.db != "postgresql":
        ap.error("--ceiling runs on PostgreSQL only")
    if args.mix and args.ceiling:
        ap.error("--mix has no ceiling: the ceiling spins Reign of Gnomes only")
    if args.repeat > 1 and not args.ceiling:
        ap.error("--repeat needs --ceiling")

    if not args.ceiling:
        result = run_once(args, "reelforge")
        print(json.dumps(result, indent=2))
        if "failed" in result:
            return 2
        return 0 if result["audit_ok"] else 1

    # The ceiling and reelforge back to back, the order alternating from pair to pair, so a
    # change in what else runs on the machine weighs on both alike; the ratio is per pair.
    pairs = []
    runs = []
    for i in range(args.repeat):
        order = ("ceiling", "reelforge") if i % 2 == 0 else ("reelforge", "ceiling")
        pair = {}
        for kind in order:
            run = run_once(args, kind)
            runs.append(run)
            pair[kind] = brief(run)
        c, r = pair["ceiling"], pair["reelforge"]
        if "failed" not in c and "failed" not in r and c["spins_per_second"]:
            pair["ratio"] = round(r["spins_per_second"] / c["spins_per_second"], 3)
        pairs.append(pair)
    ratios = sorted(p["ratio"] for p in pairs if "ratio" in p)
    out = {
        "pairs": pairs,
        "ratio_median": ratios[len(ratios) // 2] if ratios else None,
        "runs": runs,
    }
    print(json.dumps(out, indent=2))
    if any("failed" in run for run in runs):
        return 2
    return 0 if all(run["audit_ok"] for run in runs) else 1


def cleanup(args: argparse.Namespace, db_name: str, data_dir: Path) -> None:
    if args.keep:
        print(
            f"kept: {data_dir}" + (f", database {db_name}" if args.db == "postgresql" else ""),
            file=sys.stderr,
        )
        return
    if args.db == "postgresql":
        with contextlib.suppress(Exception):  # e.g. never created: PostgreSQL was down
            drop_pg_database(db_name)
    shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
