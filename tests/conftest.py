"""Shared fixtures: the registered games, and scripts that force features through the rules."""

from __future__ import annotations

import pytest

from reelforge.games import get_game
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes.data_model import GnomesData


@pytest.fixture(scope="session")
def gnomes() -> ReignOfGnomes:
    game = get_game("reign-of-gnomes")
    assert isinstance(game, ReignOfGnomes)
    return game


@pytest.fixture(scope="session")
def gnomes_data(gnomes: ReignOfGnomes) -> GnomesData:
    return gnomes.data()
