"""The features a base round's pop starts, by their moments: what the frames pay enters only
through each level's mean and variance, the final board only through its frame counts'
moments (its law does not depend on the frame tables), so the tuner can move the frames
without solving the board chain again (:mod:`.volatility`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .cap_odds import KINDS
from .data_model import GambiniData
from .exact_common import F, cache, dist
from .exact_feature import feature_result

LEVELS = ("bronze", "silver", "gold")


@dataclass(frozen=True)
class BoardMoments:
    """The final board's frame counts ``n`` (bronze, silver, gold): ``E[n_l]``, ``E[n_l n_m]``.
    The board's law does not depend on what the frames turn into."""

    n1: tuple[Fraction, ...]
    n2: tuple[tuple[Fraction, ...], ...]


@cache
def board_moments(d: GambiniData, super_: bool, spins: int) -> BoardMoments:
    boards = feature_result(d, super_, spins).final_boards.items()
    n1 = tuple(sum((q * b[i] for b, q in boards), F(0)) for i in range(3))
    n2 = tuple(tuple(sum((q * b[i] * b[j] for b, q in boards), F(0)) for j in range(3)) for i in range(3))
    return BoardMoments(n1, n2)


def frame_moments(d: GambiniData, table: dict[str, int]) -> tuple[Fraction, Fraction]:
    """The mean and variance of what one frame of a level turns into."""
    q = dist(table) if table else {}
    m1 = sum((d.prize_credits(x) * p for x, p in q.items()), F(0))
    m2 = sum((d.prize_credits(x) ** 2 * p for x, p in q.items()), F(0))
    return m1, m2 - m1 * m1


def feature_combine(
    board: BoardMoments, levels: Sequence[tuple[Fraction, Fraction]]
) -> tuple[Fraction, Fraction]:
    """Uncapped ``E[F]``, ``E[F^2]``: given the final board, frames are independent, so
    ``E[F^2] = sum_l E[n_l] var_l + sum_{l, m} E[n_l n_m] mean_l mean_m``."""
    e1 = sum((n * m for n, (m, _) in zip(board.n1, levels, strict=True)), F(0))
    e2 = sum((n * v for n, (_, v) in zip(board.n1, levels, strict=True)), F(0))
    for i, (mi, _) in enumerate(levels):
        for j, (mj, _) in enumerate(levels):
            e2 += board.n2[i][j] * mi * mj
    return e1, e2


def kind_of(kind: str) -> tuple[bool, int]:
    """``"super_lock_spin_4"`` -> (Super, 4 spins)."""
    return kind.startswith("super"), int(kind[-1])


def feature_moments(d: GambiniData) -> dict[str, tuple[Fraction, Fraction]]:
    out = {}
    for k in KINDS:
        super_, spins = kind_of(k)
        f = d.super_lock_spin if super_ else d.lock_spin
        levels = [frame_moments(d, getattr(f.frames, lv)) for lv in LEVELS]
        out[k] = feature_combine(board_moments(d, super_, spins), levels)
    return out
