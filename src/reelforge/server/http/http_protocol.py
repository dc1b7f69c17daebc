"""uvicorn's HTTP protocols, answering the requests they refuse themselves in the API's format.

A request the HTTP parser cannot read (a header value with a control character, as a bad
``Idempotency-Key`` may carry; a broken request line) never reaches the application: uvicorn
answers it with a plain-text 400 of its own.  These subclasses answer it with the one error
format every other refusal uses, ``{"error": {"code": "bad_request", "message": ...}}``, and
close the connection as uvicorn does.  ``reelforge serve`` runs them (:func:`protocol_class`).
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MESSAGE = (
    "malformed HTTP request: the parser could not read it (a header value with a control "
    "character, or a broken request line)"
)
BODY = json.dumps({"error": {"code": "bad_request", "message": MESSAGE}}).encode()
HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BODY)).encode()),
    (b"connection", b"close"),
]


class JsonErrorH11Protocol(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        self.logger.warning(msg)
        for event in (
            h11.Response(status_code=400, headers=HEADERS, reason=b"Bad Request"),
            h11.Data(data=BODY),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools not installed: uvicorn runs h11
    HttpToolsProtocol = None  # type: ignore[assignment, misc]


def protocol_class() -> type:
    """The protocol uvicorn's ``http="auto"`` would pick (httptools when installed), with the
    API's 400."""
    if HttpToolsProtocol is None:
        return JsonErrorH11Protocol
    return JsonErrorHttpToolsProtocol


if HttpToolsProtocol is not None:

    class JsonErrorHttpToolsProtocol(HttpToolsProtocol):  # type: ignore[no-redef]
        def send_400_response(self, msg: str) -> None:
            lines = [b"HTTP/1.1 400 Bad Request\r\n"]
            lines += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
            lines += [name + b": " + value + b"\r\n" for name, value in HEADERS]
            self.transport.write(b"".join([*lines, b"\r\n", BODY]))
            self.transport.close()
