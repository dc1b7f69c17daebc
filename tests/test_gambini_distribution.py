"""Ghost of Gambini's win distributions, checked against what does not share their code.

The bought features' exact laws: against the exact RTP of exact.py, the max-win odds of
odds.py, every draw path of the rules on a toy data file with a 3-position board, and a
fixed-seed Monte Carlo of the numba kernel (differential-tested against the rules) band by
band.  The base game's exact moments and max-win bracket: against every draw path of the
rules' base spin on small strips and of whole base rounds on a toy game."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy.stats import chi2

from draw_paths import every_path
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.round import Action, Round
from reelforge.games.ghost_of_gambini import GhostOfGambini, exact_feature, lock_spin, rules
from reelforge.games.ghost_of_gambini import kernel as K
from reelforge.games.ghost_of_gambini.base_moments import RoundMoments, round_moments, spin_moments
from reelforge.games.ghost_of_gambini.cap_odds import base_cap_odds, max_spin_credits, row_line_law
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS, GambiniData, parse
from reelforge.games.ghost_of_gambini.distribution import base_figures
from reelforge.games.ghost_of_gambini.exact import base_result
from reelforge.games.ghost_of_gambini.exact_piggies import piggy_chain
from reelforge.games.ghost_of_gambini.feature_law import feature_law
from reelforge.games.ghost_of_gambini.odds import _at_least, grands_needed
from reelforge.games.ghost_of_gambini.panel import spin_panel
from reelforge.games.ghost_of_gambini.volatility import BaseVolatility
from reelforge.money import InvalidBet

F = Fraction
BUY = ("buy-lock-spin", "buy-super-lock-spin")


@pytest.fixture(scope="module")
def game() -> GhostOfGambini:
    return GhostOfGambini()


@pytest.fixture(scope="module")
def data(game: GhostOfGambini) -> GambiniData:
    return game.data()


@pytest.fixture(scope="module")
def laws(game: GhostOfGambini) -> dict[str, WinDistribution]:
    return {mode: game.win_distribution(mode=mode) for mode in BUY}


# -- against the exact RTP and the max-win odds ------------------------------------------------


@pytest.mark.parametrize("mode", BUY)
def test_the_mean_is_the_exact_rtp_less_what_the_cap_takes(
    game: GhostOfGambini, laws: dict[str, WinDistribution], mode: str
) -> None:
    wd = laws[mode]
    assert wd.exact_pmf is not None and wd.stake == game.data().price_credits(mode)
    assert sum(wd.exact_pmf.values()) == 1
    exact = F(game.exact(mode=mode)["rtp_fraction"])
    assert F(wd.details["rtp_uncapped"]["fraction"]) == exact  # exact.py's RTP, to the last digit
    mean = wd.mean().exact
    assert mean is not None
    taken = F(wd.details["cap_effect"]["fraction"])
    assert mean == exact - taken
    assert 0 < taken < F(1, 10**20)  # the cap binds, far below any printed digit


@pytest.mark.parametrize("mode", BUY)
def test_the_max_win_odds_are_those_of_odds_py(
    data: GambiniData, laws: dict[str, WinDistribution], mode: str
) -> None:
    """odds.py counts boards with at least ``grands_needed`` GRAND pots by another route;
    with the shipped data that is exactly the event of reaching the cap."""
    assert grands_needed(data, 0) * data.prize_credits("GRAND") == data.max_win_credits
    top, p = laws[mode].max_win()
    assert top == data.max_win_credits
    super_ = mode == "buy-super-lock-spin"
    f = data.super_lock_spin if super_ else data.lock_spin
    boards = exact_feature.feature_result(data, super_, data.buy.spins).final_boards
    assert p.exact == _at_least(boards, f.frames, "GRAND", grands_needed(data, 0)) > 0
    # below the cap the largest amount is nine GRANDs and six MAJORs
    below = max(x for x in laws[mode].exact_pmf or {} if x < top)
    assert below == 9 * data.prize_credits("GRAND") + 6 * data.prize_credits("MAJOR")


@pytest.mark.parametrize("mode", BUY)
def test_bands_and_figures_add_up(laws: dict[str, WinDistribution], mode: str) -> None:
    wd = laws[mode]
    bands = wd.bands()
    assert sum((b.probability.exact or F(0) for b in bands), F(0)) == 1
    assert wd.p_no_win().exact == 0  # every frame pays
    sd = wd.sd().value
    m1 = wd.mean().value
    pmf = wd.exact_pmf or {}
    second = sum(float(p) * (x / wd.stake) ** 2 for x, p in pmf.items())
    assert sd == pytest.approx(math.sqrt(second - m1**2), rel=1e-9)
    assert wd.details["sd_bets"] == pytest.approx(sd * wd.stake / 40, rel=1e-12)
    json.dumps(wd.as_dict())  # what --json prints


def test_the_game_offers_it_for_the_buys_only(game: GhostOfGambini) -> None:
    wd = game.win_distribution(mode="buy-super-lock-spin")
    assert (wd.game, wd.mode, wd.cap) == ("ghost-of-gambini", "buy-super-lock-spin", 400_000)
    with pytest.raises(NotImplementedError, match="jackpot rewind"):
        game.win_distribution(mode="base")
    with pytest.raises(InvalidBet):
        game.win_distribution(mode="free-spins")


# -- every draw path of the rules, on a toy game ----------------------------------------------


def rules_law(
    game: GhostOfGambini, mode: str, player_state: dict[str, Any] | None = None
) -> dict[int, Fraction]:
    """The law of a round's credits, from every draw path of the rules' ``start`` and of each
    ``spin`` action.  Rounds left in the same state (board, counter, spins played, credits)
    after a step are merged before the next: what the rules draw next depends on the round's
    state alone.  Every step adds one to the spins played, so the rounds of one step are all
    gathered before any of them moves on."""
    spin = Action(name="spin")
    final: dict[int, Fraction] = defaultdict(F)

    def gather(paths: Iterator[tuple[Fraction, Round]], into: dict[str, tuple[Fraction, Round]]) -> None:
        for p, rnd in paths:
            if rnd.complete:
                final[rnd.state["credits"]] += p
                continue
            key = json.dumps(rnd.state, sort_keys=True)
            q, _ = into.get(key, (F(0), rnd))
            # the rules never read past events: dropping them keeps each step's copy small
            into[key] = (q + p, rnd.model_copy(update={"events": []}))

    level: dict[str, tuple[Fraction, Round]] = {}
    gather(every_path(lambda rng: game.start(40, rng, mode=mode, player_state=player_state)), level)

    def step(rnd: Round, rng: Any) -> Round:
        """``act``'s step on a light copy: ``act`` checks the action and deep-copies the whole
        round, then calls ``advance``; here the state alone is copied (and the events, which
        the rules never read, are left behind)."""
        rnd.allowed(spin)
        r = rnd.model_copy(update={"state": json.loads(json.dumps(rnd.state)), "events": []})
        game.advance(game.data(r.variant), r, rng)
        return r

    while level:
        nxt: dict[str, tuple[Fraction, Round]] = {}
        for p, rnd in level.values():
            paths = every_path(lambda rng, r=rnd: step(r, rng))
            gather(((p * q, after) for q, after in paths), nxt)
        level = nxt
    return dict(final)


TOY_POSITIONS = 3  # the board's size: a module constant of the rules and the chain
TOY_LOCK_SPIN = {
    "start_ghosts": {1: 1, 2: 1},
    "ghosts_per_spin": {0: 1, 1: 1},
    "colours": {"white": 1, "gold": 1},
    "frames": {
        "bronze": {"C1": 1, "MINI": 1},
        "silver": {"C3": 1, "MINOR": 1},
        "gold": {"C5": 1, "GRAND": 1},
    },
}
TOY_SUPER = {
    "start_ghosts": {1: 2, 2: 1},
    "ghosts_per_spin": {0: 1, 1: 1, 2: 1},
    "colours": {"white": 0, "gold": 1},
    "frames": {"gold": {"MINI": 1, "MAJOR": 1, "GRAND": 1}},
}


@pytest.fixture
def toy(data: GambiniData, monkeypatch: pytest.MonkeyPatch) -> GhostOfGambini:
    """Three positions, two spins, two-way tables, and a cap (1,500 bets) below two GRANDs."""
    for module in (rules, lock_spin, exact_feature):
        monkeypatch.setattr(module, "N_POS", TOY_POSITIONS)
    raw = data.model_dump(mode="python")
    raw["game"]["max_win"] = 1500
    raw["buy"]["spins"] = 2
    raw["lock_spin"] = TOY_LOCK_SPIN
    raw["super_lock_spin"] = TOY_SUPER
    d = parse(raw, "toy")
    return GhostOfGambini({d.game.variant: d})


@pytest.mark.parametrize("mode", BUY)
def test_the_law_is_every_draw_path_of_the_rules_on_a_toy_game(toy: GhostOfGambini, mode: str) -> None:
    d = toy.data()
    brute = rules_law(toy, mode)
    assert sum(brute.values()) == 1
    wd = toy.win_distribution(mode=mode)
    assert wd.exact_pmf == brute
    cap = d.max_win_credits
    assert 0 < brute[cap] < 1 and len(brute) > 5  # the cap binds, and below it many amounts
    law = feature_law(d, mode == "buy-super-lock-spin", d.buy.spins)
    assert law.mean_uncapped() == exact_feature.feature_result(d, mode == "buy-super-lock-spin", 2).value


# -- Monte Carlo, band by band ----------------------------------------------------------------

MC_ROUNDS = 2_000_000
MIN_EXPECTED = 5.0  # bands expected fewer times than this are pooled with the band below


def _observed(data: GambiniData, mode: str, seed: int, rounds: int) -> np.ndarray:
    """Each round's win in credits, by the kernel (the rules' play, stopping at the cap)."""
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    wins = [K.play_rounds(data, bitgen, rounds // 8, mode)[:, K.R_WIN] for _ in range(8)]
    return np.concatenate(wins)


def _chi_square(expected: list[float], observed: list[int]) -> tuple[float, int]:
    """Pool low-expectation cells into their lower neighbour; (statistic, degrees of freedom)."""
    e_cells: list[float] = []
    o_cells: list[int] = []
    for e, o in zip(expected, observed, strict=True):
        if e_cells and (e < MIN_EXPECTED or e_cells[-1] < MIN_EXPECTED):
            e_cells[-1] += e
            o_cells[-1] += o
        else:
            e_cells.append(e)
            o_cells.append(o)
    if e_cells[-1] < MIN_EXPECTED and len(e_cells) > 1:
        e_cells[-2] += e_cells.pop()
        o_cells[-2] += o_cells.pop()
    stat = sum((o - e) ** 2 / e for e, o in zip(e_cells, o_cells, strict=True) if e > 0)
    return stat, len(e_cells) - 1


@pytest.mark.parametrize("mode", BUY)
def test_a_fixed_seed_monte_carlo_fits_the_bands_at_99_percent(
    data: GambiniData, laws: dict[str, WinDistribution], mode: str
) -> None:
    wd = laws[mode]
    wins = _observed(data, mode, 20250613 + BUY.index(mode), MC_ROUNDS)
    stake = wd.stake
    expected, observed = [], []
    for band in wd.bands():
        expected.append(band.probability.value * MC_ROUNDS)
        if band.low_x is None:  # no win
            observed.append(int((wins == 0).sum()))
        elif band.low_x == band.high_x:  # the cap
            observed.append(int((wins >= wd.cap).sum()))
        else:
            lo = band.low_x * stake
            hi = band.high_x * stake if band.high_x is not None else math.inf
            inside = (wins > lo) & (wins <= hi) & (wins < (wd.cap or math.inf))
            observed.append(int(inside.sum()))
    assert sum(observed) == MC_ROUNDS
    stat, df = _chi_square(expected, observed)
    assert df >= 2, (expected, observed)
    # What it can see: one band of probability p off by a relative r (the rest absorbing it)
    # adds n p r**2 / (1 - p) to the noncentrality, caught with 90% power at 99% once that is
    # about 25 (8 df): at 2,000,000 rounds r = 0.54% for a band of p = 30%, 3.5% for p = 1%.
    assert stat < chi2.ppf(0.99, df), (stat, df, expected, observed)


@pytest.mark.parametrize("mode", BUY)
def test_a_fixed_seed_monte_carlo_fits_twenty_equal_cells_at_99_percent(
    data: GambiniData, laws: dict[str, WinDistribution], mode: str
) -> None:
    """Finer than the bands: cells of the win cut where the exact law's CDF crosses k/20."""
    wd = laws[mode]
    pmf = sorted((wd.exact_pmf or {}).items())
    edges: list[int] = []  # a cell is (previous edge, edge]
    acc = F(0)
    k = 1
    for x, p in pmf:
        acc += p
        if acc >= F(k, 20):
            edges.append(x)
            while acc >= F(k, 20):
                k += 1
    probs = []
    prev = F(0)
    cdf = dict.fromkeys(edges, F(0))
    run = F(0)
    for x, p in pmf:
        run += p
        if x in cdf:
            cdf[x] = run
    for x in edges:
        probs.append(cdf[x] - prev)
        prev = cdf[x]
    wins = _observed(data, mode, 777 + BUY.index(mode), MC_ROUNDS)
    counts = np.searchsorted(np.array(edges), wins, side="left")
    observed = np.bincount(counts, minlength=len(edges))[: len(edges)].tolist()
    stat, df = _chi_square([float(q) * MC_ROUNDS for q in probs], observed)
    assert df >= 10
    # What it can see (90% power at 99%, noncentrality about 34 at 19 df): one cell of
    # probability 1/20 off by 1.8% of itself at 2,000,000 rounds.
    assert stat < chi2.ppf(0.99, df), (stat, df)


