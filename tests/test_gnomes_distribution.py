"""Reign of Gnomes' exact win distribution, checked against what does not share its code:
every draw path of the rules on a toy game, every window through ``spin_reels``, the exact
RTP of ``exact.py``, closed forms and exact integer convolutions for the interval arithmetic,
and fixed-seed Monte Carlo runs of the numba kernel, band by band (chi-square at 99%)."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pytest
from scipy.stats import chi2
from typer.testing import CliRunner

from draw_paths import draw_paths
from reelforge.cli import app
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.exact import ways_expectation, ways_hit_and_scatter
from reelforge.engine.pmf_bounds import PmfBounds
from reelforge.engine.reels import ReelSet
from reelforge.engine.round import Round
from reelforge.games import registry
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes.base_moments import fast_moments, spin_parts
from reelforge.games.reign_of_gnomes.data_model import (
    GameInfo,
    GnomesData,
    IceDiamonds,
    IceLevel,
    RandomWildSet,
    Reels,
    WheelSegment,
)
from reelforge.games.reign_of_gnomes.data_model import load as load_gnomes
from reelforge.games.reign_of_gnomes.distribution import exact_moments, law_parts, win_distribution
from reelforge.games.reign_of_gnomes.exact import exact_rtp
from reelforge.games.reign_of_gnomes.kernel import R_WIN, play_rounds
from reelforge.games.reign_of_gnomes.rules import DATA_DIR
from reelforge.games.reign_of_gnomes.spin_law import spin_laws
from reelforge.rng import ScriptedRandom, SeededRandom

F = Fraction


# -- a toy game whose every draw path can be walked ------------------------------------------


def _strips(*rows: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(r.split()) for r in rows)


def toy_data(max_win: int = 20) -> GnomesData:
    """Every feature of the game on strips of 1-4 stops (a 1-stop strip shows its symbol in all
    three rows), a stake of 1 credit and a 20x cap that a fifth of the rounds reach.  Built
    past the schema, which asks for 3+ stops per strip: with 3 stops a spin alone has 243
    draw paths and a Spin To Win free spin tens of thousands, too many to walk."""
    return GnomesData.model_construct(
        game=GameInfo.model_construct(
            id="reign-of-gnomes",
            name="toy",
            version="0",
            variant="toy",
            currency="GBP",
            base_credits=1,
            coins=(1,),
            max_win=max_win,
        ),
        symbols={"A": "A", "B": "B", "C": "C", "WI": "wild", "EG": "egg"},
        wild="WI",
        scatter="EG",
        ways_pays={"A": {3: 1, 4: 2, 5: 3}, "B": {3: 1, 5: 4}, "C": {3: 2, 4: 3, 5: 5}},  # B: no 4
        scatter_pays={4: 1, 5: 2},
        free_spins={4: 1, 5: 3},  # a base game may start 1 or 3 spins: powers and Horner's rule
        wheel=(
            WheelSegment.model_construct(award="multiplier", multiplier=2, weight=1),
            WheelSegment.model_construct(award="multiplier", multiplier=3, weight=1),
            WheelSegment.model_construct(award="spin_to_win", multiplier=None, weight=1),
            WheelSegment.model_construct(award="random_wilds", multiplier=None, weight=1),
            WheelSegment.model_construct(award="ice_diamonds", multiplier=None, weight=1),
        ),
        ice_diamonds=IceDiamonds.model_construct(
            stones=2,
            diamonds=1,
            empties_to_end=1,
            levels=(
                IceLevel.model_construct(min_diamonds=0, award=1),
                IceLevel.model_construct(min_diamonds=1, award=3),
            ),
        ),
        base_reels=Reels.model_construct(strips=_strips("EG A A A", "WI EG", "A C C C", "B EG", "A")),
        free_reels=Reels.model_construct(strips=_strips("A C", "WI EG", "B", "EG B", "A")),
        # one stop of four loses: the multiplier grows by one with probability 1/4 per game
        spin_to_win_reels=Reels.model_construct(strips=_strips("A C C C", "A", "A", "B", "A")),
        random_wild_sets=(
            RandomWildSet.model_construct(strips=_strips("WI EG", "WI", "EG WI")),
            RandomWildSet.model_construct(strips=_strips("WI WI", "B", "EG B")),
        ),
    )


@pytest.fixture(scope="module")
def toy() -> GnomesData:
    return toy_data()


def _key(rnd: Round) -> tuple[Any, ...]:
    """What decides a pending round's future: its win so far, spins left, phase and picks."""
    st = rnd.state
    ice = st.get("ice", {})
    return (
        st["credits"],
        st["free_spins_left"],
        st["phase"],
        tuple(st.get("_ice_layout", ())),
        tuple(ice.get("picked", ())),
    )


