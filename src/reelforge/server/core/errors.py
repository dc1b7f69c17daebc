"""API errors: every refusal is an ApiError with a status, a stable code and a message."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message}}


def bad_request(message: str, code: str = "bad_request") -> ApiError:
    return ApiError(400, code, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


def conflict(message: str, code: str = "conflict") -> ApiError:
    return ApiError(409, code, message)


def forbidden(message: str, code: str = "forbidden") -> ApiError:
    return ApiError(403, code, message)


class SessionClosed(ApiError):
    """A session limit was reached: the session is closed (in its own transaction)."""

    def __init__(self, session_id: int, reason: str) -> None:
        super().__init__(403, "session_closed", f"the session is closed: {reason}")
        self.session_id = session_id
        self.reason = reason
