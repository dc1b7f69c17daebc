"""A webhook receiver for tests: a plain ``http.server`` on loopback, in a thread.

It checks every delivery's signature against the raw body, records it, and deduplicates on
the event id as a real receiver must (delivery is at least once): ``processed`` holds each
event once, ``duplicates`` counts the deliveries of an event already processed.  It can answer
500 to everything for a while (``failing``), or process an event and still answer 500 once
(``lose_reply``: the reply is lost, so the sender delivers it again).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from reelforge.seamless.protocol import SignatureError, verify_headers

SECRET = "webhook-test-secret"


@dataclass(frozen=True)
class Delivery:
    event_id: str
    headers: dict[str, str]
    body: bytes
    signature_ok: bool
    status: int  # what the receiver answered

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)


class Receiver:
    def __init__(self, secret: str = SECRET) -> None:
        self.secret = secret
        self.failing = False
        self.lose_reply: set[str] = set()  # event ids to process, then answer 500 once
        self.deliveries: list[Delivery] = []
        self.processed: dict[str, dict[str, Any]] = {}
        self.duplicates: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = receiver.receive(dict(self.headers.items()), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="webhook-receiver", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks"

    def start(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def receive(self, headers: dict[str, str], body: bytes) -> int:
        lowered = {k.lower(): v for k, v in headers.items()}
        try:
            verify_headers(
                self.secret,
                body,
                {"X-Reelforge-Timestamp": lowered.get("x-reelforge-timestamp", ""),
                 "X-Reelforge-Signature": lowered.get("x-reelforge-signature", "")},
            )  # fmt: skip
            ok = True
        except SignatureError:
            ok = False
        with self.changed:
            event_id = str(json.loads(body).get("id", "")) if ok else ""
            if not ok:
                status = 401
            elif self.failing:
                status = 500
            else:
                if event_id in self.processed:
                    self.duplicates[event_id] += 1  # deduplicated: processed once only
                else:
                    self.processed[event_id] = json.loads(body)
                status = 200
                if event_id in self.lose_reply:
                    self.lose_reply.discard(event_id)
                    status = 500  # processed, but the sender never hears so: it sends again
            self.deliveries.append(Delivery(event_id, lowered, body, ok, status))
            self.changed.notify_all()
        return status

    def wait_for(self, event_ids: set[str], timeout: float = 30.0) -> bool:
        """Until every one of ``event_ids`` is processed (False on timeout)."""
        with self.changed:
            return self.changed.wait_for(lambda: event_ids <= set(self.processed), timeout)

    def refused(self, event_ids: set[str], times: int = 1) -> bool:
        """Whether every one of ``event_ids`` was answered 500 at least ``times`` times."""
        with self.lock:
            counts = Counter(d.event_id for d in self.deliveries if d.status >= 500)
        return all(counts[e] >= times for e in event_ids)
