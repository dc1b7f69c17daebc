"""What every game offers the engine, the simulator and the server."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from reelforge.engine.capabilities import StatedSd, has
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.round import Action, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, InvalidBet
from reelforge.rng import RandomSource


class InsufficientSideBalance(InvalidBet):
    """A round's start needs more of a side balance (e.g. Bonuses) than the player holds.
    Raised by :meth:`Game.start` before it draws anything; the server answers 402."""

    currency: str = "bonuses"  # the side balance short (a name of Game.side_balances)


class Game(Protocol):
    id: str
    name: str
    version: str
    modes: list[str]
    variants: list[str]
    default_variant: str
    # Names of integer fields of the game's persistent ``player_state`` that are a currency of
    # their own (e.g. ``("bonuses",)``): never negative, and every change the game makes to one
    # is recorded and audited by the server like money.  ``()`` for most games.
    side_balances: tuple[str, ...]
    # The currencies the game has tables in (its data file's ``[game] currencies``, ISO 4217):
    # a round is played in the player's wallet currency, its amounts read in that currency's
    # minor units; the server offers the game only to players in one of these (and the
    # operator may narrow them).
    currencies: tuple[str, ...]
    # The most rounds one autoplay run of this game may play (Los 3 Pinguinos' seed: "up to a
    # maximum of 100"), or None for no cap of the game's own.  The server applies it together
    # with the jurisdiction profile's cap (the smaller wins).
    autoplay_max_spins: int | None
    # Modes whose bets are a table of their own (Los 3 Pinguinos' upper game: ``("upper",)``):
    # a stake names a bet of that table, and the operator switches those bets on and off apart
    # from the base game's.  Every other mode (a bought feature) is played at a base bet.
    own_bet_modes: tuple[str, ...]
    # What the game can do beyond this protocol: names of :data:`.capabilities.CAPABILITIES`
    # (its exact win law, a PAR sheet, max-win reachability, tuning...), checked on registration.
    capabilities: frozenset[str]
    # Where the exact report's ``hit_frequency`` counts something other than rounds winning
    # anything (Los 3 Pinguinos: prizes showing on the line), its name by mode; ``{}`` elsewhere.
    report_hit_names: dict[str, str]
    # Actions whose choice never changes the law of the round's outcome, only which of the
    # already-drawn outcomes is shown where: a pick among stones whose hidden layout was
    # shuffled uniformly before the first pick (Reign of Gnomes' Ice Diamonds).  A mode whose
    # player decisions are all of these can be published as fixed rounds (``reelforge export
    # stake``); ``frozenset()`` where every decision counts (or there is none).
    reveal_only_actions: frozenset[str]

    # The game's own folder, ``games/<id>/``: its data files (and its package, if it has rules
    # of its own); the certification bundle digests it.
    folder: Path

    def data(self, variant: str | None = None) -> Any:
        """The validated data file of ``variant`` (the default one when None)."""
        ...

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """The stakes offered at ``variant`` in a mode of :attr:`own_bet_modes`, or the base
        game's (``mode="base"``)."""
        ...

    def cost(self, stake: int, mode: str = "base") -> int:
        """Minor units debited to open a round at this bet level (``stake``) in this mode:
        the stake itself for a plain spin, a multiple of it for a bought feature, the cash
        part of a bet that also takes a side balance (an upper bet's Bonuses)."""
        ...

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        """Which persistent player state a round at this stake reads and writes: e.g. one per
        bet level, or one shared; None when the game keeps no player state."""
        ...

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        """Open a round: the stake must be one of the mode's table (:func:`levels_for`).  A
        side balance the bet takes is taken here, from ``player_state``; short of it, raise
        :class:`InsufficientSideBalance` before drawing anything."""
        ...

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        """Take one player action on a pending round; returns the next state."""
        ...

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP: keys game, variant, mode, rtp, components, hit_frequency, method."""
        ...

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """Monte Carlo of ``rounds`` rounds from one seed; depends on the seed alone."""
        ...

    def info(self) -> dict[str, Any]:
        """Id, name, version, modes, variants, bet levels, paytable: JSON for clients."""
        ...

    def play_settings(self) -> dict[str, bool]:
        """The player's switches this game offers (e.g. ``{"auto_advance": True}``), each
        with its default; ``{}`` when it offers none."""
        ...

    def auto_action(self, round_: Round, settings: dict[str, bool]) -> Action | None:
        """What the game plays, at the pending round's current decision, for a player with
        these settings (every name of :meth:`play_settings`, defaults filled in); None when
        a human must decide.  The server's autoplay asks this at every pending step and stops
        at None.  A step whose actions need the player (``needs_player``) must answer None
        unless the settings resolve that decision.  Never called on a complete round."""
        ...


def autoplay_cap(game: Game) -> int | None:
    """The game's own cap on an autoplay run (``autoplay_max_spins``), None when it has none."""
    return game.autoplay_max_spins


