"""Which of a game's modes can be published as fixed books, and why the others cannot.

A book is a round decided before the player sees it, so a mode can be one only if

* its rounds read and write no persistent player state (a meter, a piggy bank, Bonuses that
  carry from one round to the next): the game's ``state_key`` is None at every stake;
* the player makes no decision that changes what the round pays: every action the rounds ask
  the player for is one the game lists in ``reveal_only_actions`` (a pick on a hidden layout
  shuffled before the first pick only shows what was drawn);
* the game has its exact win law for the mode (the weights come from it).

Decisions are found by playing: :data:`PROBE_ROUNDS` seeded rounds, and every round the export
plays after them (a decision met later stops the export with the reason).
"""

from __future__ import annotations

from reelforge.analysis.stake.books import DecisionFound, play
from reelforge.engine.capabilities import has
from reelforge.engine.game import Game, levels_for
from reelforge.rng import SeededRandom

PROBE_ROUNDS = 300


def refusal(game: Game, variant: str, mode: str) -> str | None:
    """None when ``mode`` can be exported; else why not, in words.  The law itself is asked
    for by the export (it may take seconds); a game without one is refused here."""
    reasons = []
    stakes = [level.stake for level in levels_for(game, variant, mode)]
    keys = sorted({k for k in (game.state_key(s, mode) for s in stakes) if k is not None})
    if keys:
        which = keys[0] if len(keys) == 1 else f"{keys[0]} and {len(keys) - 1} more"
        reasons.append(
            f"its rounds read and write the player's persistent state ({which}): what one round "
            "pays depends on the rounds before it, which a fixed book cannot know"
        )
    else:
        rng = SeededRandom(20261207)
        try:
            for _ in range(PROBE_ROUNDS):
                play(game, variant, mode, stakes[0], rng)
        except DecisionFound as exc:
            reasons.append(str(exc).split(": ", 1)[-1])
    if not has(game, "win_distribution"):
        reasons.append("the game states no exact win law")
    return "; and ".join(reasons) or None


def cost_in_bets(game: Game, variant: str, mode: str) -> int:
    """The mode's price in bets (the index's ``cost``): 1 for a spin, 100 for a feature at 100x."""
    stake = levels_for(game, variant, mode)[0].stake
    price = game.cost(stake, mode)
    if price % stake:
        raise ValueError(f"{game.id} {mode}: a price of {price} for a stake of {stake} is not whole bets")
    return price // stake
