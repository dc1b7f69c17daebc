"""A ``lines`` game: the readable rules the server deals and the tests trust, built from a
folder of data files (``data/*.toml``, one per RTP variant) and nothing else.

A round resolves in its start: the base spin, and when enough scatters land, every free
spin.  Events, in order: ``spin`` (the base spin), ``free_spins_awarded`` (the feature's
intro), a ``spin`` per free spin (``reels: "free"``, its number and the spins left), a
``free_spins_awarded`` with ``retrigger: true`` for each retrigger, ``free_spins_end`` (the
feature's total), ``max_win`` if the cap is reached, and ``round_end``.

Draw order (the numba kernel follows it draw for draw): five reel stops for the base spin,
reel 1 first, then five for each free spin.  Nothing else is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.engine.base import PlainGame
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.reels import ReelSet
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, bet_levels
from reelforge.rng import RandomSource

from .data_model import LinesData, load
from .evaluate import evaluate_window
from .reports import LinesReports


def data_files(folder: Path) -> list[Path]:
    """A game folder's variant files, highest RTP first (the first is the default)."""
    return sorted(folder.glob("rtp-*.toml"), reverse=True)


class LinesGame(LinesReports, PlainGame[LinesData]):
    """A 5x3 payline game with wilds, scatters and free spins, defined by its data files.
    Instances hold no mutable state."""

    modes: ClassVar[list[str]] = ["base"]
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"win_distribution", "tuning", "par_sheet", "reachability"}
    )
    kind = "lines"

    def __init__(self, folder: Path, variants: dict[str, LinesData] | None = None) -> None:
        self._folder = folder
        if variants is None:
            variants = {}
            for path in data_files(folder / "data"):
                data = load(path)
                variants[data.game.variant] = data
        if not variants:
            raise ValueError(f"{folder}: no data file")
        ids = {d.game.id for d in variants.values()}
        if len(ids) != 1:
            raise ValueError(f"{folder}: the data files name different games {sorted(ids)}")
        self.data_by_variant = variants
        self.default_variant = next(iter(variants))
        first = variants[self.default_variant]
        self.id = first.game.id
        self.name = first.game.name
        self.version = first.game.version

    @property
    def folder(self) -> Path:
        """The game's folder: its data files (and nothing else of its own)."""
        return self._folder

    @classmethod
    def from_data(cls, data: LinesData) -> LinesGame:
        """A game of one data file (tests, tuning)."""
        return cls(Path("."), {data.game.variant: data})

    # -- bets --------------------------------------------------------------------------------

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """A coin value per line times the lines: every line is always played."""
        self.check_mode(mode)
        d = self.data(variant)
        return bet_levels(list(d.game.coins), d.lines)

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        return None  # no persistent player state

    def info(self) -> dict[str, Any]:
        d = self.data()
        fs = d.free_spins
        return {
            **self.info_head(),
            "kind": self.kind,
            "renderer": "lines",
            "max_win": d.game.max_win,
            "lines": d.lines,
            "symbols": {code: s.name for code, s in d.symbols.items()},
            "symbol_colours": {code: s.colour for code, s in d.symbols.items()},
            "wild": d.wild,
            "scatter": d.scatter,
            "paylines": [list(line) for line in d.paylines],
            "paytable": {code: dict(p) for code, p in d.line_pays.items()},
            "wild_pays": dict(d.wild_pays),
            "scatter_pays": dict(d.scatter_pays),
            "free_spins": None
            if fs is None
            else {
                "award": dict(fs.award),
                "retrigger": dict(fs.retrigger),
                "multiplier": fs.multiplier,
                "max_spins": fs.max_spins,
            },
        }

    # -- math --------------------------------------------------------------------------------

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP and its breakdown (fractions of the stake), from the strips alone."""
        from .exact import exact_figures

        self.check_mode(mode)
        d = self.data(variant)
        f = exact_figures(d)
        return {
            "game": self.id,
            "variant": d.game.variant,
            "mode": mode,
            "rtp": float(f.rtp),
            "rtp_fraction": f"{f.rtp.numerator}/{f.rtp.denominator}",
            "components": {k: float(v) for k, v in f.components.items()},
            "hit_frequency": float(f.hit_frequency),
            "free_spins_frequency": float(f.feature_frequency),
            "mean_free_spins": float(f.mean_free_spins),
            "largest_win_credits": f.largest_win,
            "method": "exact",
            # The cap never binds when it is at or above the largest win the reels can deal.
            "max_win_cap_included": f.cap_never_binds,
        }

    def win_distribution(self, variant: str | None = None, mode: str = "base") -> WinDistribution:
        """The law of one round's capped win: every window enumerated for one spin's law, then
        the feature's law by a forward recursion over spins (:mod:`.distribution`)."""
        from .distribution import win_distribution

        self.check_mode(mode)
        return win_distribution(self.data(variant), self.id)

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        from .kernel import simulate_chunk

        self.check_mode(mode)
        return simulate_chunk(self.data(variant), seed, rounds)

    def tuning(self) -> Any:
        """The game's ``GameTuning`` (``reelforge tune``): base-reel symbol swaps."""
        from .tuning import LinesTuning

        return LinesTuning(self)

    # -- the round ----------------------------------------------------------------------------

    def spin(
        self, d: LinesData, reels: ReelSet, rng: RandomSource, kind: str, multiplier: int
    ) -> tuple[dict[str, Any], int]:
        """One spin's event and its scatter count."""
        stops, window = reels.spin(rng)
        lines, scatters, scatter_credits = evaluate_window(d, window, multiplier)
        event: dict[str, Any] = {
            "type": "spin",
            "reels": kind,
            "stops": stops,
            "window": window,
            "lines": lines,
            "multiplier": multiplier,
            "scatters": scatters,
            "scatter_credits": scatter_credits,
            "credits": sum(w["credits"] for w in lines) + scatter_credits,
        }
        return event, len(scatters)

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        state = {"credits": 0, "free_spins_awarded": 0, "free_spins_played": 0}
        d, _, rnd = self.open_round(stake, variant, mode, state)
        event, scatters = self.spin(d, d.base, rng, "base", 1)
        rnd.events.append(event)
        capped = self._add(d, rnd, event["credits"])
        fs = d.free_spins
        if fs is not None and not capped and scatters in fs.award:
            self._feature(d, rnd, rng, fs.award[scatters], scatters)
        rnd.status = "complete"
        rnd.events.append({"type": "round_end", "credits": rnd.state["credits"], "win": rnd.win})
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        round_.allowed(action)  # a round is complete once started: nothing is allowed
        raise InvalidAction(f"unknown action {action.name!r}")  # pragma: no cover

    def _feature(self, d: LinesData, rnd: Round, rng: RandomSource, awarded: int, scatters: int) -> None:
        fs = d.free_spins
        assert fs is not None
        st = rnd.state
        st["free_spins_awarded"] = awarded
        rnd.events.append(
            {
                "type": "free_spins_awarded",
                "count": awarded,
                "scatters": scatters,
                "multiplier": fs.multiplier,
            }
        )
        left, total, capped = awarded, 0, False
        while left > 0 and not capped:
            left -= 1
            st["free_spins_played"] += 1
            event, k = self.spin(d, d.free, rng, "free", fs.multiplier)
            event["free_spin"] = st["free_spins_played"]
            event["free_spins_left"] = left
            rnd.events.append(event)
            total += event["credits"]
            capped = self._add(d, rnd, event["credits"])
            extra = min(fs.retrigger.get(k, 0), fs.max_spins - st["free_spins_awarded"])
            if extra > 0 and not capped:
                left += extra
                st["free_spins_awarded"] += extra
                rnd.events.append(
                    {"type": "free_spins_awarded", "count": extra, "scatters": k, "retrigger": True}
                )
        rnd.events.append(
            {"type": "free_spins_end", "spins": st["free_spins_played"], "credits": total, "capped": capped}
        )

    def _add(self, d: LinesData, rnd: Round, credits: int) -> bool:
        """Add a win; at the max-win cap the round ends, what is left forfeited: True then."""
        cap = d.game.max_win * d.lines
        total = rnd.state["credits"] + credits
        capped = total >= cap
        if capped:
            total = cap
            rnd.events.append({"type": "max_win", "credits": cap})
        rnd.state["credits"] = total
        rnd.win = total * rnd.coin
        return capped
