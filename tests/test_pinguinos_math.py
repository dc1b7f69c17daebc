"""Los 3 Pinguinos' exact math, checked against computations that do not share its code: the
line by the helpers' own oracle, the ladders against every draw path of the rules played to
their end, holds and nudges against the rules played over every draw path on a small data
file (every decision taken every way), and the prize ranges the seed gives."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from draw_paths import draw_paths
from pinguinos_helpers import (
    ALL,
    GAME,
    SCALE,
    SEESAW,
    TOP,
    UNIT,
    D,
    find,
    game,
    judge,
    line,
    penguins,
    scripted,
    shows,
)
from reelforge.engine.round import Action, Round
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import strategy as S
from reelforge.games.los_3_pinguinos.data_model import LowerData, parse
from reelforge.games.los_3_pinguinos.payline import nudge_vectors, nudged

F = Fraction


# -- every draw path ----------------------------------------------------------------------


def worth(rnd: Round, d: LowerData = D) -> Fraction:
    """What a finished round paid, in cents at the unit bet, a Bonus counted at its cash worth."""
    return F(rnd.win + d.bonus_worth * rnd.state["bonuses_won"], rnd.coin)


# -- (a) the RTP of every variant ------------------------------------------------------


@pytest.mark.parametrize("variant", GAME.variants)
def test_each_variant_meets_its_rtp_under_auto_play_within_a_minute(variant: str) -> None:
    """The first figures computed in a run (this file runs before the other users of GAME)."""
    start = time.perf_counter()
    report = GAME.exact(variant)
    assert time.perf_counter() - start < 60
    plays = {p: F(x) for p, x in report["rtp_by_play_fraction"].items()}
    target = F(int(variant), 100)
    assert F(report["rtp_fraction"]) == plays["auto"]
    assert abs(plays["auto"] - target) <= F(1, 1000), float(plays["auto"])
    assert 0 < plays["default"] <= plays["auto"]
    assert plays["auto_risk"] > 0 and report["rtp_by_play"]["auto_risk"] == float(plays["auto_risk"])
    assert sum(report["components"].values()) == pytest.approx(report["rtp"], abs=1e-12)


@pytest.mark.parametrize("variant", GAME.variants)
def test_the_line_as_it_lands_matches_the_oracle(variant: str) -> None:
    """Cash, Bonuses and the Disco (collected) over all 4,096 stops, by the helpers' oracle."""
    d = GAME.data(variant)
    total = sum(d.disco_game.prizes.values())
    disco = sum(
        (
            F(w, total) * (int(k[1:]) * (d.bonus_worth if k[0] == "B" else 1))
            for k, w in d.disco_game.prizes.items()
        ),
        F(0),
    )
    parts = {"cash": F(0), "bonus": F(0), "disco": F(0)}
    for s in ALL:
        kind, amount = judge(line(s, d), d)
        if kind == "cash":
            parts["cash"] += amount
        elif kind == "bonus":
            parts["bonus"] += amount * d.bonus_worth
        elif kind == "disco":
            parts["disco"] += disco
    comps = GAME.exact(variant)["components"]
    for name, key in (("cash", "line_cash"), ("bonus", "line_bonuses"), ("disco", "line_disco")):
        assert comps[key] == pytest.approx(float(parts[name] / len(ALL) / UNIT), abs=1e-15), name


# -- (b) the ladders against every draw path ---------------------------------------


def _ladder_round(kind: str, level: int, bet: int) -> Round:
    """A round waiting in ``kind`` at ``level``: a real entry (CH or OR), its level set as a
    stored round would carry it (levels above the entries are reached by climbing)."""
    symbol = "CH" if kind == "sube_bonos" else D.yellow[0]
    rng = scripted(game(find(shows(symbol, symbol, symbol))))
    rnd = GAME.start(bet, rng)
    assert rnd.state["ladder"]["kind"] == kind
    rnd.state["ladder"]["level"] = level
    return rnd