def brute_force(d: GnomesData, floor: Fraction) -> tuple[dict[int, Fraction], Fraction]:
    """The law of a round's win by playing the rules on every draw path (the default play),
    rounds in the same state merged; and the mass cut (paths and states below ``floor``)."""
    game = ReignOfGnomes({d.game.variant: d})
    final: Counter[int] = Counter()
    lost = F(0)
    pending: dict[tuple[Any, ...], tuple[Fraction, Round]] = {}

    def settle(
        prob: Fraction, rnd: Round | None, into: dict[tuple[Any, ...], tuple[Fraction, Round]]
    ) -> None:
        nonlocal lost
        if rnd is None:
            lost += prob
        elif rnd.complete:
            final[rnd.state["credits"]] += prob
        else:
            rnd.events = []  # the future does not read them; copies stay cheap
            k = _key(rnd)
            into[k] = (into.get(k, (F(0), rnd))[0] + prob, rnd)

    for prob, _, rnd in draw_paths(lambda rng: game.start(1, rng), floor=floor, skip_single=True):
        settle(prob, rnd, pending)
    while pending:
        nxt: dict[tuple[Any, ...], tuple[Fraction, Round]] = {}
        for prob, rnd in pending.values():
            action = rnd.default_action()
            paths = draw_paths(
                lambda rng, r=rnd, a=action: game.act(r, a, rng), floor=floor / prob, skip_single=True
            )
            for q, _, after in paths:
                settle(prob * q, after, nxt)
        pending = {}
        for k, (prob, rnd) in nxt.items():
            if prob < floor:
                lost += prob
            else:
                pending[k] = (prob, rnd)
    return dict(final), lost


def test_distribution_matches_every_draw_path_of_the_rules(toy: GnomesData) -> None:
    brute, lost = brute_force(toy, F(1, 10**10))
    assert 0 < lost < 1e-6  # the Spin To Win and retrigger chains never end: cut, and measured
    assert sum(brute.values()) + lost == 1
    dist = win_distribution(toy)
    b = dist.bounds
    assert b is not None and b.cap == 20
    for x in range(b.cap + 1):
        p = float(brute.get(x, 0))
        assert b.lo[x] - float(lost) - 1e-15 <= p <= b.hi[x] + b.unplaced + 1e-15, x
    # every feature and the cap show in the toy's law
    assert brute[0] > 0.05 and brute[20] > 0.1 and len(brute) == 21
    assert dist.p_no_win().low <= float(brute[0]) <= dist.p_no_win().high
    top, p_top = dist.max_win()
    assert top == 20 and p_top.low - float(lost) <= float(brute[20]) <= p_top.high


def test_exact_moments_give_the_exact_rtp_by_another_route(toy: GnomesData, gnomes_data: GnomesData) -> None:
    for d in (toy, gnomes_data):
        m = exact_moments(d)
        assert m.mean / d.game.base_credits == exact_rtp(d).rtp
        assert m.variance > 0


@pytest.mark.parametrize("variant", ["toy", "95.97", "94.00", "92.00"])
def test_reel_tables_give_the_enumerated_laws_moments(variant: str) -> None:
    """The tuner's route to the volatility (every reel's windows, no enumeration of the reel
    set) against the laws counted over every stop combination: equal as fractions, each
    reel set's moments and the round's."""
    d = toy_data() if variant == "toy" else load_gnomes(DATA_DIR / f"rtp-{variant.replace('.', '')}.toml")
    for reels, law in zip(_reel_sets(d), spin_laws(d), strict=True):
        assert spin_parts(d, reels) == law_parts(d, law)
    fast, full = fast_moments(d), exact_moments(d)
    assert (fast.mean, fast.second) == (full.mean, full.second)
    assert fast.mean == exact_rtp(d).rtp * d.game.base_credits


# -- one spin of a reel set ------------------------------------------------------------------


def _reel_sets(d: GnomesData) -> list[ReelSet]:
    return [d.base, d.free, d.spin_to_win, *d.random_wild_reels]


def test_spin_laws_match_every_window_through_the_rules(toy: GnomesData) -> None:
    game = ReignOfGnomes({"toy": toy})
    for reels, law in zip(_reel_sets(toy), spin_laws(toy), strict=True):
        counts: Counter[tuple[int, int]] = Counter()
        for stops in itertools.product(*(range(len(s)) for s in reels.strips)):
            spin = game.spin_reels(toy, reels, ScriptedRandom(list(stops), SeededRandom(0)), kind="x")
            counts[(spin.scatters, spin.ways_credits)] += 1
        assert {(k, w): n for k, w, n in law.cells()} == dict(counts)
        assert law.total == math.prod(len(s) for s in reels.strips)


