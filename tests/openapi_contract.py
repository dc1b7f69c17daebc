"""Hold every reply of the API to its OpenAPI document: the route and method that answered, a
status that route documents, a body that validates against the schema documented for that
status (JSON Schema 2020-12, as OpenAPI 3.1 uses), and the headers it documents.

``Contract.client`` gives a TestClient that checks every reply it gets; problems are collected
in ``Contract.problems`` (a test asserts it is empty at the end), so one run shows them all.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

try:
    import jsonschema
except ImportError:  # pragma: no cover - a dev dependency (pyproject.toml)
    if os.environ.get("CI"):
        raise ImportError("jsonschema is a dev dependency: pip install -e '.[dev]'") from None
    pytest.skip("jsonschema is not installed (outside CI only)", allow_module_level=True)

FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parsed = datetime.fromisoformat(value)
    return parsed.tzinfo is not None and "T" in value


def _pattern(template: str) -> re.Pattern[str]:
    """A path template's regular expression: each ``{param}`` one path segment."""
    return re.compile("[^/]+".join(re.escape(part) for part in re.split(r"\{[^}]+\}", template)))


class Contract:
    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.doc: dict[str, Any] = app.openapi()
        self.patterns = [(template, _pattern(template)) for template in self.doc["paths"]]
        self.problems: list[str] = []
        self.seen: set[tuple[str, str, int]] = set()  # (method, path template, status)
        self.replies = 0

    def client(self) -> TestClient:
        client = TestClient(self.app, raise_server_exceptions=True)
        client.event_hooks = {"response": [self.check]}
        return client

    # -- what the document says ------------------------------------------------------------

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        """The path template and operation of the route that takes this request, if any: the
        first, in the order routes are tried (the document's), whose path and method match."""
        for template, pattern in self.patterns:
            operations = self.doc["paths"][template]
            if method.lower() in operations and pattern.fullmatch(path):
                return template, operations[method.lower()]
        return None

    def validator(self, schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
        root = {**schema, "components": self.doc.get("components", {})}
        return jsonschema.Draft202012Validator(root, format_checker=FORMATS)

    def errors_of(self, schema: dict[str, Any], body: Any) -> list[str]:
        return [
            f"{'/'.join(str(p) for p in e.absolute_path) or '(body)'}: {e.message[:300]}"
            for e in self.validator(schema).iter_errors(body)
        ]

    # -- checking one reply ----------------------------------------------------------------

    def check(self, response: httpx.Response) -> None:
        response.read()
        request = response.request
        method, path = request.method, request.url.path
        if not path.startswith("/api/"):
            return
        self.replies += 1
        where = f"{method} {path} -> {response.status_code}"
        problems = self.problems_of(method, path, response)
        self.problems.extend(f"{where}: {p}" for p in problems)

    def problems_of(self, method: str, path: str, response: httpx.Response) -> list[str]:
        status = response.status_code
        if not response.headers.get("content-type", "").startswith("application/json"):
            return [f"content-type {response.headers.get('content-type')!r}, not JSON"]
        try:
            body = json.loads(response.content)
        except ValueError:
            return ["the body is not JSON"]
        found = self.operation(method, path)
        if found is None:
            # No route takes it: the path's own 404, or 405 with Allow where a route has the path.
            out = self.errors_of({"$ref": "#/components/schemas/ErrorReply"}, body)
            if status == 405:
                if not response.headers.get("allow"):
                    out.append("405 without Allow")
            elif status != 404:
                out.append("no route takes it, yet it is not 404/405")
            return out
        template, op = found
        self.seen.add((method, template, status))
        documented = op["responses"].get(str(status))
        if documented is None:
            return [f"status {status} is not documented for {method} {template} ({sorted(op['responses'])})"]
        schema = documented.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            return [f"no JSON schema documented for {status}"]
        out = self.errors_of(schema, body)
        headers = documented.get("headers", {})
        replayed = response.headers.get("idempotency-replayed")
        if replayed is not None and ("Idempotency-Replayed" not in headers or replayed != "true"):
            out.append(f"Idempotency-Replayed: {replayed!r} is not documented here")
        if "Retry-After" in headers:
            retry = response.headers.get("retry-after", "")
            if not retry.isdigit() or int(retry) < 1:
                out.append(f"Retry-After {retry!r} is not a positive integer")
        return out
