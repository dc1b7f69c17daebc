"""The theoretical figures an operator report compares play with, per (game, variant, mode).

* ``rtp``: the game's exact calculator, ``game.exact(variant=..., mode=...)["rtp"]`` (as kept
  once computed: engine/exact_store.py), a return per unit of the round's stake (a bought
  feature's stake is its price).
* ``sd``: the standard deviation of one round's win in stakes, from the game's exact win
  distribution, or the exact SD the game states itself (``Game.stated_sd``: Reign of Gnomes'
  first two moments, quicker; Ghost of Gambini's base game, which has no law), named.  Where
  no exact SD exists the figure is None and the report draws no band: an SD is never estimated
  or made up.
* ``comparable``: False where the exact RTP counts something a round's cash does not (a
  side currency such as Los 3 Pinguinos' Bonuses, valued at a rate); the report then shows
  the figure for reference and flags the row "not comparable" instead of a deviation.

The figures take seconds to a minute to compute (Reign of Gnomes' law about 40 s, Ghost of
Gambini's base moments about 30 s), so :func:`theoretical` keeps them for the process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from reelforge.engine.exact_store import ExactStore
from reelforge.engine.game import Game, stated_sd, win_distribution
from reelforge.games import get_game


@dataclass(frozen=True)
class Theory:
    rtp: float | None  # per unit of stake; None: no exact figure
    sd: float | None  # SD of one round's win in stakes; None: no exact figure
    sd_source: str | None  # where the SD comes from
    comparable: bool  # the cash RTP in play measures what ``rtp`` measures
    note: str | None = None  # why something is missing, or a caveat

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


TheoryFn = Callable[[str, str, str], Theory]


def _exact_sd(game: Game, variant: str, mode: str) -> tuple[float | None, str | None, str | None]:
    """The SD the game states itself (quicker, or where it has no law), else its law's."""
    stated = stated_sd(game, variant, mode)
    if stated is not None:
        return stated[0], stated[1], stated[2] or None
    reason = "the game has no exact win distribution here"
    try:
        dist = win_distribution(game, variant=variant, mode=mode)
    except NotImplementedError as exc:
        dist, reason = None, str(exc).split(":")[0]  # the game's own first clause says why
    if dist is not None:
        return float(dist.sd().value), "exact win distribution", None
    return None, None, f"no exact SD ({reason}): no band"


def compute_theory(game_id: str, variant: str, mode: str) -> Theory:
    """The figures for one (game, variant, mode), computed now (see the module doc)."""
    try:
        game = get_game(game_id)
    except KeyError:
        return Theory(None, None, None, False, "game not registered here: no theoretical figures")
    if variant not in game.variants or mode not in game.modes:
        return Theory(None, None, None, False, f"{game_id} has no variant {variant} / mode {mode} here")
    try:
        rtp = float(ExactStore().exact(game, variant, mode)["rtp"])
    except NotImplementedError:
        return Theory(None, None, None, False, "the game has no exact RTP here")
    side = tuple(getattr(game, "side_balances", ()))
    if side:
        # e.g. Los 3 Pinguinos: the exact RTP counts Bonuses at €0.80 and an upper bet's
        # value includes its Bonuses, while rounds.stake / rounds.win are cash only.
        note = (
            f"the exact RTP counts the side currency ({', '.join(side)}) at a value; the rounds "
            "hold cash stakes and cash wins only, so the cash RTP in play is not comparable with it"
        )
        return Theory(rtp, None, None, False, note)
    sd, source, note = _exact_sd(game, variant, mode)
    return Theory(rtp, sd, source, True, note)


theoretical: TheoryFn = cache(compute_theory)  # per process: the figures take seconds


def no_theory(game_id: str, variant: str, mode: str) -> Theory:
    """Money only (``reelforge report --no-theory``): no figures computed."""
    return Theory(None, None, None, False, "theoretical figures not computed (--no-theory)")
