"""Lock & Spin and Super Lock & Spin as an exact Markov chain over the frame counts.

Positions are exchangeable (a ghost lands uniformly and moves off a gold frame to a uniform
non-gold position), so a board is ``(bronze, silver, gold)``.  Every ghost raises the
progress ``b + 2s + 3g``, so the chain over (board, counter) is acyclic: boards are solved in
order of progress, each once.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from .data_model import N_POS, Feature, GambiniData
from .exact_common import F, cache, dist

Board = tuple[int, int, int]  # bronze, silver, gold frames


def _ghost_step(f: Feature, board: Board) -> dict[Board, Fraction]:
    """Where one ghost takes the board (the board itself when it is all gold)."""
    b, s, g = board
    e = N_POS - b - s - g
    open_ = e + b + s
    if open_ == 0:
        return {board: F(1)}
    colour = dist(f.colours)
    white, gold = colour.get("white", F(0)), colour.get("gold", F(0))
    hit = {cls: F(n, N_POS) + F(g, N_POS) * F(n, open_) for cls, n in (("e", e), ("b", b), ("s", s))}
    out: dict[Board, Fraction] = defaultdict(F)
    if white:
        if e:
            out[(b + 1, s, g)] += white * hit["e"]
        if b:
            out[(b - 1, s + 1, g)] += white * hit["b"]
        if s:
            out[(b, s - 1, g + 1)] += white * hit["s"]
    if gold:
        if e:
            out[(b, s, g + 1)] += gold * hit["e"]
        if b:
            out[(b - 1, s, g + 1)] += gold * hit["b"]
        if s:
            out[(b, s - 1, g + 1)] += gold * hit["s"]
    return dict(out)


def _boards() -> list[Board]:
    """Every board, by progress b + 2s + 3g, highest first."""
    boards = [
        (b, s, g) for g in range(N_POS + 1) for s in range(N_POS + 1 - g) for b in range(N_POS + 1 - g - s)
    ]
    return sorted(boards, key=lambda x: -(x[0] + 2 * x[1] + 3 * x[2]))


def frame_means(d: GambiniData, f: Feature) -> tuple[Fraction, Fraction, Fraction]:
    def mean(table: dict[str, int]) -> Fraction:
        if not table:
            return F(0)
        return sum((d.prize_credits(k) * q for k, q in dist(table).items()), F(0))

    return mean(f.frames.bronze), mean(f.frames.silver), mean(f.frames.gold)


@dataclass(frozen=True)
class FeatureResult:
    value: Fraction  # expected credits paid
    final_boards: dict[Board, Fraction]  # distribution of the board at the end
    mean_spins: Fraction  # expected spins played (start ghosts not counted)

    def mean_frames(self) -> tuple[Fraction, Fraction, Fraction]:
        return tuple(sum((q * bd[i] for bd, q in self.final_boards.items()), F(0)) for i in range(3))  # type: ignore[return-value]


def _apply(f: Feature, dist: dict[Board, Fraction], ghosts: int) -> dict[Board, Fraction]:
    for _ in range(ghosts):
        nxt: dict[Board, Fraction] = defaultdict(F)
        for board, q in dist.items():
            for b2, t in _ghost_step(f, board).items():
                nxt[b2] += q * t
        dist = nxt
    return dict(dist)


@cache
def feature_result(d: GambiniData, super_: bool, spins: int) -> FeatureResult:
    """Lock & Spin (or Super) from its start ghosts on an empty board with ``spins`` spins.

    Forward over boards in order of rising progress: the mass at (board, counter)
    either moves to (board, counter - 1) on a spin without ghosts or to (board', spins)
    with board' of higher progress, so each board is final once every lower one is done.
    """
    f = d.super_lock_spin if super_ else d.lock_spin
    means = frame_means(d, f)
    per_spin = dist(f.ghosts_per_spin)
    p0 = per_spin.get(0, F(0))
    full = (0, 0, N_POS)
    # mass arriving at counter == spins, per board
    arriving: dict[Board, Fraction] = defaultdict(F)
    for k, q in dist(f.start_ghosts).items():
        for board, t in _apply(f, {(0, 0, 0): F(1)}, k).items():
            arriving[board] += q * t
    final: dict[Board, Fraction] = defaultdict(F)
    spins_played = F(0)
    for board in reversed(_boards()):  # lowest progress first
        mass = arriving.get(board, F(0))
        if not mass:
            continue
        if board == full:
            final[board] += mass
            continue
        # counter runs spins, spins-1, ..., 1; each spin: no ghost (p0) or k ghosts
        at = mass
        outflow = F(0)
        for _ in range(spins):
            spins_played += at
            outflow += at
            at = at * p0
        final[board] += at  # the counter reached 0 here
        moving = outflow * (1 - p0)
        if moving:
            for k, q in per_spin.items():
                if k == 0:
                    continue
                for b2, t in _apply(f, {board: F(1)}, k).items():
                    arriving[b2] += outflow * q * t
    value = sum(
        (q * (bd[0] * means[0] + bd[1] * means[1] + bd[2] * means[2]) for bd, q in final.items()), F(0)
    )
    return FeatureResult(value, dict(final), spins_played)


def prize_probability(d: GambiniData, f: Feature, final: dict[Board, Fraction], prize: str) -> Fraction:
    """P(at least one frame turns into ``prize``) at the end of the feature."""
    miss = []
    for level in ("bronze", "silver", "gold"):
        table = getattr(f.frames, level)
        total = sum(table.values())
        miss.append(F(total - table.get(prize, 0), total) if total else F(1))
    return sum(
        (q * (1 - miss[0] ** bd[0] * miss[1] ** bd[1] * miss[2] ** bd[2]) for bd, q in final.items()), F(0)
    )
