"""The ``lines`` building block (reelforge.engine.lines) and Golden Scarab, the game written
only as data.

A toy data file with four-stop strips is small enough to check by brute force through the
readable evaluation (every window of a spin, and the feature's paths): its exact RTP and its
law must be what the exact calculator, the numba enumeration and the law's recursion give.
Line, wild and scatter evaluation is checked on hand-worked lines, the feature on scripted
rounds, the data file's checks on broken files, the kernel against the rules draw for draw,
and the shipped variants against their targets.
"""

from __future__ import annotations

import copy
import itertools
import math
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reelforge.engine.datafile import DataFileError
from reelforge.engine.lines import LinesData, LinesGame, parse
from reelforge.engine.lines.evaluate import evaluate_window, line_result
from reelforge.engine.lines.exact import exact_figures
from reelforge.engine.lines.kernel import COLUMNS, play_rounds
from reelforge.engine.lines.reach import best_stops
from reelforge.engine.tuning import GameTuning
from reelforge.games import get_game
from reelforge.rng import RecordingRandom, ScriptedRandom, SeededRandom

TOY: dict[str, Any] = {
    "wild": "W",
    "scatter": "S",
    "paylines": ["1 1 1 1 1", "0 0 0 0 0", "0 1 2 1 0"],
    "game": {
        "kind": "lines", "id": "toy-lines", "name": "Toy", "version": "0", "variant": "1",
        "currencies": ["GBP"], "coins": [1, 2], "max_win": 1000,
    },
    "symbols": {
        "A": {"name": "Apple", "colour": "#aa0000"},
        "B": {"name": "Bell", "colour": "#00aa00"},
        "W": {"name": "Wild", "colour": "#ffd700"},
        "S": {"name": "Star", "colour": "#0000aa"},
    },
    "line_pays": {"A": {"3": 5, "4": 10, "5": 20}, "B": {"2": 1, "3": 2, "4": 4, "5": 8}},
    "wild_pays": {"3": 3, "4": 15, "5": 50},
    "scatter_pays": {"2": 1, "3": 5},
    "free_spins": {"award": {"2": 2, "3": 3}, "retrigger": {"2": 1}, "multiplier": 2, "max_spins": 4},
    "base_reels": {"strips": ["A B W S", "B A W S", "A W B S", "W A B S", "B W A S"]},
    "free_reels": {"strips": ["A W B S", "W B A S", "B A W S", "A B W S", "W A S B"]},
}  # fmt: skip


def toy(**changes: Any) -> LinesData:
    raw = copy.deepcopy(TOY)
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            raw[section][field] = value
        else:
            raw[section] = value
    return parse(raw, "toy")


# -- evaluation, worked by hand --------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("A A A B A", ("A", 3, 5)),
        ("A A A A A", ("A", 5, 20)),
        ("W A A A B", ("A", 4, 10)),  # a leading wild stands for the A
        ("W W W B B", ("B", 5, 8)),  # B x5 (8) beats the three wilds (3)
        ("W W W B A", ("B", 4, 4)),  # B x4 (4) beats the three wilds (3)
        ("W W W S A", ("W", 3, 3)),  # the wild never stands for the scatter
        ("W W W W W", ("W", 5, 50)),
        ("W W W W A", ("A", 5, 20)),  # A x5 (20) beats the four wilds (15)
        ("W W W W B", ("W", 4, 15)),  # the four wilds (15) beat B x5 (8)
        ("S A A A A", None),  # a scatter pays nothing on a line
        ("A W B B B", None),  # A x2 pays nothing; B does not start the line
        ("B W A A A", ("B", 2, 1)),
        ("A B A A A", None),
    ],
)
def test_line_evaluation_worked_by_hand(line: str, expected: tuple[str, int, int] | None) -> None:
    got = line_result(line.split(), toy())
    assert (None if got is None else (got.symbol, got.length, got.pay)) == expected


def test_five_wilds_without_wild_pays_pay_the_best_five_of_a_kind() -> None:
    d = toy(wild_pays={})
    got = line_result(["W", "W", "W", "W", "W"], d)
    assert got is not None and (got.symbol, got.length, got.pay) == ("A", 5, 20)
    assert line_result(["W", "W", "W", "S", "A"], d) is None


