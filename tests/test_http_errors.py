"""A request the HTTP parser itself refuses gets the API's error format, not uvicorn's text.

Both of uvicorn's parsers (h11, httptools) run the project's subclass in a server of their own,
and ``reelforge serve`` is checked to run it: a control character in an Idempotency-Key is a 400
``{"error": {"code": "bad_request", ...}}``, and the server goes on answering.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import httpx
import pytest
import uvicorn

from reelforge.server.http.http_protocol import JsonErrorH11Protocol, protocol_class
from server_process import ServerProcess, free_port

BAD_KEY = (
    b"POST /api/v1/demo/session HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: a\x01b\r\n"
    b"Content-Length: 0\r\n\r\n"
)


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` and read the whole reply (the server closes the connection after a 400)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def assert_api_400(reply: tuple[int, dict[str, str], bytes], parser: bool = True) -> dict[str, str]:
    """A JSON 400 in the API's format (``parser``: the HTTP parser's own refusal)."""
    status, headers, body = reply
    assert status == 400 and headers["content-type"] == "application/json", reply
    assert int(headers["content-length"]) == len(body)
    error: dict[str, str] = json.loads(body)["error"]
    if parser:
        assert error["code"] == "bad_request" and "malformed HTTP request" in error["message"]
    return error


async def ok_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.mark.parametrize("protocol", [JsonErrorH11Protocol, protocol_class()], ids=["h11", "auto"])
def test_each_parser_answers_what_it_cannot_read_in_the_api_format(protocol: type) -> None:
    port = free_port()
    config = uvicorn.Config(
        ok_app, host="127.0.0.1", port=port, http=protocol, log_level="error", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started
        assert_api_400(exchange(port, b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n"))  # a broken request line
        assert_api_400(exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n"))  # a broken header
        assert httpx.get(f"http://127.0.0.1:{port}/").text == "ok"  # and it goes on serving
    finally:
        server.should_exit = True
        thread.join(10)


def test_reelforge_serve_runs_the_api_format_protocol(tmp_path: Any) -> None:
    """The parser ``reelforge serve`` runs refuses the broken header itself; the key with a
    control character is refused by it (httptools) or by the API's key check (h11, which
    passes the byte on): a JSON 400 either way, nothing played."""
    proc = ServerProcess(f"sqlite:///{tmp_path / 'data' / 'reelforge.db'}", tmp_path / "data").start()
    try:
        assert_api_400(exchange(proc.port, b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n"))
        error = assert_api_400(exchange(proc.port, BAD_KEY), parser=False)
        assert "Idempotency-Key" in error["message"] or "malformed HTTP request" in error["message"], error
        assert httpx.get(f"{proc.url}/health").status_code == 200
    finally:
        proc.kill()
