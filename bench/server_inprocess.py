"""CPU per spin of the game server's service layer, without HTTP: one player spinning Reign of
Gnomes through GameServer.start_round/act on a fresh database, one thread.

Usage: python bench/server_inprocess.py [--db postgresql|sqlite] [--spins N]
Prints one JSON object: CPU ms and wall ms per spin (the database's own CPU is not counted);
on PostgreSQL also the statements sent per spin (BEGIN and COMMIT included) and the round
trips (waits for the server), counted at psycopg's cursor, pipeline and connection calls.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path

import psutil
from sqlalchemy import create_engine, text

from reelforge.server.core.config import Settings
from reelforge.server.runtime.service import GameServer

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


class Counter:
    """Statements and round trips through psycopg (sync API), counted from its calls: an
    execute outside a pipeline is one round trip (two when psycopg begins a transaction for
    it), a pipeline's sync, flushed fetch or leaving one, a commit or rollback of an open transaction
    one."""

    def __init__(self) -> None:
        self.statements = 0
        self.round_trips = 0

    def install(self) -> None:
        import psycopg
        from psycopg import pq

        counter = self
        execute, commit = psycopg.Cursor.execute, psycopg.Connection.commit
        rollback = psycopg.Connection.rollback
        sync = psycopg.Pipeline.sync
        leave = psycopg.Pipeline.__exit__

        def counted_execute(cur, *args, **kwargs):  # type: ignore[no-untyped-def]
            conn = cur.connection
            idle = conn.info.transaction_status == pq.TransactionStatus.IDLE
            begins = idle and not conn.autocommit
            counter.statements += 1 + begins
            if conn._pipeline is None:
                counter.round_trips += 1 + begins
            elif begins:
                counter.round_trips += 1  # psycopg syncs its BEGIN at once, in a pipeline too
            return execute(cur, *args, **kwargs)

        def ends(method):  # type: ignore[no-untyped-def]
            def counted(conn, *args, **kwargs):  # type: ignore[no-untyped-def]
                if conn.info.transaction_status != pq.TransactionStatus.IDLE:
                    counter.statements += 1
                    counter.round_trips += 1
                return method(conn, *args, **kwargs)

            return counted

        def counted_sync(pipe, *args, **kwargs):  # type: ignore[no-untyped-def]
            counter.round_trips += 1
            return sync(pipe, *args, **kwargs)

        def counted_leave(pipe, *args, **kwargs):  # type: ignore[no-untyped-def]
            if pipe.level == 1:
                counter.round_trips += 1  # leaving pipeline mode sends a Sync and waits for it
            return leave(pipe, *args, **kwargs)

        from reelforge.server.storage import sql

        fetch = getattr(sql, "_FETCH", None)
        if fetch is not None:

            def counted_fetch(cur, *args, **kwargs):  # type: ignore[no-untyped-def]
                counter.round_trips += 1  # the reads of a pipelined transaction: sent, answered
                return fetch(cur, *args, **kwargs)

            sql._FETCH = counted_fetch
        psycopg.Cursor.execute = counted_execute
        psycopg.Connection.commit = ends(commit)
        psycopg.Connection.rollback = ends(rollback)
        psycopg.Pipeline.sync = counted_sync
        psycopg.Pipeline.__exit__ = counted_leave


def db_cpu(db_name: str) -> float:
    """CPU seconds so far of this database's PostgreSQL backends (the scheduler's run time)."""
    total = 0.0
    for proc in psutil.process_iter(["name", "cmdline"]):
        title = " ".join(proc.info["cmdline"] or [])
        if proc.info["name"] in ("postgres", "postgresql") and db_name in title:
            try:
                for task in Path(f"/proc/{proc.pid}/task").iterdir():
                    total += int((task / "schedstat").read_text().split()[0]) / 1e9
            except (OSError, ValueError, IndexError):
                pass
    return total


def spin(server: GameServer, token: str, key: str) -> None:
    _, reply = server.start_round(token, key, "reign-of-gnomes", 40, "base", None)
    rnd = reply["round"]
    while rnd["status"] == "pending":
        spec = rnd["actions"][0]
        _, reply = server.act(
            token, f"{key}-{rnd['step']}", rnd["id"], spec["name"], spec.get("default"), None
        )
        rnd = reply["round"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--spins", type=int, default=2000)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rf_inproc_"))
    name = f"rf_inproc_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    if args.db == "postgresql":
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    else:
        url = f"sqlite:///{tmp / 'bench.db'}"
    server = GameServer(Settings(db=url, operator_key="bench", data_dir=tmp))
    try:
        server.migrate()
        op = server.default_operator()
        server.create_player(op, "bench", "GBP")
        server.wallet_move(op, "deposit", "bench", 10**10, "deposit")
        token = server.open_session(op, "session", "bench", None, None)[1]["token"]
        for i in range(200):  # warm-up: prepared statements, caches
            spin(server, token, f"w{i}")
        db0 = db_cpu(name) if args.db == "postgresql" else 0.0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(args.spins):
            spin(server, token, f"s{i}")
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        db = db_cpu(name) - db0 if args.db == "postgresql" else None
        counts = {}
        if args.db == "postgresql":  # counted apart: the counting costs time of its own
            counter = Counter()
            counter.install()
            n = min(args.spins, 500)
            for i in range(n):
                spin(server, token, f"c{i}")
            counts = {
                "statements_per_spin": round(counter.statements / n, 2),
                "round_trips_per_spin": round(counter.round_trips / n, 2),
            }
        audit = server.audit()
    finally:
        server.engine.dispose()
        if args.db == "postgresql":
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    print(
        json.dumps(
            {
                "db": args.db,
                "spins": args.spins,
                "cpu_ms_per_spin": round(cpu / args.spins * 1000, 3),
                "wall_ms_per_spin": round(wall / args.spins * 1000, 3),
                "db_cpu_ms_per_spin": None if db is None else round(db / args.spins * 1000, 3),
                **counts,
                "audit_ok": audit["balances_match_ledger"] and audit["rounds_match_ledger"],
            }
        )
    )


if __name__ == "__main__":
    main()
