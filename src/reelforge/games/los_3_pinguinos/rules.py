"""Los 3 Pinguinos, the lower game: the readable rules the server deals and the tests trust.

One round is one paid game and, when the game offers it, the free held game after it.
Every decision is a stored step: the hold, each nudge, each ladder PLAY or COLLECT, the
Disco stop.  Draw order (the numba kernel follows it draw for draw):

1. A game: one stop per spinning reel, left to right (``randbelow(16)``).
2. A near miss (:func:`.payline.nudge_offerable`; never in a held game that spins every
   reel): one ``nudges.offer`` draw; when offered, one draw on the ``nudges.count`` weights of
   the counts that can improve the line (:func:`.payline.count_weights`).  Nudges draw
   nothing; ``done`` (or the last nudge) settles.
3. The line settles:
   * cash: paid at once, or (blue, at most the 3 Bells prize / yellow) a ladder;
   * Bonuses: won at once;
   * Disco: one draw per penguin from the bet's table (``LowerData.disco_table``: amounts at
     the bet); the ``stop`` action then draws
     ``randbelow(penguins)`` for the penguin lit when it stopped;
   * nothing, with a pair, in the paid game: one ``hold`` draw; offered, the ``hold`` action
     holds the chosen reels and the others spin (step 1) as the held game.
4. A ladder PLAY: one draw on the level's ``up``/``fail`` weights; Sube-Bonos turning a prize
   into Bonuses draws ``randbelow(bonus_value)`` when the prize is not a whole number of
   Bonuses (one more Bonus when the draw is below the remainder).
5. After each game, every reel whose stop on the line carries the vertical-lines sign raises
   the shared counter by one (at most ``vertical_lines_max``).

The machine's player state (one per player, shared with the upper game) is
``{"bonuses": n, "vertical_lines": n, "accumulators": {bet: n}}``.  No outcome depends on
past results, on the balance or on what the machine has paid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from reelforge.engine.base import GameBase, rtp_files
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel, InvalidBet
from reelforge.rng import RandomSource, weighted_index

from . import strategy, upper_round
from .data_model import N_REELS, STOPS, LowerData, load
from .payline import (
    FEW_NUDGES,
    Outcome,
    count_weights,
    evaluate,
    fewest_nudges,
    line_symbols,
    vertical_hits,
)
from .reports import PinguinosReports

DATA_DIR = Path(__file__).parent / "data"
STATE_KEY = "machine"
HOLD_CHOICES = list(strategy.HOLD_MASKS)


class InvalidPlayerState(ValueError):
    """Stored machine state this game cannot read."""


def read_machine(d: LowerData, player_state: dict[str, Any] | None) -> dict[str, Any]:
    """The stored machine state, or a new one; anything malformed is refused."""
    if player_state is None or player_state == {}:
        return {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    if not isinstance(player_state, dict) or set(player_state) != {
        "bonuses",
        "vertical_lines",
        "accumulators",
    }:
        raise InvalidPlayerState(
            f"player_state must hold bonuses, vertical_lines and accumulators, got {player_state!r}"
        )
    b, v, acc = player_state["bonuses"], player_state["vertical_lines"], player_state["accumulators"]
    if not isinstance(b, int) or isinstance(b, bool) or b < 0:
        raise InvalidPlayerState("player_state.bonuses must be a non-negative integer")
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= d.game.vertical_lines_max:
        raise InvalidPlayerState(f"player_state.vertical_lines must be in [0, {d.game.vertical_lines_max}]")
    if not isinstance(acc, dict):
        raise InvalidPlayerState("player_state.accumulators must be an object")
    return {"bonuses": b, "vertical_lines": v, "accumulators": dict(acc)}


def window(d: LowerData, stops: list[int]) -> list[list[str]]:
    """Above, on and below the payline, per reel."""
    return [[d.strips[r][(s + k) % STOPS] for k in (-1, 0, 1)] for r, s in enumerate(stops)]


class LosTresPinguinos(PinguinosReports, GameBase[LowerData]):
    """The machine.  One data file per RTP variant; instances hold no mutable state."""

    id = "los-3-pinguinos"
    name = "Los 3 Pinguinos"
    modes: ClassVar[list[str]] = ["base", "upper"]
    own_bet_modes: ClassVar[tuple[str, ...]] = ("upper",)  # the upper game's bets are its own
    side_balances: ClassVar[tuple[str, ...]] = ("bonuses",)
    report_hit_names: ClassVar[dict[str, str]] = {
        "base": "line hit frequency (paid games showing a prize on the line as they land)",
        "upper": "line hit frequency (5-line paid games showing a prize as they land)",
    }
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {"win_distribution", "par_sheet", "reachability", "machine_state", "terminal"}
    )
    autoplay_max_spins: ClassVar[int | None] = 100  # the seed: AUTO-PLAY "up to a maximum of 100"

    def __init__(self, variants: dict[str, LowerData] | None = None) -> None:
        if variants is None:
            self.load_variants(rtp_files(DATA_DIR), load)
        else:
            self.set_variants(variants)

    def bet_levels(self, variant: str | None = None, mode: str = "base") -> list[BetLevel]:
        """The lower game's bets; the upper game's are named by their value in cents (cash
        plus Bonuses at ``bonus_value``): €0.20 + 1 Bonus is the stake 100."""
        self.check_mode(mode)
        d = self.data(variant)
        if mode == "upper":
            return [
                BetLevel(coin=b.multiplier, credits=s // b.multiplier)
                for b, s in zip(d.upper.bets, d.upper_stakes, strict=True)
            ]
        return [BetLevel(coin=b // d.game.unit, credits=d.game.unit) for b in d.game.bets]

    def _level(self, d: LowerData, stake: int, mode: str = "base") -> BetLevel:
        levels = self.bet_levels(d.game.variant, mode)
        for level in levels:
            if isinstance(stake, int) and not isinstance(stake, bool) and level.stake == stake:
                return level
        offered = [level.stake for level in levels]
        raise InvalidBet(f"stake {stake} is not offered in mode {mode}; offered stakes (cents): {offered}")

    def cost(self, stake: int, mode: str = "base") -> int:
        """Cash debited: the bet, or an upper bet's cash part (its Bonuses leave the machine
        inside the round, as a side-balance movement)."""
        self.check_mode(mode)
        d = self.data()
        level = self._level(d, stake, mode)
        if mode == "upper":
            return d.upper_bet(stake)[1].cash
        return level.stake

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        """One machine state per player, whatever the bet or game (lower and upper share it)."""
        self.check_mode(mode)
        self._level(self.data(), stake, mode)
        return STATE_KEY

    def play_settings(self) -> dict[str, bool]:
        return {"auto_advance": False, "auto_risk": False}

    def info(self) -> dict[str, Any]:
        d = self.data()
        return {
            **self.info_head(),
            "unit": d.game.unit,
            "symbols": d.symbols,
            "strips": [list(s) for s in d.strips],
            "vertical_lines": [list(v) for v in d.vertical_lines],
            "pays": d.pays,
            "bonus_pays": d.bonus_pays,
            "blue": list(d.blue),
            "yellow": list(d.yellow),
            "ladder": list(d.ladders.scale),
            "seesaw_above": d.ladders.seesaw_above,
            "disco_prizes": list(d.disco_game.prizes),  # at the unit bet
            # each bet's own (cents: the prizes at that bet), as the seed gives them per bet
            "disco_prizes_at_bet": {str(b): list(d.disco_table(b // d.game.unit)) for b in d.game.bets},
            "bonus_value": d.game.bonus_value,
            "bonus_cap": d.game.bonus_cap,
            "settings": self.play_settings(),
            "upper": self._upper_info(d),
        }

    def _upper_info(self, d: LowerData) -> dict[str, Any]:
        u = d.upper
        return {
            "bets": [
                {
                    "stake": s,
                    "cash": b.cash,
                    "bonuses": b.bonuses,
                    "multiplier": b.multiplier,
                    "fraction": b.fraction,
                    "minigame_floor": b.minigame_floor,
                    "max_prize": b.max_prize,
                    "mixed": sorted(b.mixed),
                }
                for b, s in zip(u.bets, d.upper_stakes, strict=True)
            ],
            "symbols": u.symbols,
            "strips": [list(s) for s in u.strips],
            "lines": [list(line) for line in u.lines],
            "pays": u.pays,
            "sevens": list(u.sevens),
            "minigames": u.minigames,
            "accumulator": u.accumulator,
            "accumulator_pieces": u.accumulator_pieces,
            "vertical_lines": u.vertical_lines,
            "roulette_sections": list(u.roulette.sections),
            "fishing_catch": [k for k in u.fishing.catch if k != "X"],
            "slides_prizes": list(u.slides.prizes),
        }

    # -- math ------------------------------------------------------------------------------

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        from .exact import exact_report, upper_report

        self.check_mode(mode)
        if mode == "upper":
            return upper_report(self.id, self.data(variant))
        return exact_report(self.id, self.data(variant))

    def win_distribution(
        self, variant: str | None = None, mode: str = "base", *, play: str = "auto", stake: int | None = None
    ) -> WinDistribution:
        """The exact law of one round's win at a bet (:func:`.distribution.for_bet`)."""
        from .distribution import for_bet

        self.check_mode(mode)
        d = self.data(variant)
        return for_bet(d, mode, play, None if stake is None else self._level(d, stake, mode))

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """The lower game's AUTO rounds at the unit bet, or (mode ``upper``) upper games at the
        first upper bet (€0.20 + 1 Bonus) under COLLECT, Bonuses uncapped."""
        self.check_mode(mode)
        if mode == "upper":
            from . import upper_kernel

            return upper_kernel.simulate_chunk(self.data(variant), seed, rounds, bet=0, risk=False)
        from .kernel import simulate_chunk

        return simulate_chunk(self.data(variant), seed, rounds)

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
        self.check_mode(mode)
        d = self.data(variant)
        level = self._level(d, stake, mode)
        machine = read_machine(d, player_state)
        if mode == "upper":
            bet = d.upper_bet(stake)[1]
            rnd = Round(
                game=self.id,
                game_version=self.version,
                variant=d.game.variant,
                mode=mode,
                coin=bet.multiplier,
                stake=bet.cash,
                step=1,
                player_state=machine,
            )
            upper_round.start(d, rnd, stake, rng)
            self._settle(rnd)
            return rnd
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
                "credits": 0,  # cash won, cents at the unit bet (Round.win = credits * coin)
                "bonuses_won": 0,  # Bonuses won by this round, at this bet
                "stops": [0, 0, 0],
                "held_game": False,
            },
            player_state=machine,
        )
        self._game(d, rnd, [0, 1, 2], rng)
        self._settle(rnd)
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        if round_.game != self.id:
            raise InvalidAction(f"round of {round_.game!r} passed to {self.id!r}")
        round_.allowed(action)
        d = self.data(round_.variant)
        rnd = round_.copied()
        self.advance(d, rnd, action, rng)
        return rnd

    def advance(self, d: LowerData, rnd: Round, action: Action, rng: RandomSource) -> None:
        """Take an allowed action on ``rnd`` in place (``act`` hands it a copy)."""
        rnd.step += 1
        name = action.name
        if rnd.mode == "upper":
            if rnd.state["phase"] == "double":
                upper_round.double_act(d, rnd, action, rng)
            else:
                upper_round.minigame_play(d, rnd, action, rng)
            self._settle(rnd)
            return
        if name == "nudge":
            assert action.choice is not None
            self._nudge(d, rnd, action.choice, rng)
        elif name == "done":
            rnd.events.append({"type": "nudges_done", "left": rnd.state["nudges_left"]})
            rnd.state["nudges_left"] = 0
            self._line(d, rnd, rng)
        elif name == "hold":
            assert action.choice is not None
            self._hold(d, rnd, action.choice, rng)
        elif name == "collect":
            self._ladder_end(d, rnd, "collect")
        elif name == "play":
            self._ladder_play(d, rnd, rng)
        elif name == "stop":
            self._disco_stop(d, rnd, rng)
        else:  # pragma: no cover - allowed() admits only listed actions
            raise InvalidAction(f"unknown action {name!r}")
        self._settle(rnd)

    def auto_action(self, round_: Round, settings: dict[str, bool]) -> Action | None:
        """AUTO-ADVANCE plays nudges and holds for the most value, AUTO-RISK plays every ladder
        to its end; the Disco stops itself.  None: a human must decide (nudges without
        AUTO-ADVANCE)."""
        if round_.mode == "upper":
            return upper_round.auto_action(round_, settings)
        phase = round_.state.get("phase")
        d = self.data(round_.variant)
        play = "auto_risk" if settings.get("auto_risk") else "auto"
        if phase == "ladder":
            return Action(name="play" if settings.get("auto_risk") else "collect")
        if phase == "disco":
            return Action(name="stop")
        if phase == "hold":
            if not settings.get("auto_advance"):
                return Action(name="hold", choice=round_.state["suggested_hold"])
            mask = strategy.values(d, play).hold_mask[strategy.index(tuple(round_.state["stops"]))]
            return Action(name="hold", choice=mask)
        if phase == "nudge":
            if not settings.get("auto_advance"):
                return None
            return self._best_nudge_action(d, round_, play)
        return round_.default_action()

    # -- internals ---------------------------------------------------------------------

    def _best_nudge_action(self, d: LowerData, rnd: Round, play: str) -> Action:
        st = rnd.state
        vec = strategy.best_nudge(d, play, tuple(st["stops"]), st["nudges_left"], st["held_game"])
        reel = strategy.first_move(vec)
        return Action(name="done") if reel is None else Action(name="nudge", choice=reel)

    def _game(self, d: LowerData, rnd: Round, spinning: list[int], rng: RandomSource) -> None:
        st = rnd.state
        for r in spinning:
            st["stops"][r] = rng.randbelow(STOPS)
        symbols = line_symbols(d, tuple(st["stops"]))
        rnd.events.append(
            {
                "type": "spin",
                "game": "held" if st["held_game"] else "paid",
                "spinning": spinning,
                "stops": list(st["stops"]),
                "window": window(d, st["stops"]),
                "line": list(symbols),
            }
        )
        outcome = evaluate(d, symbols)
        # The seed offers nudges "after a game played with two or one reel held": a held game
        # with every reel spinning (hold mask 0) gets none.
        respun_all = st["held_game"] and len(spinning) == N_REELS
        m = None if respun_all else fewest_nudges(d, tuple(st["stops"]), outcome, st["held_game"])
        if m is not None and m <= FEW_NUDGES and weighted_index(rng, d.nudges.offer.weights) == 1:
            weights = count_weights(d, m)  # only counts that can improve the line
            n = list(weights)[weighted_index(rng, list(weights.values()))]
            st["phase"] = "nudge"
            st["nudges_left"] = n
            rnd.events.append({"type": "nudge_offer", "nudges": n})
            return
        self._line(d, rnd, rng)

    def _nudge(self, d: LowerData, rnd: Round, reel: int, rng: RandomSource) -> None:
        st = rnd.state
        before = st["stops"][reel]
        st["stops"][reel] = (before - 1) % STOPS
        st["nudges_left"] -= 1
        rnd.events.append(
            {
                "type": "nudge",
                "reel": reel,
                "from": before,
                "to": st["stops"][reel],
                "left": st["nudges_left"],
                "window": window(d, st["stops"]),
                "line": list(line_symbols(d, tuple(st["stops"]))),
            }
        )
        if st["nudges_left"] == 0:
            self._line(d, rnd, rng)

    def _line(self, d: LowerData, rnd: Round, rng: RandomSource) -> None:
        """The line of a game settles: vertical lines, then its prize or a held game."""
        st = rnd.state
        stops = tuple(st["stops"])
        hits = vertical_hits(d, stops)
        if hits:
            machine = rnd.player_state
            assert machine is not None
            before = machine["vertical_lines"]
            machine["vertical_lines"] = min(d.game.vertical_lines_max, before + hits)
            rnd.events.append(
                {
                    "type": "vertical_lines",
                    "hits": hits,
                    "before": before,
                    "counter": machine["vertical_lines"],
                }
            )
        outcome = evaluate(d, line_symbols(d, stops))
        st.pop("nudges_left", None)
        if outcome.kind == "none":
            if outcome.pairs and not st["held_game"] and weighted_index(rng, d.hold.weights) == 1:
                st["phase"] = "hold"
                st["suggested_hold"] = outcome.pairs[0]
                rnd.events.append({"type": "hold_offer", "suggested": outcome.pairs[0]})
                return
            rnd.events.append({"type": "no_prize"})
            st["phase"] = "done"
            return
        self._prize(d, rnd, outcome, rng)

    def _prize(self, d: LowerData, rnd: Round, outcome: Outcome, rng: RandomSource) -> None:
        st = rnd.state
        rnd.events.append(
            {
                "type": "prize",
                "kind": outcome.kind,
                "symbol": outcome.symbol,
                "credits": outcome.cents,
                "bonuses": outcome.bonuses * rnd.coin,
                "ladder": outcome.ladder,
            }
        )
        if outcome.kind == "bonus":
            self._win_bonuses(d, rnd, outcome.bonuses * rnd.coin)
            st["phase"] = "done"
        elif outcome.kind == "disco":
            table = d.disco_table(rnd.coin)
            prizes, weights = list(table), list(table.values())
            st["disco"] = [prizes[weighted_index(rng, weights)] for _ in range(d.disco_game.penguins)]
            st["disco_at_bet"] = True
            st["phase"] = "disco"
            # "at_bet": the prizes are amounts at the round's bet (cash cents, Bonuses); rounds
            # recorded before the per-bet tables wrote the unit bet's prizes
            rnd.events.append({"type": "disco_start", "penguins": list(st["disco"]), "at_bet": True})
        elif outcome.ladder is None:
            self._win_cash(rnd, outcome.cents)
            st["phase"] = "done"
        else:
            self._ladder_start(d, rnd, outcome.ladder, outcome.cents)

    def _disco_stop(self, d: LowerData, rnd: Round, rng: RandomSource) -> None:
        st = rnd.state
        lit = rng.randbelow(len(st["disco"]))
        prize = st["disco"][lit]
        at_bet = st.pop("disco_at_bet", False)  # False: a round dealt before the per-bet tables
        amount = int(prize[1:])
        rnd.events.append({"type": "disco_stop", "penguin": lit, "prize": prize, "at_bet": at_bet})
        del st["disco"]
        if prize[0] == "B":
            self._win_bonuses(d, rnd, amount if at_bet else amount * rnd.coin)
            st["phase"] = "done"
            return
        credits = amount // rnd.coin if at_bet else amount  # the unit bet's cents (a whole coin count)
        if credits <= d.ladders.seesaw_above:
            self._ladder_start(d, rnd, "sube_bonos", credits)
        else:
            self._win_cash(rnd, credits)
            st["phase"] = "done"

    def _ladder_start(self, d: LowerData, rnd: Round, kind: str, cents: int) -> None:
        st = rnd.state
        st["phase"] = "ladder"
        st["ladder"] = {"kind": kind, "level": d.ladders.scale.index(cents)}
        rnd.events.append({"type": "ladder_start", "kind": kind, "credits": cents})

    def _ladder_play(self, d: LowerData, rnd: Round, rng: RandomSource) -> None:
        st = rnd.state
        lad = st["ladder"]
        level = lad["level"]
        steps = d.ladders.sube_bonos if lad["kind"] == "sube_bonos" else d.ladders.sube_nada
        up = weighted_index(rng, steps[level].weights) == 1
        top = len(d.ladders.scale) - 1
        if up:
            lad["level"] = level + 1
            rnd.events.append({"type": "ladder_step", "result": "up", "credits": d.ladders.scale[level + 1]})
            if lad["level"] == top:
                self._ladder_end(d, rnd, "maximum")
            return
        if lad["kind"] == "sube_nada":
            rnd.events.append({"type": "ladder_step", "result": "nothing", "credits": 0})
            del st["ladder"]
            st["phase"] = "done"
            return
        if level > d.ladders.seesaw_index:
            lad["level"] = level - 1
            rnd.events.append(
                {"type": "ladder_step", "result": "down", "credits": d.ladders.scale[level - 1]}
            )
            return
        cents = d.ladders.scale[level] * rnd.coin
        whole, rest = divmod(cents, d.game.bonus_value)
        if rest and rng.randbelow(d.game.bonus_value) < rest:
            whole += 1
        rnd.events.append(
            {
                "type": "ladder_step",
                "result": "bonuses",
                "bonuses": whole,
                "from_credits": d.ladders.scale[level],
            }
        )
        del st["ladder"]
        self._win_bonuses(d, rnd, whole)
        st["phase"] = "done"

    def _ladder_end(self, d: LowerData, rnd: Round, how: str) -> None:
        st = rnd.state
        cents = d.ladders.scale[st["ladder"]["level"]]
        rnd.events.append({"type": "ladder_end", "how": how, "credits": cents})
        del st["ladder"]
        self._win_cash(rnd, cents)
        st["phase"] = "done"

    def _hold(self, d: LowerData, rnd: Round, mask: int, rng: RandomSource) -> None:
        st = rnd.state
        held = [r for r in range(3) if mask >> r & 1]
        rnd.events.append({"type": "hold", "mask": mask, "held": held, "suggested": st.pop("suggested_hold")})
        st["held_game"] = True
        self._game(d, rnd, [r for r in range(3) if r not in held], rng)

    def _win_cash(self, rnd: Round, credits: int) -> None:
        rnd.state["credits"] += credits
        rnd.win = rnd.state["credits"] * rnd.coin

    def _win_bonuses(self, d: LowerData, rnd: Round, bonuses: int) -> None:
        """Bonuses go to the machine's balance (the 4,000 cap limits the upper game's
        Double-or-Bonuses, not what the lower game pays)."""
        machine = rnd.player_state
        assert machine is not None
        machine["bonuses"] += bonuses
        rnd.state["bonuses_won"] += bonuses
        rnd.events.append({"type": "bonuses", "won": bonuses, "balance": machine["bonuses"]})

    def _settle(self, rnd: Round) -> None:
        st = rnd.state
        phase = st["phase"]
        d = self.data(rnd.variant)
        if rnd.mode == "upper":
            rnd.actions = upper_round.actions(d, rnd)
            if not rnd.actions:
                st["phase"] = "done"
                rnd.status = "complete"
                rnd.events.append(
                    {
                        "type": "round_end",
                        "credits": st["credits"],
                        "win": rnd.win,
                        "bonuses_won": st["bonuses_won"],
                    }
                )
            return
        if phase == "nudge":
            best = self._best_nudge_action(d, rnd, "default")
            nudge = ActionSpec(
                name="nudge",
                choices=[0, 1, 2],
                default=best.choice if best.name == "nudge" else 0,
                needs_player=True,
            )
            done = ActionSpec(name="done", needs_player=True)
            rnd.actions = [nudge, done] if best.name == "nudge" else [done, nudge]
        elif phase == "hold":
            rnd.actions = [
                ActionSpec(name="hold", choices=HOLD_CHOICES, default=st["suggested_hold"], needs_player=True)
            ]
        elif phase == "ladder":
            rnd.actions = [
                ActionSpec(name="collect", needs_player=True),
                ActionSpec(name="play", needs_player=True),
            ]
        elif phase == "disco":
            rnd.actions = [ActionSpec(name="stop", needs_player=True)]
        else:
            st["phase"] = "done"
            rnd.status = "complete"
            rnd.actions = []
            rnd.events.append(
                {
                    "type": "round_end",
                    "credits": st["credits"],
                    "win": rnd.win,
                    "bonuses_won": st["bonuses_won"],
                }
            )
