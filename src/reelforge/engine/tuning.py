"""What a game's tuning knobs look like to the tuner (``reelforge.analysis.tune``).

A game that can be tuned has a ``tuning.py`` beside its data files with a
:class:`GameTuning`: its search *stages* (each moves one mode's RTP with its own knobs:
strip symbols, weight-table entries), the game's own exact calculator, and how to write a
changed data file back with its comments and layout.  The search itself is game-blind and
lives above the games (``analysis``); these types sit here so that games need not import it.

Every figure is an exact ``Fraction``.  Names of the figures a designer may ask to keep are
:data:`KEEPABLE`; a stage says which of them its moves can change, so the rest are known to
stay put (and the tuner checks, with the game's calculator, that they did).  The volatility
index (the standard deviation of one round's win, in stakes) is irrational in general, so it
is carried by its square, the variance in stakes squared (:data:`SQUARED`), which is exact.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import tomlkit

D = TypeVar("D")

KEEPABLE = ("hit-frequency", "feature-frequency", "volatility")

SQUARED = frozenset({"volatility"})
"""Figures carried by their square: ``"volatility"`` is the variance of one round's win in
stakes squared, whose root is the volatility index."""

Figures = dict[str, Fraction]
"""``"rtp"`` (of the stage's mode) and any of :data:`KEEPABLE` the stage's moves can change."""


def figure_value(name: str, value: Fraction) -> float:
    """A figure as it is read: the volatility index is the root of the variance carried."""
    return math.sqrt(value) if name in SQUARED else float(value)


@dataclass(frozen=True)
class Move:
    """One step of the search: ``where`` (a reel, a weight table) and ``what`` changes there,
    in words; ``key`` is what the stage's ``apply`` needs."""

    where: str
    what: str
    key: tuple[Any, ...]


class Stage(Protocol[D]):
    """One mode's RTP moved by one family of knobs."""

    mode: str
    knobs: str  # what the moves change, in words (printed and documented)
    changes: frozenset[str]  # the kept figures the moves can change

    def figures(self, data: D, kept: frozenset[str] = frozenset()) -> Figures:
        """The exact figures of ``data``: ``"rtp"`` and those of ``kept`` at least."""
        ...

    def candidates(self, data: D, kept: frozenset[str]) -> Iterator[tuple[Move, Figures]]:
        """Every single move from ``data`` with the exact figures it leads to, in a fixed order:
        ``"rtp"`` and those of ``kept`` (a subset of :attr:`changes`) at least."""
        ...

    def apply(self, data: D, move: Move) -> D: ...

    def floor(self, data: D) -> Fraction | None:
        """An RTP the moves can never take the mode below (None: no cheap bound)."""
        ...


@dataclass(frozen=True)
class Exact:
    """The game's own exact figures of one data file: RTP per mode, and the base game's
    keepable figures (those the game can compute; see :data:`SQUARED`)."""

    rtp: dict[str, Fraction]
    figures: dict[str, Fraction]


@dataclass(frozen=True)
class Change:
    """What one reel or weight table holds before and after (entries that changed only)."""

    where: str
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)


class GameTuning(Protocol[D]):
    game_id: str
    data_dir: Path
    keepable: tuple[str, ...]  # the KEEPABLE figures this game can compute exactly
    figure_names: dict[str, str]  # keepable name -> what it is for this game, in words

    def load(self, path: Path) -> D: ...

    def parse(self, text: str, source: str) -> D: ...

    def variant_of(self, data: D) -> str: ...

    def stages(self) -> list[Callable[[D], Stage[D]]]:
        """The stages in order, each built from the data the stages before it leave."""
        ...

    def exact(self, data: D, keep: Collection[str] = ()) -> Exact:
        """The full calculator: every figure it computes cheaply, and those of ``keep``
        (e.g. the volatility, seconds) whatever they cost."""
        ...

    def rename(self, data: D, variant: str) -> D: ...

    def dump(self, source_text: str, data: D) -> str: ...

    def changes(self, before: D, after: D) -> list[Change]: ...


