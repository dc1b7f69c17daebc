"""Money as integer minor units (pence, cents) and the bet levels a game offers.

No float ever holds money.  A game counts wins in *credits* (its paytable unit); a bet
level says how many minor units one credit is worth, so a win in money is always
``credits * coin`` and stays an integer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

CURRENCY_SYMBOLS = {"GBP": "£", "EUR": "€", "USD": "$"}
# The currencies a game may be priced in: ISO 4217 codes whose minor unit is a hundredth.
CURRENCIES = tuple(CURRENCY_SYMBOLS)


def check_currencies(codes: tuple[str, ...]) -> tuple[str, ...]:
    """A game's offered currencies: known (:data:`CURRENCIES`), each once, at least one."""
    unknown = [c for c in codes if c not in CURRENCIES]
    if unknown:
        raise ValueError(f"unknown currencies {unknown}; known: {list(CURRENCIES)}")
    if not codes or len(set(codes)) != len(codes):
        raise ValueError(f"currencies must name at least one currency, each once: {list(codes)}")
    return codes


def format_minor(amount: int, currency: str = "GBP") -> str:
    """``480`` -> ``'£4.80'``; ``-5`` -> ``'-£0.05'``."""
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise TypeError(f"money must be an integer of minor units, got {type(amount).__name__}")
    sign = "-" if amount < 0 else ""
    major, minor = divmod(abs(amount), 100)
    return f"{sign}{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{major}.{minor:02d}"


def parse_minor(text: str) -> int:
    """``'4.80'`` or ``'£4.80'`` -> ``480``; exact decimal parsing, no float."""
    s = text.strip().lstrip("£€$").replace(",", "")
    negative = s.startswith("-")
    s = s.lstrip("-")
    if s.count(".") > 1 or not s.replace(".", "").isdigit():
        raise ValueError(f"not an amount of money: {text!r}")
    major, _, minor = s.partition(".")
    if len(minor) > 2:
        raise ValueError(f"more than two decimals in {text!r}")
    value = int(major or "0") * 100 + int((minor + "00")[:2])
    return -value if negative else value


@dataclass(frozen=True)
class BetLevel:
    """One stake a game offers: ``coin`` minor units per credit, ``credits`` per game."""

    coin: int
    credits: int

    @property
    def stake(self) -> int:
        return self.coin * self.credits

    def to_json(self) -> dict[str, int]:
        return {"coin": self.coin, "credits": self.credits, "stake": self.stake}


class InvalidBet(ValueError):
    """A stake the game does not offer."""


def bet_levels(coins: list[int], credits: int) -> list[BetLevel]:
    return list(_bet_levels(tuple(coins), credits))


@lru_cache(maxsize=1024)
def _bet_levels(coins: tuple[int, ...], credits: int) -> tuple[BetLevel, ...]:
    # Made once per table: a round start asks for its game's levels three times (the bet
    # check, the cost, the start), and the levels are frozen, so they can be shared.
    return tuple(BetLevel(coin=c, credits=credits) for c in coins)


def find_bet(levels: list[BetLevel], stake: int) -> BetLevel:
    """The level whose total stake is ``stake`` minor units, or :class:`InvalidBet`."""
    if not isinstance(stake, int) or isinstance(stake, bool):
        raise InvalidBet(f"stake must be an integer of minor units, got {stake!r}")
    for level in levels:
        if level.stake == stake:
            return level
    offered = ", ".join(str(level.stake) for level in levels)
    raise InvalidBet(f"stake {stake} is not offered; offered stakes (minor units): {offered}")
