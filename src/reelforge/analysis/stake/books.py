"""Real rounds for the books: found by playing the game's rules, kept by their draws.

A book is one round played through ``Game.start`` / ``Game.act`` with the default actions,
from a seeded source; its draws are kept, so the round is replayed (and checked) at will.
Which rounds are *found* is a search, not a sample: the weights come from the exact law
(:mod:`.weights`), never from how often the search met a payout.  Two ways find them:

* plain play from a seed: common payouts, in proportion to their odds;
* splitting, for the bands plain play does not reach (a 1,000x band at 1 in 10^6): the best
  rounds found so far are replayed up to a random draw and played on from fresh draws, keeping
  those that reach higher ("go with the winners"), until every band has a round or the budget
  is spent;
* filling, for the payouts still without a round: a missing payout is picked at random, and a
  round found just below it is replayed up to a random draw and played on, until every payout
  has a round or the budget is spent (rare payouts of a feature sit near others of it);

and the max win comes from the game's stored max-win draws (``max_win_draws.json``) where it
has them for this mode.
"""

from __future__ import annotations

import bisect
import heapq
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reelforge.engine.game import Game
from reelforge.engine.round import Round
from reelforge.rng import RandomSource, ReplayRandom, SeededRandom

Draws = tuple[tuple[int, int], ...]


class DecisionFound(ValueError):
    """A round asked the player for a decision that changes its outcome: no fixed book can be it."""


class _Tape:
    """Deals ``prefix`` again, then draws from ``inner``; records every draw."""

    def __init__(self, inner: RandomSource, prefix: Draws = ()) -> None:
        self.inner = inner
        self.prefix = prefix
        self.draws: list[tuple[int, int]] = []

    def randbelow(self, n: int) -> int:
        i = len(self.draws)
        if i < len(self.prefix) and self.prefix[i][0] == n:
            value = self.prefix[i][1]
        else:
            self.prefix = ()  # the round went another way: fresh draws from here
            value = self.inner.randbelow(n)
        self.draws.append((n, value))
        return value


def play(game: Game, variant: str, mode: str, stake: int, rng: RandomSource) -> Round:
    """One round with the default actions; a decision that is not reveal-only is refused.

    Each step's events are taken off the round before the next step (and put back at the end):
    ``Game.act`` copies the round it is given, events and all, so a long feature (a few hundred
    steps) cost the square of its length.  The rules never read past events (a test holds them
    to it: the same round, event for event, as played step by step with everything kept)."""
    rnd = game.start(stake, rng, variant=variant, mode=mode)
    events = rnd.events
    rnd.events = []
    while not rnd.complete:
        for spec in rnd.actions:
            if spec.needs_player and spec.name not in game.reveal_only_actions:
                raise DecisionFound(
                    f"{game.id} {mode}: the round asks the player to {spec.name!r}, a decision that "
                    "changes what the round pays"
                )
        rnd = game.act(rnd, rnd.default_action(), rng)
        events.extend(rnd.events)
        rnd.events = []
    rnd.events = events
    return rnd


def replay(game: Game, variant: str, mode: str, stake: int, draws: Draws) -> Round:
    """The round a book's draws make, through the rules; every draw must be used."""
    rng = ReplayRandom(draws)
    rnd = play(game, variant, mode, stake, rng)
    if not rng.exhausted:
        raise ValueError(f"{len(draws) - rng.position} of the book's draws were not used")
    return rnd


@dataclass
class Finds:
    """Rounds found, by payout: up to ``want[payout]`` distinct draw sequences each."""

    want: Callable[[int], int]
    by_payout: dict[int, list[Draws]] = field(default_factory=dict)
    seen: dict[int, int] = field(default_factory=dict)  # rounds met at each payout
    played: int = 0
    split_played: int = 0
    fill_played: int = 0
    _held: dict[int, set[Draws]] = field(default_factory=dict)  # ``by_payout`` as sets

    def offer(self, payout: int, draws: Draws, pick: RandomSource) -> None:
        """Keep the round: a reservoir of ``want`` rounds per payout (uniform over those met)."""
        self.seen[payout] = self.seen.get(payout, 0) + 1
        kept = self.by_payout.setdefault(payout, [])
        held = self._held.setdefault(payout, set())
        cap = self.want(payout)
        if draws in held:
            return
        if len(kept) < cap:
            kept.append(draws)
            held.add(draws)
        else:
            j = pick.randbelow(self.seen[payout])
            if j < cap:
                held.discard(kept[j])
                kept[j] = draws
                held.add(draws)


