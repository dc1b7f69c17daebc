"""What a game can do beyond the :class:`~reelforge.engine.game.Game` protocol: small
interfaces, each named in :data:`CAPABILITIES`.

A game says which it has in its ``capabilities`` (a frozenset of those names).  When the game
registers, :func:`check_game` holds it to its word both ways: it has every method of what it
declares, and declares every interface whose methods it has.  Callers then ask :func:`has`
and call the method; nothing probes a game with ``getattr``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # the types only: a game's capability imports its heavy modules lazily
    from reelforge.engine.distribution import WinDistribution
    from reelforge.engine.report.odds import MaxWinOdds, Odds
    from reelforge.engine.report.par_adapter import Adapter
    from reelforge.engine.report.script import Planned
    from reelforge.engine.terminal import TerminalView
    from reelforge.engine.tuning import GameTuning

StatedSd = tuple[float, str, str]  # (SD of one round's win in stakes, its source, a caveat or "")
MaxWinPlan = tuple["list[Planned]", str, "dict[str, Any] | None"]  # rounds, a note, the start state


@runtime_checkable
class HasWinDistribution(Protocol):
    def win_distribution(self, variant: str | None = None, mode: str = "base") -> WinDistribution | None:
        """The exact law of one round's win in ``mode`` (computed from the game's structure,
        never sampled), or None where the game has none for that mode.  A game whose law
        depends on more (a play, a stake) takes them as keyword-only options."""
        ...


@runtime_checkable
class StatesSd(Protocol):
    def stated_sd(self, variant: str, mode: str) -> StatedSd | None:
        """An exact SD of one round's win the game states besides (or instead of) its win
        distribution, quicker to have or where it has no law; None where it states none."""
        ...


@runtime_checkable
class Tunable(Protocol):
    def tuning(self) -> GameTuning[Any]:
        """The knobs ``reelforge tune`` turns to make an RTP variant from a data file."""
        ...


@runtime_checkable
class HasParSheet(Protocol):
    def par_adapter(self, variant: str, mode: str) -> Adapter:
        """What the PAR sheet shows of the game beyond ``info()`` and ``exact()``: reel sets,
        paytables, per-prize odds, the max win, rate checks and a round-by-round replay."""
        ...


@runtime_checkable
class HasReachability(Protocol):
    """Every prize's exact odds, and the max win: what a round can pay at most, and a stored
    sequence of draws (and decisions) that the readable rules turn into it."""

    def prize_odds(self, variant: str, mode: str) -> tuple[list[Odds], MaxWinOdds]: ...

    def max_win_stakes(self, variant: str, mode: str) -> list[int]:
        """The stakes a max-win sequence is stored for."""
        ...

    def declared_max_win(self, variant: str, mode: str, stake: int) -> tuple[int, str]:
        """``(minor units, where it comes from)`` of the largest win one round may pay."""
        ...

    def max_win_plan(self, variant: str, mode: str, stake: int) -> MaxWinPlan:
        """How the rounds of a max-win sequence are drawn (checked by replay before it is stored)."""
        ...

    def max_win_method(self) -> str:
        """How the sequences are found, in a sentence for the lab."""
        ...

    def max_win_draws_path(self) -> Path:
        """Where the game keeps its stored sequences (in its own folder)."""
        ...


@runtime_checkable
class HasMachineState(Protocol):
    def fresh_player_state(self, variant: str | None, side: dict[str, int]) -> dict[str, Any]:
        """A new machine's persistent state holding these side balances (e.g. Bonuses)."""
        ...


@runtime_checkable
class HasTerminalView(Protocol):
    def terminal_view(self, console: Any, info: dict[str, Any], mode: str) -> TerminalView:
        """How the game's rounds read in the terminal (``reelforge play``): its own view of its
        events and decisions; a game without one is told by the engine's view."""
        ...


CAPABILITIES: dict[str, type] = {
    "win_distribution": HasWinDistribution,
    "stated_sd": StatesSd,
    "tuning": Tunable,
    "par_sheet": HasParSheet,
    "reachability": HasReachability,
    "machine_state": HasMachineState,
    "terminal": HasTerminalView,
}


def _methods(interface: type) -> set[str]:
    return {n for n, v in vars(interface).items() if callable(v) and not n.startswith("_")}


def has(game: Any, name: str) -> bool:
    """Whether the game declares the capability ``name`` (one of :data:`CAPABILITIES`)."""
    if name not in CAPABILITIES:
        raise KeyError(f"no capability {name!r}; known: {sorted(CAPABILITIES)}")
    return name in game.capabilities


# The attributes and methods of the Game protocol every game must have (checked on registration).
REQUIRED = (
    "id", "name", "version", "modes", "variants", "default_variant", "side_balances", "currencies",
    "autoplay_max_spins", "own_bet_modes", "capabilities", "report_hit_names", "reveal_only_actions",
    "bet_levels", "cost",
    "state_key", "start", "act", "exact", "simulate_chunk", "info", "play_settings", "auto_action", "data",
    "folder",
)  # fmt: skip


def check_game(game: Any) -> None:
    """Raise TypeError unless ``game`` has what the protocol asks and says truly what it can do."""
    gid = getattr(game, "id", type(game).__name__)
    missing = [n for n in REQUIRED if not hasattr(game, n)]
    if missing:
        raise TypeError(f"{gid} lacks {', '.join(missing)} of the Game protocol")
    declared = set(game.capabilities)
    unknown = sorted(declared - set(CAPABILITIES))
    if unknown:
        raise TypeError(f"{gid} declares unknown capabilities {unknown}; known: {sorted(CAPABILITIES)}")
    for name, interface in CAPABILITIES.items():
        present = {m for m in _methods(interface) if callable(getattr(game, m, None))}
        if name in declared and present != _methods(interface):
            lacking = sorted(_methods(interface) - present)
            raise TypeError(f"{gid} declares {name!r} but lacks {', '.join(lacking)}")
        if name not in declared and present:
            raise TypeError(f"{gid} has {', '.join(sorted(present))} but does not declare {name!r}")
    cap = game.autoplay_max_spins
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 1):
        raise TypeError(f"{gid}.autoplay_max_spins must be a positive integer or None, got {cap!r}")
    wrong = [m for m in game.own_bet_modes if m not in game.modes or m == "base"]
    if wrong:
        raise TypeError(f"{gid}.own_bet_modes names {wrong}, not modes of its own: {game.modes}")
