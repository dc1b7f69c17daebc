"""Ghost of Gambini: the readable rules the server deals and the tests trust.

A base round (mode ``base``) is one spin of the panel (:mod:`.panel`); with Gambini or the
ghost in the center it collects, then tosses into the piggy banks (:mod:`.piggies`).  A pop
starts Lock & Spin (:mod:`.lock_spin`) in the same round: its start ghosts resolve in the
first step, then each ``spin`` action is one spin of the feature, so every step of it is
stored and resumable.  The bought modes (``buy-lock-spin``, ``buy-super-lock-spin``) open
straight into the feature with ``buy.spins`` spins, cost ``buy.*`` times the total bet, and
neither read nor touch the piggy banks.

``Round.win`` always shows what the round pays so far, in minor units, capped at
``game.max_win`` times the total bet: a round that reaches the cap ends there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.engine.base import PlainGame, rtp_files
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, bet_levels, find_bet
from reelforge.rng import RandomSource

from . import lock_spin as ls
from .data_model import N_POS, GambiniData, load
from .panel import spin_panel
from .piggies import read_piggies, toss
from .reports import GambiniReports

DATA_DIR = Path(__file__).parent / "data"

SPIN = ActionSpec(name="spin")
BUY_MODES = {"buy-lock-spin": False, "buy-super-lock-spin": True}  # mode -> Super?


class GhostOfGambini(GambiniReports, PlainGame[GambiniData]):
    """The game.  One instance holds the data files; instances hold no mutable state."""

    id = "ghost-of-gambini"
    name = "Ghost of Gambini"
    modes: ClassVar[list[str]] = ["base", *BUY_MODES]
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"win_distribution", "stated_sd", "tuning", "par_sheet", "reachability", "terminal"}
    )

    def __init__(self, variants: dict[str, GambiniData] | None = None) -> None:
        if variants is None:
            self.load_variants(rtp_files(DATA_DIR), load)
        else:
            self.set_variants(variants)

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """The stakes offered, the same in every mode (a bought feature is priced from them)."""
        self.check_mode(mode)
        d = self.data(variant)
        return bet_levels(list(d.game.coins), d.game.base_credits)

    def cost(self, stake: int, mode: str = "base") -> int:
        """The bet for a spin; ``buy.*`` times the bet for a bought feature."""
        self.check_mode(mode)
        level = find_bet(self.bet_levels(), stake)
        return level.coin * self.data().price_credits(mode)

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        """Two piggy banks per bet level; a bought feature leaves them alone."""
        self.check_mode(mode)
        level = find_bet(self.bet_levels(), stake)
        return None if mode in BUY_MODES else f"stake:{level.stake}"

    def info(self) -> dict[str, Any]:
        d = self.data()
        return {
            **self.info_head(),
            "max_win": d.game.max_win,
            "symbols": d.symbols,
            "wilds": d.wilds.model_dump(),
            "blank": d.blank,
            "pays": d.pays,
            "lines": [list(line) for line in d.lines],
            "coin_values": d.coin_values,
            "jackpots": d.jackpots,
            "buy": d.buy.model_dump(),
            "piggy_sizes": len(d.piggies.sizes),
            "frames": {
                "lock_spin": d.lock_spin.frames.model_dump(),
                "super_lock_spin": d.super_lock_spin.frames.model_dump(),
            },
        }

    # -- math ------------------------------------------------------------------------------

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP of ``mode`` (base: over the piggy banks' long run), from the data alone."""
        from .exact import exact_report

        self.check_mode(mode)
        return exact_report(self.id, self.data(variant), mode)

    def win_distribution(self, variant: str | None = None, mode: str = "base") -> WinDistribution:
        """The law of one round's win in ``mode`` (:mod:`.distribution`): exact fractions for
        the bought features; the base game raises NotImplementedError saying why."""
        from .distribution import win_distribution

        self.check_mode(mode)
        return win_distribution(self.data(variant), mode)

    def stated_sd(self, variant: str, mode: str) -> tuple[float, str, str] | None:
        """The base game has no win law (its rounds are coupled through the piggy banks); its
        SD over the piggies' stationary law comes from the exact first two moments.  The bought
        features: None (their exact laws give it)."""
        if mode != "base":
            return None
        from .distribution import base_figures

        figures = base_figures(self.data(variant))
        note = (
            "SD over the piggy banks' stationary law; base rounds are coupled through the piggies, "
            "so the band (which treats rounds as independent) is approximate"
        )
        return float(figures["volatility_index"]["value"]), "exact first two moments (base_figures)", note

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """Play ``rounds`` rounds in the numba kernel from one seed; in the base game the
        piggy banks carry over from round to round, starting new (size 0)."""
        from .kernel import simulate_chunk

        self.check_mode(mode)
        return simulate_chunk(self.data(variant), seed, rounds, mode)

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
        state = {"phase": "base", "credits": 0, "bet": 0}
        d, level, rnd = self.open_round(stake, variant, mode, state, price=lambda d: d.price_credits(mode))
        rnd.state["bet"] = level.stake
        if mode in BUY_MODES:
            rnd.events.append(
                {"type": "buy", "feature": "super_lock_spin" if BUY_MODES[mode] else "lock_spin"}
            )
            self._start_feature(d, rnd, BUY_MODES[mode], d.buy.spins, rng, bought=True)
        else:
            self._base_spin(d, rnd, read_piggies(d, player_state), rng)
        self._settle(rnd)
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        if round_.game != self.id:
            raise InvalidAction(f"round of {round_.game!r} passed to {self.id!r}")
        round_.allowed(action)
        d = self.data(round_.variant)
        rnd = round_.copied()  # the round passed in is never changed
        self.advance(d, rnd, rng)
        return rnd

    def advance(self, d: GambiniData, rnd: Round, rng: RandomSource) -> None:
        """One Lock & Spin spin on ``rnd`` in place (``act`` hands it a copy)."""
        rnd.step += 1
        self._feature_spin(d, rnd, rng)
        self._settle(rnd)

    # -- internals ---------------------------------------------------------------------

    def _base_spin(self, d: GambiniData, rnd: Round, piggies: tuple[int, int], rng: RandomSource) -> None:
        spin = spin_panel(d, rng)
        rnd.events.append(spin.event)
        self._add_credits(d, rnd, spin.credits)
        rnd.player_state = {"piggies": list(piggies)}
        by = spin.wild_in_center
        if by is None or rnd.complete:
            return
        result = toss(d, piggies, by, rng)
        rnd.events.append(result.event)
        rnd.player_state = {"piggies": list(result.sizes)}
        if result.popped:
            self._start_feature(d, rnd, by == "ghost", 3 if result.popped == 1 else 4, rng, bought=False)

    def _start_feature(
        self, d: GambiniData, rnd: Round, super_: bool, spins: int, rng: RandomSource, *, bought: bool
    ) -> None:
        f = ls.feature_of(d, super_)
        board = [0] * N_POS
        ghosts = ls.resolve_ghosts(f, board, ls.draw_count(rng, f.start_ghosts), rng)
        rnd.state["phase"] = "lock_spin"
        rnd.state["feature"] = {
            "super": super_,
            "spins": spins,
            "counter": spins,
            "played": 0,
            "board": board,
        }
        rnd.events.append(
            {
                "type": "lock_spin_start",
                "super": super_,
                "spins": spins,
                "bought": bought,
                "ghosts": ghosts,
                "board": list(board),
            }
        )
        if ls.all_gold(board):
            self._end_feature(d, rnd, rng)

    def _feature_spin(self, d: GambiniData, rnd: Round, rng: RandomSource) -> None:
        feat = rnd.state["feature"]
        f = ls.feature_of(d, feat["super"])
        board = feat["board"]
        ghosts = ls.resolve_ghosts(f, board, ls.draw_count(rng, f.ghosts_per_spin), rng)
        feat["played"] += 1
        feat["counter"] = feat["spins"] if ghosts else feat["counter"] - 1
        rnd.events.append(
            {
                "type": "lock_spin",
                "spin": feat["played"],
                "ghosts": ghosts,
                "counter": feat["counter"],
                "board": list(board),
            }
        )
        if feat["counter"] == 0 or ls.all_gold(board):
            self._end_feature(d, rnd, rng)

    def _end_feature(self, d: GambiniData, rnd: Round, rng: RandomSource) -> None:
        feat = rnd.state["feature"]
        f = ls.feature_of(d, feat["super"])
        credits, awards = ls.convert(d, f, feat["board"], rng)
        rnd.events.append(
            {
                "type": "lock_spin_end",
                "super": feat["super"],
                "all_gold": ls.all_gold(feat["board"]),
                "awards": awards,
                "credits": credits,
            }
        )
        rnd.state["phase"] = "done"
        self._add_credits(d, rnd, credits)

    def _add_credits(self, d: GambiniData, rnd: Round, credits: int) -> None:
        """Add a win; at the max-win cap the round ends and what is left is forfeited."""
        cap = d.max_win_credits
        total = rnd.state["credits"] + credits
        if total >= cap:
            total = cap
            rnd.state["phase"] = "done"
            rnd.events.append({"type": "max_win", "credits": cap})
            rnd.status = "complete"
        rnd.state["credits"] = total
        rnd.win = total * rnd.coin

    def _settle(self, rnd: Round) -> None:
        """What the player may do next, or close the round."""
        if not rnd.complete and rnd.state["phase"] == "lock_spin":
            rnd.actions = [SPIN]
            return
        rnd.state["phase"] = "done"
        rnd.status = "complete"
        rnd.actions = []
        rnd.events.append({"type": "round_end", "credits": rnd.state["credits"], "win": rnd.win})