def _transitions(kind: str, bet: int) -> dict[int, list[tuple[Fraction, int | None, Fraction]]]:
    """Per level: one PLAY over every draw path -> (probability, next level or None, paid)."""
    out = {}
    for level in range(TOP):
        rnd = _ladder_round(kind, level, bet)
        moves: dict[tuple[int | None, Fraction], Fraction] = defaultdict(F)
        for prob, _, after in draw_paths(lambda rng, r=rnd: GAME.act(r, Action(name="play"), rng)):
            if after.complete:
                moves[(None, worth(after))] += prob
            else:
                assert after.state["phase"] == "ladder" and after.win == 0
                moves[(after.state["ladder"]["level"], F(0))] += prob
        out[level] = [(p, nxt, paid) for (nxt, paid), p in moves.items()]
        assert sum(p for p, _, _ in out[level]) == 1
    return out


@pytest.mark.parametrize("bet", [20, 1500])
@pytest.mark.parametrize("kind", ["sube_bonos", "sube_nada"])
def test_ladder_values_match_every_draw_path_played_to_the_end(kind: str, bet: int) -> None:
    """Played to its end from each level over the draw paths of the rules (each PLAY's paths
    walked draw by draw, then grouped by the level they reach).  Sube-Bonos can see-saw for
    ever, so the paths are cut at the depth where the mass still playing is below 1e-12, and
    the value is bracketed by what that mass could still win (at most the top prize)."""
    exact = S.ladder_values(D, kind)
    step = _transitions(kind, bet)
    for start in range(TOP):
        dist: dict[int, Fraction] = {start: F(1)}
        value = F(0)
        depth = 0
        while dist and sum(dist.values()) >= F(1, 10**12):
            nxt: dict[int, Fraction] = defaultdict(F)
            for level, mass in dist.items():
                for p, to, paid in step[level]:
                    if to is None:
                        value += mass * p * paid
                    else:
                        nxt[to] += mass * p
            dist = dict(nxt)
            depth += 1
            assert depth < 5000
        left = sum(dist.values(), F(0))
        assert left < F(1, 10**12)
        assert value <= exact[start] <= value + left * SCALE[TOP], (kind, start)
        if kind == "sube_nada":
            assert left == 0 and value == exact[start]  # no way down: every path ends
    assert exact[TOP] == SCALE[TOP]


# -- (c) holds and nudges on a small data file, every decision taken every way ---------


def small_data() -> LowerData:
    """Blank strips but for a few stops at their top (so that every draw path can be walked in
    seconds), coin-flip hold and nudge offers, 1 or 2 nudges alike, a two-penguin Disco of three
    prizes, and a Sube-Bonos that cannot climb above the 3 Bells (so AUTO-RISK ladders end)."""
    raw = D.model_dump(mode="python")
    raw["game"]["variant"] = "small"
    raw["symbols"]["BL"] = "Blank"
    raw["strips"] = [
        "WI CH OR SP ME BE BL BL BL BL BL BL BL BL BL BL",
        "CH BO OR SP ME BL BL BL BL BL BL BL BL BL BL BL",
        "CH OR WI SP BE ME BL BL BL BL BL BL BL BL BL BL",
    ]
    raw["vertical_lines"] = [[0], [2], [4]]
    raw["hold"] = {"yes": 1, "no": 1}
    raw["nudges"] = {"offer": {"yes": 1, "no": 1}, "count": {1: 1, 2: 1}}
    raw["disco_game"] = {"penguins": 2, "prizes": {"C40": 1, "C400": 1, "B2": 1}}
    steps = [{"up": 1, "fail": 1}] * (len(SCALE) - 1)
    raw["ladders"]["sube_nada"] = steps
    raw["ladders"]["sube_bonos"] = [*steps[:SEESAW], {"up": 0, "fail": 1}, *steps[SEESAW + 1 :]]
    return parse(raw, "small")


SETTINGS = {
    "auto": {"auto_advance": True, "auto_risk": False},
    "auto_risk": {"auto_advance": True, "auto_risk": True},
}