def test_spin_laws_of_the_real_reels_match_the_exact_calculator(gnomes_data: GnomesData) -> None:
    """Means and hit/scatter joints from exact.py's factorised formulas, not from windows."""
    d = gnomes_data
    for reels, law in zip(_reel_sets(d), spin_laws(d), strict=True):
        mean = sum((F(n * w, law.total) for _, w, n in law.cells()), F(0))
        assert mean == ways_expectation(reels, d.ways_pays, d.wild)
        joint: Counter[tuple[bool, int]] = Counter()
        for k, w, n in law.cells():
            joint[(w > 0, k)] += n
        expected = ways_hit_and_scatter(reels, d.ways_pays, d.wild, d.scatter)
        assert {key: F(n, law.total) for key, n in joint.items()} == expected


# -- the real game ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(gnomes: ReignOfGnomes) -> WinDistribution:
    return gnomes.win_distribution()


def test_real_distribution_is_a_law_with_the_exact_rtp(
    real: WinDistribution, gnomes_data: GnomesData
) -> None:
    d = gnomes_data
    b = real.bounds
    assert b is not None
    lo, hi = b.mass()
    assert lo <= 1 <= hi and hi - lo < 1e-10  # mostly the n u bound of summing 200,001 cells
    rtp = float(exact_rtp(d).rtp)
    m = exact_moments(d)
    p_cap = real.p_cap()
    assert p_cap is not None and p_cap.low > 0  # the cap is reachable, and not rarer than ...
    assert 1e-15 < p_cap.value < 1e-12 and p_cap.bound < 1e-5 * p_cap.value
    # The cap only takes away: 0 <= E[W] - E[min(cap, W)] <= E[W; W >= cap] <= sqrt(E[W^2] P(cap))
    withheld = math.sqrt(float(m.second) * p_cap.high) / real.stake
    mean = real.mean()
    assert mean.low <= rtp and rtp - withheld <= mean.high
    assert mean.bound < 1e-7
    sd = real.sd()
    uncapped_sd = math.sqrt(float(m.variance)) / real.stake
    assert sd.low <= uncapped_sd * (1 + 1e-9) and abs(sd.value - uncapped_sd) < 1e-6
    bands = real.bands()
    assert [band.label for band in bands][-2:] == ["(1,000x, 5,000x)", "5,000x (the cap)"]
    assert sum(band.probability.low for band in bands) <= 1 <= sum(band.probability.high for band in bands)
    assert real.p_no_win().value < real.p_at_most_stake().value < 1


def _chi_square(counts: list[int], probs: list[float]) -> tuple[float, int]:
    """Pearson's statistic with cells of expected count under 5 merged upwards into the last."""
    rounds = sum(counts)
    cells_o: list[float] = []
    cells_e: list[float] = []
    for o, p in zip(counts, probs, strict=True):
        if cells_e and cells_e[-1] < 5:
            cells_o[-1] += o
            cells_e[-1] += p * rounds
        else:
            cells_o.append(o)
            cells_e.append(p * rounds)
    while len(cells_e) > 1 and cells_e[-1] < 5:
        cells_o[-2] += cells_o.pop()
        cells_e[-2] += cells_e.pop()
    stat = sum((o - e) ** 2 / e for o, e in zip(cells_o, cells_e, strict=True))
    return stat, len(cells_e) - 1


def _kernel_wins(d: GnomesData, seed: int, rounds: int, chunk: int = 400_000) -> np.ndarray:
    bg = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    out = []
    while rounds > 0:
        n = min(chunk, rounds)
        out.append(play_rounds(d, bg, n)[:, R_WIN].copy())
        rounds -= n
    return np.concatenate(out)


def test_monte_carlo_agrees_band_by_band(real: WinDistribution, gnomes_data: GnomesData) -> None:
    wins = _kernel_wins(gnomes_data, seed=20260611, rounds=3_000_000)
    bands = real.bands()
    counts = []
    for band in bands:
        if band.low_x is None:
            counts.append(int(np.count_nonzero(wins == 0)))
        elif band.low_x == band.high_x:  # the cap
            counts.append(int(np.count_nonzero(wins >= real.cap)))
        else:
            low = band.low_x * real.stake
            high = band.high_x * real.stake if band.high_x is not None else math.inf
            inside = (wins > low) & (wins <= high) & (wins < real.cap)
            counts.append(int(np.count_nonzero(inside)))
    assert sum(counts) == len(wins)
    stat, dof = _chi_square(counts, [band.probability.value for band in bands])
    assert dof >= 8
    # What it can see: one band of probability p off by a relative r (the rest absorbing it)
    # adds n p r**2 / (1 - p) to the noncentrality, caught with 90% power at 99% once that is
    # about 28 (8-15 df): at 3,000,000 rounds r = 0.21% for the no-win band (p = 0.68), 3.0% for
    # a band of p = 1%, 9.7% for p = 0.1%.
    assert stat < chi2.ppf(0.99, dof), (stat, dof, counts)


