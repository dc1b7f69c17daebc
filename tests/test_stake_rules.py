"""The Stake Engine export's rules one by one: the payout grid, the weights' redistribution,
the command line, and ``--verify`` refusing a folder that breaks a published rule."""

from __future__ import annotations

import io
import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import zstandard
from typer.testing import CliRunner

from reelforge.analysis.stake.law import Band, GridLaw, _grid_enclosure, grid_payout
from reelforge.analysis.stake.verify import verify
from reelforge.analysis.stake.weights import BandUncovered, weigh
from reelforge.cli import app
from reelforge.engine.distribution import WinDistribution
from reelforge.engine.pmf_bounds import PmfBounds

# Walls of a spin (cost 1 bet = 100 units): no win, the bet, the bands' edges at 2x and 5x.
WALLS = [0, 100, 200, 500]


@pytest.mark.parametrize(
    ("bets", "payout"),
    [
        (Fraction(1, 4), 20),  # 2.5 steps: half to the even step
        (Fraction(3, 4), 80),  # 7.5 steps: half to the even step
        (Fraction(1, 3), 30),  # nearest
        (Fraction(1, 40), 10),  # a win stays a win: the least payout
        (Fraction(39, 40), 90),  # below the bet stays below it (nearest would be 1.0)
        (Fraction(41, 40), 110),  # above the bet stays above it (nearest would be 1.0)
        (Fraction(199, 100), 190),  # inside (1x, 2x]: 1.99 is nearest 2.0, an edge it is below
        (Fraction(2), 200),  # on the grid: unchanged
        (Fraction(0), 0),
        (Fraction(501, 100), 510),  # just past the last wall
    ],
)
def test_payouts_go_to_the_nearest_step_without_crossing_a_reported_figure(
    bets: Fraction, payout: int
) -> None:
    assert grid_payout(bets * 100, WALLS) == payout


def _law(mass: dict[int, Fraction], rtp: Fraction) -> GridLaw:
    bands = (
        Band("0", 0, 0),
        Band("(0x, 1x]", 0, 100),
        Band("(1x, 2x]", 100, 200),
        Band("> 2x", 200, 1 << 62),
    )
    return GridLaw(
        game="toy", variant="v", mode="base", cost=1, bet_credits=10, mass=mass, support=frozenset(mass),
        bands=bands, exact_rtp=rtp, law_rtp=rtp, rounding_cost=Fraction(0), top=max(mass), exact_law=True,
        method="toy",
    )  # fmt: skip


def test_a_payout_without_a_book_gives_its_mass_to_its_neighbours_keeping_mean_and_bands() -> None:
    # 0.5 of no win; 0.2 at 0.3x, 0.1 at 0.6x (no book), 0.2 at 0.9x; mean 0.06+0.06+0.18 = 0.30.
    mass = {0: Fraction(1, 2), 30: Fraction(1, 5), 60: Fraction(1, 10), 90: Fraction(1, 5)}
    law = _law(mass, Fraction(3, 10))
    w = weigh(law, [0, 30, 90])
    assert w.covered == 3 and w.distinct == 4 and w.moved_uncovered == Fraction(1, 10)
    total = sum(w.weights)
    probs = [Fraction(x, total) for x in w.weights]
    # 0.6x is halfway between 0.3x and 0.9x: 0.05 to each.
    assert all(
        abs(p - q) < Fraction(1, 10**15)
        for p, q in zip(probs, [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], strict=True)
    )
    assert w.shift_before_absorb < Fraction(1, 10**15) and w.moved_to_absorb < Fraction(1, 10**15)


def test_the_weights_take_back_a_shift_of_the_mean_inside_the_bands() -> None:
    # The exact RTP is a little above what the grid's payouts return: weight moves up inside a
    # band; the no-win probability and each band's stay as they were.
    mass = {0: Fraction(1, 2), 30: Fraction(1, 5), 90: Fraction(1, 5), 150: Fraction(1, 10)}
    mean = Fraction(6 + 18 + 15, 100)
    law = _law(mass, mean + Fraction(1, 1000))
    w = weigh(law, [0, 30, 90, 150])
    total = sum(w.weights)
    rtp = Fraction(sum(x * p for x, p in zip(w.weights, [0, 30, 90, 150], strict=True)), total * 100)
    assert abs(rtp - law.exact_rtp) < Fraction(1, 10**15)
    # To the weights' resolution (they sum to 2^63, give or take the roundings).
    assert abs(Fraction(w.weights[0], total) - Fraction(1, 2)) < Fraction(1, 10**17)
    assert abs(Fraction(w.weights[1] + w.weights[2], total) - Fraction(2, 5)) < Fraction(1, 10**17)
    assert w.weights[2] > w.weights[1]


def test_a_band_with_probability_and_no_book_is_refused() -> None:
    mass = {0: Fraction(1, 2), 30: Fraction(1, 4), 150: Fraction(1, 4)}
    with pytest.raises(BandUncovered, match=r"\(1x, 2x\]"):
        weigh(_law(mass, Fraction(45, 100)), [0, 30])


