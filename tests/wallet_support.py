"""The reference operator wallet as a real ``reelforge operator-wallet --faults`` process on
loopback.

:class:`WalletServer` runs it as a child process (its own interpreter: a long test run's
garbage collections and GIL never stall the operator's replies past the game server's wallet
timeout), waits until ``/health`` answers, serves until :meth:`stop`, and offers the test
endpoints (``/_faults``, ``/_ledger``, ``/_players``) as methods.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from reelforge.seamless.client import SeamlessClient
from server_process import LOCAL, free_port, local_client

SECRET = "test-shared-secret"
_CLI = "import sys; from reelforge.cli import app; sys.argv[0] = 'reelforge'; app()"


class WalletServer:
    def __init__(self, db_path: Path, *, secret: str = SECRET, faults: bool = True) -> None:
        self.secret = secret
        self.db_path = Path(db_path)
        self.faults_on = faults
        self.log_path = self.db_path.with_suffix(".log")
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.http = local_client(timeout=10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0, *, same_port: bool = False) -> WalletServer:
        """Start and wait until it serves; a port taken meanwhile is retried on another
        (``same_port``: a restart where the game server expects it, on its port again)."""
        for attempt in range(3):
            if not (same_port and self.port):
                self.port = free_port()
            command = [sys.executable, "-c", _CLI, "operator-wallet", "--port", str(self.port)]
            command += ["--db", f"sqlite:///{self.db_path}"] + (["--faults"] if self.faults_on else [])
            env = {**os.environ, "REELFORGE_WALLET_SECRET": self.secret, "PYTHONUNBUFFERED": "1"}
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(
                    command,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            if self._wait_ready(timeout):
                self.http = local_client(base_url=self.url, timeout=10)
                return self
            if attempt == 2 or "address already in use" not in self._log().lower():
                raise RuntimeError(f"the reference wallet did not start:\n{self._log()}")
        raise AssertionError("unreachable")

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        assert self.proc is not None
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                if LOCAL.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
        self.stop()
        return False

    def _log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        self.http.close()
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def kill(self) -> None:
        """SIGKILL the wallet (its whole group), as a crash would: what it committed stays."""
        self.http.close()
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def client(self, timeout_s: float = 2.0, **kw: Any) -> SeamlessClient:
        return SeamlessClient(self.url, kw.pop("secret", self.secret), timeout_s=timeout_s, **kw)

    # -- test endpoints --------------------------------------------------------------------

    def faults(self, *rules: dict[str, Any]) -> None:
        self.http.post("/_faults", json=list(rules)).raise_for_status()

    def fault_state(self) -> dict[str, Any]:
        return self.http.get("/_faults").json()

    def clear_faults(self) -> None:
        self.http.delete("/_faults").raise_for_status()

    def player(self, balance: int = 10_000, currency: str = "EUR", **kw: Any) -> str:
        """A new player with a unique id (and the token ``token-<id>``); its id."""
        player_id = kw.pop("player_id", f"p-{uuid.uuid4().hex[:10]}")
        self.set_player(player_id, balance, currency, token=f"token-{player_id}", **kw)
        return player_id

    def set_player(self, player_id: str, balance: int, currency: str = "EUR", **kw: Any) -> None:
        seed = {"player_id": player_id, "currency": currency, "balance": balance, **kw}
        self.http.post("/_players", json=[seed]).raise_for_status()

    def ledger(self, player_id: str | None = None) -> dict[str, Any]:
        params = {"player_id": player_id} if player_id else {}
        return self.http.get("/_ledger", params=params).json()

    def balance(self, player_id: str) -> int:
        return self.books(player_id)[0]

    def books(self, player_id: str) -> tuple[int, list[dict[str, Any]]]:
        """The player's balance and transactions, after checking the balance is their sum."""
        snap = self.ledger(player_id)
        (player,) = snap["players"]
        txs = snap["transactions"]
        assert player["balance"] == sum(t["moved"] for t in txs), snap
        return player["balance"], txs

    def wait_for(self, predicate: Any, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("condition not reached")
            time.sleep(0.02)