def test_window_evaluation_lines_scatters_and_multiplier() -> None:
    d = toy()
    # reels top to bottom; middle row A A A B B; top row W B A W S; V line 0 1 2 1 0
    window = [["W", "A", "S"], ["B", "A", "B"], ["A", "A", "W"], ["W", "B", "S"], ["S", "B", "A"]]
    lines, scatters, scatter_credits = evaluate_window(d, window, multiplier=2)
    got = {w["line"]: (w["symbol"], w["length"], w["pay"], w["credits"], w["positions"]) for w in lines}
    assert got == {
        0: ("A", 3, 5, 10, [[0, 1], [1, 1], [2, 1]]),  # A A A B B
        # top row W B A W S: the wild stands for B: B x2 pays 1
        1: ("B", 2, 1, 2, [[0, 0], [1, 0]]),
        # V: W A W B S -> A x3 (W A W) = 5
        2: ("A", 3, 5, 10, [[0, 0], [1, 1], [2, 2]]),
    }
    assert scatters == [[0, 2], [3, 2], [4, 0]]
    assert scatter_credits == 5 * 3 * 2  # 3 scatters pay 5 x the bet (3 lines), x2


# -- brute force through the readable evaluation ------------------------------------------


def spin_outcomes(d: LinesData, strips: tuple[tuple[str, ...], ...]) -> dict[tuple[int, int], Fraction]:
    """``{(credits, scatters): probability}`` over every window, by :func:`evaluate_window`."""
    out: dict[tuple[int, int], Fraction] = {}
    total = math.prod(len(s) for s in strips)
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        window = [[s[(stop + r) % len(s)] for r in range(3)] for s, stop in zip(strips, stops, strict=True)]
        lines, scatters, scatter_credits = evaluate_window(d, window)
        key = (sum(w["credits"] for w in lines) + scatter_credits, len(scatters))
        out[key] = out.get(key, Fraction(0)) + Fraction(1, total)
    return out


def brute_law(d: LinesData, capped: bool) -> dict[int, Fraction]:
    """The round's win law, walking the feature's paths over the free spins' outcomes."""
    fs = d.free_spins
    assert fs is not None and d.free_reels is not None
    base = spin_outcomes(d, d.base_reels.strips)
    free = spin_outcomes(d, d.free_reels.strips)
    cap = d.game.max_win * d.lines if capped else math.inf

    @cache
    def feature(awarded: int, played: int) -> tuple[tuple[int, Fraction], ...]:
        if played == awarded:
            return ((0, Fraction(1)),)
        law: dict[int, Fraction] = {}
        for (credits, k), p in free.items():
            more = min(fs.retrigger.get(k, 0), fs.max_spins - awarded)
            for rest, q in feature(awarded + more, played + 1):
                law[credits * fs.multiplier + rest] = law.get(credits * fs.multiplier + rest, 0) + p * q
        return tuple(law.items())

    out: dict[int, Fraction] = {}
    for (credits, k), p in base.items():
        tail = feature(fs.award[k], 0) if k in fs.award else ((0, Fraction(1)),)
        for rest, q in tail:
            x = min(credits + rest, cap)
            out[int(x)] = out.get(int(x), Fraction(0)) + p * q
    return out


def test_toy_exact_rtp_and_figures_equal_brute_force() -> None:
    d = toy()
    law = brute_law(d, capped=False)
    rtp = sum((x * p for x, p in law.items()), Fraction(0)) / d.lines
    f = exact_figures(d)
    assert f.rtp == rtp
    base = spin_outcomes(d, d.base_reels.strips)
    assert f.hit_frequency == sum((p for (c, _), p in base.items() if c > 0), Fraction(0))
    assert f.feature_frequency == sum((p for (_, k), p in base.items() if k in (2, 3)), Fraction(0))
    game = LinesGame.from_data(d)
    assert game.exact()["rtp_fraction"] == f"{rtp.numerator}/{rtp.denominator}"


