"""Secrets stay secret: the operator key and the session-token secret derived from it are
never logged, printed by ``reelforge serve`` or returned by the API (a generated key lives in
its file only); the data directory is 0700 and the key and database files 0600, from the
start and when found looser (tightened, with a warning), and a path this user cannot tighten
is refused."""

from __future__ import annotations

import logging
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from reelforge.server.core import data_dir
from reelforge.server.core.config import Settings
from reelforge.server.http.api import create_app
from reelforge.server.runtime.service import GameServer
from server_process import ServerProcess


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_generated_key_and_the_database_are_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "fresh" / ".reelforge"
    server = GameServer(Settings(data_dir=data))
    server.migrate()
    key_file = data / "operator.key"
    assert mode(data) == 0o700 and mode(key_file) == 0o600
    assert key_file.read_text().strip() == server.operator_key and len(server.operator_key) >= 40
    db_files = sorted(data.glob("reelforge.db*"))
    assert db_files and all(mode(p) == 0o600 for p in db_files), [(p.name, oct(mode(p))) for p in db_files]
    server.engine.dispose()


def test_looser_modes_found_are_tightened_with_a_warning(tmp_path: Path, caplog: Any) -> None:
    data = tmp_path / "loose"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (data / "operator.key").write_text("an-old-key-kept-in-a-file\n")
    (data / "operator.key").chmod(0o644)
    (data / "reelforge.db").touch()
    (data / "reelforge.db").chmod(0o664)
    with caplog.at_level(logging.WARNING, logger="reelforge.server"):
        server = GameServer(Settings(data_dir=data))
    assert server.operator_key == "an-old-key-kept-in-a-file"
    assert (
        mode(data) == 0o700 and mode(data / "operator.key") == 0o600 and mode(data / "reelforge.db") == 0o600
    )
    tightened = [r.getMessage() for r in caplog.records if "tightened" in r.getMessage()]
    assert len(tightened) == 3, tightened
    assert "an-old-key" not in caplog.text
    server.engine.dispose()


def test_a_path_that_cannot_be_tightened_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    # (Root may change any mode, so another user's file is stood in for by a refusing chmod.)
    key = tmp_path / "operator.key"
    key.write_text("k\n")
    key.chmod(0o644)

    def refuse(self: Path, mode: int) -> None:
        raise PermissionError(mode)

    monkeypatch.setattr(Path, "chmod", refuse)
    with pytest.raises(data_dir.InsecurePath, match=r"mode 644: others can reach it"):
        Settings(data_dir=tmp_path).resolved_operator_key()


def test_settings_never_show_the_secrets(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, operator_key="op-key-123456", webhook_secret="hook-secret-98765")
    for text in (repr(settings), str(settings), str(settings.model_dump())):
        assert "op-key-123456" not in text and "hook-secret-98765" not in text
    with pytest.raises(ValueError) as refused:
        Settings(data_dir=tmp_path, webhook_url="http://x/", webhook_secret="s" * 600)
    assert "sss" not in str(refused.value)


def operator_calls(http: httpx.Client, key: str) -> list[httpx.Response]:
    """A few operator calls, right and wrong, and a player's: every reply is returned."""
    op = {"X-Operator-Key": key}
    replies = [
        http.post("/operator/players", json={"external_id": "sec"}, headers=op),
        http.post(
            "/operator/players/sec/credit", json={"amount": 500}, headers={**op, "Idempotency-Key": "c1"}
        ),
        http.post("/operator/players/sec/sessions", json={}, headers={**op, "Idempotency-Key": "s1"}),
        http.get("/operator/players/sec", headers=op),
        http.get("/operator/players/sec/sessions", headers=op),
        http.get("/operator/profile", headers=op),
        http.get("/operator/games/reign-of-gnomes/bets", headers=op),
        http.get("/operator/players/sec", headers={"X-Operator-Key": key[:-1]}),  # wrong: 401
        http.post("/operator/players", json={"external_id": "bad id!"}, headers=op),  # 422
        http.get("/balance", headers={"Authorization": "Bearer " + key}),  # the key as a token: 401
    ]
    token = replies[2].json()["token"]
    replies.append(http.get("/session", headers={"Authorization": f"Bearer {token}"}))
    return replies


def assert_secret_free(texts: list[str], secrets: list[str]) -> None:
    for text in texts:
        for secret in secrets:
            assert secret not in text


def test_serve_never_prints_or_returns_the_key(tmp_path: Path) -> None:
    proc = ServerProcess(f"sqlite:///{tmp_path / 'data' / 'reelforge.db'}", tmp_path / "data")
    del proc.env["REELFORGE_OPERATOR_KEY"]  # a generated key, as a first start makes
    proc.start()
    try:
        key = (tmp_path / "data" / "operator.key").read_text().strip()
        with proc.client() as http:
            replies = operator_calls(http, key)
    finally:
        proc.kill()
    assert [r.status_code for r in replies] == [201, 200, 201, 200, 200, 200, 200, 401, 422, 401, 200]
    log = proc.log_path.read_text()
    assert "operator API key: in" in log  # where the key is, never the key
    texts = [log] + [r.text + str(r.headers) for r in replies]
    assert_secret_free(texts, [key, "session-token:" + key])


def test_in_process_logs_at_debug_never_show_the_key(tmp_path: Path, caplog: Any) -> None:
    key = "in-process-operator-key-0123456789"
    with caplog.at_level(logging.DEBUG):
        server = GameServer(
            Settings(db=f"sqlite:///{tmp_path / 'l.db'}", data_dir=tmp_path, operator_key=key)
        )
        server.migrate()
        client = TestClient(create_app(server), base_url="http://testserver/api/v1")
        replies = operator_calls(client, key)
    assert replies[0].status_code == 201 and replies[7].status_code == 401
    token = replies[2].json()["token"]
    assert caplog.records  # something was logged (SQLAlchemy, the migrations)
    texts = [caplog.text] + [r.text + str(r.headers) for r in replies if r is not replies[2]]
    assert_secret_free(texts, [key, "session-token:" + key, token])
    server.engine.dispose()