def test_monte_carlo_agrees_win_by_win_on_the_toy(toy: GnomesData) -> None:
    """The kernel (independent code) on the toy, where the cap and every feature are common."""
    wins = _kernel_wins(toy, seed=7, rounds=400_000)
    dist = win_distribution(toy)
    b = dist.bounds
    assert b is not None
    counts = np.bincount(wins, minlength=b.cap + 1).tolist()
    stat, dof = _chi_square(counts, [(b.lo[x] + b.hi[x]) / 2 for x in range(b.cap + 1)])
    assert dof >= 15
    # What it can see (90% power at 99%, noncentrality about 31 at 15+ df): a win amount of
    # probability 5% off by 3.8% of itself, one of 1% by 8.8%, at 400,000 rounds.
    assert stat < chi2.ppf(0.99, dof), (stat, dof)


# -- the interval arithmetic -----------------------------------------------------------------


def _exact_capped_conv(a: dict[int, int], b: dict[int, int], cap: int) -> dict[int, int]:
    out: Counter[int] = Counter()
    for x, wa in a.items():
        for y, wb in b.items():
            out[min(cap, x + y)] += wa * wb
    return dict(out)


@pytest.mark.parametrize("cells", [40, 1500])  # the direct path and the FFT path
def test_convolution_encloses_the_exact_integer_convolution(cells: int) -> None:
    rng = np.random.default_rng(cells)
    cap = 3000
    a = {
        int(x): int(w)
        for x, w in zip(
            rng.choice(cap + 400, cells, replace=False), rng.integers(1, 10**6, cells), strict=True
        )
    }
    b = {
        int(x): int(w)
        for x, w in zip(rng.choice(cap, 2000, replace=False), rng.integers(1, 10**6, 2000), strict=True)
    }
    da, db = sum(a.values()), sum(b.values())
    pa = PmfBounds.from_weights(cap, list(a), list(a.values()), da)
    pb = PmfBounds.from_weights(cap, list(b), list(b.values()), db)
    c = pa.convolve(pb)
    exact = _exact_capped_conv(a, b, cap)
    for x in range(cap + 1):
        p = F(exact.get(x, 0), da * db)
        assert F(c.lo[x]) <= p <= F(c.hi[x]), x
    mid = (c.lo + c.hi) / 2
    assert np.max(c.hi - c.lo) < 1e-11 * np.max(mid)  # the cap cell: (2 cells + 2) u of its sum


def test_tilted_tails_keep_their_relative_accuracy() -> None:
    """Geometric laws: X + Y is negative binomial, P(S = z) = (z+1)(1-r)^2 r^z and
    P(S >= c) = r^c (1 + c(1-r)); at the cap of 3,000 the cells are near 1e-23."""
    r = F(49, 50)
    cap = 3000
    geo = _geometric(r, cap)
    s = geo.convolve(geo)
    for z in (0, 10, 500, 1500, 2500, cap - 1):
        exact = (z + 1) * (1 - r) ** 2 * r**z
        assert F(s.lo[z]) <= exact <= F(s.hi[z]), z
        assert (s.hi[z] - s.lo[z]) < 1e-8 * float(exact), z
    tail = r**cap * (1 + cap * (1 - r))
    assert F(s.lo[cap]) <= tail <= F(s.hi[cap])
    assert (s.hi[cap] - s.lo[cap]) < 1e-9 * float(tail)
    untilted = geo.convolve(geo, tilts=(0.0,))
    assert untilted.hi[cap - 1] - untilted.lo[cap - 1] > 1e3 * float((cap) * (1 - r) ** 2 * r ** (cap - 1))


def _geometric(r: Fraction, cap: int) -> PmfBounds:
    """P(X = x) = (1-r) r^x below the cap, r^cap at it, each cell rounded outwards."""
    lo = np.zeros(cap + 1)
    hi = np.zeros(cap + 1)
    for x in range(cap + 1):
        p = (1 - r) * r**x if x < cap else r**cap
        v = p.numerator / p.denominator
        lo[x], hi[x] = np.nextafter(v, 0), np.nextafter(v, 1)
    return PmfBounds.from_bounds(lo, hi)


