"""Autoplay: every stop condition, enforced by the engine."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from helpers import trigger_script, wheel_draw
from reelforge.engine.autoplay import Autoplay, AutoplayLimits, run_autoplay
from reelforge.rng import ScriptedRandom, SeededRandom


def test_a_loss_limit_is_required_and_must_cover_a_stake() -> None:
    with pytest.raises(ValidationError):
        AutoplayLimits(spins=10)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        AutoplayLimits(spins=10, loss_limit=0)
    with pytest.raises(ValueError, match="at least one stake"):
        Autoplay.begin(AutoplayLimits(spins=10, loss_limit=39), stake=40)
    with pytest.raises(ValueError, match="limited to 100"):
        Autoplay.begin(AutoplayLimits(spins=101, loss_limit=4000), stake=40, max_spins=100)


def test_runs_the_spins_set_when_no_limit_is_hit(gnomes) -> None:
    ap = Autoplay.begin(AutoplayLimits(spins=5, loss_limit=1_000_000), stake=40)
    balance, rounds = run_autoplay(gnomes, ap, 100_000, SeededRandom(1))
    assert len(rounds) == 5 and ap.stop_reason == "spins_done" and ap.spins_left == 0
    assert balance == 100_000 - 5 * 40 + sum(r.win for r in rounds)


def test_stops_before_the_spin_that_could_pass_the_loss_limit(gnomes) -> None:
    ap = Autoplay.begin(AutoplayLimits(spins=1000, loss_limit=400), stake=40)
    balance, rounds = run_autoplay(gnomes, ap, 100_000, SeededRandom(12))
    assert ap.stop_reason == "loss_limit"
    assert ap.net_loss <= 400 and ap.net_loss + 40 > 400
    assert balance == 100_000 - ap.net_loss and len(rounds) < 1000


def test_stops_on_insufficient_balance(gnomes) -> None:
    ap = Autoplay.begin(AutoplayLimits(spins=1000, loss_limit=100_000), stake=400)
    balance, _ = run_autoplay(gnomes, ap, 1000, SeededRandom(3))
    assert ap.stop_reason == "insufficient_balance" and balance < 400 and balance >= 0


def test_stops_on_win_limits(gnomes) -> None:
    ap = Autoplay.begin(AutoplayLimits(spins=10_000, loss_limit=10**9, single_win_limit=40 * 20), stake=40)
    _, rounds = run_autoplay(gnomes, ap, 10**9, SeededRandom(4))
    assert ap.stop_reason == "single_win_limit" and rounds[-1].win >= 800
    assert all(r.win < 800 for r in rounds[:-1])
    ap = Autoplay.begin(AutoplayLimits(spins=10_000, loss_limit=10**9, total_win_limit=4000), stake=40)
    _, rounds = run_autoplay(gnomes, ap, 10**9, SeededRandom(5))
    assert ap.stop_reason == "total_win_limit" and ap.won >= 4000 and ap.won - rounds[-1].win < 4000


def test_free_spins_play_on_but_a_pick_stops_autoplay(gnomes, gnomes_data) -> None:
    script = (
        trigger_script(gnomes_data)
        + [wheel_draw(gnomes_data, "x3")]
        + [0] * 5
        + [wheel_draw(gnomes_data, "ice_diamonds")]
    )
    ap = Autoplay.begin(AutoplayLimits(spins=10, loss_limit=4000), stake=40)
    _, rounds = run_autoplay(gnomes, ap, 10_000, ScriptedRandom(script, SeededRandom(6)))
    assert ap.stop_reason == "player_action" and len(rounds) == 1
    pending = rounds[0]
    assert not pending.complete and pending.actions[0].name == "pick"
    assert pending.state["free_spins_played"] == 2


def test_cancel_stops_and_state_round_trips() -> None:
    ap = Autoplay.begin(AutoplayLimits(spins=3, loss_limit=400), stake=40)
    ap.stop("cancelled")
    assert not ap.may_start_round(10_000) and ap.stop_reason == "cancelled"
    assert Autoplay.model_validate_json(ap.model_dump_json()) == ap