# -- the base game: exact moments and the max-win odds ---------------------------------------


def _small(data: GambiniData, strips: dict[int, str], **changes: Any) -> GambiniData:
    """The shipped data with 1-3 stop strips ("MINI" where not given) and two-way tables (as
    test_gambini_math.small_data)."""
    raw = data.model_dump(mode="python")
    raw["strips"] = [strips.get(p, "MINI") for p in range(N_POS)]
    raw["magic_shot"] = {"none": 2, "gambini": 1, "ghost": 1}
    raw["magic_rewind"] = {"center": {"fire": 1, "skip": 1}, "jackpot": {"fire": 1, "skip": 1}}
    raw["ghost_coins"] = {"count": {1: 1}, "prizes": {"C1": 1}}
    raw.update(changes)
    return parse(raw, "small")


def _spin_paths(d: GambiniData) -> dict[str, Any]:
    """Every draw path of the rules' base spin: E[X], E[X^2], E[X; wild], the per-row lines."""
    out: dict[str, Any] = {
        "m1": F(0),
        "m2": F(0),
        "by": defaultdict(F),
        "rows": [defaultdict(F) for _ in range(3)],
    }
    p_wild = F(0)
    for p, spin in every_path(lambda rng: spin_panel(d, rng)):  # type: ignore[arg-type, return-value]
        x = spin.credits
        out["m1"] += p * x
        out["m2"] += p * x * x
        if spin.wild_in_center:
            out["by"][spin.wild_in_center] += p * x
            p_wild += p
            per_row = [0, 0, 0]
            for win in spin.event["lines"]:
                per_row[d.lines[win["line"]][0]] += win["credits"]
            for r in range(3):
                out["rows"][r][per_row[r]] += p
    out["rows"] = [{x: q / p_wild for x, q in row.items()} for row in out["rows"]]
    return out


