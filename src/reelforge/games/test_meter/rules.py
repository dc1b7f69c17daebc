"""Test Meter: a TEST-ONLY 3x1 game with a persistent meter, a hold and a gamble ladder.

It exists to exercise what the game server must carry for the next games: player state
that outlives a round (one meter per bet level), a decision in the middle of a round (which
reels to hold) and a ladder of double-or-nothing gambles.  It is registered only when
``REELFORGE_TEST_GAMES=1``.

A round:

1. The meter of this bet level (``player_state["meter"]``, absent = 0) goes up by one; when
   it reaches ``meter.size`` the round pays ``meter.bonus`` credits and the meter resets.
2. Spin: one draw per reel, reel 1 first, each ``randbelow(len(strip))``.  Three of a kind
   of a paying symbol pays ``pays[symbol]`` credits.
3. No win: the player holds any reels but not all three (``hold``, a bitmask, bit ``i`` =
   reel ``i + 1``; default 0) and the other reels are respun once (one draw each, reel order).
   No win again: the round ends.
4. A line win (first spin or respin): ``collect`` (the default) or ``gamble``: one draw
   ``randbelow(2)``; 1 doubles the pending line win, 0 loses it and ends the round.  After
   ``gamble.max_gambles`` won gambles the win is collected automatically.  The meter bonus
   is paid whatever the gambles do.

``Round.win`` always shows what the round pays if it ends now, in minor units.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.engine.base import PlainGame
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, bet_levels, find_bet
from reelforge.rng import RandomSource, SeededRandom

from .data_model import N_REELS, MeterData, load

DATA_DIR = Path(__file__).parent / "data"

ALL_HELD = (1 << N_REELS) - 1
HOLD_CHOICES = list(range(ALL_HELD))  # 0..6: every set of reels but all three
COLLECT = ActionSpec(name="collect", needs_player=True)
GAMBLE = ActionSpec(name="gamble", needs_player=True)
HOLD = ActionSpec(name="hold", choices=HOLD_CHOICES, default=0, needs_player=True)


class InvalidPlayerState(ValueError):
    """Stored player state this game cannot read (e.g. a meter outside its range)."""


def held_reels(mask: int) -> list[int]:
    """0-based reels a hold bitmask keeps."""
    return [r for r in range(N_REELS) if mask >> r & 1]


class TestMeter(PlainGame[MeterData]):
    """The game.  One instance holds the data file; instances hold no mutable state."""

    __test__ = False  # not a pytest test class, whatever its name

    id = "test-meter"
    name = "Test Meter (test only)"
    modes: ClassVar[list[str]] = ["base"]

    def __init__(self, data: MeterData | None = None) -> None:
        if data is None:
            data = load(DATA_DIR / "test-meter.toml")
        if data.game.id != self.id:
            raise ValueError(f"data file is for {data.game.id!r}, not {self.id!r}")
        self.set_variants({data.game.variant: data})

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """The stakes offered, the same in every mode (a bought feature is priced from them)."""
        self.check_mode(mode)
        d = self.data(variant)
        return bet_levels(list(d.game.coins), d.game.credits)

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        """One meter per bet level."""
        self.check_mode(mode)
        level = find_bet(self.bet_levels(), stake)
        return f"stake:{level.stake}"

    def info(self) -> dict[str, Any]:
        d = self.data()
        return {
            **self.info_head(),
            "symbols": d.symbols,
            "paytable": d.pays,
            "strips": [list(s) for s in d.strips],
            "meter": d.meter.model_dump(),
            "gamble": d.gamble.model_dump(),
            "hold_choices": HOLD_CHOICES,
            "test_only": True,
        }

    # -- math ------------------------------------------------------------------------------

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP (default play and best hold) as fractions of the stake."""
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
            "rtp_best_hold": float(result.rtp_best_hold),
            "rtp_best_hold_fraction": f"{result.rtp_best_hold.numerator}/{result.rtp_best_hold.denominator}",
            "components": {k: float(v) for k, v in result.components.items()},
            "components_best_hold": {k: float(v) for k, v in result.components_best_hold.items()},
            "hit_frequency": float(result.hit_frequency),
            "method": "exact",
            "gamble": "fair double-or-nothing: the expected win is unchanged, so is the RTP",
        }

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """Play ``rounds`` rounds through the rules with the default play (hold nothing,
        collect), carrying the meter from round to round from 0.  Wins in credits."""
        self.check_mode(mode)
        d = self.data(variant)
        level = self.bet_levels(variant)[0]
        rng = SeededRandom(seed)
        stats = SimStats(stake=d.game.credits)
        counters = {"meter_bonus": 0, "first_spin_wins": 0, "respins": 0, "respin_wins": 0}
        player_state: dict[str, Any] | None = None
        for _ in range(rounds):
            rnd = self.start(level.stake, rng, variant=d.game.variant, mode=mode, player_state=player_state)
            first_win = rnd.state["line_credits"] > 0
            while not rnd.complete:  # act() without its defensive copy: this round is ours
                self._advance(d, rnd, rnd.default_action(), rng)
            player_state = rnd.player_state
            credits = rnd.state["credits"]
            stats.rounds += 1
            stats.win += credits
            stats.win_sq += credits * credits
            stats.max_win = max(stats.max_win, credits)
            stats.hits += first_win
            counters["first_spin_wins"] += first_win
            counters["meter_bonus"] += rnd.state["bonus_credits"] > 0
            if rnd.state["respun"]:
                counters["respins"] += 1
                counters["respin_wins"] += rnd.state["line_credits"] > 0
        stats.win_uncapped = stats.win  # no max-win cap
        stats.win_uncapped_sq = stats.win_sq
        stats.counters = counters
        return stats

    # -- the state machine -------------------------------------------------------------

    def read_meter(self, d: MeterData, player_state: dict[str, Any] | None) -> int:
        """The stored meter: None or {} is 0; anything else must be ``{"meter": 0..size-1}``."""
        if not player_state:
            return 0
        if not isinstance(player_state, dict) or set(player_state) != {"meter"}:
            raise InvalidPlayerState(f"player_state must be {{'meter': n}}, got {player_state!r}")
        meter = player_state["meter"]
        if not isinstance(meter, int) or isinstance(meter, bool) or not 0 <= meter < d.meter.size:
            raise InvalidPlayerState(
                f"player_state.meter must be an integer in [0, {d.meter.size}), got {meter!r}"
            )
        return meter

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        self.check_mode(mode)
        d = self.data(variant)
        level = find_bet(self.bet_levels(variant), stake)
        previous = self.read_meter(d, player_state)
        filled = previous + 1 >= d.meter.size
        stored = 0 if filled else previous + 1
        bonus = d.meter.bonus if filled else 0
        rnd = Round(
            game=self.id,
            game_version=self.version,
            variant=d.game.variant,
            mode=mode,
            coin=level.coin,
            stake=level.stake,
            step=1,
            state={
                "phase": "spin",
                "stops": [],
                "bonus_credits": bonus,
                "line_credits": 0,
                "credits": bonus,
                "respun": False,
                "gambles": 0,
                "gambles_left": d.gamble.max_gambles,
            },
            player_state={"meter": stored},
        )
        rnd.events.append(
            {
                "type": "meter",
                "previous": previous,
                "value": stored,
                "size": d.meter.size,
                "filled": filled,
                "bonus": bonus,
            }
        )
        stops = [rng.randbelow(len(strip)) for strip in d.strips]
        self._spin_result(d, rnd, stops, kind="spin", held=[])
        if rnd.state["line_credits"] == 0:
            rnd.state["phase"] = "hold"
        self._settle(rnd)
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        if round_.game != self.id:
            raise InvalidAction(f"round of {round_.game!r} passed to {self.id!r}")
        round_.allowed(action)
        d = self.data(round_.variant)
        rnd = round_.copied()  # the round passed in is never changed
        self._advance(d, rnd, action, rng)
        return rnd

    # -- internals ---------------------------------------------------------------------

    def _advance(self, d: MeterData, rnd: Round, action: Action, rng: RandomSource) -> None:
        """Take an allowed action on ``rnd`` in place (``act`` hands it a copy)."""
        rnd.step += 1
        if action.name == "hold":
            assert action.choice is not None  # checked by allowed()
            self._hold(d, rnd, action.choice, rng)
        elif action.name == "collect":
            self._collect(rnd, automatic=False)
        elif action.name == "gamble":
            self._gamble(rnd, rng)
        else:  # pragma: no cover - allowed() only admits listed actions
            raise InvalidAction(f"unknown action {action.name!r}")
        self._settle(rnd)

    def _spin_result(self, d: MeterData, rnd: Round, stops: list[int], *, kind: str, held: list[int]) -> None:
        window = [[strip[stop]] for strip, stop in zip(d.strips, stops, strict=True)]
        credits = d.pay([col[0] for col in window])
        rnd.state["stops"] = stops
        rnd.state["line_credits"] = credits
        rnd.events.append(
            {
                "type": "spin",
                "reels": kind,
                "held": held,
                "stops": stops,
                "window": window,
                "symbol": window[0][0] if credits else None,
                "credits": credits,
            }
        )
        if credits:
            rnd.state["phase"] = "gamble"
            if rnd.state["gambles_left"] == 0:
                self._collect(rnd, automatic=True)

    def _hold(self, d: MeterData, rnd: Round, mask: int, rng: RandomSource) -> None:
        held = held_reels(mask)
        rnd.events.append({"type": "hold", "mask": mask, "held": held})
        stops = list(rnd.state["stops"])
        for r, strip in enumerate(d.strips):
            if r not in held:
                stops[r] = rng.randbelow(len(strip))
        rnd.state["respun"] = True
        rnd.state["phase"] = "done"  # unless the respin wins
        self._spin_result(d, rnd, stops, kind="respin", held=held)

    def _gamble(self, rnd: Round, rng: RandomSource) -> None:
        st = rnd.state
        draw = rng.randbelow(2)
        st["gambles"] += 1
        st["gambles_left"] -= 1
        st["line_credits"] = st["line_credits"] * 2 if draw == 1 else 0
        rnd.events.append(
            {
                "type": "gamble",
                "rung": st["gambles"],
                "draw": draw,
                "result": "win" if draw == 1 else "lose",
                "credits": st["line_credits"],
            }
        )
        if draw == 0:
            st["phase"] = "done"
        elif st["gambles_left"] == 0:
            self._collect(rnd, automatic=True)

    def _collect(self, rnd: Round, *, automatic: bool) -> None:
        rnd.events.append({"type": "collect", "credits": rnd.state["line_credits"], "automatic": automatic})
        rnd.state["phase"] = "done"

    def _settle(self, rnd: Round) -> None:
        """Show what the round pays now and what the player may do next, or close it."""
        st = rnd.state
        st["credits"] = st["bonus_credits"] + st["line_credits"]
        rnd.win = st["credits"] * rnd.coin
        if st["phase"] == "hold":
            rnd.actions = [HOLD]
        elif st["phase"] == "gamble":
            rnd.actions = [COLLECT, GAMBLE]
        else:
            rnd.status = "complete"
            rnd.actions = []
            rnd.events.append(
                {
                    "type": "round_end",
                    "credits": st["credits"],
                    "line_credits": st["line_credits"],
                    "bonus_credits": st["bonus_credits"],
                    "win": rnd.win,
                }
            )
