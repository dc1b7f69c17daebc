"""Los 3 Pinguinos, the lower game, through the real rules: the gamble ladders (Sube-Bonos with
its random rounding into Bonuses and its seesaw above the 3 Bells, Sube-Nada), prizes at every
bet, bad input, restores from JSON, the AUTO decisions and seeded invariants over every
variant (the line, the Disco, holds and nudges are in test_pinguinos_rules.py)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from pinguinos_helpers import (
    BV,
    GAME,
    SCALE,
    SEESAW,
    SP,
    TOP,
    VECTORS,
    D,
    NoMoreDraws,
    actions,
    done,
    events,
    fewest,
    find,
    game,
    has_pair,
    hold_offer,
    judge,
    line,
    moved,
    only,
    penguins,
    scripted,
    step,
    three,
    types,
)
from reelforge.engine.game import play_default
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.games.los_3_pinguinos import strategy as S
from reelforge.games.los_3_pinguinos.payline import evaluate
from reelforge.games.los_3_pinguinos.rules import InvalidPlayerState
from reelforge.money import InvalidBet
from reelforge.rng import RandomSource, ScriptedRandom, SeededRandom

NONE = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
AUTO = {"auto_advance": True, "auto_risk": False}
AUTO_RISK = {"auto_advance": True, "auto_risk": True}
MANUAL = {"auto_advance": False, "auto_risk": False}


def ladder(symbol: str, bet: int = 20, state: dict | None = None) -> tuple[Round, ScriptedRandom]:
    """A round whose line won ``symbol``'s prize, waiting in its ladder."""
    rng = scripted(game(three(symbol)))
    rnd = GAME.start(bet, rng, player_state=state)
    assert rnd.state["phase"] == "ladder" and actions(rnd) == ["collect", "play"] and not rng.script
    return rnd, rng


def play(rnd: Round, *draws: int) -> Round:
    """PLAY once with these draws (all of them used)."""
    rng = scripted(*draws)
    after = GAME.act(rnd, Action(name="play"), rng)
    assert not rng.script
    return after


def level(rnd: Round) -> int:
    return rnd.state["ladder"]["level"]


# -- Sube-Bonos ----------------------------------------------------------------------


def test_the_blue_prizes_enter_sube_bonos_and_collect_pays_them() -> None:
    for symbol in D.blue:
        rnd, _ = ladder(symbol)
        assert rnd.state["ladder"] == {"kind": "sube_bonos", "level": SCALE.index(D.pays[symbol])}
        assert only(rnd, "ladder_start") == {
            "type": "ladder_start",
            "kind": "sube_bonos",
            "credits": D.pays[symbol],
        }
        rng = scripted()
        after = GAME.act(rnd, Action(name="collect"), rng)
        assert only(after, "ladder_end") == {
            "type": "ladder_end",
            "how": "collect",
            "credits": D.pays[symbol],
        }
        assert after.win == D.pays[symbol]
        done(after, rng)


def test_sube_bonos_play_goes_up_to_the_next_prize_of_the_scale() -> None:
    rnd, _ = ladder("CH")
    up = play(rnd, step("sube_bonos", 0, True))
    assert level(up) == 1 and up.state["phase"] == "ladder" and up.win == 0
    assert events(up, "ladder_step")[-1] == {"type": "ladder_step", "result": "up", "credits": SCALE[1]}
    up = play(up, step("sube_bonos", 1, True))
    after = GAME.act(up, Action(name="collect"), scripted())
    assert after.win == SCALE[2] and only(after, "ladder_end")["how"] == "collect"
    done(after)


def _whole(bet: int, whole: bool) -> str:
    """A blue prize that is (or is not) a whole number of Bonuses at this bet."""
    coin = bet // D.game.unit
    return next(s for s in D.blue if (D.pays[s] * coin % BV == 0) == whole)