def test_an_enclosures_cells_go_to_the_grid_as_one_by_one() -> None:
    # Every cell of a made-up enclosure on 0..2,000 credits at 40 credits a bet (0.025 bet
    # steps, the Reign of Gnomes grid), through the array path and through grid_payout.
    rng = np.random.default_rng(5)
    hi = rng.random(2001) * (rng.random(2001) < 0.6)
    lo = hi * 0.999
    dist = WinDistribution(
        game="toy", variant="v", mode="base", stake=40, cap=2000, method="toy", error_bound="none",
        bounds=PmfBounds.from_bounds(lo, hi),
    )  # fmt: skip
    walls = [0, 100, 200, 500, 1000, 2000, 5000]
    mass, support, _mean, _rounded = _grid_enclosure(dist, 40, walls)
    mid = (lo + hi) / 2
    mid = mid / mid.sum()
    one_by_one: dict[int, float] = {}
    for credits in np.nonzero(mid)[0]:
        p = grid_payout(Fraction(int(credits) * 100, 40), walls)
        one_by_one[p] = one_by_one.get(p, 0.0) + float(mid[credits])
    assert set(mass) == set(one_by_one)
    assert all(abs(float(mass[p]) - one_by_one[p]) <= 1e-15 for p in mass)
    assert support == set(one_by_one)


# -- the command and --verify --------------------------------------------------------------------

CHEAP = ["--books", "120", "--search-rounds", "1500", "--split-rounds", "20000", "--fill-rounds", "200"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stake") / "gambini"
    result = CliRunner().invoke(
        app, ["export", "stake", "ghost-of-gambini", "-o", str(out), "--mode", "buy-super-lock-spin", *CHEAP]
    )
    assert result.exit_code == 0, result.output
    assert "buy-super-lock-spin" in result.output
    return out


def test_the_same_command_writes_the_same_files(exported: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    args = ["export", "stake", "ghost-of-gambini", "-o", str(again), "--mode", "buy-super-lock-spin", *CHEAP]
    assert CliRunner().invoke(app, args).exit_code == 0
    names = ("books_buy-super-lock-spin.jsonl.zst", "lookUpTable_buy-super-lock-spin_0.csv", "index.json")
    for name in names:
        assert (again / name).read_bytes() == (exported / name).read_bytes(), name


def test_the_command_refuses_a_mode_with_a_reason() -> None:
    result = CliRunner().invoke(app, ["export", "stake", "los-3-pinguinos", "-o", "/tmp/never"])
    assert result.exit_code == 1
    assert "persistent state" in result.output and "no mode can be exported" in result.output
    assert not Path("/tmp/never").exists()
    result = CliRunner().invoke(
        app, ["export", "stake", "ghost-of-gambini", "-o", "/tmp/never", "--mode", "nope"]
    )
    assert result.exit_code == 2 and "has no mode nope" in result.output
    result = CliRunner().invoke(app, ["export", "stake", "golden-scarab", "-o", "/tmp/never", "--books", "0"])
    assert result.exit_code == 2 and "--books" in result.output
    assert not Path("/tmp/never").exists()


def test_verify_passes_the_export_and_says_so(exported: Path) -> None:
    result = CliRunner().invoke(app, ["export", "stake", "--verify", str(exported)])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output and "FAIL" not in result.output


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _failed(folder: Path) -> list[str]:
    report = verify(folder)
    assert not report.ok
    return [c.name for c in report.checks + [c for m in report.modes for c in m.checks] if not c.ok]


def _table(folder: Path) -> Path:
    return folder / "lookUpTable_buy-super-lock-spin_0.csv"


def test_verify_refuses_a_payout_off_the_grid(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path / "x")
    rows = _table(folder).read_text().splitlines()
    i, w, p = rows[-1].split(",")
    rows[-1] = f"{i},{w},{int(p) + 5}"
    _table(folder).write_text("\n".join(rows) + "\n")
    assert any("steps of 10" in name for name in _failed(folder))


def test_verify_refuses_weights_that_change_the_rtp(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path / "x")
    rows = [r.split(",") for r in _table(folder).read_text().splitlines()]
    top = max(range(len(rows)), key=lambda k: int(rows[k][2]))
    rows[top][1] = str(int(rows[top][1]) + 10**12)  # a 1e-7 chance more of the max win: +1e-5 RTP
    _table(folder).write_text("".join(",".join(r) + "\n" for r in rows))
    failed = _failed(folder)
    assert any(name.startswith("RTP = exact") for name in failed)


def test_verify_refuses_a_book_that_is_not_its_round(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path / "x")
    path = folder / "books_buy-super-lock-spin.jsonl.zst"
    with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
        books = [json.loads(line) for line in io.TextIOWrapper(reader, encoding="utf-8")]
    books[0]["events"][0]["tampered"] = True
    text = "".join(json.dumps(b) + "\n" for b in books)
    path.write_bytes(zstandard.ZstdCompressor().compress(text.encode()))
    assert any("replays through the rules" in name for name in _failed(folder))


def test_verify_refuses_an_index_of_another_form(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path / "x")
    index = json.loads((folder / "index.json").read_text())
    index["modes"][0]["extra"] = 1
    (folder / "index.json").write_text(json.dumps(index))
    assert any(name.startswith("index entry") for name in _failed(folder))


def test_verify_refuses_books_out_of_the_tables_order(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path / "x")
    rows = _table(folder).read_text().splitlines()
    rows[0], rows[-1] = rows[-1], rows[0]
    _table(folder).write_text("\n".join(rows) + "\n")
    assert "books' payouts equal the table's, row for row" in _failed(folder)
