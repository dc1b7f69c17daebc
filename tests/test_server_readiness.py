"""Liveness and readiness apart, and a server started while its database is down.

A ``reelforge serve`` process is given a PostgreSQL URL whose port nothing listens on: it
must not exit, must answer ``/health/live`` at once and ``/health/ready`` with 503 and what
it waits for, and once a forwarder to the real PostgreSQL opens on that port it must become
ready on its own (database migrated, every game's figures loaded) and play a round.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from conftest import drop_pg_database, fresh_pg_database
from server_process import LOCAL, OP_HEADERS, ServerPool, free_port


class Forwarder:
    """A TCP forwarder from a local port to PostgreSQL, opened when the test says."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port, self.target = port, target
        self.listener: socket.socket | None = None
        self.closing = threading.Event()

    def open(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        assert self.listener is not None
        while not self.closing.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.closing.set()
        if self.listener is not None:
            self.listener.close()


@pytest.fixture
def pg_url(pg_template: str) -> Iterator[str]:
    name, url = fresh_pg_database(pg_template)
    try:
        yield url
    finally:
        drop_pg_database(name)


def wait_for(check, timeout: float) -> object:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_a_server_whose_database_is_down_stays_live_and_becomes_ready_when_it_comes(
    pg_url: str, tmp_path: Path
) -> None:
    real = make_url(pg_url)
    port = free_port()  # nothing listens here until the forwarder opens
    pool = ServerPool(tmp_path)
    forwarder = Forwarder(port, (real.host or "127.0.0.1", real.port or 5432))
    try:
        proc = pool.new(real.set(port=port).render_as_string(hide_password=False), "down")
        proc.start()  # waits for /health: live although the database refuses connections
        live = LOCAL.get(proc.url + "/health/live", timeout=5)
        assert (live.status_code, live.json()) == (200, {"ok": True})
        ready = LOCAL.get(proc.url + "/health/ready", timeout=5)
        assert ready.status_code == 503, ready.text
        error = ready.json()["error"]
        assert error["code"] == "not_ready" and error["message"].startswith("waiting for the database")
        # It keeps trying, with backoff, rather than exiting.
        tries = wait_for(lambda: proc.log_tail(100_000).count("does not answer (attempt") >= 3, 15)
        assert tries and proc.alive, proc.log_tail()

        forwarder.open()
        became = wait_for(lambda: LOCAL.get(proc.url + "/health/ready").status_code == 200, 120)
        assert became, (LOCAL.get(proc.url + "/health/ready").text, proc.log_tail())
        state = LOCAL.get(proc.url + "/health/ready").json()
        assert state["waiting_for"] == [] and state["figures"]["loaded"] == state["figures"]["total"] > 0
        # Migrated and serving: a player plays a round.
        with proc.client() as c:
            body = {"external_id": "late", "currency": "GBP"}
            r = c.post("/operator/players", json=body, headers=OP_HEADERS)
            assert r.status_code == 201, r.text
    finally:
        pool.close()
        forwarder.close()


def test_ready_means_every_figure_is_loaded_and_the_lobby_computes_none(tmp_path: Path) -> None:
    """The app's readiness thread loads every (game, variant) report before it says ready;
    after that the lobby reads them from the process, never from the calculators."""
    from fastapi.testclient import TestClient

    from reelforge.server.core.config import Settings
    from reelforge.server.http.app import build
    from server_support import OPERATOR_KEY

    settings = Settings(
        db=f"sqlite:///{tmp_path / 'r.db'}", data_dir=tmp_path, operator_key=OPERATOR_KEY, demo_mode=True
    )
    app = build(settings)
    server = app.state.server
    with TestClient(app) as client:  # runs the lifespan: the readiness thread starts
        assert wait_for(lambda: client.get("/api/v1/health/ready").status_code == 200, 120)
        state = client.get("/api/v1/health/ready").json()
        expected = {(g.id, v) for g in server.games.values() for v in g.variants}
        assert state["figures"] == {"loaded": len(expected), "total": len(expected)}
        # Each variant's base figures, and each feature buy's (the Buy menu shows its RTP).
        games = server.games.values()
        buys = {(g.id, v, m) for g in games for v in g.variants for m in g.modes if m.startswith("buy")}
        assert buys and set(server.context._exact_cache) == {(*k, "base") for k in expected} | buys

        def computing(*_: object, **__: object) -> dict:
            raise AssertionError("the lobby computed exact figures after ready")

        server.context.figures.exact = computing  # type: ignore[method-assign]
        token = client.post("/api/v1/demo/session", headers={"Idempotency-Key": "r1"}).json()["token"]
        games = client.get("/api/v1/games", headers={"Authorization": f"Bearer {token}"})
        assert games.status_code == 200, games.text
        listed = {g["id"]: g["rtp"] for g in games.json()["games"]}
        assert set(listed) == {g for g, _ in expected} and all(0 < r < 1.2 for r in listed.values())