@pytest.mark.parametrize("bet", [20, 1500])
@pytest.mark.parametrize(("whole", "draw"), [(True, None), (False, "below"), (False, "at")])
def test_a_failed_play_turns_the_prize_into_bonuses_rounded_at_random(
    bet: int, whole: bool, draw: str | None
) -> None:
    """1 Bonus = €0.80: the remainder wins one more Bonus with chance remainder / 80,
    one ``randbelow(80)`` drawn below it; a whole number of Bonuses draws nothing."""
    symbol = _whole(bet, whole)
    coin = bet // D.game.unit
    cents = D.pays[symbol] * coin
    n, rest = divmod(cents, BV)
    rnd, _ = ladder(symbol, bet, {**NONE, "bonuses": 11})
    lvl = level(rnd)
    draws = [step("sube_bonos", lvl, False)]
    if draw is not None:
        assert rest > 0
        draws.append(rest - 1 if draw == "below" else rest)  # the boundary each way
        n += draw == "below"
    else:
        assert rest == 0
    after = play(rnd, *draws)
    assert events(after, "ladder_step")[-1] == {
        "type": "ladder_step",
        "result": "bonuses",
        "bonuses": n,
        "from_credits": D.pays[symbol],
    }
    assert after.win == 0 and after.state["bonuses_won"] == n
    assert after.player_state == {**NONE, "bonuses": 11 + n}
    done(after)


def test_the_rounding_draw_pays_the_prize_on_average() -> None:
    """Over the 80 values of the draw, the Bonuses are worth the prize exactly."""
    for bet in D.game.bets:
        coin = bet // D.game.unit
        for symbol in D.blue:
            total = Fraction(0)
            lvl = SCALE.index(D.pays[symbol])
            n_draws = 0
            for v in range(BV):
                rnd, _ = ladder(symbol, bet)
                rng = ScriptedRandom([step("sube_bonos", lvl, False), v], NoMoreDraws())
                after = GAME.act(rnd, Action(name="play"), rng)
                n_draws = max(n_draws, 2 - len(rng.script))
                total += after.state["bonuses_won"]
            assert total == D.pays[symbol] * coin, (bet, symbol)  # mean Bonuses x 80 cents
            assert n_draws == (2 if D.pays[symbol] * coin % BV else 1)


def test_above_the_3_bells_sube_bonos_is_a_seesaw() -> None:
    """From the 3 Bells prize up one level; a failed PLAY there falls one level (no Bonuses),
    back at the 3 Bells level it can go up again or fail into Bonuses."""
    rnd, _ = ladder("BE")
    assert level(rnd) == SEESAW and D.pays["BE"] == D.ladders.seesaw_above
    rnd = play(rnd, step("sube_bonos", SEESAW, True))
    assert level(rnd) == SEESAW + 1
    rnd = play(rnd, step("sube_bonos", SEESAW + 1, True))
    assert level(rnd) == SEESAW + 2
    rnd = play(rnd, step("sube_bonos", SEESAW + 2, False))
    assert level(rnd) == SEESAW + 1 and rnd.state["bonuses_won"] == 0
    assert events(rnd, "ladder_step")[-1] == {
        "type": "ladder_step",
        "result": "down",
        "credits": SCALE[SEESAW + 1],
    }
    rnd = play(rnd, step("sube_bonos", SEESAW + 1, False))
    assert level(rnd) == SEESAW and rnd.state["phase"] == "ladder"
    rnd = play(rnd, step("sube_bonos", SEESAW, True))  # back up
    rnd = play(rnd, step("sube_bonos", SEESAW + 1, False))  # and down
    n, rest = divmod(SCALE[SEESAW], BV)
    rnd = play(rnd, step("sube_bonos", SEESAW, False), *([0] if rest else []))
    assert events(rnd, "ladder_step")[-1]["result"] == "bonuses"
    assert rnd.state["bonuses_won"] == n + bool(rest) and rnd.win == 0
    assert [e["result"] for e in events(rnd, "ladder_step")] == [
        "up",
        "up",
        "down",
        "down",
        "up",
        "down",
        "bonuses",
    ]
    done(rnd)


def test_collect_on_the_seesaw_pays_the_level_reached() -> None:
    rnd, _ = ladder("BE", 1000)
    rnd = play(rnd, step("sube_bonos", SEESAW, True))
    after = GAME.act(rnd, Action(name="collect"), scripted())
    assert after.win == SCALE[SEESAW + 1] * 50
    done(after)


def test_the_3_bells_boundary_direct_prizes_above_it_are_paid_at_once() -> None:
    above = [s for s, c in D.pays.items() if c > D.ladders.seesaw_above]
    assert above and not set(above) & set(D.blue)
    for symbol in above:
        rng = scripted(game(three(symbol)))
        rnd = GAME.start(20, rng)
        assert "ladder_start" not in types(rnd) and rnd.win == D.pays[symbol]
        done(rnd, rng)
    rnd, _ = ladder("BE")  # the 3 Bells prize itself enters
    assert only(rnd, "ladder_start")["credits"] == D.ladders.seesaw_above