@pytest.mark.parametrize("max_win", [1000, 4])
def test_toy_law_encloses_the_brute_force_law(max_win: int) -> None:
    """With a cap far above every win and with one that binds (4 x the bet)."""
    d = toy(game__max_win=max_win)
    exact = brute_law(d, capped=True)
    dist = LinesGame.from_data(d).win_distribution()
    unit = dist.details["unit_credits"]
    assert dist.stake * unit == d.lines
    for x in range(0, dist.cap + 1):
        p = exact.get(x * unit, Fraction(0))
        b = dist.probability(x, x + 1)
        assert b.low <= float(p) * (1 + 1e-12) and float(p) * (1 - 1e-12) <= b.high, x
        assert all(y % unit == 0 for y in exact)
    mean = sum((x * p for x, p in exact.items()), Fraction(0)) / d.lines
    m = dist.mean()
    assert m.low <= float(mean) <= m.high
    if max_win == 4:
        assert float(exact[4 * d.lines]) > 0.001  # the cap does bind here


# -- the feature, scripted ---------------------------------------------------------------------

# base strips: stop 3 shows S at the top on every reel; free strips: S is the last stop
TRIGGER_3 = [3, 3, 3, 0, 0]  # three scatters: 3 spins (the award for 3)


def scatters_at(strips: tuple[tuple[str, ...], ...], count: int) -> list[int]:
    """Stops putting a scatter on the first ``count`` reels' top rows and none on the rest."""
    out = []
    for r, strip in enumerate(strips):
        s = strip.index("S")
        out.append(
            s
            if r < count
            else next(
                i for i in range(len(strip)) if "S" not in [strip[(i + k) % len(strip)] for k in range(3)]
            )
        )
    return out


def test_feature_retriggers_multiplies_and_stops_at_max_spins() -> None:
    d = toy()
    game = LinesGame.from_data(d)
    assert d.free_reels is not None
    fs_retrigger = scatters_at(d.free_reels.strips, 2)  # +1 spin
    script = scatters_at(d.base_reels.strips, 3) + fs_retrigger * 4
    rnd = game.start(3, ScriptedRandom(script, SeededRandom(1)))
    kinds = [e["type"] for e in rnd.events]
    assert kinds[:2] == ["spin", "free_spins_awarded"]
    assert rnd.events[1]["count"] == 3 and rnd.events[1]["multiplier"] == 2
    free = [e for e in rnd.events if e["type"] == "spin" and e["reels"] == "free"]
    retriggers = [e for e in rnd.events if e["type"] == "free_spins_awarded" and e.get("retrigger")]
    # 3 awarded, one more from the first retrigger, then max_spins (4) is reached
    assert len(free) == 4 and len(retriggers) == 1 and rnd.state["free_spins_awarded"] == 4
    assert [e["free_spin"] for e in free] == [1, 2, 3, 4]
    for e in free:
        assert e["multiplier"] == 2
        assert all(w["credits"] == 2 * w["pay"] for w in e["lines"])
        assert e["scatter_credits"] == 2 * d.scatter_pays[len(e["scatters"])] * d.lines
    end = next(e for e in rnd.events if e["type"] == "free_spins_end")
    assert end["credits"] == sum(e["credits"] for e in free) and end["spins"] == 4
    assert (
        rnd.win
        == rnd.state["credits"] * rnd.coin
        == sum(e["credits"] for e in rnd.events if e["type"] == "spin")
    )
    assert rnd.complete and rnd.events[-1]["type"] == "round_end"


def test_cap_ends_the_round_and_forfeits_the_rest() -> None:
    d = toy(game__max_win=8)
    game = LinesGame.from_data(d)
    assert d.free_reels is not None
    script = scatters_at(d.base_reels.strips, 3) + scatters_at(d.free_reels.strips, 3) * 3
    rnd = game.start(3, ScriptedRandom(script, SeededRandom(1)))
    kinds = [e["type"] for e in rnd.events]
    assert kinds[1] == "free_spins_awarded" and rnd.events[0]["credits"] < 8 * d.lines
    assert rnd.state["credits"] == 8 * d.lines and rnd.win == 8 * d.lines * rnd.coin
    assert kinds[-3:] == ["max_win", "free_spins_end", "round_end"]
    assert rnd.state["free_spins_played"] < 3 and rnd.events[-2]["capped"]


