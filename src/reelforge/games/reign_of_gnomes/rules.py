"""Reign of Gnomes: the readable rules the server deals and the tests trust.

Draw order (the numba kernel follows it draw for draw):
base spin: 5 reel stops.  Each free spin: 1 wheel draw, then the award's draws
(Spin To Win: 5 stops per Spin To Win game until one wins; Random Wilds: 1 draw for the
replacement set; Ice Diamonds: a Fisher-Yates shuffle of the stones, 14 draws), then 5
stops for the main reels, which resolve after the award's feature is complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.engine.base import PlainGame, rtp_files
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.evaluate import evaluate_ways, scatter_positions
from reelforge.engine.reels import ReelSet
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, bet_levels
from reelforge.rng import RandomSource, shuffle, weighted_index

from .data_model import GnomesData, load
from .reports import GnomesReports

DATA_DIR = Path(__file__).parent / "data"

SPIN = ActionSpec(name="spin")


@dataclass(frozen=True)
class SpinResult:
    stops: list[int]
    window: list[list[str]]
    ways_credits: int
    scatters: int
    scatter_credits: int
    event: dict[str, Any]


class ReignOfGnomes(GnomesReports, PlainGame[GnomesData]):
    """The game.  One instance per RTP variant file; instances hold no mutable state."""

    id = "reign-of-gnomes"
    name = "Reign of Gnomes"
    modes: ClassVar[list[str]] = ["base"]
    # Ice Diamonds: the layout is shuffled uniformly before the first pick and the player sees
    # none of it, so whichever stone is picked, the k-th revealed stone has the same law: the
    # picks only show what was drawn (the exact law in exact.py takes no play).
    reveal_only_actions: ClassVar[frozenset[str]] = frozenset({"pick"})
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"win_distribution", "stated_sd", "tuning", "par_sheet", "reachability", "terminal"}
    )

    def __init__(self, variants: dict[str, GnomesData] | None = None) -> None:
        if variants is None:
            self.load_variants(rtp_files(DATA_DIR), load)
        else:
            self.set_variants(variants)

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """The stakes offered, the same in every mode (a bought feature is priced from them)."""
        self.check_mode(mode)
        d = self.data(variant)
        return bet_levels(list(d.game.coins), d.game.base_credits)

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        return None  # no persistent player state

    def info(self) -> dict[str, Any]:
        d = self.data()
        return {
            **self.info_head(),
            "max_win": d.game.max_win,
            "symbols": d.symbols,
            "ways_pays": d.ways_pays,
            "scatter_pays": d.scatter_pays,
            "free_spins": d.free_spins,
            "wheel": [{"label": s.label, "weight": s.weight} for s in d.wheel],
            "ice_diamonds": d.ice_diamonds.model_dump(),
        }

    # -- math ------------------------------------------------------------------------------

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP and its breakdown (fractions of the stake), from the data file alone."""
        from .exact import exact_rtp

        self.check_mode(mode)
        d = self.data(variant)
        result = exact_rtp(d)
        return {
            "game": self.id,
            "variant": d.game.variant,
            "mode": mode,
            "rtp": float(result.rtp),
            "rtp_fraction": f"{result.rtp.numerator}/{result.rtp.denominator}",
            "components": {k: float(v) for k, v in result.components.items()},
            "hit_frequency": float(result.hit_frequency),
            "free_spins_frequency": float(result.free_spins_frequency),
            "mean_free_spins": float(result.mean_free_spins),
            "method": "exact",
            "max_win_cap_included": False,
        }

    def win_distribution(self, variant: str | None = None, mode: str = "base") -> WinDistribution:
        """The exact law of one round's capped win (``distribution.py``; computed once per
        variant and process, about 20 s of CPU)."""
        from .distribution import win_distribution

        self.check_mode(mode)
        return win_distribution(self.data(variant), mode)

    def stated_sd(self, variant: str, mode: str) -> tuple[float, str, str] | None:
        """The SD of one round's win in stakes from the exact first two moments: seconds where
        the bounded law takes most of a minute; the 5,000x cap (1 in 1.5e13) moves it in its
        eighth digit, so it is left out (said in the source)."""
        import math

        from .distribution import exact_moments

        self.check_mode(mode)
        d = self.data(variant)
        sd = math.sqrt(exact_moments(d).variance) / d.game.base_credits
        return sd, "exact first two moments (exact_moments, the cap left out)", ""

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """Play ``rounds`` rounds in the numba kernel from one seed (default play)."""
        from .kernel import simulate_chunk

        self.check_mode(mode)
        return simulate_chunk(self.data(variant), seed, rounds)

    # -- one spin of a reel set -------------------------------------------------------

    def spin_reels(
        self, d: GnomesData, reels: ReelSet, rng: RandomSource, *, kind: str, multiplier: int = 1
    ) -> SpinResult:
        stops, window = reels.spin(rng)
        ways = evaluate_ways(window, d.ways_pays, d.wild)
        ways_credits = sum(w.credits for w in ways) * multiplier
        scat = scatter_positions(window, d.scatter)
        scatter_credits = d.scatter_pays.get(len(scat), 0) * d.game.base_credits
        event: dict[str, Any] = {
            "type": "spin",
            "reels": kind,
            "stops": stops,
            "window": window,
            "ways": [w.to_json() for w in ways],
            "multiplier": multiplier,
            "scatters": scat,
            "scatter_credits": scatter_credits,
            "credits": ways_credits + scatter_credits,
        }
        return SpinResult(stops, window, ways_credits, len(scat), scatter_credits, event)

    # -- the state machine -------------------------------------------------------------

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        state = {"credits": 0, "free_spins_left": 0, "free_spins_played": 0, "phase": "base"}
        d, _, rnd = self.open_round(stake, variant, mode, state)
        spin = self.spin_reels(d, d.base, rng, kind="base")
        rnd.events.append(spin.event)
        self._add_credits(d, rnd, spin.event["credits"])
        if spin.scatters in d.free_spins and not rnd.complete:
            awarded = d.free_spins[spin.scatters]
            rnd.state["free_spins_left"] = awarded
            rnd.state["phase"] = "free_spins"
            rnd.events.append({"type": "free_spins_awarded", "count": awarded, "scatters": spin.scatters})
        self._settle(rnd)
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        round_.allowed(action)
        d = self.data(round_.variant)
        rnd = round_.copied()
        rnd.step += 1
        if action.name == "spin":
            self._free_spin(d, rnd, rng)
        elif action.name == "pick":
            assert action.choice is not None  # checked by allowed()
            self._pick(d, rnd, action.choice, rng)
        else:  # pragma: no cover - allowed() only admits listed actions
            raise InvalidAction(f"unknown action {action.name!r}")
        self._settle(rnd)
        return rnd

    # -- internals ---------------------------------------------------------------------

    def _free_spin(self, d: GnomesData, rnd: Round, rng: RandomSource) -> None:
        st = rnd.state
        st["free_spins_left"] -= 1
        st["free_spins_played"] += 1
        segment = d.wheel[weighted_index(rng, d.wheel_weights)]
        rnd.events.append({"type": "wheel", "award": segment.label, "free_spin": st["free_spins_played"]})
        if segment.award == "multiplier":
            assert segment.multiplier is not None
            self._main_reels(d, rnd, rng, d.free, "free", segment.multiplier)
        elif segment.award == "spin_to_win":
            self._spin_to_win(d, rnd, rng)
            if not rnd.complete:  # the Spin To Win win may reach the cap
                self._main_reels(d, rnd, rng, d.free, "free", 1)
        elif segment.award == "random_wilds":
            which = rng.randbelow(len(d.random_wild_reels))
            rnd.events.append({"type": "random_wilds", "set": which})
            self._main_reels(d, rnd, rng, d.random_wild_reels[which], f"random_wilds_{which}", 1)
        else:  # ice_diamonds: the hidden layout is fixed before the first pick
            ice = d.ice_diamonds
            layout = [True] * ice.diamonds + [False] * (ice.stones - ice.diamonds)
            shuffle(rng, layout)
            st["_ice_layout"] = layout
            st["ice"] = {"picked": [], "diamonds": 0, "empties": 0}
            st["phase"] = "ice_diamonds"
            rnd.events.append({"type": "ice_diamonds_start", "stones": ice.stones})

    def _spin_to_win(self, d: GnomesData, rnd: Round, rng: RandomSource) -> None:
        multiplier = 1
        while True:
            spin = self.spin_reels(d, d.spin_to_win, rng, kind="spin_to_win", multiplier=multiplier)
            rnd.events.append(spin.event)
            if spin.ways_credits:
                self._add_credits(d, rnd, spin.event["credits"])
                return
            multiplier += 1

    def _pick(self, d: GnomesData, rnd: Round, stone: int, rng: RandomSource) -> None:
        st = rnd.state
        ice = d.ice_diamonds
        diamond = st["_ice_layout"][stone]
        st["ice"]["picked"].append(stone)
        st["ice"]["diamonds" if diamond else "empties"] += 1
        rnd.events.append({"type": "pick", "stone": stone, "diamond": diamond})
        if st["ice"]["diamonds"] == ice.diamonds or st["ice"]["empties"] == ice.empties_to_end:
            level = ice.level_for(st["ice"]["diamonds"])
            credits = ice.levels[level].award * d.game.base_credits
            rnd.events.append(
                {
                    "type": "ice_diamonds_award",
                    "diamonds": st["ice"]["diamonds"],
                    "level": level + 1,
                    "credits": credits,
                    "layout": st.pop("_ice_layout"),
                }
            )
            del st["ice"]
            st["phase"] = "free_spins"
            self._add_credits(d, rnd, credits)
            if not rnd.complete:
                self._main_reels(d, rnd, rng, d.free, "free", 1)

    def _main_reels(
        self, d: GnomesData, rnd: Round, rng: RandomSource, reels: ReelSet, kind: str, multiplier: int
    ) -> None:
        spin = self.spin_reels(d, reels, rng, kind=kind, multiplier=multiplier)
        rnd.events.append(spin.event)
        self._add_credits(d, rnd, spin.event["credits"])
        if spin.scatters in d.free_spins and not rnd.complete:
            extra = d.free_spins[spin.scatters]
            rnd.state["free_spins_left"] += extra
            rnd.events.append(
                {"type": "free_spins_awarded", "count": extra, "scatters": spin.scatters, "retrigger": True}
            )

    def _add_credits(self, d: GnomesData, rnd: Round, credits: int) -> None:
        """Add a win; at the max-win cap the round ends and what is left is forfeited."""
        cap = d.game.max_win * d.game.base_credits
        total = rnd.state["credits"] + credits
        if total >= cap:
            total = cap
            rnd.state["free_spins_left"] = 0
            rnd.state.pop("_ice_layout", None)
            rnd.state.pop("ice", None)
            rnd.state["phase"] = "done"
            rnd.events.append({"type": "max_win", "credits": cap})
            rnd.status = "complete"
        rnd.state["credits"] = total
        rnd.win = total * rnd.coin

    def _settle(self, rnd: Round) -> None:
        """Work out what the player may do next, or close the round."""
        st = rnd.state
        if rnd.complete:
            rnd.actions = []
        elif st.get("phase") == "ice_diamonds":
            picked = set(st["ice"]["picked"])
            choices = [i for i in range(len(st["_ice_layout"])) if i not in picked]
            rnd.actions = [ActionSpec(name="pick", choices=choices, default=choices[0], needs_player=True)]
        elif st["free_spins_left"] > 0:
            rnd.actions = [SPIN]
        else:
            st["phase"] = "done"
            rnd.status = "complete"
            rnd.actions = []
        if rnd.complete:
            rnd.events.append({"type": "round_end", "credits": st["credits"], "win": rnd.win})
