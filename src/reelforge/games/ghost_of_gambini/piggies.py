"""The two piggy banks: read from the player's stored state, tossed into, popped.

A toss happens whenever Gambini or the ghost ends a base spin in the center.  Gambini
tosses into the left, the right or both piggies (one ``piggies.gambini_toss`` draw); the
ghost always into both.  For each piggy tossed into, left first, one draw on that piggy's
size (``piggies.sizes[size]``: stay or grow).  A piggy that grows at its largest size pops
and returns to size 0.  One pop starts Lock & Spin with 3 spins, two pops with 4; popped by
the ghost it is Super Lock & Spin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelforge.rng import RandomSource, weighted_index

from .data_model import GambiniData

TOSS_TARGETS = ((0,), (1,), (0, 1))  # left, right, both
SIDES = ("left", "right")


class InvalidPlayerState(ValueError):
    """Stored player state this game cannot read (e.g. a piggy size out of range)."""


@dataclass(frozen=True)
class Toss:
    sizes: tuple[int, int]  # after the toss (popped piggies back at 0)
    popped: int  # how many popped
    event: dict[str, Any]


def read_piggies(d: GambiniData, player_state: dict[str, Any] | None) -> tuple[int, int]:
    """None or {} is two new piggies; otherwise ``{"piggies": [left, right]}`` sizes."""
    if player_state is None or player_state == {}:
        return (0, 0)
    if not isinstance(player_state, dict) or set(player_state) != {"piggies"}:
        raise InvalidPlayerState(f"player_state must be {{'piggies': [left, right]}}, got {player_state!r}")
    sizes = player_state["piggies"]
    n = len(d.piggies.sizes)
    if (
        not isinstance(sizes, list)
        or len(sizes) != 2
        or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < n for s in sizes)
    ):
        raise InvalidPlayerState(f"player_state.piggies must be two sizes in [0, {n}), got {sizes!r}")
    return (sizes[0], sizes[1])


def toss(d: GambiniData, sizes: tuple[int, int], by: str, rng: RandomSource) -> Toss:
    """``by`` is 'gambini' or 'ghost'."""
    targets = TOSS_TARGETS[2] if by == "ghost" else TOSS_TARGETS[weighted_index(rng, d.piggies.toss_weights)]
    new = list(sizes)
    grew: list[bool] = []
    popped: list[str] = []
    largest = len(d.piggies.sizes) - 1
    for side in targets:
        g = weighted_index(rng, d.piggies.sizes[new[side]].weights) == 0
        grew.append(g)
        if g:
            if new[side] == largest:
                new[side] = 0
                popped.append(SIDES[side])
            else:
                new[side] += 1
    event = {
        "type": "piggy_toss",
        "by": by,
        "into": [SIDES[s] for s in targets],
        "grew": grew,
        "before": list(sizes),
        "sizes": list(new),
        "popped": popped,
    }
    return Toss((new[0], new[1]), len(popped), event)
