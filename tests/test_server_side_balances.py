"""Side balances: a game's second currency kept in player state (Bonuses), audited like money.

Exercised with ``test-bonuses``, a tiny fake game registered only on the servers these tests
build (never in the registry), on SQLite and on the real PostgreSQL: every change is a
side-ledger row written with its step (start, action, autoplay, sweeper), idempotent replays
move nothing twice, the audit catches a tampered balance, a void takes back what the round
moved, and history, recall and ``GET /balance`` show the values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from sqlalchemy import select

from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.money import BetLevel, InvalidBet, bet_levels, find_bet
from reelforge.rng import RandomSource, ScriptedRandom, SeededRandom
from reelforge.server.storage import schema as t
from server_support import Api, client_for

GAME = "test-bonuses"
START, WIN_BONUS, BONUS_ROUND, DECIDE = 0, 1, 2, 3  # the first draw, randbelow(4)


class BonusGame:
    """A fake game with one side balance, ``bonuses`` (one state per player, ``machine``).

    Start: one draw ``randbelow(4)``: 0 loses; 1 pays 2x the stake and wins 1 Bonus; 2 wins 3
    Bonuses and waits for ``advance``; 3 is a decision: ``collect`` (the default) or ``spend``
    (one Bonus, offered when the player holds one; both need the player).  ``advance`` draws
    ``randbelow(2)`` and pays that many stakes (5x when a Bonus was spent); an advance after
    no spend wins 1 Bonus more.  ``plays`` counts rounds started (state that is no currency).
    Settings: ``auto_advance`` (default on) lets autoplay press ``advance``; ``auto_spend``
    (default off) lets autoplay answer the decision (spend when it can, else collect)."""

    id = GAME
    name = "Test Bonuses (fake)"
    version = "1.0.0"
    modes: ClassVar[list[str]] = ["base"]
    variants: ClassVar[list[str]] = ["v1"]
    default_variant = "v1"
    side_balances: ClassVar[tuple[str, ...]] = ("bonuses",)
    currencies: ClassVar[tuple[str, ...]] = ("GBP", "EUR")
    own_bet_modes: ClassVar[tuple[str, ...]] = ()
    autoplay_max_spins = None
    folder = Path(__file__).parent  # the protocol's: a folder holding no web/ renderer
    capabilities: ClassVar[frozenset[str]] = frozenset()
    report_hit_names: ClassVar[dict[str, str]] = {}

    def __init__(self, *, spend_below_zero: bool = False) -> None:
        self.spend_below_zero = spend_below_zero  # a bug on purpose: spend with no Bonus

    def bet_levels(self, variant: str | None = None) -> list[BetLevel]:
        return bet_levels([1, 2, 5], 10)  # stakes 10, 20, 50

    def cost(self, stake: int, mode: str = "base") -> int:
        return find_bet(self.bet_levels(), stake).stake

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        return "machine"

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        return {"game": self.id, "variant": "v1", "mode": mode, "rtp": 0.5, "method": "fake"}

    def simulate_chunk(
        self, rounds: int, seed: Any, *, variant: str | None = None, mode: str = "base"
    ) -> Any:
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "version": self.version, "modes": self.modes}

    def play_settings(self) -> dict[str, bool]:
        return {"auto_advance": True, "auto_spend": False}

    def auto_action(self, round_: Round, settings: dict[str, bool]) -> Action | None:
        phase = round_.state["phase"]
        if phase == "advance":
            return Action(name="advance") if settings["auto_advance"] else None
        if not settings["auto_spend"]:
            return None  # the decision needs the player
        names = [spec.name for spec in round_.actions]
        return Action(name="spend" if "spend" in names else "collect")

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        if mode != "base":
            raise InvalidBet(f"no mode {mode}")
        level = find_bet(self.bet_levels(), stake)
        machine = {"bonuses": 0, "plays": 0, **(player_state or {})}
        machine["plays"] += 1
        draw = rng.randbelow(4)
        rnd = Round(
            game=self.id,
            game_version=self.version,
            variant="v1",
            mode=mode,
            coin=level.coin,
            stake=level.stake,
            step=1,
            state={"phase": "done", "boosted": False},
            player_state=machine,
            events=[{"type": "draw", "value": draw}],
        )
        machine = rnd.player_state  # the model holds its own copy
        assert machine is not None
        if draw == WIN_BONUS:
            rnd.win = 2 * rnd.stake
            machine["bonuses"] += 1
        elif draw == BONUS_ROUND:
            machine["bonuses"] += 3
            rnd.state["phase"] = "advance"
        elif draw == DECIDE:
            rnd.state["phase"] = "decide"
        self._settle(rnd)
        return rnd

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        round_.allowed(action)
        rnd = round_.model_copy(deep=True)
        rnd.step += 1
        machine = rnd.player_state
        assert machine is not None
        if action.name == "advance":
            flip = rng.randbelow(2)
            rnd.win += flip * rnd.stake * (5 if rnd.state["boosted"] else 1)
            if not rnd.state["boosted"]:
                machine["bonuses"] += 1
            rnd.events.append({"type": "advance", "flip": flip})
            rnd.state["phase"] = "done"
        elif action.name == "collect":
            rnd.state["phase"] = "done"
        elif action.name == "spend":
            machine["bonuses"] -= 1
            rnd.state["boosted"] = True
            rnd.state["phase"] = "advance"
        else:  # pragma: no cover
            raise InvalidAction(action.name)
        self._settle(rnd)
        return rnd

    def _settle(self, rnd: Round) -> None:
        phase = rnd.state["phase"]
        if phase == "advance":
            rnd.actions = [ActionSpec(name="advance")]
        elif phase == "decide":
            rnd.actions = [ActionSpec(name="collect", needs_player=True)]
            assert rnd.player_state is not None
            if rnd.player_state["bonuses"] >= 1 or self.spend_below_zero:
                rnd.actions.append(ActionSpec(name="spend", needs_player=True))
        else:
            rnd.actions = []
            rnd.status = "complete"


@pytest.fixture
def bonus_api(server) -> Api:
    server.games[GAME] = BonusGame()
    return Api(client_for(server))


def start(api: Api, token: str, draw: int, stake: int = 10, **kw: Any) -> dict:
    return api.start(token, GAME, stake, script=[draw], **kw)


def side_rows(server) -> list[Any]:
    with server.engine.connect() as conn:
        return list(conn.execute(select(t.side_ledger).order_by(t.side_ledger.c.id)))


def stored_bonuses(server, player: str) -> int:
    with server.engine.connect() as conn:
        raw = conn.execute(
            select(t.player_state.c.state)
            .join(t.players, t.players.c.id == t.player_state.c.player_id)
            .where(t.players.c.external_id == player, t.player_state.c.game == GAME)
        ).scalar_one()
    import json

    return int(json.loads(raw)["bonuses"])


def audit_ok(server) -> dict:
    audit = server.audit()
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
    assert audit["side_balances_match_ledger"], audit
    return audit


def test_every_change_is_a_movement_of_its_step_and_is_shown(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b1", 1_000)
    assert api.call("GET", "/balance", token=token)["side"][GAME] == {"bonuses": 0}
    won = start(api, token, WIN_BONUS)["round"]  # +1 at the start, complete
    assert won["status"] == "complete" and won["player_state"]["bonuses"] == 1
    three = start(api, token, BONUS_ROUND)["round"]  # +3 at the start, pending
    done = api.act(token, three["id"], "advance", script=[1])["round"]  # +1 and 1x the stake
    assert done["status"] == "complete" and done["win"] == 10
    spent = start(api, token, DECIDE)["round"]
    assert [a["name"] for a in spent["actions"]] == ["collect", "spend"]
    api.act(token, spent["id"], "spend")  # -1
    final = api.act(token, spent["id"], "advance", script=[1])["round"]  # 5x, no Bonus
    assert final["win"] == 50 and final["player_state"] == {"bonuses": 4, "plays": 3}
    rows = side_rows(server)
    assert [(r.round_id, r.step, r.amount, r.balance_after) for r in rows] == [
        (won["id"], 1, 1, 1),
        (three["id"], 1, 3, 4),
        (three["id"], 2, 1, 5),
        (spent["id"], 2, -1, 4),
    ]
    assert {(r.game, r.state_key, r.currency) for r in rows} == {(GAME, "machine", "bonuses")}
    balance = api.call("GET", "/balance", token=token, expect=200)
    assert balance["side"][GAME] == {"bonuses": 4}
    assert balance["balance"] == 1_000 - 30 + 20 + 10 + 50
    history = api.call("GET", "/history", token=token, expect=200)["rounds"]
    assert [h["side"] for h in history] == [
        {"bonuses": {"before": 5, "after": 4}},
        {"bonuses": {"before": 1, "after": 5}},
        {"bonuses": {"before": 0, "after": 1}},
    ]
    recall = api.call("GET", f"/rounds/{spent['id']}", token=token, expect=200)
    assert recall["side"] == {"bonuses": {"before": 5, "after": 4}}
    assert [s["side"] for s in recall["steps"]] == [{}, {"bonuses": {"amount": -1, "balance_after": 4}}, {}]
    op_recall = api.operator("GET", f"/rounds/{three['id']}", expect=200)
    assert op_recall["side"] == {"bonuses": {"before": 1, "after": 5}}
    # Games without side balances show none in history and recall.
    gnomes = api.finish(token, api.start(token))["round"]
    plain = api.call("GET", f"/rounds/{gnomes['id']}", token=token, expect=200)
    assert "side" not in plain and all("side" not in s for s in plain["steps"])
    assert "side" not in api.call("GET", "/history?limit=1", token=token)["rounds"][0]
    info = {g["id"]: g for g in api.call("GET", "/games", token=token, expect=200)["games"]}
    assert info[GAME]["side_balances"] == ["bonuses"] and info["reign-of-gnomes"]["side_balances"] == []
    audit_ok(server)


def test_a_replayed_key_moves_nothing_twice(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b2", 1_000)
    body = {"game": GAME, "stake": 10, "script": [BONUS_ROUND]}
    first = api.call("POST", "/rounds", token=token, json=body, idem="s1", expect=201)
    assert api.call("POST", "/rounds", token=token, json=body, idem="s1", expect=201) == first
    rid = first["round"]["id"]
    act = {"action": "advance", "script": [0]}
    reply = api.call("POST", f"/rounds/{rid}/actions", token=token, json=act, idem="a1", expect=200)
    assert api.call("POST", f"/rounds/{rid}/actions", token=token, json=act, idem="a1", expect=200) == reply
    assert [(r.step, r.amount) for r in side_rows(server)] == [(1, 3), (2, 1)]
    assert stored_bonuses(server, "b2") == 4
    # An action on the finished round is refused and moves nothing.
    err = api.act(token, rid, "advance", expect=409)
    assert err["error"]["code"] == "round_not_pending" and len(side_rows(server)) == 2
    audit_ok(server)


def test_the_audit_catches_a_tampered_side_balance(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b3", 1_000)
    api.act(token, start(api, token, BONUS_ROUND)["round"]["id"], "advance", script=[0])
    audit_ok(server)
    where = t.player_state.c.game == GAME
    with server.engine.begin() as conn:
        conn.execute(t.player_state.update().where(where).values(state='{"bonuses": 9, "plays": 1}'))
    audit = server.audit()
    assert not audit["side_balances_match_ledger"] and audit["balances_match_ledger"]
    (bad,) = audit["bad_side_balances"]
    assert (bad["game"], bad["currency"], bad["stored"], bad["ledger"]) == (GAME, "bonuses", 9, 4)
    with server.engine.begin() as conn:  # negative, even when the ledger is made to agree
        conn.execute(t.player_state.update().where(where).values(state='{"bonuses": -1, "plays": 1}'))
        conn.execute(t.side_ledger.update().where(t.side_ledger.c.step == 2).values(amount=-4))
    assert server.audit()["bad_side_balances"][0]["stored"] == -1
    with server.engine.begin() as conn:  # back as it was, then a movement goes missing
        conn.execute(t.player_state.update().where(where).values(state='{"bonuses": 4, "plays": 1}'))
        conn.execute(t.side_ledger.update().where(t.side_ledger.c.step == 2).values(amount=1))
    audit_ok(server)
    with server.engine.begin() as conn:
        conn.execute(t.side_ledger.delete().where(t.side_ledger.c.step == 2))
    audit = server.audit()
    assert not audit["side_balances_match_ledger"]
    assert audit["bad_side_balances"][0]["ledger"] == 3


def test_a_void_refunds_the_stake_and_takes_back_the_rounds_movements(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b4", 1_000)
    api.act(token, start(api, token, BONUS_ROUND)["round"]["id"], "advance", script=[0])  # 4 Bonuses
    rnd = start(api, token, DECIDE, stake=20)["round"]
    api.act(token, rnd["id"], "spend")  # 3 Bonuses, the round waits for "advance"
    assert stored_bonuses(server, "b4") == 3
    money = api.balance(token)
    body = {"reason": "machine fault"}
    void = api.operator("POST", f"/rounds/{rnd['id']}/void", json=body, idem="v1", expect=200)
    assert void["refund"] == 20 and void["balance"] == money + 20 and void["side"] == {"bonuses": 1}
    again = api.operator("POST", f"/rounds/{rnd['id']}/void", json=body, idem="v1", expect=200)
    assert again == void
    other = api.operator("POST", f"/rounds/{rnd['id']}/void", json=body, idem="v2", expect=409)
    assert other["error"]["code"] == "not_pending"
    assert stored_bonuses(server, "b4") == 4
    moves = [(r.step, r.amount, r.balance_after) for r in side_rows(server) if r.round_id == rnd["id"]]
    assert moves == [(2, -1, 3), (3, 1, 4)]
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    assert recall["status"] == "voided" and recall["side"] == {"bonuses": {"before": 4, "after": 4}}
    assert recall["steps"][-1]["events"][0]["side"] == {"bonuses": 1}
    assert api.call("GET", "/balance", token=token)["side"][GAME] == {"bonuses": 4}
    # A round that won Bonuses at its start gives them back, and the whole state returns to
    # what the round found: "plays" counts only the round that was not voided.
    won = start(api, token, BONUS_ROUND)["round"]
    assert stored_bonuses(server, "b4") == 7
    void = api.operator("POST", f"/rounds/{won['id']}/void", json=body, expect=200)
    assert void["side"] == {"bonuses": -3} and stored_bonuses(server, "b4") == 4
    state = api.call("GET", f"/state?game={GAME}", token=token)["states"][0]["state"]
    assert state == {"bonuses": 4, "plays": 1}
    # A void of a round that moved nothing adds no side row.
    plain = start(api, token, DECIDE)["round"]
    count = len(side_rows(server))
    assert "side" not in api.operator("POST", f"/rounds/{plain['id']}/void", json=body, expect=200)
    assert len(side_rows(server)) == count
    audit = audit_ok(server)
    assert audit["bad_side_rounds"] == []


def test_the_audit_flags_a_voided_round_whose_movements_do_not_cancel(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b5", 1_000)
    rnd = start(api, token, BONUS_ROUND)["round"]
    api.operator("POST", f"/rounds/{rnd['id']}/void", json={}, expect=200)
    audit_ok(server)
    with server.engine.begin() as conn:  # the reversal lost, the state put back to match
        conn.execute(t.side_ledger.delete().where(t.side_ledger.c.step == 2))
        conn.execute(
            t.player_state.update().where(t.player_state.c.game == GAME).values(state='{"bonuses": 3}')
        )
    audit = server.audit()
    assert not audit["side_balances_match_ledger"] and audit["bad_side_rounds"] == [rnd["id"]]


def test_the_sweeper_and_autoplay_record_their_movements(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("b6", 10_000)
    left = start(api, token, BONUS_ROUND)["round"]
    assert server.complete_stale_rounds(older_than=-1) == 1  # the server presses "advance"
    recall = api.call("GET", f"/rounds/{left['id']}", token=token)
    assert recall["completed_by"] == "server" and recall["steps"][1]["actor"] == "server"
    assert recall["steps"][1]["side"] == {"bonuses": {"amount": 1, "balance_after": 4}}
    # Autoplay answering every decision (auto_spend) plays on through every kind of round.
    api.call("PUT", f"/settings?game={GAME}", token=token, json={"auto_spend": True}, expect=200)
    stream = ScriptedRandom([WIN_BONUS, BONUS_ROUND, 1, DECIDE, 1, START], SeededRandom(7))
    server.rng_factory = lambda: stream
    body = {"game": GAME, "stake": 10, "spins": 4, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    rounds = []
    while True:
        reply = api.call("POST", "/autoplay/next", token=token, expect=200)
        if reply["round"] is not None:
            rounds.append(reply["round"])
        if not reply["autoplay"]["running"]:
            break
    assert reply["autoplay"]["stop_reason"] == "spins_done" and len(rounds) == 4
    assert all(r["status"] == "complete" for r in rounds)
    moves = [(r.round_id, r.step, r.amount) for r in side_rows(server) if r.round_id != left["id"]]
    ids = [r["id"] for r in rounds]
    assert moves == [(ids[0], 1, 1), (ids[1], 1, 3), (ids[1], 2, 1), (ids[2], 2, -1)]
    spend = api.call("GET", f"/rounds/{ids[2]}", token=token)["steps"][1]
    assert spend["actor"] == "autoplay" and spend["action"]["name"] == "spend"
    assert api.call("GET", "/balance", token=token)["side"][GAME] == {"bonuses": 8}
    audit_ok(server)


def test_a_game_taking_a_side_balance_below_zero_commits_nothing(server) -> None:
    server.games[GAME] = BonusGame(spend_below_zero=True)
    api = Api(client_for(server))
    token = api.new_player("b7", 1_000)
    rnd = start(api, token, DECIDE)["round"]
    money = api.balance(token)
    with pytest.raises(RuntimeError, match="non-negative"):
        api.act(token, rnd["id"], "spend")
    assert api.balance(token) == money and side_rows(server) == []
    pending = api.call("GET", "/rounds/pending", token=token)["rounds"]
    assert pending[0]["step"] == 1 and pending[0]["player_state"]["bonuses"] == 0
    audit_ok(server)
