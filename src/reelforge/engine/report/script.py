"""Draw scripts: the sources the max-win constructions draw through, and how a stored
sequence is written (one ``[n, value]`` pair per ``randbelow`` call, as
:class:`reelforge.rng.RecordingRandom` records it and :class:`reelforge.rng.ReplayRandom`
checks it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reelforge.engine.round import Action, Round
from reelforge.rng import RandomSource, RecordingRandom


class ScriptExhausted(RuntimeError):
    """The rules asked for a draw the construction did not plan."""


class Script:
    """Deals planned values in order, records each as ``(n, value)``, refuses any more."""

    def __init__(self, values: Sequence[int] = ()) -> None:
        self.values = list(values)
        self.draws: list[tuple[int, int]] = []

    def extend(self, values: Sequence[int]) -> None:
        self.values.extend(values)

    def randbelow(self, n: int) -> int:
        if not self.values:
            raise ScriptExhausted(f"draw {len(self.draws)} (range {n}) was not planned")
        value = self.values.pop(0)
        if not 0 <= value < n:
            raise ValueError(f"planned draw {value} is outside the range [0, {n})")
        self.draws.append((n, value))
        return value

    @property
    def spent(self) -> bool:
        return not self.values


# A seeded search's source, every draw recorded as ``(n, value)``: the engine's recorder.
Recorder = RecordingRandom


def offset(table: dict[Any, int], key: Any) -> int:
    """The draw value that makes ``weighted_index`` over ``table``'s weights pick ``key``."""
    acc = 0
    for k, w in table.items():
        if k == key:
            if w <= 0:
                raise ValueError(f"{key!r} has weight {w}: no draw picks it")
            return acc
        acc += w
    raise KeyError(key)


def index_offset(weights: Sequence[int], index: int) -> int:
    """The draw value that makes ``weighted_index(weights)`` pick ``index``."""
    if weights[index] <= 0:
        raise ValueError(f"index {index} has weight 0: no draw picks it")
    return sum(weights[:index])


Step = Callable[[Round], tuple[Action, RandomSource]]


@dataclass
class Planned:
    """How one round is constructed: the source ``start`` draws from (a :class:`Script`, or a
    :class:`Recorder` of a seeded search), and the action and source of each later step."""

    start: Callable[[int], RandomSource]  # try number -> the source of that try
    accept: Callable[[Round], bool] | None = None  # searched: does the try do what is needed?
    step: Step | None = None
    mode: str | None = None  # a round in another mode than the sequence's (None: the same)
    stake: int | None = None  # and at its own stake


def drawn(source: RandomSource) -> list[tuple[int, int]]:
    draws: list[tuple[int, int]] = source.draws  # type: ignore[attr-defined]
    if isinstance(source, Script) and not source.spent:
        raise ScriptExhausted(f"{len(source.values)} planned draws were not used")
    return draws