def search(
    game: Game,
    variant: str,
    mode: str,
    stake: int,
    payout_of: Callable[[int], int],
    finds: Finds,
    *,
    rounds: int,
    split_rounds: int,
    fill_rounds: int,
    missing_bands: Callable[[set[int]], list[Any]],
    targets: Sequence[int],
    seed: int,
) -> None:
    """Plain play for ``rounds`` rounds, then splitting towards the bands still missing for at
    most ``split_rounds`` more, then filling towards the ``targets`` (payouts) still missing for
    at most ``fill_rounds``.  ``payout_of`` takes a round's win (minor units)."""
    source = SeededRandom(seed)
    pick = source.spawn(1)[0]  # the search's own choices, apart from the rounds' draws
    keep = 64
    # A min-heap of the best rounds, (payout, n, draws), from those found before (a stored max
    # win: its first draws are the way to the top bands) and those played here.
    elite = heapq.nlargest(
        keep, ((p, -i, d) for i, (p, kept) in enumerate(finds.by_payout.items()) for d in kept)
    )
    heapq.heapify(elite)

    def one(prefix: Draws) -> int:
        tape = _Tape(source, prefix)
        rnd = play(game, variant, mode, stake, tape)
        payout = payout_of(rnd.win)
        draws = tuple(tape.draws)
        finds.offer(payout, draws, pick)
        entry = (payout, finds.played + finds.split_played + finds.fill_played, draws)
        if len(elite) < keep:
            heapq.heappush(elite, entry)
        elif payout > elite[0][0]:
            heapq.heapreplace(elite, entry)
        return payout

    for _ in range(rounds):
        finds.played += 1
        one(())
    while finds.split_played < split_rounds and missing_bands(set(finds.by_payout)):
        finds.split_played += 1
        # A parent from the better half of the elite, cut at a random draw.
        best = sorted(elite, reverse=True)[: max(1, len(elite) // 2)]
        _payout, _n, draws = best[pick.randbelow(len(best))]
        cut = pick.randbelow(len(draws)) if draws else 0
        one(draws[:cut])
    _fill(finds, targets, fill_rounds, one, pick)


def _fill(
    finds: Finds, targets: Sequence[int], budget: int, one: Callable[[Draws], int], pick: RandomSource
) -> None:
    found = sorted(finds.by_payout)
    missing = sorted(set(targets) - set(found))
    while finds.fill_played < budget and missing:
        finds.fill_played += 1
        target = missing[pick.randbelow(len(missing))]
        i = bisect.bisect_left(found, target)
        near = found[max(0, i - 4) : i] or found[:1]
        kept = finds.by_payout[near[pick.randbelow(len(near))]]
        draws = kept[pick.randbelow(len(kept))]
        payout = one(draws[: pick.randbelow(len(draws))] if draws else ())
        j = bisect.bisect_left(found, payout)
        if j == len(found) or found[j] != payout:
            found.insert(j, payout)
            k = bisect.bisect_left(missing, payout)
            if k < len(missing) and missing[k] == payout:
                del missing[k]


def stored_max_wins(game: Game, variant: str, mode: str, stake: int, path: Path | None) -> list[Draws]:
    """The game's stored max-win draws for this variant, mode and stake that are one round
    from a new player (the others build a persistent state first).  The caller replays them
    with the default actions and keeps those that pay what was stored."""
    if path is None or not path.exists():
        return []
    data: dict[str, Any] = json.loads(path.read_text())
    out = []
    for seq in data.get("sequences", []):
        rounds = seq.get("rounds", [])
        if (
            seq.get("variant") == variant
            and seq.get("mode") == mode
            and seq.get("stake") == stake
            and seq.get("player_state") is None
            and len(rounds) == 1
        ):
            out.append(tuple((int(n), int(v)) for n, v in rounds[0]["draws"]))
    return out