# -- the data file's checks --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"wild": "X"}, "wild 'X' is not in symbols"),
        ({"base_reels": {"strips": ["A S S B", "A B W S", "A W B S", "W A B S", "B W A S"]}}, "two scatters"),
        (
            {"base_reels": {"strips": ["A B Z S", "A B W S", "A W B S", "W A B S", "B W A S"]}},
            "unknown symbols",
        ),
        ({"paylines": ["1 1 1 1 3"]}, "paylines[0]"),
        ({"paylines": ["1 1 1 1 1", "1 1 1 1 1"]}, "the same line twice"),
        ({"line_pays": {"A": {"3": 5, "5": 20}}}, "every length from 3 to 5"),
        ({"line_pays": {"A": {"3": 5, "4": 4, "5": 20}}}, "not fall"),
        ({"line_pays": {"S": {"3": 5, "4": 6, "5": 20}}}, "not a paying symbol"),
        ({"symbols__A": {"name": "Apple", "colour": "red"}}, "#rrggbb"),
        ({"free_spins__max_spins": 2}, "max_spins is below an award"),
        ({"scatter": None, "scatter_pays": {}}, "free_spins need a scatter"),
        ({"free_reels": None}, "free_spins need free_reels"),
        ({"game__kind": "ways"}, "game.kind"),
        ({"game__coins": [2, 1]}, "rising"),
    ],
)
def test_data_file_errors_name_the_field(changes: dict[str, Any], message: str) -> None:
    raw = copy.deepcopy(TOY)
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            raw[section][field] = value
        elif value is None:
            raw.pop(section)
        else:
            raw[section] = value
    with pytest.raises(DataFileError, match="toy") as err:
        parse(raw, "toy")
    assert message in str(err.value)


# -- the kernel, draw for draw -----------------------------------------------------------------


def rules_rows(game: LinesGame, seed: int, rounds: int) -> tuple[np.ndarray, Any]:
    rng = SeededRandom(seed)
    stake = game.bet_levels()[0].stake
    rows = []
    for _ in range(rounds):
        rec = RecordingRandom(rng)
        rnd = game.start(stake, rec)
        ev = rnd.events
        rows.append((
            rnd.state["credits"], ev[0]["credits"], rnd.state["free_spins_played"], len(rec.draws),
            int(any(e["type"] == "free_spins_awarded" and not e.get("retrigger") for e in ev)),
            sum(1 for e in ev if e["type"] == "free_spins_awarded" and e.get("retrigger")),
            int(any(e["type"] == "max_win" for e in ev)),
        ))  # fmt: skip
    return np.array(rows, dtype=np.int64), rng.bit_generator.state


COMPARED = ("win", "base_win", "free_spins", "draws", "triggers", "retriggers", "max_win")


@pytest.mark.parametrize(
    ("which", "seed", "rounds"), [("toy", 3, 3000), ("toy-capped", 4, 3000), ("golden", 5, 4000)]
)
def test_kernel_equals_rules_draw_for_draw(which: str, seed: int, rounds: int) -> None:
    if which == "golden":
        game = get_game("golden-scarab")
        assert isinstance(game, LinesGame)
    else:
        game = LinesGame.from_data(toy(game__max_win=3 if which == "toy-capped" else 1000))
    expected, state = rules_rows(game, seed, rounds)
    bg = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    rows = play_rounds(game.data(), bg, rounds)
    got = rows[:, [COLUMNS.index(c) for c in COMPARED]]
    assert np.array_equal(got, expected)
    assert bg.state == state
    assert expected[:, COMPARED.index("triggers")].sum() > 5  # the feature was played
    if which == "toy-capped":
        assert expected[:, COMPARED.index("max_win")].sum() > 5


# -- Golden Scarab ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scarab() -> LinesGame:
    game = get_game("golden-scarab")
    assert isinstance(game, LinesGame)
    return game


def test_golden_scarab_is_data_only_and_registered(scarab: LinesGame) -> None:
    folder = Path(scarab.folder)
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    # its data files and the max-win sequences built from them: no Python of its own
    assert files == ["data/rtp-9200.toml", "data/rtp-9400.toml", "data/rtp-9600.toml", "max_win_draws.json"]
    info = scarab.info()
    assert info["renderer"] == "lines" and info["lines"] == 20
    assert set(info["symbol_colours"]) == set(info["symbols"])
    assert scarab.variants == ["96.00", "94.00", "92.00"]


@pytest.mark.parametrize(("variant", "target"), [("96.00", 96), ("94.00", 94), ("92.00", 92)])
def test_shipped_variants_exact_rtp_within_a_hundredth_of_a_point(
    scarab: LinesGame, variant: str, target: int
) -> None:
    rtp = exact_figures(scarab.data(variant)).rtp
    assert abs(rtp * 100 - target) <= Fraction(1, 100)