@pytest.mark.parametrize("bet", [20, 1500])
def test_climbing_to_the_top_pays_the_maximum_prize_automatically(bet: int) -> None:
    rnd, _ = ladder("BE", bet)
    for lvl in range(SEESAW, TOP - 1):
        rnd = play(rnd, step("sube_bonos", lvl, True))
        assert rnd.state["phase"] == "ladder"
    rnd = play(rnd, step("sube_bonos", TOP - 1, True))
    assert only(rnd, "ladder_end") == {"type": "ladder_end", "how": "maximum", "credits": SCALE[TOP]}
    assert rnd.win == SCALE[TOP] * (bet // D.game.unit) and "ladder" not in rnd.state
    done(rnd)


# -- Sube-Nada -----------------------------------------------------------------------


def test_the_yellow_prize_enters_sube_nada_up_or_nothing() -> None:
    (symbol,) = D.yellow
    rnd, _ = ladder(symbol, state={**NONE, "bonuses": 3})
    lvl = SCALE.index(D.pays[symbol])
    assert rnd.state["ladder"] == {"kind": "sube_nada", "level": lvl}
    up = play(rnd, step("sube_nada", lvl, True))
    assert level(up) == lvl + 1
    collected = GAME.act(up, Action(name="collect"), scripted())
    assert collected.win == SCALE[lvl + 1]
    done(collected)
    lost = play(up, step("sube_nada", lvl + 1, False))  # no rounding draw: nothing at all
    assert events(lost, "ladder_step")[-1] == {"type": "ladder_step", "result": "nothing", "credits": 0}
    assert lost.win == 0 and lost.state["bonuses_won"] == 0 and lost.player_state == {**NONE, "bonuses": 3}
    done(lost)
    for lv in range(lvl + 1, TOP):
        up = play(up, step("sube_nada", lv, True))
    assert only(up, "ladder_end")["how"] == "maximum" and up.win == SCALE[TOP]
    done(up)


# -- prizes scale with the bet -------------------------------------------------------


@pytest.mark.parametrize("bet", [100, 500, 1000, 1500])
def test_every_prize_but_the_discos_scales_with_the_bet(bet: int) -> None:
    coin = bet // D.game.unit
    direct = next(s for s, c in D.pays.items() if c > D.ladders.seesaw_above)
    rng = scripted(game(three(direct)))
    rnd = GAME.start(bet, rng)
    assert (rnd.stake, rnd.coin, rnd.win) == (bet, coin, D.pays[direct] * coin)
    assert rnd.events[-1]["credits"] == D.pays[direct]  # credits stay at the unit bet
    done(rnd, rng)
    bonus = find(lambda sym: judge(sym)[0] == "bonus", near=None)
    rnd = GAME.start(bet, scripted(game(bonus)))
    assert rnd.state["bonuses_won"] == judge(line(bonus))[1] * coin and rnd.win == 0
    rnd, _ = ladder("CH", bet)
    rnd = GAME.act(rnd, Action(name="collect"), scripted())
    assert rnd.win == D.pays["CH"] * coin
    # the Disco has the bet's own table (the seed's ranges per bet); its €0.20 prize €10 is
    # there at €1 to €10 as 50 bets too, and at €15 the €30 prize is 2 bets, as at €0.20
    prize = f"C{1000 * coin}" if bet < 1500 else "C3000"
    rng = scripted(game(three(SP)), penguins(*[prize] * 5, bet=bet), 2)
    rnd = GAME.act(GAME.start(bet, rng), Action(name="stop"), rng)
    if bet < 1500:
        assert rnd.win == 1000 * coin
        done(rnd, rng)
    else:
        assert rnd.state["ladder"] == {"kind": "sube_bonos", "level": 0} and rnd.win == 0


def test_bet_levels_costs_and_one_machine_state_for_every_bet() -> None:
    assert [b.stake for b in GAME.bet_levels()] == [20, 100, 500, 1000, 1500]
    assert [b.coin for b in GAME.bet_levels()] == [1, 5, 25, 50, 75]
    for bet in D.game.bets:
        assert GAME.cost(bet) == bet and GAME.state_key(bet) == "machine"
    assert GAME.play_settings() == MANUAL
    assert GAME.variants == ["95", "90", "80", "70"] and GAME.default_variant == "95"
    assert GAME.info()["settings"] == MANUAL


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize("stake", [0, 19, 21, 40, 2000, -20, True, "20", 20.0, None])
def test_a_stake_not_offered_is_refused(stake: object) -> None:
    with pytest.raises(InvalidBet, match="not offered"):
        GAME.start(stake, NoMoreDraws())  # type: ignore[arg-type]
    with pytest.raises(InvalidBet):
        GAME.cost(stake)  # type: ignore[arg-type]


def test_an_unknown_mode_or_variant_is_refused() -> None:
    with pytest.raises(InvalidBet, match="unknown mode"):
        GAME.start(20, NoMoreDraws(), mode="buy")
    with pytest.raises(InvalidBet, match="unknown mode"):
        GAME.cost(20, mode="buy")
    with pytest.raises(InvalidBet, match="not offered in mode upper"):
        GAME.cost(20, mode="upper")  # the upper bets are named by their value: 100 for €0.20 + 1
    with pytest.raises(InvalidBet, match="unknown RTP variant"):
        GAME.start(20, NoMoreDraws(), variant="99")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"bonuses": 1}, "must hold bonuses, vertical_lines and accumulators"),
        ({**NONE, "extra": 1}, "must hold bonuses, vertical_lines and accumulators"),
        ([1, 2], "must hold"),
        ("machine", "must hold"),
        ({**NONE, "bonuses": -1}, "bonuses must be a non-negative integer"),
        ({**NONE, "bonuses": 1.5}, "bonuses must be a non-negative integer"),
        ({**NONE, "bonuses": True}, "bonuses must be a non-negative integer"),
        ({**NONE, "vertical_lines": 10}, r"vertical_lines must be in \[0, 9\]"),
        ({**NONE, "vertical_lines": -1}, r"vertical_lines must be in \[0, 9\]"),
        ({**NONE, "vertical_lines": "3"}, r"vertical_lines must be in \[0, 9\]"),
        ({**NONE, "accumulators": []}, "accumulators must be an object"),
    ],
)
def test_bad_player_state_is_refused_with_a_clear_message_before_any_draw(
    state: object, message: str
) -> None:
    with pytest.raises(InvalidPlayerState, match=message):
        GAME.start(20, NoMoreDraws(), player_state=state)  # type: ignore[arg-type]


