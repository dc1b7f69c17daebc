"""The draws a game makes, read off its data model: every reel strip (a stop is
``randbelow(len(strip))``) and every weight table (``weighted_index(weights)``, one
``randbelow(total)``).

Found by walking the validated data model, not listed by hand, so a table added to a data
file is tested without touching this module.  A weight table is a ``weights`` or
``*_weights`` property, or a ``{outcome: weight}`` field whose values are declared
non-negative integers (``Field(ge=0)``: how the data models declare weights, and what a
paytable is not).  A table with fewer than two positive weights has nothing to test and is
left out.  Tables identical across RTP variants are tested once and listed with every place
they are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from annotated_types import Ge
from pydantic import BaseModel

from reelforge.engine.game import Game


@dataclass
class DrawTable:
    kind: str  # "reel" | "weights"
    weights: tuple[int, ...]  # a reel: one per stop, all 1
    places: list[str] = field(default_factory=list)  # "95.97: base_reels.strips[0]", ...

    @property
    def name(self) -> str:
        return self.places[0]


def _is_weight_dict(model: type[BaseModel], name: str) -> bool:
    info = model.model_fields[name]
    if get_origin(info.annotation) is not dict:
        return False
    value = get_args(info.annotation)[1]
    meta = [m for arg in get_args(value)[1:] for m in getattr(arg, "metadata", [arg])]
    return any(isinstance(m, Ge) and m.ge == 0 for m in meta)


def _walk(obj: Any, path: str, out: list[tuple[str, str, tuple[int, ...]]]) -> None:
    if isinstance(obj, BaseModel):
        cls = type(obj)
        for name in cls.model_fields:
            value = getattr(obj, name)
            sub = f"{path}.{name}" if path else name
            if name == "strips" or name.endswith("_strips"):
                for i, strip in enumerate(value):
                    out.append(("reel", f"{sub}[{i}]", (1,) * len(strip)))
            elif isinstance(value, dict) and _is_weight_dict(cls, name):
                out.append(("weights", sub, tuple(int(v) for v in value.values())))
            else:
                _walk(value, sub, out)
        for name in dir(cls):
            if (name == "weights" or name.endswith("_weights")) and isinstance(getattr(cls, name), property):
                weights = getattr(obj, name)
                out.append(("weights", f"{path}.{name}" if path else name, tuple(int(w) for w in weights)))
    elif isinstance(obj, tuple | list):
        for i, item in enumerate(obj):
            if isinstance(item, BaseModel):
                _walk(item, f"{path}[{i}]", out)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            if isinstance(item, BaseModel):
                _walk(item, f"{path}[{key}]", out)


def draw_tables(game: Game, variants: list[str] | None = None) -> list[DrawTable]:
    """Every distinct reel and weight table of the game's RTP variants, in data-file order."""
    found: dict[tuple[str, tuple[int, ...]], DrawTable] = {}
    for variant in variants or list(game.variants):
        entries: list[tuple[str, str, tuple[int, ...]]] = []
        _walk(game.data(variant), "", entries)  # type: ignore[attr-defined]
        for kind, where, weights in entries:
            if sum(1 for w in weights if w > 0) < 2:
                continue
            table = found.setdefault((kind, weights), DrawTable(kind, weights))
            table.places.append(f"{variant}: {where}")
    return list(found.values())