class Walk:
    """Values every pending round by the rules' own draws: each decision is taken every way
    the play allows (nudges and, under AUTO, holds: every choice; ladders: COLLECT, or PLAY
    under AUTO-RISK) and the best is kept.  It checks on the way that the game's own choice
    (``auto_action``, or the default action) is a best one and that the strategy's tables
    hold the same values."""

    def __init__(
        self,
        game: LosTresPinguinos,
        d: LowerData,
        play: str,
        held: dict[tuple[int, tuple[int, ...]], Fraction],
    ) -> None:
        self.game, self.d, self.play = game, d, play
        self.v = S.values(d, play)
        self.memo: dict[str, Fraction] = {}
        self.held = held  # a hold's value, shared by the plays that treat ladders alike
        self.checked: defaultdict[str, int] = defaultdict(int)

    def expect(self, fn: Callable[[Any], Round]) -> Fraction:
        return sum((p * self.value(r) for p, _, r in draw_paths(fn)), F(0))

    def choices(self, rnd: Round) -> list[Action]:
        phase = rnd.state["phase"]
        if phase == "nudge":
            if self.play == "worst":
                return [Action(name="done")]
            return [Action(name="done"), *(Action(name="nudge", choice=r) for r in range(3))]
        if phase == "hold":
            if self.play == "default":
                return [Action(name="hold", choice=rnd.state["suggested_hold"])]
            if self.play == "worst":
                return [Action(name="hold", choice=0)]
            return [Action(name="hold", choice=m) for m in range(7)]
        if phase == "ladder":
            if self.play == "best":  # brute force: the larger of PLAY and COLLECT at every rung
                return [Action(name="play"), Action(name="collect")]
            return [Action(name="play" if self.play == "auto_risk" else "collect")]
        return [Action(name="stop")]

    def act_value(self, rnd: Round, action: Action) -> Fraction:
        if action.name != "hold":
            return self.expect(lambda rng: self.game.act(rnd, action, rng))
        mask = action.choice
        assert mask is not None
        key = (mask, tuple(s for r, s in enumerate(rnd.state["stops"]) if mask >> r & 1))
        if key not in self.held:  # the reels not held spin again: the rest does not matter
            self.held[key] = self.expect(lambda rng: self.game.act(rnd, action, rng))
        return self.held[key]

    def value(self, rnd: Round) -> Fraction:
        if rnd.complete:
            return worth(rnd, self.d)
        key = json.dumps(rnd.state, sort_keys=True)
        if key in self.memo:
            return self.memo[key]
        rnd = rnd.model_copy(update={"events": []})  # the past does not steer the rules: lighter copies
        values = {(a.name, a.choice): self.act_value(rnd, a) for a in self.choices(rnd)}
        best = max(values.values())
        st = rnd.state
        stops = tuple(st["stops"])
        if self.play in SETTINGS or self.play == "default":  # the rules play it: their choice is the best
            mine = (
                rnd.default_action()
                if self.play == "default"
                else self.game.auto_action(rnd, SETTINGS[self.play])
            )
            assert mine is not None and values[(mine.name, mine.choice)] == best, (st, mine, values)
        if st["phase"] == "nudge" and self.play != "worst":
            final = self.v.final_held if st["held_game"] else self.v.final_paid
            reach = max(final[S.index(nudged(stops, vec))] for vec in nudge_vectors(st["nudges_left"]))  # type: ignore[arg-type]
            assert best == reach
            self.checked["nudge"] += 1
        elif st["phase"] == "hold":
            assert best == self.v.hold[S.index(stops)]  # type: ignore[arg-type]
            self.checked["hold"] += 1
        self.memo[key] = best
        return best


@pytest.fixture(scope="module")
def small() -> tuple[LosTresPinguinos, LowerData, list[tuple[Fraction, list[int], Round]], dict[str, dict]]:
    """The small game, every draw path of its paid game, and hold values per ladder play."""
    d = small_data()
    game = LosTresPinguinos({"small": d})
    starts = list(draw_paths(lambda rng: game.start(UNIT, rng, variant="small")))
    return game, d, starts, {}


@pytest.mark.parametrize("play", ["best", "auto", "default", "auto_risk", "worst"])
def test_hold_and_nudge_values_match_the_rules_over_every_draw_path(
    play: str,
    small: tuple[LosTresPinguinos, LowerData, list[tuple[Fraction, list[int], Round]], dict[str, dict]],
) -> None:
    game, d, starts, held = small
    # held games are worth the same to plays that play ladders and nudges alike
    walk = Walk(game, d, play, held.setdefault(S.PLAYS[play][0] + S.PLAYS[play][2], {}))
    by_stops: dict[tuple[int, ...], Fraction] = defaultdict(F)
    for prob, draws, rnd in starts:
        by_stops[tuple(draws[:3])] += prob * walk.value(rnd)
    assert len(by_stops) == len(ALL) and sum(p for p, _, _ in starts) == 1
    for stops, x in by_stops.items():
        assert x * len(ALL) == walk.v.landed_paid[S.index(stops)], stops  # type: ignore[arg-type]
    assert sum(by_stops.values()) == walk.v.rtp_cents
    nudges = 0 if play == "worst" else 1000  # the worst play never nudges
    assert walk.checked["hold"] > 100 and walk.checked["nudge"] >= nudges, dict(walk.checked)


