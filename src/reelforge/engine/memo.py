"""Memoising functions of a game's data file.

Data models hold dicts and lists, so they do not hash; their derived tables (exact chains,
kernel lookup tables) are cached by the data object's identity instead.  The cache keeps the
object itself beside the result, so its ``id`` cannot be reused by another object while the
entry lives; the oldest entries go first once ``maxsize`` is reached.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

T = TypeVar("T")


def by_identity(maxsize: int | None = None) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Cache ``fn(data, *args)`` on ``(id(data), *args)``; ``args`` must hash."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        memo: dict[tuple[Any, ...], tuple[Any, T]] = {}

        @wraps(fn)
        def wrapper(data: Any, *args: Any) -> T:
            key = (id(data), *args)
            hit = memo.get(key)
            if hit is not None and hit[0] is data:
                return hit[1]
            value = fn(data, *args)
            if maxsize is not None and len(memo) >= maxsize:
                memo.pop(next(iter(memo)))
            memo[key] = (data, value)
            return value

        return wrapper

    return decorate
