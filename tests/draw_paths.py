"""Every sequence of draws a piece of game code can make, each with its exact probability.

The brute-force oracle of the math tests: ``fn(rng)`` is run with a source that deals a
fixed prefix of draws and raises when asked for one more, so the walk branches there on
every value the draw could take.  What the rules do with the draws is the rules' own
business; the probabilities come from the draw ranges alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any


class _NeedDraw(Exception):
    def __init__(self, n: int) -> None:
        self.n = n


class _Prefix:
    """Deals ``prefix``; one draw more raises, so the caller branches.  A draw from one value
    is no branch: with ``skip_single`` it is answered 0 without being dealt."""

    def __init__(self, prefix: list[int], skip_single: bool) -> None:
        self.prefix = prefix
        self.skip_single = skip_single
        self.taken = 0

    def randbelow(self, n: int) -> int:
        if n == 1 and self.skip_single:
            return 0
        if self.taken == len(self.prefix):
            raise _NeedDraw(n)
        self.taken += 1
        return self.prefix[self.taken - 1]


def draw_paths(
    fn: Callable[[Any], Any], *, floor: Fraction | None = None, skip_single: bool = False
) -> Iterator[tuple[Fraction, list[int], Any]]:
    """``(probability, draws, result)`` for every sequence of draws ``fn(rng)`` makes.

    With ``floor``, a path whose probability would fall below it is cut there and given as
    ``(its probability, its draws so far, None)``, so the probabilities still sum to 1."""
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        prefix, prob = stack.pop()
        try:
            result = fn(_Prefix(prefix, skip_single))
        except _NeedDraw as need:
            if floor is not None and prob / need.n < floor:
                yield prob, prefix, None
            else:
                stack.extend(([*prefix, v], prob / need.n) for v in range(need.n))
            continue
        yield prob, prefix, result


def every_path(fn: Callable[[Any], Any]) -> Iterator[tuple[Fraction, Any]]:
    """``(probability, result)`` of ``fn(rng)`` for every sequence of draws it makes."""
    for prob, _, result in draw_paths(fn):
        yield prob, result
