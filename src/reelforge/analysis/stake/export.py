"""One mode exported: the law on the grid, the books found, the weights, the figures."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reelforge.analysis.stake import books as bk
from reelforge.analysis.stake.law import GridLaw, grid_law, payout_of
from reelforge.analysis.stake.modes import cost_in_bets, refusal
from reelforge.analysis.stake.table_stats import band_probabilities, table_stats
from reelforge.analysis.stake.weights import Weighted, weigh
from reelforge.engine.capabilities import has
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.game import Game, levels_for, win_distribution
from reelforge.rng import SeededRandom

DEFAULT_BOOKS = 10_000
DEFAULT_SEARCH_ROUNDS = 100_000  # plain play
DEFAULT_SPLIT_ROUNDS = 200_000  # the most splitting rounds towards bands still missing
DEFAULT_FILL_ROUNDS = 50_000  # the most rounds towards payouts still missing


class NotExportable(ValueError):
    """The mode cannot be published as fixed books; the message says why."""


@dataclass
class Book:
    id: int
    payout: int  # payoutMultiplier: bets x 100
    win: int  # the round's win, minor units
    bet: int  # the bet it was played at, minor units (a bought feature costs ``cost`` bets)
    draws: bk.Draws


@dataclass
class ModeExport:
    game: str
    variant: str
    mode: str
    cost: int
    law: GridLaw
    books: list[Book]
    weighted: Weighted
    exact: dict[str, Any]  # the exact figures (:func:`exact_figures`)
    table: dict[str, Any]  # the table's (:func:`table_stats`, plus bands)
    search: dict[str, Any] = field(default_factory=dict)
    _game: Game | None = field(default=None, repr=False)

    def events(self, book: Book) -> list[dict[str, Any]]:
        """The book's round's events, replayed from its draws (not kept: a mode's 10,000 books
        of long features are over 150 MB of JSON)."""
        assert self._game is not None
        return bk.replay(self._game, self.variant, self.mode, book.bet, book.draws).events


def law_of(game: Game, variant: str, mode: str) -> tuple[WinDistribution, dict[str, Any]]:
    """The mode's exact win law and the game's exact figures; a mode without one is refused."""
    try:
        dist = win_distribution(game, variant, mode)
    except Exception as exc:  # the game says why it has none (Ghost of Gambini's base game)
        raise NotExportable(f"{game.id} {mode}: no exact win law: {exc}") from exc
    if dist is None:
        raise NotExportable(f"{game.id} {mode}: the game states no exact win law for this mode")
    return dist, game.exact(variant, mode)


def exact_figures(dist: WinDistribution, law: GridLaw) -> dict[str, Any]:
    """What the table must match, from the exact law (before rounding; the rounding keeps them)."""
    _top, p_top = dist.max_win()
    return {
        "rtp": law.exact_rtp,
        "law_rtp": law.law_rtp,
        "sd": dist.sd().value,
        "hit_rate": 1 - dist.p_no_win().value,
        "hit_rate_bound": dist.p_no_win().bound,
        "p_win_below_bet": dist.probability(0, dist.stake).value,
        "p_win_below_bet_bound": dist.probability(0, dist.stake).bound,
        "max_payout": law.top,
        "max_win_rate": p_top.value,
        "max_win_rate_bounds": [p_top.low, p_top.high],
        "bands": [(b.label, b.probability.value, b.probability.bound) for b in dist.bands()],
    }


def _wants(law: GridLaw, books: int) -> Callable[[int], int]:
    """How many rounds to keep at each payout: one, and up to ``books`` times its probability
    (the selection trims to ``books``)."""

    def want(payout: int) -> int:
        return 1 + int(books * law.mass.get(payout, Fraction(0)))

    return want


def _select(law: GridLaw, found: dict[int, list[bk.Draws]], books: int) -> list[tuple[int, bk.Draws]]:
    """The books to write, at most ``books``: first the most probable found payout of every band
    and side of the bet, then one round of each found payout by probability, then more rounds of
    the found payouts in proportion to their probabilities (as many as were kept)."""
    order = sorted(found, key=lambda p: -law.mass.get(p, Fraction(0)))
    chosen: list[tuple[int, bk.Draws]] = []
    taken: set[int] = set()
    for segment in sorted({law.segment_of(p) for p in order}):
        first = next(p for p in order if law.segment_of(p) == segment)
        chosen.append((first, found[first][0]))
        taken.add(first)
    chosen.extend((p, found[p][0]) for p in order if p not in taken)
    chosen = chosen[:books]
    room = books - len(chosen)
    if room > 0:
        total = sum(law.mass.get(p, Fraction(0)) for p in order)
        extra = {p: min(int(room * law.mass.get(p, Fraction(0)) / total), len(found[p]) - 1) for p in order}
        left = room - sum(extra.values())
        for p in order:  # what the floors left, to the most probable payouts with rounds to spare
            if left <= 0:
                break
            if extra[p] < len(found[p]) - 1:
                extra[p] += 1
                left -= 1
        for p in order:
            chosen.extend((p, d) for d in found[p][1 : 1 + extra[p]])
    return sorted(chosen, key=lambda c: c[0])


def export_mode(
    game: Game,
    variant: str,
    mode: str,
    *,
    books: int = DEFAULT_BOOKS,
    search_rounds: int = DEFAULT_SEARCH_ROUNDS,
    split_rounds: int = DEFAULT_SPLIT_ROUNDS,
    fill_rounds: int = DEFAULT_FILL_ROUNDS,
    seed: int = 1,
    say: Callable[[str], None] = lambda _m: None,
) -> ModeExport:
    reason = refusal(game, variant, mode)
    if reason:
        raise NotExportable(f"{game.id} {mode}: {reason}")
    if books < 1:
        raise ValueError("--books must be at least 1")
    t0 = time.perf_counter()
    dist, exact = law_of(game, variant, mode)
    cost = cost_in_bets(game, variant, mode)
    law = grid_law(dist, exact, cost)
    say(f"{mode}: law on the grid ({len(law.support)} payouts, {time.perf_counter() - t0:.1f} s)")
    stake = levels_for(game, variant, mode)[0].stake
    finds = bk.Finds(_wants(law, books))
    rng_pick = SeededRandom(seed).spawn(2)[1]
    for draws in bk.stored_max_wins(game, variant, mode, stake, _max_win_path(game)):
        rnd = bk.replay(game, variant, mode, stake, draws)
        finds.offer(payout_of(rnd.win, stake, law), draws, rng_pick)
    # Every band (and side of the bet) the law puts a payout in needs a book.
    needed = {law.segment_of(p) for p in law.support}

    def missing(found: set[int]) -> list[tuple[int, bool]]:
        return sorted(needed - {law.segment_of(p) for p in found})

    t1 = time.perf_counter()
    bk.search(
        game,
        variant,
        mode,
        stake,
        lambda win: payout_of(win, stake, law),
        finds,
        rounds=search_rounds,
        split_rounds=split_rounds,
        fill_rounds=fill_rounds,
        targets=sorted(law.support, key=lambda p: -law.mass[p])[:books],
        missing_bands=missing,
        seed=seed,
    )
    say(
        f"{mode}: {finds.played:,} rounds played, {finds.split_played:,} by splitting, "
        f"{finds.fill_played:,} filling, "
        f"{len(finds.by_payout):,} payouts found ({time.perf_counter() - t1:.1f} s)"
    )
    chosen = _select(law, finds.by_payout, books)
    out_books = []
    for i, (payout, draws) in enumerate(chosen, start=1):
        rnd = bk.replay(game, variant, mode, stake, draws)
        assert payout_of(rnd.win, stake, law) == payout, "a replayed round pays what it paid"
        out_books.append(Book(i, payout, rnd.win, stake, draws))
    payouts = [b.payout for b in out_books]
    weighted = weigh(law, payouts)
    table = table_stats(payouts, weighted.weights, cost)
    table["bands"] = band_probabilities(payouts, weighted.weights, [(b.low, b.high) for b in law.bands])
    return ModeExport(
        game=game.id,
        variant=variant,
        mode=mode,
        cost=cost,
        law=law,
        books=out_books,
        weighted=weighted,
        exact=exact_figures(dist, law),
        table=table,
        search={
            "seed": seed,
            "rounds": finds.played,
            "split_rounds": finds.split_played,
            "fill_rounds": finds.fill_played,
            "payouts_found": len(finds.by_payout),
            "seconds": round(time.perf_counter() - t0, 1),
        },
        _game=game,
    )


def _max_win_path(game: Game) -> Any:
    return game.max_win_draws_path() if has(game, "reachability") else None  # type: ignore[attr-defined]