def stated_sd(game: Game, variant: str, mode: str) -> StatedSd | None:
    """An exact SD of one round's win the game states besides (or instead of) its win
    distribution, quicker to have (Reign of Gnomes' first two moments) or where it has no law
    (Ghost of Gambini's base game, coupled through the piggies); None where it states none."""
    return game.stated_sd(variant, mode) if has(game, "stated_sd") else None  # type: ignore[attr-defined, no-any-return]


class UnsupportedOption(ValueError):
    """An option (``play``, ``stake``) that a game's win distribution does not take."""


def distribution_options(game: Game) -> tuple[str, ...]:
    """The keyword options the game's ``win_distribution`` takes beyond variant and mode
    (e.g. ``play``, ``stake`` for a game whose law depends on them)."""
    if not has(game, "win_distribution"):
        return ()
    params = inspect.signature(game.win_distribution).parameters  # type: ignore[attr-defined]
    return tuple(n for n, p in params.items() if p.kind is p.KEYWORD_ONLY)


def win_distribution(
    game: Game, variant: str | None = None, mode: str = "base", **options: Any
) -> WinDistribution | None:
    """The game's exact win distribution for ``variant`` and ``mode``, None when it offers none.
    ``options`` (see :func:`distribution_options`) go to games that take them; one the game
    does not take is an :class:`UnsupportedOption` that says which it does."""
    if not has(game, "win_distribution"):
        return None
    method = game.win_distribution  # type: ignore[attr-defined]
    unknown = sorted(set(options) - set(distribution_options(game)))
    if unknown:
        takes = ", ".join(distribution_options(game)) or "none"
        raise UnsupportedOption(
            f"{game.id}'s win distribution takes no {', '.join(unknown)} (it takes: {takes})"
        )
    result = method(variant=variant, mode=mode, **options)
    if result is not None and result is not NotImplemented and not isinstance(result, WinDistribution):
        raise TypeError(f"{game.id}.win_distribution must return a WinDistribution or None, got {result!r}")
    return None if result is NotImplemented else result


def own_bet_modes(game: Game) -> tuple[str, ...]:
    """The game's modes with bets of their own (``own_bet_modes``), () when it has none."""
    return tuple(game.own_bet_modes)


def bet_table(game: Game, mode: str = "base") -> str:
    """Which bet table a round in ``mode`` is staked from: the mode's own, or ``"base"``."""
    return mode if mode in own_bet_modes(game) else "base"


def levels_for(game: Game, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
    """The stakes a round in ``mode`` may be opened at: the stake 100 is €1 in Los 3 Pinguinos'
    lower game and €0.20 + 1 Bonus in its upper game.  A game without own-bet modes is asked
    for its base levels only (its ``bet_levels`` may not take a mode)."""
    table = bet_table(game, mode)
    if table == "base":
        return game.bet_levels(variant)
    return game.bet_levels(variant, mode=table)


def standard_auto_action(round_: Round) -> Action | None:
    """The answer of a game without play settings: the default action where no human is
    needed, None at a decision that needs the player (a pick): autoplay stops there."""
    if any(spec.needs_player for spec in round_.actions):
        return None
    return round_.default_action()


class NoPlaySettings:
    """Mixin for games that offer the player no switches: the protocol's defaults."""

    def play_settings(self) -> dict[str, bool]:
        return {}

    def auto_action(self, round_: Round, settings: dict[str, bool]) -> Action | None:
        return standard_auto_action(round_)


def play_default(game: Game, round_: Round, rng: RandomSource) -> Round:
    """Finish a round with the default play at every decision."""
    while not round_.complete:
        round_ = game.act(round_, round_.default_action(), rng)
    return round_