def test_law_of_the_default_variant_agrees_with_the_exact_rtp(scarab: LinesGame) -> None:
    dist = scarab.win_distribution()
    exact = exact_figures(scarab.data()).rtp
    m = dist.mean()
    # the law is capped at 5,000x: its mean lies within the cap's share (at most 1e-30 here)
    assert m.low - 1e-12 <= float(exact) <= m.high + 1e-12
    assert 6 <= dist.sd().value <= 12
    top, p = dist.max_win()
    assert top == 5000 * dist.stake and p.high < 1e-30


def test_monte_carlo_agrees_with_the_exact_rtp(scarab: LinesGame) -> None:
    """A million rounds, fixed seed: within 4 SDs of the mean (SD from the exact law, 6.5)."""
    n = 1_000_000
    stats = scarab.simulate_chunk(n, np.random.SeedSequence(2026))
    s = stats.summary()
    exact = float(exact_figures(scarab.data()).rtp)
    assert abs(s["rtp_uncapped"] - exact) <= 4 * 6.6 / math.sqrt(n)
    f = exact_figures(scarab.data())
    assert abs(s["hit_frequency"] - float(f.hit_frequency)) <= 4 * math.sqrt(0.25 / n)
    p = float(f.feature_frequency)
    assert abs(stats.counters["free_spins_triggers"] / n - p) <= 4 * math.sqrt(p / n)


def test_tuning_rewrites_the_shipped_94_file(scarab: LinesGame) -> None:
    """``reelforge tune golden-scarab --target 94`` gives the shipped file, byte for byte."""
    from reelforge.analysis.tune import tune, tuning_for

    tuning: GameTuning[LinesData] = scarab.tuning()
    assert tuning_for("golden-scarab").data_dir == tuning.data_dir
    result = tune("golden-scarab", Fraction(94, 100))
    assert result.text == (tuning.data_dir / "rtp-9400.toml").read_text()


def test_terminal_plays_a_feature_with_a_retrigger(scarab: LinesGame) -> None:
    """``reelforge play golden-scarab``: seed 5022's first round triggers 10 free spins and
    retriggers 10 more (found by playing seeds through the rules)."""
    from typer.testing import CliRunner

    from reelforge.cli import app

    rnd = scarab.start(20, SeededRandom(5022))
    assert rnd.state["free_spins_played"] == 20
    result = CliRunner().invoke(app, ["play", "golden-scarab", "--seed", "5022", "--rounds", "1"], input="\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "3 scatters: 10 free spins! Every win x3." in out and "10 more free spins!" in out
    assert "Free spin 1 (9 left) x3" in out and "Free spin 20 (0 left) x3" in out
    assert "line 3: FA Falcon of Horus x4: £2.25" in out
    assert f"Free spins over: 20 free spins won £{(rnd.win - rnd.events[0]['credits']) / 100:.2f}" in out
    assert f"Round win: £{rnd.win / 100:.2f}" in out


# -- the max win is reachable in one game ----------------------------------------------------


def test_the_max_win_is_reachable_in_one_game(scarab: LinesGame) -> None:
    """A draw sequence the rules deal to the 5,000x cap: a base spin with three scatters,
    a free spin that retriggers, then big free spins until the cap (the 50-spin bound leaves
    room: 20 spins are awarded)."""
    d = scarab.data()
    fs = d.free_spins
    assert fs is not None
    base_pay, base = best_stops(d, free=False, need=3)
    retrigger_pay, retrigger = best_stops(d, free=True, need=3)
    big_pay, big = best_stops(d, free=True, need=0)
    cap = d.game.max_win * d.lines
    spins = 1
    total = base_pay + fs.multiplier * retrigger_pay
    while total < cap:
        total += fs.multiplier * big_pay
        spins += 1
    assert spins <= 20, spins  # within the spins awarded (10 + a retrigger of 10)
    script = base + retrigger + big * (spins - 1)
    rnd = scarab.start(20, ScriptedRandom(script, SeededRandom(0)))
    assert rnd.state["credits"] == cap and rnd.win == cap  # coin 1p: 5,000 x 20p = £1,000
    assert any(e["type"] == "max_win" for e in rnd.events)
    assert rnd.state["free_spins_played"] == spins
