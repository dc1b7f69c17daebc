"""Los 3 Pinguinos' exact win distributions against computations that do not share their code.

* **The mean** of each law is the exact RTP of that play (``strategy``'s values, what
  ``exact.py`` reports as ``rtp_by_play``), fraction for fraction; the upper game's is its
  configured COLLECT figure.
* **Brute force**: on a small data file every draw path of the rules' own play (``start``,
  then ``auto_action`` or the default action, each action's draws walked one by one) is
  enumerated and the law of ``win + 80 x Bonuses`` they give must equal the computed law
  exactly, under AUTO, the default play and AUTO-RISK, at €0.20.
* **The ladders' seesaw**, which the small file cannot reach, against the rules' own PLAY
  walked to a depth where less than 1e-12 of the mass is still playing, at €0.20 and at €15
  (the Bonus rounding of a failed Sube-Bonos PLAY depends on the bet).
* **Monte Carlo**: the numba kernel (draw for draw the rules, ``test_pinguinos_kernel.py``)
  plays AUTO and the default play on fixed seeds; its histogram of round wins must pass a
  chi-square test at 99% band by band (the bands of ``WinDistribution.bands``) and amount by
  amount, cells pooled to an expected count of at least 10; an amount the law says cannot
  happen must never be seen.  The upper game's rounds are dependent through the machine's
  counter and accumulator, but given the state a round starts in they are independent: its
  test is a chi-square per starting state, against the law given that state.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import chi2
from scipy.stats import t as t_dist

from draw_paths import every_path
from pinguinos_helpers import BW, GAME, SCALE, TOP, UNIT, D, find, game, scripted, shows
from reelforge.engine.distribution import BAND_EDGES, WinDistribution
from reelforge.engine.round import Action, Round
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import distribution as W
from reelforge.games.los_3_pinguinos import kernel as K
from reelforge.games.los_3_pinguinos import strategy as S
from reelforge.games.los_3_pinguinos import upper_distribution as UD
from reelforge.games.los_3_pinguinos import upper_exact as UE
from reelforge.games.los_3_pinguinos import upper_kernel as UK
from reelforge.games.los_3_pinguinos.data_model import LowerData, parse
from reelforge.money import InvalidBet

F = Fraction
VARIANTS = ("95", "90", "80", "70")
SETTINGS = {
    "auto": {"auto_advance": True, "auto_risk": False},
    "auto_risk": {"auto_advance": True, "auto_risk": True},
}


# -- every draw path (as test_pinguinos_math) -------------------------------------------------


def paid(rnd: Round) -> int:
    """What a finished round paid: cents at its bet, a Bonus counted at its cash worth."""
    return rnd.win + BW * rnd.state["bonuses_won"]


def rules_law(
    game_: LosTresPinguinos, starts: list[tuple[Fraction, Round]], play: str
) -> dict[int, Fraction]:
    """The law of a round's pay over every draw path of the rules from ``starts`` (every draw
    path of ``start``), each decision the play's own (``auto_action`` with its settings, or
    the default action).  Pending rounds with the same state are walked once: what follows
    depends on the state alone."""
    memo: dict[str, Counter[int]] = {}

    def law_of(rnd: Round) -> Counter[int]:
        if rnd.complete:
            return Counter({paid(rnd): F(1)})
        light = rnd.model_copy(update={"events": []})
        action = light.default_action() if play == "default" else game_.auto_action(light, SETTINGS[play])
        assert action is not None
        key = json.dumps(rnd.state, sort_keys=True)
        if action.name == "hold":  # the held game: only the held reels' stops carry over
            assert action.choice is not None and paid(rnd) == 0
            held = [s for r, s in enumerate(rnd.state["stops"]) if action.choice >> r & 1]
            key = json.dumps(["hold", action.choice, held])
        if key not in memo:
            out: Counter[int] = Counter()
            for p, after in every_path(lambda rng: game_.act(light, action, rng)):
                for x, q in law_of(after).items():
                    out[x] += p * q
            memo[key] = out
        return memo[key]

    total: Counter[int] = Counter()
    for p, rnd in starts:
        for x, q in law_of(rnd).items():
            total[x] += p * q
    return {x: total[x] for x in sorted(total) if total[x]}


# -- the mean is the exact RTP ----------------------------------------------------------------


@pytest.mark.parametrize("play", ["auto", "default"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_mean_is_the_exact_rtp_of_the_play(variant: str, play: str) -> None:
    wd = GAME.win_distribution(variant, "base", play=play)
    d = GAME.data(variant)
    assert wd.exact_pmf is not None and sum(wd.exact_pmf.values()) == 1
    assert wd.mean().exact == S.values(d, play).rtp_cents / UNIT
    if variant == "95":  # as exact.py reports it (the same values: one variant is enough)
        assert wd.mean().exact == F(GAME.exact(variant)["rtp_by_play_fraction"][play])
    step = math.gcd(20, d.bonus_worth)  # cash prizes are whole 20 cents, a Bonus its worth
    assert all(x >= 0 and x % step == 0 and p > 0 for x, p in wd.exact_pmf.items())
    top, p_top = wd.max_win()
    assert top == SCALE[TOP] == 10_000 and p_top.exact is not None and p_top.exact > 0
    # every line outcome the law was built from adds up, and the no-win figure is theirs
    lines = W.line_law(d, play)
    assert sum(lines.values()) == 1
    assert wd.p_no_win().exact == lines[W.NO_PRIZE]  # under COLLECT only "no prize" pays 0


def test_auto_risk_and_other_bets() -> None:
    """AUTO-RISK's mean at the unit bet is its exact RTP; at €15 the Disco's own table and the
    Bonus rounding move it a little.  AUTO at €1 has the unit bet's mean, not its law: the
    Disco's own table reaches 1,000 bets."""
    d = GAME.data("95")
    risk = S.values(d, "auto_risk").rtp_cents / UNIT
    unit = GAME.win_distribution("95", play="auto_risk")
    big = GAME.win_distribution("95", play="auto_risk", stake=1500)
    assert unit.mean().exact == risk and abs(big.mean().exact - risk) < F(1, 10_000)
    assert big.stake == 1500 and unit.exact_pmf != {x // 75: p for x, p in big.exact_pmf.items()}
    auto = GAME.win_distribution("95")
    five = GAME.win_distribution("95", stake=100)
    assert five.mean().exact == auto.mean().exact
    assert five.exact_pmf != {5 * x: p for x, p in auto.exact_pmf.items()}
    assert auto.max_win()[0] == 500 * UNIT and five.max_win()[0] == 1000 * 100  # €100 / €1,000
    assert unit.max_win()[1].exact > auto.max_win()[1].exact  # ladders climb to the top
    with pytest.raises(InvalidBet):
        GAME.win_distribution("95", stake=30)
    with pytest.raises(InvalidBet):
        GAME.win_distribution("95", play="greedy")
    with pytest.raises(InvalidBet):
        GAME.win_distribution("95", "bonus")


# -- brute force on a small data file ---------------------------------------------------------


def toy_data() -> LowerData:
    """Blank strips but for a few stops (so that every draw path can be walked in seconds),
    coin-flip hold and nudge offers, 1 or 2 nudges alike, a two-penguin Disco of three prizes
    (one entering Sube-Bonos, one paid at once, Bonuses); the ladders flip coins, except
    that above the 3 Bells Sube-Bonos never fails (its seesaw would make the paths endless:
    the real data's seesaw is checked below)."""
    raw = D.model_dump(mode="python")
    raw["game"]["variant"] = "toy"
    raw["symbols"]["BL"] = "Blank"
    blank = " BL" * 10
    raw["strips"] = ["WI CH OR SP ME BE" + blank, "CH BO OR SP ME BL" + blank, "CH OR WI SP BE ME" + blank]
    raw["vertical_lines"] = [[0], [2], [4]]
    raw["hold"] = {"yes": 1, "no": 1}
    raw["nudges"] = {"offer": {"yes": 1, "no": 1}, "count": {1: 1, 2: 1}}
    # €1 has its own Disco table (amounts at €1, the unit table's means per cent staked): a
    # prize into Sube-Bonos, one paid at once, and Bonuses not a multiple of the coin (5)
    raw["disco_game"] = {
        "penguins": 2,
        "prizes": {"C40": 1, "C400": 1, "B2": 1},
        "at_bet": {100: {"C2000": 2, "C200": 2, "B4": 1, "B16": 1}},
    }
    seesaw = SCALE.index(D.ladders.seesaw_above)
    coin = {"up": 1, "fail": 1}
    raw["ladders"]["sube_nada"] = [coin] * TOP
    raw["ladders"]["sube_bonos"] = [coin] * (seesaw + 1) + [{"up": 1, "fail": 0}] * (TOP - seesaw - 1)
    return parse(raw, "toy")


@pytest.fixture(scope="module")
def toy() -> tuple[LosTresPinguinos, dict[int, list[tuple[Fraction, Round]]]]:
    """The small game and every draw path of its ``start`` at €0.20 and at €1 (the same for
    every play: no decision is taken before the first pending step)."""
    game_ = LosTresPinguinos({"toy": toy_data()})
    starts = {
        bet: [
            (p, rnd.model_copy(update={"events": []}))
            for p, rnd in every_path(lambda rng, b=bet: game_.start(b, rng, variant="toy"))
        ]
        for bet in (UNIT, 5 * UNIT)
    }
    assert all(sum(p for p, _ in paths) == 1 for paths in starts.values())
    return game_, starts


@pytest.mark.parametrize("bet", [UNIT, 5 * UNIT])
@pytest.mark.parametrize("play", ["auto", "default", "auto_risk"])
def test_the_law_is_every_draw_path_of_the_rules_on_a_small_file(
    toy: tuple[LosTresPinguinos, dict[int, list[tuple[Fraction, Round]]]], play: str, bet: int
) -> None:
    """At €0.20 and at €1, whose Disco has its own table: the law is what the rules pay over
    every draw path, and at €1 its mean (the Disco's own table has the unit table's means)
    is the unit bet's under the plays that collect."""
    game_, starts = toy
    start = time.perf_counter()
    expected = rules_law(game_, starts[bet], play)
    level = next(b for b in game_.bet_levels("toy") if b.stake == bet)
    wd = game_.win_distribution("toy", play=play, stake=bet)
    assert wd.exact_pmf == expected
    print(f"{play} at {bet}: {len(expected)} amounts, {time.perf_counter() - start:.1f} s")
    coin = level.coin
    assert 0 in expected
    if bet == UNIT:
        assert 400 in expected  # the Disco's €4.00 (paid at once)
    else:
        assert 2000 in expected and 16 * D.bonus_worth in expected  # €1's own €20.00 and 16 Bonuses
    if play == "auto_risk":
        assert SCALE[TOP] * coin in expected  # a ladder climbed to the top
    else:
        unit = game_.win_distribution("toy", play=play)
        assert wd.mean().exact == unit.mean().exact


# -- the seesaw of the real ladders -----------------------------------------------------------


def _ladder_round(kind: str, level: int, bet: int) -> Round:
    """A round waiting in ``kind`` at ``level``, as a stored round would carry it."""
    symbol = "CH" if kind == "sube_bonos" else D.yellow[0]
    rnd = GAME.start(bet, scripted(game(find(shows(symbol, symbol, symbol)))))
    assert rnd.state["ladder"]["kind"] == kind
    rnd.state["ladder"]["level"] = level
    return rnd


@pytest.mark.parametrize("bet", [20, 1500])
@pytest.mark.parametrize("kind", ["sube_bonos", "sube_nada"])
def test_ladder_laws_match_the_rules_play_walked_to_the_end(kind: str, bet: int) -> None:
    """One PLAY at each level over its draw paths (grouped by the level reached, or what it
    paid), then the chain walked until less than 1e-12 is still playing: every amount's
    chance lies between what the walk saw end there and that plus the mass left."""
    coin = bet // UNIT
    steps: dict[int, list[tuple[Fraction, int | None, int]]] = {}
    for level in range(TOP):
        rnd = _ladder_round(kind, level, bet)
        moves: Counter[tuple[int | None, int]] = Counter()
        for p, after in every_path(lambda rng, r=rnd: GAME.act(r, Action(name="play"), rng)):
            if after.complete:
                moves[(None, paid(after))] += p
            else:
                moves[(after.state["ladder"]["level"], 0)] += p
        steps[level] = [(p, to, x) for (to, x), p in moves.items()]
    laws = W.ladder_laws(D, kind, coin)
    assert laws[TOP] == {SCALE[TOP] * coin: 1}
    for start in range(TOP):
        seen: Counter[int] = Counter()
        mass = {start: F(1)}
        while sum(mass.values()) >= F(1, 10**12):
            nxt: Counter[int] = Counter()
            for level, m in mass.items():
                for p, to, x in steps[level]:
                    if to is None:
                        seen[x] += m * p
                    else:
                        nxt[to] += m * p
            mass = dict(nxt)
        left = sum(mass.values(), F(0))
        law = laws[start]
        assert set(seen) == set(law), (start, sorted(seen), sorted(law))
        for x, p in law.items():
            assert seen[x] <= p <= seen[x] + left, (kind, start, x)
        assert sum(law.values()) == 1
        assert sum(x * p for x, p in law.items()) == coin * S.ladder_values(D, kind)[start]


# -- Monte Carlo against the kernel -----------------------------------------------------------


def _pooled_chi2(expected: list[float], observed: list[int], least: float = 10.0) -> tuple[float, int]:
    """Chi-square over cells pooled left to right until each expects ``least``; returns the
    statistic and its degrees of freedom."""
    groups: list[list[float]] = []
    for e, o in zip(expected, observed, strict=True):
        if groups and groups[-1][0] < least:
            groups[-1][0] += e
            groups[-1][1] += o
        else:
            groups.append([e, o])
    if len(groups) > 1 and groups[-1][0] < least:
        e, o = groups.pop()
        groups[-1][0] += e
        groups[-1][1] += o
    stat = sum((o - e) ** 2 / e for e, o in groups)
    return stat, len(groups) - 1


def _band_cells(wd: WinDistribution, counts: np.ndarray) -> tuple[list[float], list[int]]:
    """Each band's exact chance and how many rounds fell in it (the bands' own edges)."""
    stake, n = wd.stake, int(counts.sum())
    edges = [(0, 1)]
    bounds = BAND_EDGES
    edges += [(lo * stake + 1, hi * stake + 1) for lo, hi in pairwise(bounds)]
    edges.append((bounds[-1] * stake + 1, len(counts)))
    probs = [b.probability.value for b in wd.bands()]
    assert len(probs) == len(edges) and abs(sum(probs) - 1) < 1e-12
    observed = [int(counts[a:b].sum()) for a, b in edges]
    assert sum(observed) == n
    return [p * n for p in probs], observed


def _check_histogram(wd: WinDistribution, counts: np.ndarray, label: str) -> None:
    law = wd.exact_pmf
    assert law is not None
    n = int(counts.sum())
    impossible = [x for x in np.flatnonzero(counts) if int(x) not in law]
    assert not impossible, f"{label}: amounts the law says cannot happen: {impossible}"
    for name, (expected, observed) in {
        "bands": _band_cells(wd, counts),
        "amounts": ([float(p) * n for p in law.values()], [int(counts[x]) for x in law]),
    }.items():
        kept = [(e, o) for e, o in zip(expected, observed, strict=True) if e > 0]
        assert all(o == 0 for e, o in zip(expected, observed, strict=True) if e == 0)
        stat, df = _pooled_chi2([e for e, _ in kept], [o for _, o in kept])
        assert df >= 4, (label, name, df)
        # Each check is held at 1% / HIST_CHECKS, so the whole family (every variant and play,
        # bands and amounts) raises a false alarm 1% of the time, not 1% per check.
        # What it can see: one band of probability p off by a relative r (the rest absorbing it)
        # adds n p r**2 / (1 - p) to the noncentrality, caught with 90% power at that level once
        # that is about 31-62 (5-50 df): at 14,000,000 rounds r is at most 0.21% for a cell of
        # p = 50%, 2.1% for p = 1%, 6.7% for p = 0.1%.
        level = 1 - 0.01 / HIST_CHECKS
        assert stat < chi2.ppf(level, df), f"{label} {name}: chi-square {stat:.1f} on {df} df"


MC_ROUNDS = 14_000_000
HIST_CHECKS = len(VARIANTS) * len(K.KERNEL_PLAYS) * 2  # bands and amounts, per variant and play


@pytest.mark.parametrize("play", K.KERNEL_PLAYS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_kernel_histogram_fits_the_law(variant: str, play: str) -> None:
    d = GAME.data(variant)
    seed = np.random.SeedSequence([2026_11, VARIANTS.index(variant), K.KERNEL_PLAYS.index(play)])
    counts = K.win_counts(d, seed, MC_ROUNDS, play)
    assert int(counts.sum()) == MC_ROUNDS
    _check_histogram(GAME.win_distribution(variant, play=play), counts, f"{variant} {play}")


def test_the_default_play_kernel_plays_the_rules() -> None:
    """The kernel's default play against the rules' default actions, round for round (the
    AUTO play's differential test is in test_pinguinos_kernel.py)."""
    d = GAME.data("95")
    seed, rounds = 20261130, 6000  # hold offers come in about 2% of games at 95: over 100 holds
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    rows = K.play_rounds(d, bitgen, rounds, "default")
    from reelforge.rng import SeededRandom

    rng = SeededRandom(seed)
    holds = 0
    for i in range(rounds):
        rnd = GAME.start(UNIT, rng, variant="95")
        while not rnd.complete:
            if rnd.state["phase"] == "hold":
                holds += 1
            rnd = GAME.act(rnd, rnd.default_action(), rng)
        assert rows[i, K.R_WIN] == paid(rnd), i
        assert rows[i, K.R_STOPS] == S.index(tuple(rnd.state["stops"])), i
    assert rng.bit_generator.state == bitgen.state
    assert holds > 100


# -- the upper game ---------------------------------------------------------------------------


def test_the_upper_means_are_the_configured_figures() -> None:
    for variant in VARIANTS:  # (the others share the code; the CLI's figures cover every bet)
        d = GAME.data(variant)
        if variant in ("90", "80"):
            continue
        bets = (0, 3, 5) if variant == "95" else (0,)  # the unit bet, a mixed-sevens table, the top bet
        for i in bets:
            wd = GAME.win_distribution(variant, "upper", stake=d.upper_stakes[i])
            assert wd.exact_pmf is not None and sum(wd.exact_pmf.values()) == 1
            assert wd.mean().exact == UE.bet_figures(d, i).rtp("collect"), (variant, i)
            top = d.upper.bets[i].max_prize
            assert wd.max_win()[0] == 2 * top  # the paid game's maximum and the WINNING SPIN's
            assert max(wd.exact_pmf) == 2 * top
    pi = UD.state_law(GAME.data("95"))
    _, counter = UE.counter_chain(GAME.data("95"))
    acc, _ = UE.accumulator_chain(GAME.data("95"))
    assert sum(pi.values()) == 1
    assert [sum(p for (c, _), p in pi.items() if c == j) for j in range(len(counter))] == counter
    assert [sum(p for (_, k), p in pi.items() if k == j) for j in range(len(acc))] == acc
    with pytest.raises(InvalidBet):
        GAME.win_distribution("95", "upper", play="auto_risk")


BATCHES = 10


@pytest.mark.parametrize("bet", [0, 5])
def test_upper_rounds_fit_the_law_given_their_starting_state(bet: int) -> None:
    d = GAME.data("95")
    rounds = 2_000_000
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence([2026_12, bet]))
    machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    col = {c: UK.COLUMNS.index(c) for c in ("win", "lines", "counter", "accumulator")}
    counts: Counter[tuple[int, int, int]] = Counter()
    starts: Counter[tuple[int, int]] = Counter()
    batches: list[Counter[tuple[int, int]]] = []
    counter, pieces = 0, 0
    for _ in range(BATCHES):
        rows = UK.play_rounds(d, bitgen, rounds // BATCHES, bet, machine=machine)
        batches.append(Counter())
        before_k = np.concatenate([[pieces], rows[:-1, col["accumulator"]]])
        before_c = np.concatenate([[counter], rows[:-1, col["counter"]]])
        assert np.array_equal(rows[:, col["lines"]], np.where(before_c > 0, 8, 5))
        span = 2 * d.upper.bets[bet].max_prize + 1  # one key per (lines, pieces, win)
        code = (rows[:, col["lines"]] * d.upper.accumulator_pieces + before_k) * span + rows[:, col["win"]]
        keys, n = np.unique(code, return_counts=True)
        for key, m in zip(keys.tolist(), n.tolist(), strict=True):
            state, win = divmod(key, span)
            lines, k = divmod(state, d.upper.accumulator_pieces)
            counts[(lines, k, win)] += m
            starts[(lines, k)] += m
            batches[-1][(lines, k)] += m
        counter, pieces = int(rows[-1, col["counter"]]), int(rows[-1, col["accumulator"]])
    stat, df = 0.0, 0
    for (lines, k), n_state in starts.items():
        law = UD.state_round_law(d, bet, lines, k)
        seen = {win for (li, kk, win) in counts if (li, kk) == (lines, k)}
        assert seen <= set(law), f"amounts the law says cannot happen: {seen - set(law)}"
        s, f = _pooled_chi2([float(p) * n_state for p in law.values()], [counts[(lines, k, x)] for x in law])
        stat, df = stat + s, df + f
    assert df > 50
    assert stat < chi2.ppf(0.99, df), f"chi-square {stat:.1f} on {df} df"
    # The states themselves against their stationary law: the rounds of one chain are
    # dependent, so the spread of the batches' frequencies (each batch far longer than the
    # chain takes to forget its start) gives the standard error; a t bound at 99.9%.
    pi = UD.state_law(d)
    bound = t_dist.ppf(0.9995, BATCHES - 1)
    for lines, k in starts:
        p = float(sum((q for (c, kk), q in pi.items() if kk == k and (c > 0) == (lines == 8)), F(0)))
        freq = np.array([b[(lines, k)] / (rounds // BATCHES) for b in batches])
        se = freq.std(ddof=1) / BATCHES**0.5
        assert abs(freq.mean() - p) < bound * se, (lines, k, freq.mean(), p, se)


# -- the doc page -----------------------------------------------------------------------------

DOC = Path(__file__).parent.parent / "docs" / "games" / "los-3-pinguinos.md"
PLAY_LABEL = {"auto": "AUTO", "default": "default", "auto_risk": "AUTO-RISK"}


def _pc(p: Fraction) -> str:
    """A chance as the doc writes it: a percentage, or ``1 in N`` below 0.01%, or 0."""
    if p == 0:
        return "0"
    return f"{float(p):.4%}" if p >= F(1, 10_000) else f"1 in {float(1 / p):,.0f}"


def lower_row(game_: LosTresPinguinos, variant: str, play: str) -> str:
    wd = game_.win_distribution(variant, play=play)
    top, p = wd.max_win()
    e = p.exact
    assert e is not None and wd.mean().exact is not None and wd.p_no_win().exact is not None
    return (
        f"| {variant} | {PLAY_LABEL[play]} | {float(wd.mean().exact):.4%} | {wd.sd().value:.3f} | "
        f"{float(wd.p_no_win().exact):.4%} | €{top / 100:,.2f} ({top // wd.stake}×) | "
        f"{e.numerator} / {e.denominator} | 1 in {float(1 / e):,.1f} |"
    )


def band_row(game_: LosTresPinguinos, variant: str, play: str) -> str:
    wd = game_.win_distribution(variant, play=play)
    cells = []
    for b in wd.bands():
        assert b.probability.exact is not None
        cells.append(_pc(b.probability.exact))
    return f"| {variant} | {PLAY_LABEL[play]} | " + " | ".join(cells) + " |"


def upper_row(game_: LosTresPinguinos, variant: str, stake: int) -> str:
    d = game_.data(variant)
    bet = d.upper.bets[d.upper_stakes.index(stake)]
    wd = game_.win_distribution(variant, "upper", stake=stake)
    assert wd.exact_pmf is not None and wd.mean().exact is not None
    at_least = sum((p for x, p in wd.exact_pmf.items() if x >= bet.max_prize), F(0))
    top, p = wd.max_win()
    assert p.exact is not None
    name = f"€{bet.cash / 100:,.2f} + {bet.bonuses} Bonus" + ("" if bet.bonuses == 1 else "es")
    return (
        f"| {variant} | {name} | {float(wd.mean().exact):.4%} | {wd.sd().value:.3f} | "
        f"{float(wd.p_no_win().exact):.4%} | {float(wd.p_at_most_stake().exact):.4%} | "
        f"€{bet.max_prize / 100:,.2f}: 1 in {float(1 / at_least):,.1f} | "
        f"€{top / 100:,.2f} ({top / stake:,.1f}×): 1 in {float(1 / p.exact):,.0f} |"
    )


def test_the_doc_page_gives_these_figures() -> None:
    """The Win distribution tables hold the figures computed here: every lower-game row, and
    the upper rows this file computes anyway (the others come from the same functions)."""
    text = DOC.read_text()
    for variant in VARIANTS:
        for play in PLAY_LABEL:
            assert lower_row(GAME, variant, play) in text, (variant, play)
            assert band_row(GAME, variant, play) in text, (variant, play)
    for variant, bets in (("95", (0, 3, 5)), ("70", (0,))):
        for i in bets:
            row = upper_row(GAME, variant, GAME.data(variant).upper_stakes[i])
            assert row in text, row