@pytest.mark.parametrize(
    ("strips", "ghost"),
    [
        # lines up to 5 x A on line 1, blanks on and off it for the jackpot rewind, coins
        (
            {1: "A BL MINI", 4: "A MINOR", CENTER: "A GB GG", 10: "A MINI", 12: "BL MINI", 13: "A BL MINOR"},
            None,
        ),
        # the ghost's coins: one or two, of two values
        (
            {4: "A MINOR", CENTER: "A GB GG", 13: "BL MINI"},
            {"count": {1: 1, 2: 1}, "prizes": {"C05": 1, "C1": 1}},
        ),
    ],
)
def test_spin_moments_are_every_draw_path_of_the_panel(
    data: GambiniData, strips: dict[int, str], ghost: dict[str, Any] | None
) -> None:
    d = _small(data, strips, **({"ghost_coins": ghost} if ghost else {}))
    brute = _spin_paths(d)
    sm = spin_moments(d)
    assert (sm.mean, sm.second) == (brute["m1"], brute["m2"])
    assert sm.by_wild == dict(brute["by"])
    assert sm.mean == base_result(d).spin_credits  # exact.py's expectation, another route
    for r in range(3):
        law = {x: q for x, q in row_line_law(d, r).items() if q}
        assert law == {x: q for x, q in brute["rows"][r].items() if q}, r


