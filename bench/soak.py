"""Soak test of the game server: many players on every real game against real ``reelforge
serve`` processes on PostgreSQL for minutes, with random SIGKILLs of the server processes and
crash restarts of PostgreSQL, then the books.

Usage: nice -n 10 python bench/soak.py [--minutes 5] [--players 48] [--servers 2] [--kills N]
                                        [--pg-restarts 1] [--think 0.02] [--seed S] [--json]

Run from the repository root with the worktree's ``src`` on PYTHONPATH.  It imports
``tests/server_process.py`` (ServerProcess, check_books: the path is added below) and the raw
HTTP client of ``bench/server_load.py``.

1. A private PostgreSQL cluster (``bench/soak_pg.py``: initdb into a temporary folder, a free
   port; never the machine's shared one) and ``--servers`` single-worker ``reelforge serve``
   processes on one database.
2. ``--players`` players (``bench/soak_client.py``) play Reign of Gnomes, Ghost of Gambini (base
   and bought features), Los 3 Pinguinos (lower, and upper once their Bonuses cover a bet) and
   autoplay of each, deciding picks, holds, nudges and ladders at random.  Every request left
   unanswered or answered 5xx is resent with its Idempotency-Key until answered.
3. Meanwhile a chaos thread SIGKILLs a random server process ``--kills`` times (restarted after
   0–2 s) and crash-restarts PostgreSQL ``--pg-restarts`` times (``pg_ctl stop -m immediate``,
   down 1–3 s), the first restart in the middle of the run.
4. At the end the players stop (some leaving a round in play), every server is SIGKILLed and
   started again, every player takes its open rounds back from ``GET /rounds/pending`` (each
   must be exactly as last seen) and finishes them, resends kept requests (their stored replies
   must come back), and compares its balance and Bonuses with the server's.
5. The books (``bench/soak_books.py``): the server's audit, check_books, and every player's
   rounds, money and Bonuses against what the player saw.

Prints the figures and PASS or FAIL; exits 1 on FAIL (2 if the soak could not run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]  # server_load, soak_*; server_process

import httpx  # noqa: E402

import soak_books  # noqa: E402
from server_process import OP_HEADERS, ServerPool, ServerProcess  # noqa: E402
from soak_client import Client, Player, Servers, Stats  # noqa: E402
from soak_pg import PrivatePostgres, find_bin  # noqa: E402

OPENING = 5_000_000  # each player's opening credit, minor units (£50,000: no round is refused for funds)


class Chaos(threading.Thread):
    """SIGKILLs server processes and crash-restarts PostgreSQL on a random schedule."""

    def __init__(self, servers: Servers, pg: PrivatePostgres, seconds: float, kills: int, pg_restarts: int,
                 rng: random.Random) -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.servers, self.pg, self.rng = servers, pg, rng
        events = [(seconds * (i + 1) / (pg_restarts + 1), "pg") for i in range(pg_restarts)]
        events += [(rng.uniform(0.05, 0.95) * seconds, "kill") for _ in range(kills)]
        self.events = sorted(events)
        self.start_at = time.monotonic()
        self.log: list[str] = []
        self.kills = 0
        self.failed: str | None = None

    def run(self) -> None:
        try:
            for at, what in self.events:
                time.sleep(max(0.0, self.start_at + at - time.monotonic()))
                if what == "pg":
                    down = self.rng.uniform(1.0, 3.0)
                    self.pg.crash_restart(down)
                    self.log.append(
                        f"{time.monotonic() - self.start_at:6.1f} s  PostgreSQL restarted ({down:.1f} s down)"
                    )
                else:
                    i = self.rng.randrange(len(self.servers.procs))
                    self.kill_and_restart(i, self.rng.uniform(0.0, 2.0))
        except Exception as exc:  # reported as the soak's failure
            self.failed = f"{type(exc).__name__}: {exc}"

    def kill_and_restart(self, i: int, down: float) -> None:
        proc = self.servers.procs[i]
        self.servers.up[i] = False
        proc.kill()
        self.kills += 1
        time.sleep(down)
        proc.start()
        self.servers.up[i] = True
        self.log.append(
            f"{time.monotonic() - self.start_at:6.1f} s  server {i} SIGKILLed, back after {down:.1f} s"
        )


def log_exceptions(data_dir: Path) -> Counter[str]:
    """The exceptions the server processes logged (every start's log), by their last line."""
    found: Counter[str] = Counter()
    for log in data_dir.rglob("server-*.log"):
        lines = log.read_text(errors="replace").splitlines()
        for i, line in enumerate(lines):
            if line.startswith("Traceback"):
                j = i + 1
                while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
                    j += 1
                found[lines[j][:100] if j < len(lines) else "?"] += 1
    return found


def start_all(procs: list[ServerProcess]) -> None:
    for proc in procs:  # started together: they migrate under the advisory lock
        proc.launch()
    for proc in procs:
        proc.wait_ready()


async def drive(client: Client, players: list[Player], servers: Servers, seconds: float, think: float,
                chaos: Chaos, voids: bool, seed: int) -> float:  # fmt: skip
    """Play for ``seconds``; then the last crash (every process at once, rounds left in play)
    and the wind-up.  Returns the seconds played."""
    t0 = time.monotonic()
    chaos.start()
    tasks = [asyncio.create_task(client.run(p, think)) for p in players]
    if voids:
        tasks.append(asyncio.create_task(client.operator(Player("operator", 0, random.Random(seed), 0))))
    await asyncio.sleep(seconds)
    client.stop = True
    await asyncio.gather(*tasks)
    await asyncio.to_thread(chaos.join)
    played = time.monotonic() - t0
    servers.up = [False] * len(servers.procs)
    for proc in servers.procs:
        proc.kill()
    await asyncio.to_thread(start_all, servers.procs)
    servers.up = [True] * len(servers.procs)
    await asyncio.gather(*(client.wind_up(p) for p in players))
    return played


def soak(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    bin_dir = find_bin()
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL binaries (initdb, pg_ctl): set REELFORGE_PG_BIN")
    pg = PrivatePostgres(bin_dir)
    data_dir = Path(tempfile.mkdtemp(prefix="rf_soak_"))
    pool = ServerPool(data_dir)
    out: dict[str, Any] = {"minutes": args.minutes, "players": args.players, "servers": args.servers,
                           "seed": args.seed}  # fmt: skip
    t_setup = time.monotonic()
    try:
        pg.init()
        db_url = pg.create_database("soak")
        env = {}
        if args.pending_timeout:  # the sweeper finishes rounds left this long, checking every second
            env = {"REELFORGE_PENDING_TIMEOUT_SECONDS": str(args.pending_timeout),
                   "REELFORGE_SWEEP_INTERVAL_SECONDS": "1"}  # fmt: skip
        procs = [pool.new(db_url, f"server{i}", env) for i in range(args.servers)]
        start_all(procs)
        servers = Servers(procs)
        listing = httpx.get(procs[0].url + "/games", headers=OP_HEADERS, timeout=30).json()
        client = Client(
            servers, Stats(), {g["id"]: g for g in listing["games"]}, args.drop, args.pending_timeout
        )
        client.voids = args.voids
        players = [
            Player(f"soak-{i:03d}", i, random.Random(rng.random()), OPENING) for i in range(args.players)
        ]
        seconds = args.minutes * 60
        kills = args.kills if args.kills is not None else max(1, round(seconds / 20))
        chaos = Chaos(servers, pg, seconds, kills, args.pg_restarts, rng)
        out["setup_seconds"] = round(time.monotonic() - t_setup, 1)
        t_run = time.monotonic()
        played = asyncio.run(
            drive(client, players, servers, seconds, args.think, chaos, args.voids, args.seed)
        )
        left = httpx.get(procs[0].url + "/operator/rounds/pending", headers=OP_HEADERS, timeout=30).json()
        if left["rounds"]:
            client.stats.error(f"rounds still in play after the wind-up: {[r['id'] for r in left['rounds']]}")
        for proc in procs:
            proc.kill()
        out["wind_up_seconds"] = round(time.monotonic() - t_run - played, 1)
        t_books = time.monotonic()
        books = soak_books.check(db_url, data_dir, players)
        out["books_seconds"] = round(time.monotonic() - t_books, 1)
        stats = client.stats
        errors = stats.errors + books["problems"] + ([f"chaos: {chaos.failed}"] if chaos.failed else [])
        exceptions = log_exceptions(data_dir)
        out.update(
            {
                "minutes_played": round(played / 60, 2),
                "rounds_per_game": books["rounds_per_game"],
                "rounds": books["rounds"],
                "plays": {f"{g} {m}": n for (g, m), n in sorted(stats.plays.items())},
                "decisions": {f"{g} {a}": n for (g, a), n in sorted(stats.actions.items())},
                "requests": stats.requests,
                "resends": stats.resends,
                "no_answer": stats.no_answer,
                "dropped_by_client": stats.dropped,
                "server_errors": {str(k): v for k, v in sorted(stats.server_errors.items())},
                "answered_after_resend": stats.answered_after_resend,
                "replayed_after_resend": stats.replayed_after_resend,
                "replays_checked": stats.replays_checked,
                "sigkills": chaos.kills + len(procs),
                "pg_restarts": pg.restarts,
                "rounds_restored": stats.restored,
                "rounds_left_in_play": stats.away,
                "rounds_finished_by_the_sweeper": stats.server_completed,
                "rounds_voided": stats.voided,
                "voids_too_late": stats.voids_refused,
                "voided_rounds_found_by_players": stats.learnt_voided,
                "reloads": stats.reloads,
                "sessions_opened": stats.new_sessions,
                "money_checked_cents": books["money_checked_cents"],
                "bonus_movements_checked": books["bonus_movements_checked"],
                "bonus_units_checked": books["bonus_units_checked"],
                "bonus_rounds_checked": books["bonus_rounds_checked"],
                "audit_green": books["audit_green"],
                "audit": books["audit"],
                "server_log_exceptions": dict(exceptions.most_common(8)),
                "chaos": chaos.log,
                "errors": len(errors),
                "error_samples": errors[:15],
            }
        )
        out["pass"] = not errors and books["audit_green"] and books["pending_left"] == 0
        return out
    finally:
        pool.close()
        pg.close()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"kept the server logs in {data_dir}", file=sys.stderr)


def summary(out: dict[str, Any]) -> str:
    lines = [
        f"minutes played      {out['minutes_played']}",
        f"players             {out['players']} on {out['servers']} server processes",
        "rounds per game     " + ", ".join(f"{k}: {v}" for k, v in out["rounds_per_game"].items()),
        f"rounds              {out['rounds']}",
        f"requests            {out['requests']}",
        f"resends             {out['resends']} (no answer {out['no_answer']}, of them hung up by the client "
        f"{out['dropped_by_client']}; 5xx {out['server_errors']}; "
        f"answered after a resend {out['answered_after_resend']}, of them stored replies "
        f"{out['replayed_after_resend']})",
        f"replays checked     {out['replays_checked']}",
        f"SIGKILLs            {out['sigkills']}",
        f"PG restarts         {out['pg_restarts']}",
        f"rounds restored     {out['rounds_restored']} (rounds left in play {out['rounds_left_in_play']}, "
        f"of them finished by the server's sweeper {out['rounds_finished_by_the_sweeper']})",
        f"rounds voided       {out['rounds_voided']} by the operator ({out['voids_too_late']} too late; "
        f"{out['voided_rounds_found_by_players']} found by their players)",
        f"money checked       {out['money_checked_cents']} cents (stakes + wins)",
        f"Bonuses checked     {out['bonus_movements_checked']} movements, "
        f"{out['bonus_units_checked']} Bonuses, {out['bonus_rounds_checked']} Pinguinos rounds",
        f"server audit        {'green' if out['audit_green'] else 'RED'}",
        f"server exceptions   {sum(out['server_log_exceptions'].values())} logged "
        f"(the kinds: {out['server_log_exceptions']})",
        f"errors              {out['errors']}",
        *[f"  {e}" for e in out["error_samples"]],
        "PASS" if out["pass"] else "FAIL",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--players", type=int, default=48)
    ap.add_argument("--servers", type=int, default=2, help="reelforge serve processes (one worker each)")
    ap.add_argument("--kills", type=int, default=None, help="SIGKILLs during the run (default: one per 20 s)")
    ap.add_argument(
        "--pg-restarts", type=int, default=1, help="PostgreSQL crash restarts (the first mid-run)"
    )
    ap.add_argument("--think", type=float, default=0.02, help="mean pause between a player's rounds, s")
    ap.add_argument("--drop", type=float, default=0.01,
                    help="chance that the client hangs up on a keyed request before its answer")  # fmt: skip
    ap.add_argument("--pending-timeout", type=int, default=10,
                    help="the servers' pending-round timeout, s; players leave rounds up to twice as long "
                    "(0: no rounds left, the 24 h default)")  # fmt: skip
    ap.add_argument("--no-voids", dest="voids", action="store_false",
                    help="no operator voiding rounds that wait for their player")  # fmt: skip
    ap.add_argument("--seed", type=int, default=None, help="the players' and the chaos's choices")
    ap.add_argument("--keep", action="store_true", help="keep the server logs")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    try:
        out = soak(args)
    except Exception as exc:  # the soak could not run: say why
        traceback.print_exc()
        print(f"the soak could not run: {type(exc).__name__}: {exc}\nFAIL", flush=True)
        return 2
    if args.json:
        print(json.dumps(out, indent=2))
    print(summary(out), flush=True)
    return 0 if out["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