@pytest.mark.parametrize("state", [None, {}])
def test_no_stored_state_means_a_new_machine(state: dict | None) -> None:
    rnd = GAME.start(20, SeededRandom(3), player_state=state)
    assert rnd.player_state is not None and set(rnd.player_state) == set(NONE)


def _decisions() -> dict[str, Round]:
    """One round waiting at each kind of decision (nudges, a hold, a ladder, the Disco)."""
    nudge = find(lambda sym: judge(sym)[0] == "none", near=True)
    pair = find(lambda sym: judge(sym)[0] == "none" and has_pair(sym), near=None)
    return {
        "nudge": GAME.start(100, scripted(game(nudge, nudges=3))),
        "hold": GAME.start(100, scripted(game(pair), hold_offer(True))),
        "ladder": ladder("CH", 100)[0],
        "disco": GAME.start(100, scripted(game(three(SP)), penguins("C40", "C200", "C400", "B1", "B2"))),
    }


PHASES = ["nudge", "hold", "ladder", "disco"]
WRONG = {
    "nudge": [
        Action(name="play"),
        Action(name="nudge", choice=3),
        Action(name="done", choice=0),
        Action(name="nudge"),
    ],
    "hold": [Action(name="hold", choice=7), Action(name="done"), Action(name="collect")],
    "ladder": [Action(name="stop"), Action(name="play", choice=1), Action(name="hold", choice=3)],
    "disco": [Action(name="play"), Action(name="collect"), Action(name="spin")],
}


@pytest.fixture(scope="module")
def decisions() -> dict[str, Round]:
    return _decisions()


@pytest.mark.parametrize("phase", PHASES)
def test_actions_not_allowed_now_are_refused_and_act_never_mutates_its_input(
    phase: str, decisions: dict[str, Round]
) -> None:
    rnd = decisions[phase]
    assert rnd.state["phase"] == phase
    before = rnd.model_dump_json()
    for action in WRONG[phase]:
        with pytest.raises(InvalidAction):
            GAME.act(rnd, action, NoMoreDraws())
    for spec in rnd.actions:
        for choice in spec.choices or [None]:
            GAME.act(rnd, Action(name=spec.name, choice=choice), SeededRandom(5))
    assert rnd.model_dump_json() == before


