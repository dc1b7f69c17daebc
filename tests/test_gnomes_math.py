"""Reign of Gnomes math: the exact RTP and its targets, each formula checked independently,
and the data file's validation."""

from __future__ import annotations

import itertools
import time
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from reelforge.engine.datafile import DataFileError
from reelforge.games.reign_of_gnomes.data_model import GnomesData, load, parse
from reelforge.games.reign_of_gnomes.exact import (
    exact_rtp,
    ice_diamonds_distribution,
    prize_probabilities,
    spin_to_win_stats,
)
from reelforge.games.reign_of_gnomes.rules import DATA_DIR


def test_exact_rtp_meets_the_target_quickly(gnomes_data: GnomesData) -> None:
    start = time.perf_counter()
    result = exact_rtp(gnomes_data)
    assert time.perf_counter() - start < 60
    assert Fraction(9596, 10000) <= result.rtp <= Fraction(9598, 10000)
    assert sum(result.components.values()) == result.rtp
    # Dragon Spins about once in 100-250 base games; hit frequency 20%-40%.
    assert Fraction(1, 250) <= result.free_spins_frequency <= Fraction(1, 100)
    assert Fraction(20, 100) <= result.hit_frequency <= Fraction(40, 100)


def test_every_prize_is_likelier_than_one_in_a_hundred_million(gnomes_data: GnomesData) -> None:
    probs = prize_probabilities(gnomes_data)
    assert len(probs) == 10 * 3 + 3
    rarest = min(probs, key=probs.__getitem__)
    assert probs[rarest] > Fraction(1, 100_000_000), rarest


def test_ice_diamonds_distribution_matches_every_layout(gnomes_data: GnomesData) -> None:
    ice = gnomes_data.ice_diamonds
    counts: dict[int, int] = {}
    layouts = 0
    for diamonds_at in itertools.combinations(range(ice.stones), ice.diamonds):
        layout = [i in diamonds_at for i in range(ice.stones)]
        found = empties = 0
        for stone in layout:  # picking in order: the default play
            if stone:
                found += 1
            else:
                empties += 1
            if found == ice.diamonds or empties == ice.empties_to_end:
                break
        counts[found] = counts.get(found, 0) + 1
        layouts += 1
    brute = {k: Fraction(v, layouts) for k, v in sorted(counts.items())}
    assert ice_diamonds_distribution(ice) == brute


def test_spin_to_win_pay_equals_its_series(gnomes_data: GnomesData) -> None:
    """Sum over n losses of P(n losses) * (n + 1) * E[win | win], to 400 terms."""
    p, pay = spin_to_win_stats(gnomes_data)
    from reelforge.engine.exact import ways_expectation

    mean_given_win = ways_expectation(gnomes_data.spin_to_win, gnomes_data.ways_pays, gnomes_data.wild) / p
    pf, qf = float(p), 1 - float(p)
    series = sum(qf**n * pf * (n + 1) for n in range(400)) * float(mean_given_win)
    assert series == pytest.approx(float(pay), rel=1e-12)
    assert 0 < p < 1


def _raw() -> dict:
    return tomllib.loads((DATA_DIR / "rtp-9597.toml").read_text())


def _load_modified(change) -> GnomesData:
    raw = _raw()
    change(raw)
    return parse(raw, "modified.toml")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["base_reels"]["strips"].__setitem__(0, "KG A ZZ Q J"), "unknown symbols"),
        (lambda r: r["base_reels"]["strips"].__setitem__(0, "KG A WI Q J"), "reels 2-4 only"),
        (lambda r: r["wheel"][0].pop("multiplier"), "needs 'multiplier'"),
        (lambda r: r["ice_diamonds"].__setitem__("diamonds", 20), "fewer than the stones"),
        (
            lambda r: r["random_wild_sets"][0].__setitem__("strips", r["free_reels"]["strips"][1:4]),
            "no reel guarantees",
        ),
        (lambda r: r["scatter_pays"].pop("5"), "same scatter counts"),
        (lambda r: r["game"].__setitem__("coins", []), "coins"),
    ],
)
def test_bad_data_files_are_refused_naming_the_field(change, message: str) -> None:
    with pytest.raises(DataFileError, match=f"modified.toml: .*{message}"):
        _load_modified(change)


def test_loader_names_the_file_and_field(tmp_path: Path) -> None:
    text = (DATA_DIR / "rtp-9597.toml").read_text().replace("base_credits = 40", "base_credits = -1")
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(DataFileError, match=r"broken.toml: game.base_credits"):
        load(path)
    path.write_text("this is [not toml")
    with pytest.raises(DataFileError, match="not valid TOML"):
        load(path)