def _toy_round(data: GambiniData, max_win: int) -> GhostOfGambini:
    """A center of three stops, fixed outer positions, two-size piggies that pop half the
    time they are tossed into, and the toy features (used with a 3-position board)."""
    raw = _small(data, {CENTER: "A GB GG"}).model_dump(mode="python")
    raw["game"]["max_win"] = max_win
    raw["piggies"] = {
        "gambini_toss": {"left": 1, "right": 1, "both": 1},
        "sizes": [{"grow": 1, "stay": 1}, {"grow": 1, "stay": 1}],
    }
    raw["lock_spin"] = TOY_LOCK_SPIN
    raw["super_lock_spin"] = TOY_SUPER
    d = parse(raw, "toy round")
    return GhostOfGambini({d.game.variant: d})


@pytest.fixture
def small_board(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (rules, lock_spin, exact_feature):
        monkeypatch.setattr(module, "N_POS", TOY_POSITIONS)


@pytest.mark.usefixtures("small_board")
def test_round_moments_are_every_draw_path_of_the_rules(data: GambiniData) -> None:
    """A base round from piggies (1, 1): the spin, the toss, a popped feature (3 or 4 spins,
    Lock & Spin or Super) to its end; the cap (10,000 bets) out of reach."""
    game = _toy_round(data, 10_000)
    law = rules_law(game, "base", {"piggies": [1, 1]})
    rm = round_moments(game.data())["by_state"][(1, 1)]
    assert sum(p * x for x, p in law.items()) == rm.mean
    assert sum(p * x * x for x, p in law.items()) == rm.second


@pytest.mark.usefixtures("small_board")
def test_the_base_cap_odds_bracket_every_draw_path_of_the_rules(data: GambiniData) -> None:
    game = _toy_round(data, 1100)  # a GRAND and a little more
    d = game.data()
    law = rules_law(game, "base", {"piggies": [1, 1]})
    lo, hi = base_cap_odds(d).by_state[(1, 1)]
    assert 0 < lo <= law[d.max_win_credits] <= hi < 1
    assert max_spin_credits(d) < d.max_win_credits


def test_the_tuners_volatility_is_the_full_calculators(data: GambiniData) -> None:
    """The tuner's model (the sums over lines and blanks of the source, a candidate's coins,
    ghost prizes and frames put back in) against round_moments on the changed file."""
    model = BaseVolatility(data)
    strips = list(data.strips)
    p = next(p for p in range(N_POS) if p != CENTER and "C05" in strips[p])
    strips[p] = tuple("C10" if i == strips[p].index("C05") else s for i, s in enumerate(strips[p]))
    ghost = {**data.ghost_coins.prizes}
    cheap = next(k for k in ghost if k != "MINI" and ghost[k] > 5)
    ghost[cheap] -= 5
    ghost[next(k for k in ghost if k not in ("MINI", cheap))] += 5
    gold = {**data.super_lock_spin.frames.gold}
    src, dst = (k for k in gold if k not in ("MAJOR", "GRAND"))
    gold[src], gold[dst] = gold[src] - 1, gold[dst] + 1
    frames = {**data.super_lock_spin.frames.model_dump(), "gold": gold}
    changed = data.model_copy(
        update={
            "strips": strips,
            "ghost_coins": {**data.ghost_coins.model_dump(), "prizes": ghost},
            "super_lock_spin": {**data.super_lock_spin.model_dump(), "frames": frames},
        }
    )
    v = model.values(data)
    v = model.with_strip(data, v, p, strips[p])
    v = model.with_ghost(data, v, ghost)
    v = model.with_frames(data, v, "super_lock_spin", "gold", gold)
    m = round_moments(changed)["stationary"]
    assert isinstance(m, RoundMoments)
    bet = data.game.base_credits
    assert model.variance(v) == (m.second - m.mean**2) / bet**2
    assert model.variance(model.values(changed)) == model.variance(v)
    assert model.variance(model.values(data)) != model.variance(v)
    with pytest.raises(ValueError, match="more than coins and weight tables"):
        model.values(data.model_copy(update={"magic_shot": {"none": 1, "gambini": 1, "ghost": 1}}))


def test_the_base_figures_on_the_shipped_data(data: GambiniData) -> None:
    figures = base_figures(data)
    rm = round_moments(data)
    r = base_result(data)
    chain = piggy_chain(data)
    assert rm["stationary"].mean == r.rtp * data.game.base_credits  # exact.py's RTP, another route
    for s, m in rm["by_state"].items():  # the next round's return from each piggy state
        assert m.mean == r.spin_credits + chain.feature_credits[s]
    lo, hi = figures["volatility_index"]["low"], figures["volatility_index"]["high"]
    assert 12.0 < lo <= hi < lo * (1 + 1e-9)  # the simulated 12.733 (1e8 rounds) is near
    odds = base_cap_odds(data)
    assert odds.relative_width() < 1e-5
    # the lower end is the features' own odds (as odds.py counts GRANDs, for the Super kinds)
    for kind in ("super_lock_spin_3", "super_lock_spin_4"):
        boards = exact_feature.feature_result(data, True, int(kind[-1])).final_boards
        ten = _at_least(boards, data.super_lock_spin.frames, "GRAND", grands_needed(data, 0))
        assert odds.by_kind[kind][0] == ten
    assert figures["max_win"]["one_in_low"] <= figures["max_win"]["one_in_high"]
    json.dumps(figures)


def test_the_doc_page_states_these_figures(data: GambiniData, laws: dict[str, WinDistribution]) -> None:
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "games" / "ghost-of-gambini.md").read_text()
    lock, sup = (laws[m] for m in BUY)
    assert f"| **{lock.sd().value:.5f}** | **{sup.sd().value:.5f}** |" in text
    odds = [f"1 in {1 / wd.max_win()[1].value:.4e}" for wd in (lock, sup)]
    assert f"| **{odds[0]}** | **{odds[1]}** |" in text
    figures = base_figures(data)
    lo, hi = figures["max_win"]["one_in_low"], figures["max_win"]["one_in_high"]
    assert f"{lo:.5e}" == f"{hi:.5e}"
    assert f"| **stationary** | **{figures['volatility_index']['value']:.6f}** | **1 in {lo:.5e}** |" in text
    row = f"| {data.game.variant} | {figures['volatility_index']['value']:.6f} | 1 in {lo:.5e} | "
    assert row + f"{lock.sd().value:.5f} | {sup.sd().value:.5f} | {odds[0]} / {odds[1]} |" in text