def test_acting_on_a_complete_round_or_a_round_of_another_game_is_refused(
    decisions: dict[str, Round],
) -> None:
    rnd = play_default(GAME, GAME.start(20, SeededRandom(9)), SeededRandom(9))
    with pytest.raises(InvalidAction, match="complete"):
        GAME.act(rnd, Action(name="collect"), NoMoreDraws())
    other = decisions["ladder"].model_copy(update={"game": "reign-of-gnomes"})
    with pytest.raises(InvalidAction, match="reign-of-gnomes"):
        GAME.act(other, Action(name="collect"), NoMoreDraws())


def _auto(rnd: Round, rng: RandomSource, settings: dict[str, bool]) -> Round:
    while not rnd.complete:
        action = GAME.auto_action(rnd, settings)
        assert action is not None
        rnd = GAME.act(rnd, action, rng)
    return rnd


@pytest.mark.parametrize("phase", PHASES)
def test_a_round_restored_from_json_mid_decision_continues_identically(
    phase: str, decisions: dict[str, Round]
) -> None:
    rnd = decisions[phase]
    restored = Round.model_validate_json(rnd.model_dump_json())
    assert restored == rnd
    for seed in range(4):
        a = play_default(GAME, rnd, SeededRandom(seed))
        b = play_default(GAME, restored, SeededRandom(seed))
        assert a.model_dump() == b.model_dump()
        a = _auto(rnd, SeededRandom(seed), AUTO_RISK)
        b = _auto(Round.model_validate_json(rnd.model_dump_json()), SeededRandom(seed), AUTO_RISK)
        assert a.model_dump_json() == b.model_dump_json()


# -- AUTO decisions ------------------------------------------------------------------


def _hold_values(play: str, stops: tuple[int, int, int]) -> dict[int, Fraction]:
    """Each hold's value, averaged by hand over the free reels' stops (held-game values)."""
    landed = S.values(D, play).landed_held
    out = {}
    for mask in S.HOLD_MASKS:
        free = [r for r in range(3) if not mask >> r & 1]
        vals = [
            landed[S.index(tuple(s[r] if r in free else stops[r] for r in range(3)))]  # type: ignore[arg-type]
            for s in [(a, b, c) for a in range(16) for b in range(16) for c in range(16)]
            if all(s[r] == 0 for r in range(3) if r not in free)
        ]
        out[mask] = sum(vals, Fraction(0)) / len(vals)
    return out


def test_auto_holds_the_reels_worth_most_and_manual_play_keeps_the_suggested_pair() -> None:
    best = S.values(D, "auto").hold_mask

    def differs(t: tuple[int, int, int]) -> bool:
        return best[S.index(t)] not in (-1, 0, _suggested_of(t))

    s = find(lambda sym: judge(sym)[0] == "none" and has_pair(sym), near=None, also=differs)
    rnd = GAME.start(20, scripted(game(s), hold_offer(True)))
    suggested = rnd.state["suggested_hold"]
    assert GAME.auto_action(rnd, MANUAL) == Action(name="hold", choice=suggested)
    chosen = GAME.auto_action(rnd, AUTO)
    assert chosen is not None and chosen.name == "hold" and chosen.choice != suggested
    values = _hold_values("auto", s)
    assert values[chosen.choice] == max(values.values()) > values[suggested]  # type: ignore[index]
    risk = GAME.auto_action(rnd, AUTO_RISK)
    assert risk == Action(name="hold", choice=S.values(D, "auto_risk").hold_mask[S.index(s)])


def _suggested_of(t: tuple[int, int, int]) -> int:
    pairs = evaluate(D, line(t)).pairs
    return pairs[0] if pairs else -1


