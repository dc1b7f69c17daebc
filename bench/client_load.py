"""How long the browser client takes to load on loopback: cold cache, then warm.

Usage: python bench/client_load.py [--runs 10] [--game GAME_ID]

Starts ``reelforge serve --demo`` on a free loopback port (SQLite in a temporary folder),
warms the server up (its first game list computes every game's exact RTP: a server cost,
not the client's), then opens the client in Debian's Chromium ``--runs`` times, each in a new
browser context (an empty cache, a new demo session): from the start of the navigation to the
lobby ready (``#app[data-ready='1']`` with every game tile drawn), read in the page from
``performance.now()`` (the navigation's own clock).  Then the same in one context again and
again: the warm figure, with the versioned files served from the browser's cache.
With ``--game`` the page opened is that game's (``#/game/<id>``: its renderer, styles and
scene loaded and its stage drawn idle) instead of the lobby.
Prints one JSON object: median, best and worst in ms, requests and bytes on the wire.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
REELFORGE = ROOT / ".venv/bin/reelforge"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
# Stamps the moment the lobby (or the game's idle stage) is ready, on the navigation's clock.
READY = """
new MutationObserver((_, obs) => {
  const app = document.getElementById('app');
  const drawn = location.hash.startsWith('#/game/')
    ? document.querySelector(".game[data-state='idle'] :is([data-testid=reel-frame], .l3p-center)")
    : document.querySelector('[data-testid=game-tile]');
  if (app && app.dataset.ready === '1' && drawn) {
    window.__ready = performance.now();
    obs.disconnect();
  }
}).observe(document, { subtree: true, childList: true, attributes: true });
"""
WIRE = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  return {
    requests: res.length + 1,
    bytes: [nav, ...res].reduce((n, e) => n + e.transferSize, 0),
    decoded: [nav, ...res].reduce((n, e) => n + e.decodedBodySize, 0),
  };
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(port: int, data: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELFORGE_")}
    cmd = [str(REELFORGE), "serve", "--demo", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--db", f"sqlite:///{data / 'bench.db'}", "--data-dir", str(data)]
    log = (data / "server.log").open("wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start: " + (data / "server.log").read_text()[-2000:])


def load(page: Any, url: str) -> dict[str, Any]:
    page.goto(url)
    page.wait_for_function("() => window.__ready !== undefined", timeout=60_000)
    ready = page.evaluate("() => window.__ready")
    return {"ms": round(float(ready), 1), **page.evaluate(WIRE)}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ms = [r["ms"] for r in runs]
    return {
        "median_ms": round(statistics.median(ms), 1),
        "best_ms": min(ms),
        "worst_ms": max(ms),
        "requests": runs[-1]["requests"],
        "bytes_on_the_wire": runs[-1]["bytes"],
        "bytes_decoded": runs[-1]["decoded"],
        "runs_ms": ms,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--game", default=None, help="open this game's page instead of the lobby")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    data = Path(tempfile.mkdtemp(prefix="rf-client-load-"))
    port = free_port()
    proc = start(port, data)
    url = f"http://127.0.0.1:{port}/"
    route = f"#/game/{args.game}" if args.game else ""
    try:
        demo = httpx.post(f"{url}api/v1/demo/session", headers={"Idempotency-Key": "bench-warm"})
        token = demo.json()["token"]
        httpx.get(f"{url}api/v1/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = browser.new_context(viewport={"width": 1366, "height": 768})
            ctx.add_init_script(READY)
            load(ctx.new_page(), url + route)  # the server's first static requests (files read, gzipped)
            ctx.close()
            cold = []
            for _ in range(args.runs):
                ctx = browser.new_context(viewport={"width": 1366, "height": 768})
                ctx.add_init_script(READY)
                cold.append(load(ctx.new_page(), url + route))
                ctx.close()
            ctx = browser.new_context(viewport={"width": 1366, "height": 768})
            ctx.add_init_script(READY)
            page = ctx.new_page()
            load(page, url + route)
            # A new address each time: a navigation, not a reload (which revalidates everything).
            warm = [load(page, f"{url}?visit={i}{route}") for i in range(args.runs)]
            ctx.close()
            browser.close()
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(data, ignore_errors=True)
    out = {"page": route or "lobby", "cold_cache": summary(cold), "warm_cache": summary(warm)}
    out["target_ms"] = 1000
    print(json.dumps(out, indent=2))
    return 0 if statistics.median(r["ms"] for r in cold) < 1000 else 1


if __name__ == "__main__":
    sys.exit(main())
