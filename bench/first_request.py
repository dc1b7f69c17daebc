"""How soon a new server process serves: from its start to live, to ready, and to its first
``GET /games`` (with a demo session, as the browser's lobby asks it), on SQLite in a fresh data
directory.  Run with the figures kept (the default store, as any process after the first
finds them) and, with ``--cold``, with an empty store (the very first process of a code and
data version, which computes them at start).

    python bench/first_request.py [--cold] [--repeat 3]

Prints one JSON object per run and the medians.  The C reference (``../shared/bench/
lines_ref.py``) is run first to say how fast the machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
C_REF = HERE.parent.parent / "shared" / "bench" / "lines_ref.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_run(cold: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("REELFORGE_")}
        env["REELFORGE_DEMO_MODE"] = "1"
        if cold:
            env["REELFORGE_FIGURES_DIR"] = str(Path(tmp) / "figures")
        reelforge = Path(sys.executable).parent / "reelforge"
        cmd = [str(reelforge), "serve", "--port", str(port), "--data-dir", str(Path(tmp) / "data")]
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}/api/v1"
        out: dict[str, float] = {}
        try:
            with httpx.Client(timeout=120) as client:
                while "live_s" not in out or "ready_s" not in out:
                    try:
                        if "live_s" not in out and client.get(base + "/health/live").status_code == 200:
                            out["live_s"] = time.perf_counter() - started
                            token = client.post(base + "/demo/session", headers={"Idempotency-Key": "b1"})
                            games = client.get(
                                base + "/games", headers={"Authorization": f"Bearer {token.json()['token']}"}
                            )
                            assert games.status_code == 200, games.text
                            out["first_games_s"] = time.perf_counter() - started
                        if client.get(base + "/health/ready").status_code == 200:
                            out["ready_s"] = time.perf_counter() - started
                    except httpx.TransportError:
                        pass
                    if proc.poll() is not None:
                        raise RuntimeError(f"the server exited with {proc.returncode}")
                    time.sleep(0.02)
        finally:
            proc.kill()
            proc.wait()
    return {k: round(v, 3) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cold", action="store_true", help="an empty figures store: computed at start")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if C_REF.exists():
        ref = subprocess.run([sys.executable, str(C_REF)], capture_output=True, text=True, check=True)
        print(json.dumps({"c_reference": json.loads(ref.stdout.strip().splitlines()[-1])}))
    runs = [one_run(args.cold) for _ in range(args.repeat)]
    for r in runs:
        print(json.dumps({"cold": args.cold, **r}))
    medians = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(json.dumps({"cold": args.cold, "median": medians}))


if __name__ == "__main__":
    main()
