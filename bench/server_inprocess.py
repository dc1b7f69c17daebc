"""CPU per spin of the game server's service layer, without HTTP: one player spinning Reign of
Gnomes through GameServer.start_round/act on a fresh database, one thread.

Usage: python bench/server_inprocess.py [--db postgresql|sqlite] [--spins N]
Prints one JSON object: CPU ms and wall ms per spin (the database's own CPU is not counted).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text

from reelforge.server.config import Settings
from reelforge.server.service import GameServer

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


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
        server.create_player("bench", "GBP")
        server.wallet_move("deposit", "bench", 10**10, "deposit")
        token = server.open_session("session", "bench", None, None)[1]["token"]
        for i in range(200):  # warm-up: prepared statements, caches
            spin(server, token, f"w{i}")
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(args.spins):
            spin(server, token, f"s{i}")
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
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
                "audit_ok": audit["balances_match_ledger"] and audit["rounds_match_ledger"],
            }
        )
    )


if __name__ == "__main__":
    main()
