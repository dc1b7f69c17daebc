"""What the exact calculators share: fractions of weight tables, and a cache keyed on the
data file."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import wraps
from typing import Any, TypeVar

from .data_model import GambiniData

F = Fraction
T = TypeVar("T")


def cache(fn: Callable[..., T]) -> Callable[..., T]:
    """Memoise on the data file's identity (the data model holds dicts, so it does not
    hash); the cache holds the data object, so its id is never reused while cached."""
    memo: dict[tuple[Any, ...], tuple[GambiniData, T]] = {}

    @wraps(fn)
    def wrapper(d: GambiniData, *args: Any) -> T:
        key = (id(d), *args)
        if key not in memo:
            memo[key] = (d, fn(d, *args))
        return memo[key][1]

    return wrapper


def dist(weights: dict[Any, int]) -> dict[Any, Fraction]:
    total = sum(weights.values())
    return {k: F(w, total) for k, w in weights.items() if w}


def chance(fire: int, skip: int) -> Fraction:
    return F(fire, fire + skip)
