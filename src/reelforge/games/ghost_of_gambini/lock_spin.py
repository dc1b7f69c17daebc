"""Lock & Spin and Super Lock & Spin on the 15-position board.

A board is 15 frame levels by position: 0 empty, 1 bronze, 2 silver, 3 gold.

Draw order (the numba kernel follows it draw for draw):

* Start: one ``start_ghosts`` draw for the ghosts the popped piggy releases; each is
  resolved as below.  The counter starts at the feature's spins (3, or 4 when both
  piggies popped; a bought feature starts with ``buy.spins``).
* Each spin: one ``ghosts_per_spin`` draw; each ghost is resolved as below.  When at
  least one ghost landed the counter returns to its start, otherwise it drops by one.
  The feature ends when the counter reaches 0 or every position holds a gold frame
  (ghosts left over once the board is all gold draw nothing).
* One ghost: its colour, one ``colours`` draw (none in Super Lock & Spin: gold only);
  the position it lands on, ``randbelow(15)``; on a gold frame it moves on, one draw
  ``randbelow(positions not gold)`` picking among them in position order.  A white ghost
  raises the frame one level (empty -> bronze -> silver -> gold); a gold ghost makes it
  gold.
* End: for each framed position in position order, one draw on its level's prize table
  (``frames.bronze`` / ``silver`` / ``gold``): the frame turns into that coin or pot.
"""

from __future__ import annotations

from typing import Any

from reelforge.rng import RandomSource, weighted_index

from .data_model import N_POS, Feature, GambiniData

GOLD = 3
LEVELS = ("empty", "bronze", "silver", "gold")


def feature_of(d: GambiniData, super_: bool) -> Feature:
    return d.super_lock_spin if super_ else d.lock_spin


def draw_count(rng: RandomSource, table: dict[int, int]) -> int:
    return list(table)[weighted_index(rng, list(table.values()))]


def all_gold(board: list[int]) -> bool:
    return all(f == GOLD for f in board)


def resolve_ghosts(f: Feature, board: list[int], count: int, rng: RandomSource) -> list[dict[str, Any]]:
    """Resolve ``count`` ghosts on ``board`` in place; one record per ghost that drew."""
    out: list[dict[str, Any]] = []
    for _ in range(count):
        if all_gold(board):
            break
        gold = f.gold_only or weighted_index(rng, f.colour_weights) == 1
        landed = rng.randbelow(N_POS)
        target = landed
        if board[landed] == GOLD:
            open_ = [p for p in range(N_POS) if board[p] != GOLD]
            target = open_[rng.randbelow(len(open_))]
        before = board[target]
        board[target] = GOLD if gold else before + 1
        out.append(
            {
                "colour": "gold" if gold else "white",
                "landed": landed,
                "moved_to": target if target != landed else None,
                "before": LEVELS[before],
                "frame": LEVELS[board[target]],
            }
        )
    return out


def convert(
    d: GambiniData, f: Feature, board: list[int], rng: RandomSource
) -> tuple[int, list[dict[str, Any]]]:
    """Turn every frame into its prize, in position order; returns (credits, awards)."""
    awards: list[dict[str, Any]] = []
    total = 0
    for p, level in enumerate(board):
        if level == 0:
            continue
        table = getattr(f.frames, LEVELS[level])
        prize = list(table)[weighted_index(rng, list(table.values()))]
        credits = d.prize_credits(prize)
        total += credits
        awards.append({"position": p, "frame": LEVELS[level], "prize": prize, "credits": credits})
    return total, awards