# -- (d) prize ranges ------------------------------------------------------------------

SEED_DISCO = {  # bet (cents): (cash range in cents, Bonuses range), as the seed gives them
    20: ((40, 10_000), (1, 6)),
    100: ((200, 100_000), (5, 30)),
    500: ((1_000, 500_000), (25, 150)),
    1000: ((2_000, 1_000_000), (50, 300)),
    1500: ((2_000, 1_500_000), (50, 300)),
}


def test_the_maximum_prize_of_a_game_at_20_cents_is_100_euros_and_reachable() -> None:
    for d in GAME.data_by_variant.values():
        cash = [*d.pays.values(), *d.ladders.scale, *(int(k[1:]) for k in d.disco_game.prizes if k[0] == "C")]
        assert max(cash) == d.ladders.scale[-1] == 10_000  # €100 at the unit bet (coin 1)
        # a round has one prize: the paid game's, or its held game's when it had none
        up = [s.up for s in d.ladders.sube_bonos[SEESAW:]]
        assert all(up), "the top of the scale is reachable from the 3 Bells"
    top = f"C{SCALE[TOP]}"
    rng = scripted(game(find(shows(D.disco, D.disco, D.disco))), penguins(*[top] * 5), 0)
    rnd = GAME.act(GAME.start(20, rng), Action(name="stop"), rng)
    assert rnd.win == 10_000 and rnd.complete and not rng.script  # the Disco pays it in one game


@pytest.mark.parametrize("bet", sorted(SEED_DISCO))
def test_the_disco_prizes_per_bet_are_the_seeds_ranges(bet: int) -> None:
    """Each bet's own table spans the seed's range for that bet, both ends (at €15 the cash
    starts at €30, the scale's first prize: every Disco cash prize up to the 3 Bells prize
    enters Sube-Bonos, which climbs the scale; the seed's €20 is not on it)."""
    coin = bet // UNIT
    (cash_lo, cash_hi), (b_lo, b_hi) = SEED_DISCO[bet]
    for d in GAME.data_by_variant.values():
        prizes = [k for k, w in d.disco_table(coin).items() if w > 0]
        cash = [int(k[1:]) for k in prizes if k[0] == "C"]
        bonuses = [int(k[1:]) for k in prizes if k[0] == "B"]
        assert (min(bonuses), max(bonuses)) == (b_lo, b_hi), bet
        assert max(cash) == cash_hi, bet
        if bet == 1500:
            assert min(cash) == d.ladders.scale[0] * coin == 3_000 and cash_lo < min(cash)
        else:
            assert min(cash) == cash_lo, bet


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ({"C200": 60, "C300": 50, "B5": 1}, "mean cash and Bonuses"),  # not the unit table's means
        ({"C250": 1, "B5": 1}, "ladders.scale"),  # €2.50 at €1 (50 units) enters Sube-Bonos, off the scale
        ({"C201": 1}, "whole number of coins"),  # not a whole number of €1's 5-cent coins
        ({"X9": 1}, "neither C<cents> nor B<bonuses>"),
    ],
)
def test_a_bets_disco_table_is_checked_on_load(table: dict[str, int], why: str) -> None:
    from reelforge.engine.datafile import DataFileError
    from reelforge.games.los_3_pinguinos.data_model import parse

    raw = D.model_dump(mode="python")
    raw["disco_game"]["at_bet"] = {**raw["disco_game"]["at_bet"], 100: table}
    with pytest.raises(DataFileError, match=why):
        parse(raw, "bad")
    raw["disco_game"]["at_bet"] = {30: D.disco_table(1)}
    with pytest.raises(DataFileError, match="not an offered bet"):
        parse(raw, "bad")
