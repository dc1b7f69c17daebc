"""Autoplay: a run of rounds the player set up, with limits the engine enforces.

The player chooses the number of spins and must set a loss limit before it starts;
single-win and total-win limits are optional.  Autoplay stops when no spins remain,
when a limit is reached, when the balance cannot pay the next stake, when a round needs
the player (a pick), or when the player cancels.  Autoplay is plain data (a pydantic
model) so the server can store it with the player's session and resume it.

Readings: the *loss limit* caps the net loss of the run (stakes minus wins): a spin is
not started if it could take the net loss past the limit.  The *single-win limit* stops
the run after a round that won at least that much; the *total-win limit* after the run's
wins add up to at least that much.  All amounts are integer minor units.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from reelforge.engine.game import Game
from reelforge.engine.round import Round
from reelforge.rng import RandomSource

StopReason = Literal[
    "spins_done",
    "loss_limit",
    "single_win_limit",
    "total_win_limit",
    "insufficient_balance",
    "insufficient_bonuses",  # the side balance a round takes (Los 3 Pinguinos' upper bets)
    "player_action",
    "cancelled",
]


class AutoplayLimits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    spins: int = Field(ge=1, le=10_000)
    loss_limit: int = Field(gt=0, description="minor units; required to start")
    single_win_limit: int | None = Field(default=None, gt=0)
    total_win_limit: int | None = Field(default=None, gt=0)


class Autoplay(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limits: AutoplayLimits
    stake: int = Field(gt=0)  # the bet level each round is opened at
    mode: str = Field(default="base", min_length=1, max_length=32)
    # Money debited per round when it differs from the stake (an upper bet's cash part: its
    # Bonuses are no money); None: the stake.  Loss limit and balance checks count it.
    cost: int | None = Field(default=None, gt=0)
    spins_left: int
    staked: int = 0
    won: int = 0
    running: bool = True
    stop_reason: StopReason | None = None

    @model_validator(mode="after")
    def _spins_left_in_range(self) -> Autoplay:
        if not 0 <= self.spins_left <= self.limits.spins:
            raise ValueError("spins_left must lie between 0 and the spins set")
        return self

    @classmethod
    def begin(
        cls,
        limits: AutoplayLimits,
        stake: int,
        max_spins: int | None = None,
        *,
        mode: str = "base",
        cost: int | None = None,
    ) -> Autoplay:
        """Start a run; ``max_spins`` is the jurisdiction's cap (e.g. 100 in Spain)."""
        if max_spins is not None and limits.spins > max_spins:
            raise ValueError(f"autoplay is limited to {max_spins} spins here, {limits.spins} asked")
        price = stake if cost is None else cost
        if limits.loss_limit < price:
            raise ValueError("the loss limit must cover at least one stake")
        return cls(
            limits=limits,
            stake=stake,
            mode=mode,
            cost=None if price == stake else price,
            spins_left=limits.spins,
        )

    @property
    def price(self) -> int:
        """Money one round debits."""
        return self.stake if self.cost is None else self.cost

    @property
    def net_loss(self) -> int:
        return self.staked - self.won

    def stop(self, reason: StopReason) -> None:
        if self.running:
            self.running = False
            self.stop_reason = reason

    def may_start_round(self, balance: int) -> bool:
        """Check the limits before a spin; stops the run (with the reason) if it may not."""
        if not self.running:
            return False
        if self.spins_left <= 0:
            self.stop("spins_done")
        elif self.net_loss + self.price > self.limits.loss_limit:
            self.stop("loss_limit")
        elif balance < self.price:
            self.stop("insufficient_balance")
        return self.running

    def round_started(self) -> None:
        self.spins_left -= 1
        self.staked += self.price

    def round_pending(self, round_: Round) -> bool:
        """A round needs the player: stop and say so.  Returns whether autoplay may go on."""
        if any(spec.needs_player for spec in round_.actions):
            self.stop("player_action")
        return self.running

    def round_finished(self, win: int) -> None:
        self.won += win
        if self.limits.single_win_limit is not None and win >= self.limits.single_win_limit:
            self.stop("single_win_limit")
        elif self.limits.total_win_limit is not None and self.won >= self.limits.total_win_limit:
            self.stop("total_win_limit")
        elif self.spins_left <= 0:
            self.stop("spins_done")


def run_autoplay(
    game: Game, autoplay: Autoplay, balance: int, rng: RandomSource, *, variant: str | None = None
) -> tuple[int, list[Round]]:
    """Drive an autoplay run against a plain balance (the CLI and tests; the server keeps
    its own ledger).  Returns the balance and the rounds played; the last round is left
    pending when the player must act."""
    rounds: list[Round] = []
    while autoplay.may_start_round(balance):
        balance -= autoplay.stake
        autoplay.round_started()
        rnd = game.start(autoplay.stake, rng, variant=variant)
        while not rnd.complete:
            if not autoplay.round_pending(rnd):
                rounds.append(rnd)
                return balance, rounds
            rnd = game.act(rnd, rnd.default_action(), rng)
        balance += rnd.win
        rounds.append(rnd)
        autoplay.round_finished(rnd.win)
    return balance, rounds