@dataclass(frozen=True)
class SourceFile(Generic[D]):
    path: Path
    text: str
    data: D


def find_source(tuning: GameTuning[D], variant: str | None, default: str) -> SourceFile[D]:
    """The data file of ``variant`` (the game's default when None) in the game's folder."""
    wanted = variant or default
    offered = []
    for path in sorted(tuning.data_dir.glob("*.toml")):
        data = tuning.load(path)
        offered.append(tuning.variant_of(data))
        if offered[-1] == wanted:
            return SourceFile(path, path.read_text(), data)
    raise ValueError(f"unknown RTP variant {wanted!r} for {tuning.game_id}; offered: {', '.join(offered)}")


def count_changes(where: str, before: Iterable[str], after: Iterable[str]) -> Change | None:
    """The symbols (or prizes) whose count differs, with both counts; None when none does."""
    old, new = Counter(before), Counter(after)
    keys = [k for k in dict.fromkeys([*old, *new]) if old[k] != new[k]]
    if not keys:
        return None
    return Change(where, {k: (old[k], new[k]) for k in keys})


def weight_changes(where: str, before: dict[str, int], after: dict[str, int]) -> Change | None:
    keys = [k for k in dict.fromkeys([*before, *after]) if before.get(k, 0) != after.get(k, 0)]
    if not keys:
        return None
    return Change(where, {k: (before.get(k, 0), after.get(k, 0)) for k in keys})


def replace_first(strip: Sequence[str], stop: int, symbol: str) -> tuple[str, ...]:
    out = list(strip)
    out[stop] = symbol
    return tuple(out)


def set_strings(array: Any, strips: Sequence[Sequence[str]]) -> None:
    """Write changed strips into a tomlkit array of space-separated strip strings, in place,
    leaving the unchanged ones (and the array's layout and comments) as they are."""
    for i, strip in enumerate(strips):
        text = " ".join(strip)
        if str(array[i]) != text:
            array[i] = text


TUNED_NOTE = "# Tuned by `reelforge tune`"


def retitle(text: str, old_variant: str, new_variant: str, note: str) -> str:
    """The file's first comment names its variant: name the new one and say, on the line
    after it, where it came from (replacing the note of a source that was tuned itself)."""
    first, _, rest = text.partition("\n")
    if rest.startswith(TUNED_NOTE):
        rest = rest.partition("\n")[2]
    if first.startswith("#") and old_variant in first:
        first = first.replace(old_variant, new_variant)
        return f"{first}\n# {note}\n{rest}"
    return f"# {note}\n{text}"


def parse_toml(text: str) -> tomlkit.TOMLDocument:
    return tomlkit.parse(text)


def dump_toml(doc: tomlkit.TOMLDocument) -> str:
    return tomlkit.dumps(doc)


def write_back(source_text: str, new_variant: str, edit: Callable[[Any], None], what: str) -> str:
    """The source data file with ``edit(doc)`` applied to its TOML document, renamed to
    ``new_variant`` and retitled with where it came from (``what``: the tuner's knobs, in words)."""
    doc = parse_toml(source_text)
    old_variant = str(doc["game"]["variant"])  # type: ignore[index]
    edit(doc)
    doc["game"]["variant"] = new_variant  # type: ignore[index]
    note = f"{TUNED_NOTE[2:]} from variant {old_variant}: {what}."
    return retitle(dump_toml(doc), old_variant, new_variant, note)


class VariantNamed:
    """``variant_of`` and ``rename`` for a game whose data model keeps its variant name in
    ``game.variant`` (a pydantic model)."""

    def variant_of(self, d: Any) -> str:
        return str(d.game.variant)

    def rename(self, d: Any, variant: str) -> Any:
        return d.model_copy(update={"game": {**d.game.model_dump(), "variant": variant}})