def test_compound_and_powers_match_repeated_exact_convolutions() -> None:
    cap = 60
    u = {0: 5, 3: 2, 7: 1, 20: 1}
    c = {1: {2: 1, 5: 1}, 3: {0: 3}, 4: {1: 1}}  # sub-laws by count
    du = sum(u.values())
    pu = PmfBounds.from_weights(cap, list(u), list(u.values()), du)
    coeffs = {n: PmfBounds.from_weights(cap, list(w), list(w.values()), 10) for n, w in c.items()}
    got = pu.compound(coeffs)
    exact: Counter[int] = Counter()
    power = {0: 1}
    for n in range(1, 5):
        power = _exact_capped_conv(power, u, cap)
        if n in c:
            for x, w in _exact_capped_conv(c[n], power, cap).items():
                exact[x] += F(w, 10 * du**n)
    for x in range(cap + 1):
        assert F(got.lo[x]) <= exact.get(x, 0) <= F(got.hi[x]), x
    fourth = pu.power(4)
    for x in range(cap + 1):
        assert F(fourth.lo[x]) <= F(power.get(x, 0), du**4) <= F(fourth.hi[x]), x


def test_fft_error_bound_is_conservative() -> None:
    """The observed error of the FFT convolution stays far inside the a-priori bound used."""
    import scipy.fft

    rng = np.random.default_rng(3)
    n = 20000
    a = rng.integers(0, 2**20, n)
    b = rng.integers(0, 2**20, n)
    exact = np.convolve(a, b)[:n]  # exact: products under 2**40, sums under 2**55 < 2**63
    m = 1 << (2 * n - 1).bit_length()
    af, bf = a / 2**20, b / 2**20
    got = scipy.fft.irfft(scipy.fft.rfft(af, m) * scipy.fft.rfft(bf, m), m)[:n]
    err = max(abs(F(float(g)) - F(int(e), 2**40)) for g, e in zip(got, exact, strict=True))
    eps = 10 * math.log2(m) * 2.0**-53
    bound = (
        1.01 * (3 * eps + 3 * 2.0**-53) * max(af.sum() * math.sqrt(bf @ bf), math.sqrt(af @ af) * bf.sum())
    )
    assert float(err) < bound / 100


def test_exact_win_distribution_figures() -> None:
    pmf = {0: F(1, 2), 1: F(1, 4), 30: F(1, 8), 100: F(1, 8)}
    dist = WinDistribution(
        "g", "v", "base", stake=10, cap=100, method="exact", error_bound="none", exact_pmf=pmf
    )
    assert dist.mean().exact == F(1, 4 * 10) + F(30, 80) + F(100, 80)
    assert dist.p_no_win().exact == F(1, 2) and dist.p_at_most_stake().exact == F(3, 4)
    labels = {band.label: band.probability.exact for band in dist.bands()}
    assert (
        labels["(0x, 1x]"] == F(1, 4) and labels["(2x, 5x]"] == F(1, 8) and labels["10x (the cap)"] == F(1, 8)
    )
    assert list(labels)[-2:] == ["(5x, 10x)", "10x (the cap)"] and labels["(5x, 10x)"] == 0
    assert sum(labels.values()) == 1
    var = sum(x * x * p for x, p in pmf.items()) - sum(x * p for x, p in pmf.items()) ** 2
    assert dist.sd().value == pytest.approx(math.sqrt(var) / 10, rel=1e-15)
    assert json.loads(json.dumps(dist.as_dict()))["max_win"]["fraction"] == "1/8"


# -- the command line ------------------------------------------------------------------------


def test_cli_prints_the_distribution(real: WinDistribution) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["rtp", "reign-of-gnomes", "--distribution", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["max_win"]["multiple"] == 5000
    assert data["max_win"]["value"] == real.max_win()[1].value
    assert [b["band"] for b in data["bands"]] == [b.label for b in real.bands()]
    table = runner.invoke(app, ["rtp", "reign-of-gnomes", "--distribution"])
    assert table.exit_code == 0 and "the cap" in table.stdout and "volatility index" in table.stdout


def test_cli_says_when_a_game_has_no_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoLaw:
        id = "no-law"
        modes: ClassVar[list[str]] = ["base"]
        variants: ClassVar[list[str]] = ["1"]
        capabilities: ClassVar[frozenset[str]] = frozenset()  # no win_distribution

    monkeypatch.setitem(registry(), "no-law", NoLaw())
    result = CliRunner().invoke(app, ["rtp", "no-law", "--distribution"])
    assert result.exit_code == 2
    assert "no-law has no exact win distribution" in result.output