@pytest.mark.parametrize("settings", [AUTO, AUTO_RISK])
def test_auto_advance_plays_the_nudges_worth_most(settings: dict[str, bool]) -> None:
    play_name = "auto_risk" if settings["auto_risk"] else "auto"
    final = S.values(D, play_name).final_paid
    checked = 0
    for n in (1, 2, 4):
        for s in [
            find(lambda sym: judge(sym)[0] == "none", near=True, also=lambda t: fewest(t) == 1),
            find(lambda sym: judge(sym)[0] == "bonus", near=True, also=lambda t: fewest(t) == 1),
            find(
                lambda sym: judge(sym)[0] == "none" and has_pair(sym),
                near=True,
                also=lambda t: fewest(t) == 1,
            ),
        ]:
            rnd = GAME.start(20, scripted(game(s, nudges=n)))
            assert GAME.auto_action(rnd, MANUAL) is None and GAME.auto_action(rnd, {}) is None
            reachable = [(0, 0, 0)] + [v for v in VECTORS if sum(v) <= n]
            best = max(final[S.index(moved(s, v))] for v in reachable)
            expected = S.best_nudge(D, play_name, s, n, False)
            assert final[S.index(moved(s, expected))] == best
            path = []
            while rnd.state["phase"] == "nudge":
                action = GAME.auto_action(rnd, settings)
                assert action is not None and action.name in ("nudge", "done")
                path.append(action.choice)
                rnd = GAME.act(rnd, action, SeededRandom(0))
            assert final[S.index(tuple(rnd.state["stops"]))] == best
            moves = [c for c in path if c is not None]
            assert Counter(moves) == Counter({r: k for r, k in enumerate(expected) if k})
            checked += 1
    assert checked == 9


def test_auto_risk_plays_every_ladder_to_its_end_and_the_disco_stops_itself(
    decisions: dict[str, Round],
) -> None:
    rnd = decisions["ladder"]
    assert GAME.auto_action(rnd, AUTO) == Action(name="collect")
    assert GAME.auto_action(rnd, MANUAL) == Action(name="collect")
    assert GAME.auto_action(rnd, AUTO_RISK) == Action(name="play")
    assert GAME.auto_action(rnd, {"auto_advance": False, "auto_risk": True}) == Action(name="play")
    for seed in range(30):
        end = _auto(rnd, SeededRandom(seed), AUTO_RISK)
        assert "collect" not in [e.get("how") for e in end.events]
        assert end.events[-2]["type"] in ("ladder_step", "ladder_end", "bonuses")
    for settings in (MANUAL, AUTO, AUTO_RISK):
        assert GAME.auto_action(decisions["disco"], settings) == Action(name="stop")


# -- seeded invariants ---------------------------------------------------------------


@pytest.mark.parametrize("variant", GAME.variants)
def test_seeded_rounds_keep_every_invariant(variant: str) -> None:
    """A few thousand rounds per variant, under the default play, AUTO and AUTO-RISK."""
    seen: Counter[str] = Counter()
    bets = list(GAME.data(variant).game.bets)
    for play_name, settings in (("default", None), ("auto", AUTO), ("auto_risk", AUTO_RISK)):
        rng = SeededRandom(int(variant) * 10 + len(play_name))
        state: dict | None = None
        for i in range(1000):
            bet = bets[i % len(bets)]
            rnd = GAME.start(bet, rng, variant=variant, player_state=state)
            for _ in range(60):
                _check(rnd, state)
                if rnd.complete:
                    break
                action = rnd.default_action() if settings is None else GAME.auto_action(rnd, settings)
                assert action is not None
                rnd = GAME.act(rnd, action, rng)
            else:  # pragma: no cover
                raise AssertionError("a round did not complete")
            seen.update(types(rnd))
            seen.update(f"{e['type']}:{e.get('result') or e.get('how')}" for e in rnd.events)
            state = rnd.player_state
    for kind in ("hold_offer", "nudge_offer", "disco_start", "ladder_start", "bonuses", "vertical_lines"):
        assert seen[kind] > 0, kind
    for outcome in ("ladder_step:up", "ladder_step:bonuses", "ladder_step:nothing", "ladder_end:collect"):
        assert seen[outcome] > 0, outcome


def _check(rnd: Round, before: dict | None) -> None:
    st, machine = rnd.state, rnd.player_state
    assert machine is not None
    assert rnd.win == st["credits"] * rnd.coin and 0 <= st["credits"] <= SCALE[TOP]
    assert st["bonuses_won"] >= 0 and machine["bonuses"] >= 0
    assert machine["bonuses"] == (before or NONE)["bonuses"] + st["bonuses_won"]
    assert 0 <= machine["vertical_lines"] <= D.game.vertical_lines_max
    assert machine["vertical_lines"] >= (before or NONE)["vertical_lines"]
    assert rnd.complete == (rnd.actions == [])
