"""Ghost of Gambini through the game server's HTTP API, on SQLite and on the real
PostgreSQL: the piggy banks kept per player and per bet level across rounds and sessions,
a pop opening Lock & Spin played to its end by ``spin`` actions, the bought features
(debited their price, leaving the piggies alone, refused cleanly), idempotent buys, and
recall / replay of Lock & Spin rounds.  Outcomes are forced with scripted draws built from
the data file (gambini_helpers.py); the books are checked with ``check_books``."""

from __future__ import annotations

from typing import Any

from gambini_helpers import (
    BET,
    GB,
    LARGEST,
    LS,
    SLS,
    D,
    center_rewind,
    count,
    credits_of,
    ghost,
    jackpot_rewind,
    prize,
    shot,
    size,
    toss,
    view_stops,
)
from reelforge.games.ghost_of_gambini.data_model import CENTER
from reelforge.rng import ScriptedRandom, SeededRandom
from server_process import check_books
from server_support import Api, client_for, make_server

GAME = "ghost-of-gambini"
BUY = "buy-lock-spin"
SUPER = "buy-super-lock-spin"
CREDIT = 100_000
PRICE = {BUY: D.buy.lock_spin, SUPER: D.buy.super_lock_spin}  # times the bet


# -- scripts (each one the whole draw sequence of its step) ---------------------------------


def gambini_spin(view: dict[int, str] | None = None) -> list[int]:
    """A base spin with Gambini in the center on cobwebs (plus ``view``): a toss to come."""
    return [shot("none"), *view_stops({CENTER: GB, **(view or {})}), jackpot_rewind(False)]


def grow(side: str, now: int) -> list[int]:
    """Gambini tosses into ``side``, whose piggy (at size ``now``) grows: nothing won."""
    assert now < LARGEST, "a piggy growing at its largest size pops"
    return [*gambini_spin(), toss(side), size(now, grow=True)]


def no_wild() -> list[int]:
    """A base spin on cobwebs with a Queen in the center: no win, no toss."""
    return [shot("none"), *view_stops({CENTER: "Q"}), center_rewind(False)]


def feature_start(f: Any, ghosts: int) -> list[int]:
    """``ghosts`` start ghosts, one per position from 0 (white, or gold in Super)."""
    colour = "gold" if f.gold_only else "white"
    return [count(f.start_ghosts, ghosts), *(v for p in range(ghosts) for v in ghost(f, colour, p))]


def pop_left(ghosts: int) -> list[int]:
    """Gambini collects a C1 and pops the left piggy (at its largest): Lock & Spin."""
    return [*gambini_spin({0: "C1"}), toss("left"), size(LARGEST, grow=True), *feature_start(LS, ghosts)]


def quiet_spin(f: Any) -> list[int]:
    """A feature spin landing no ghost: the counter drops by one."""
    return [count(f.ghosts_per_spin, 0)]


def last_spin(f: Any, frames: list[str]) -> list[int]:
    """The spin taking the counter to 0, then each frame (in position order) turned into a prize."""
    table = {"bronze": f.frames.bronze, "silver": f.frames.silver, "gold": f.frames.gold}
    return [*quiet_spin(f), *(prize(table[level], name) for level, name in frames)]


# -- reading the server ---------------------------------------------------------------------


def piggies(api: Api, token: str) -> dict[str, list[int]]:
    """The player's stored piggies by state key, as ``GET /state`` shows them."""
    states = api.call("GET", f"/state?game={GAME}", token=token, expect=200)["states"]
    assert all(s["game"] == GAME for s in states)
    return {s["state_key"]: s["state"]["piggies"] for s in states}


def ledger(api: Api, player: str) -> list[dict[str, Any]]:
    return api.operator("GET", f"/players/{player}/ledger", expect=200)["entries"]


def history(api: Api, token: str) -> list[dict[str, Any]]:
    return api.call("GET", "/history?limit=100", token=token, expect=200)["rounds"]


def everything(api: Api, player: str, token: str) -> dict[str, Any]:
    """What a refused request must leave alone."""
    return {
        "balance": api.balance(token),
        "ledger": ledger(api, player),
        "history": history(api, token),
        "pending": api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"],
        "piggies": piggies(api, token),
    }


def buy(api: Api, token: str, mode: str, stake: int = BET, **kw: Any) -> Any:
    return api.start(token, game=GAME, stake=stake, mode=mode, **kw)


def spin(
    api: Api, token: str, rnd: dict[str, Any], script: list[int] | None = None, idem: str = "auto"
) -> Any:
    """One Lock & Spin spin of the pending ``rnd``, at its step."""
    assert rnd["status"] == "pending" and [a["name"] for a in rnd["actions"]] == ["spin"]
    body = {"action": "spin", "expected_step": rnd["step"], "script": script}
    return api.call("POST", f"/rounds/{rnd['id']}/actions", token=token, json=body, idem=idem, expect=200)


# -- the piggy banks --------------------------------------------------------------------------


def test_piggies_are_kept_per_player_and_bet_level_and_a_pop_plays_lock_and_spin_to_its_end(
    api, db_url, tmp_path
) -> None:
    token = api.new_player("pig", CREDIT)
    assert piggies(api, token) == {}
    balance = CREDIT
    for now in range(LARGEST):  # the left piggy at 40p grows 0 -> LARGEST
        reply = api.start(token, game=GAME, stake=BET, script=grow("left", now))
        rnd = reply["round"]
        assert rnd["status"] == "complete" and rnd["win"] == 0 and rnd["stake"] == BET
        assert rnd["player_state"] == {"piggies": [now + 1, 0]}
        balance -= BET
        assert reply["balance"] == balance
        assert piggies(api, token) == {f"stake:{BET}": [now + 1, 0]}
    # Another bet level has piggies of its own; a spin without a wild leaves them alone.
    reply = api.start(token, game=GAME, stake=2 * BET, script=grow("right", 0))
    assert reply["round"]["player_state"] == {"piggies": [0, 1]}
    reply = api.start(token, game=GAME, stake=BET, script=no_wild())
    assert reply["round"]["player_state"] == {"piggies": [LARGEST, 0]}
    balance -= 3 * BET
    assert reply["balance"] == balance
    assert piggies(api, token) == {f"stake:{BET}": [LARGEST, 0], f"stake:{2 * BET}": [0, 1]}
    # Another player's piggies are their own.
    other = api.new_player("other-pig", CREDIT)
    assert piggies(api, other) == {}
    api.start(other, game=GAME, stake=BET, script=grow("left", 0))
    assert piggies(api, other) == {f"stake:{BET}": [1, 0]}
    assert piggies(api, token)[f"stake:{BET}"] == [LARGEST, 0]

    # A new session of the same player (the operator opens another) sees the same piggies.
    token = api.operator("POST", "/players/pig/sessions", json={}, expect=201)["token"]
    assert piggies(api, token) == {f"stake:{BET}": [LARGEST, 0], f"stake:{2 * BET}": [0, 1]}

    # The pop: the popped piggy is back at 0 at once, Lock & Spin waits for its spins.
    n = min(LS.start_ghosts)
    reply = api.start(token, game=GAME, stake=BET, script=pop_left(n))
    rnd = reply["round"]
    base_win = credits_of("C1")
    assert rnd["status"] == "pending" and rnd["step"] == 1 and rnd["win"] == base_win
    assert [e["type"] for e in rnd["events"]] == ["spin", "piggy_toss", "lock_spin_start"]
    assert rnd["events"][1]["popped"] == ["left"] and rnd["player_state"] == {"piggies": [0, 0]}
    assert rnd["state"]["feature"]["counter"] == 3 and rnd["state"]["feature"]["board"][:n] == [1] * n
    balance -= BET
    assert reply["balance"] == balance == api.balance(token)  # the win waits for the end
    assert piggies(api, token) == {f"stake:{BET}": [0, 0], f"stake:{2 * BET}": [0, 1]}
    # No other round of the game while this one is in play.
    err = api.start(token, game=GAME, stake=BET, expect=409)
    assert err["error"]["code"] == "round_pending"
    for step in (2, 3):
        reply = spin(api, token, rnd, quiet_spin(LS))
        rnd = reply["round"]
        assert rnd["status"] == "pending" and rnd["step"] == step and rnd["win"] == base_win
        assert rnd["state"]["feature"]["counter"] == 4 - step and reply["balance"] == balance
        pending = api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"]
        assert pending == [rnd]
    prizes = [("bronze", "C2")] * n
    key = "the-last-spin"
    before_last = rnd
    reply = spin(api, token, before_last, last_spin(LS, prizes), idem=key)
    rnd = reply["round"]
    win = base_win + n * credits_of("C2")
    assert rnd["status"] == "complete" and rnd["step"] == 4 and rnd["win"] == win
    assert [e["type"] for e in rnd["events"]][-2:] == ["lock_spin_end", "round_end"]
    assert rnd["events"][-2]["credits"] == n * credits_of("C2")
    balance += win
    assert reply["balance"] == balance == api.balance(token)
    # The win is credited once: a repeat of the last spin is the same reply, a new one is refused.
    again = spin(api, token, before_last, last_spin(LS, prizes), idem=key)
    assert again == reply and api.balance(token) == balance
    err = api.act(token, rnd["id"], "spin", expect=409)
    assert err["error"]["code"] == "round_not_pending"
    money = [e for e in ledger(api, "pig") if e["round_id"] == rnd["id"]]
    assert sorted((e["kind"], e["amount"]) for e in money) == [("stake", -BET), ("win", win)]
    assert piggies(api, token)[f"stake:{BET}"] == [0, 0]
    check_books(db_url, tmp_path / "audit", {"pig": CREDIT, "other-pig": CREDIT})


def test_a_lock_and_spin_left_waiting_is_finished_by_the_server_keeping_the_piggies(api, server) -> None:
    token = api.new_player("left", CREDIT)
    for now in range(LARGEST):
        api.start(token, game=GAME, stake=BET, script=grow("right", now))
    api.start(token, game=GAME, stake=BET, script=grow("left", 0))
    script = [*gambini_spin(), toss("right"), size(LARGEST, grow=True), *feature_start(LS, 5)]
    rnd = api.start(token, game=GAME, stake=BET, script=script)["round"]
    assert rnd["status"] == "pending" and rnd["player_state"] == {"piggies": [1, 0]}
    assert server.complete_stale_rounds(older_than=-1) == 1
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    assert recall["status"] == "complete" and recall["completed_by"] == "server"
    assert all(s["actor"] == "server" and s["action"]["name"] == "spin" for s in recall["steps"][1:])
    assert piggies(api, token) == {f"stake:{BET}": [1, 0]}
    replay = api.call("GET", f"/rounds/{rnd['id']}/replay", token=token, expect=200)
    assert replay["matches_record"] is True and replay["win"] == recall["win"]
    audit = server.audit()
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit


def test_autoplay_plays_a_popped_lock_and_spin_through_and_keeps_the_piggies(db_url, tmp_path) -> None:
    """Autoplay (base game only) grows the piggy, pops it and spins Lock & Spin to its end
    within one ``/autoplay/next``: the feature's spins need no player."""
    n = min(LS.start_ghosts)
    script = [
        *(v for now in range(LARGEST) for v in grow("left", now)),
        *pop_left(n),
        *quiet_spin(LS),
        *quiet_spin(LS),
        *last_spin(LS, [("bronze", "C1")] * n),
    ]
    shared = ScriptedRandom(script, SeededRandom(11))
    srv = make_server(db_url, tmp_path)
    srv.rng_factory = lambda: shared
    api = Api(client_for(srv))
    token = api.new_player("auto", CREDIT)
    body = {"game": GAME, "stake": BET, "spins": LARGEST + 1, "loss_limit": 10_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    replies = []
    while True:
        replies.append(api.call("POST", "/autoplay/next", token=token, expect=200))
        if not replies[-1]["autoplay"]["running"]:
            break
    assert replies[-1]["autoplay"]["stop_reason"] == "spins_done" and not shared.script
    rounds = [r["round"] for r in replies]
    assert [r["player_state"]["piggies"] for r in rounds] == [[1, 0], [2, 0], [3, 0], [4, 0], [0, 0]]
    popped = rounds[-1]
    assert popped["status"] == "complete" and popped["step"] == 4
    assert popped["win"] == credits_of("C1") * (1 + n)
    assert piggies(api, token) == {f"stake:{BET}": [0, 0]}
    assert api.balance(token) == CREDIT - (LARGEST + 1) * BET + popped["win"]
    recall = api.call("GET", f"/rounds/{popped['id']}", token=token, expect=200)
    assert [s["actor"] for s in recall["steps"]] == ["autoplay"] * 4
    assert api.call("GET", f"/rounds/{popped['id']}/replay", token=token)["matches_record"] is True
    check_books(db_url, tmp_path / "audit", {"auto": CREDIT})
    srv.engine.dispose()


# -- bought features ----------------------------------------------------------------------------


def test_a_bought_feature_is_debited_its_price_and_leaves_the_piggies_alone(api, db_url, tmp_path) -> None:
    token = api.new_player("buyer", CREDIT)
    api.start(token, game=GAME, stake=BET, script=grow("left", 0))
    api.start(token, game=GAME, stake=2 * BET, script=grow("right", 0))
    stored = piggies(api, token)
    assert stored == {f"stake:{BET}": [1, 0], f"stake:{2 * BET}": [0, 1]}
    balance = api.balance(token)

    # Lock & Spin bought at 40p: 100 x 40p.
    n = 5
    reply = buy(api, token, BUY, script=feature_start(LS, n))
    rnd = reply["round"]
    price = PRICE[BUY] * BET
    assert price == 4_000 and rnd["stake"] == price and rnd["mode"] == BUY
    assert rnd["status"] == "pending" and rnd["player_state"] is None and rnd["win"] == 0
    start = rnd["events"][1]
    assert rnd["events"][0] == {"type": "buy", "feature": "lock_spin"}
    assert (start["type"], start["bought"], start["spins"]) == ("lock_spin_start", True, D.buy.spins)
    balance -= price
    assert reply["balance"] == balance == api.balance(token)
    row = ledger(api, "buyer")[0]
    assert (row["kind"], row["amount"], row["round_id"], row["balance_after"]) == (
        "stake",
        -price,
        rnd["id"],
        balance,
    )
    assert piggies(api, token) == stored
    for _ in range(D.buy.spins - 1):
        rnd = spin(api, token, rnd, quiet_spin(LS))["round"]
    reply = spin(api, token, rnd, last_spin(LS, [("bronze", "MINI")] * n))
    rnd = reply["round"]
    win = n * credits_of("MINI")  # a MINI is 10 x the bet
    assert rnd["status"] == "complete" and rnd["win"] == win and rnd["stake"] == price
    balance += win
    assert reply["balance"] == balance == api.balance(token)
    assert piggies(api, token) == stored

    # Super Lock & Spin bought at 80p: 200 x 80p; played by the production draws.
    reply = buy(api, token, SUPER, stake=2 * BET)
    rnd = reply["round"]
    price = PRICE[SUPER] * 2 * BET
    assert price == 16_000 and rnd["stake"] == price and rnd["events"][0]["feature"] == "super_lock_spin"
    balance -= price
    assert reply["balance"] == balance
    final = api.finish(token, reply)
    assert final["round"]["status"] == "complete" and final["round"]["stake"] == price
    balance += final["round"]["win"]
    assert final["balance"] == balance == api.balance(token)
    assert piggies(api, token) == stored
    rounds = history(api, token)
    assert [(r["mode"], r["stake"]) for r in rounds[:2]] == [(SUPER, 16_000), (BUY, 4_000)]
    assert all(r["balance_after"] - r["balance_before"] == r["win"] - r["stake"] for r in rounds)
    check_books(db_url, tmp_path / "audit", {"buyer": CREDIT})


def test_a_buy_is_refused_under_gb_while_a_round_is_in_play_and_without_funds_changing_nothing(
    api, db_url, tmp_path
) -> None:
    # Without the funds for the price, though with the funds for the bet: 402.
    token = api.new_player("poor", 1_000)
    before = everything(api, "poor", token)
    err = buy(api, token, BUY, expect=402)
    assert err["error"]["code"] == "insufficient_funds" and "4000" in err["error"]["message"]
    err = buy(api, token, SUPER, expect=402)
    assert "8000" in err["error"]["message"]
    assert everything(api, "poor", token) == before
    api.start(token, game=GAME, stake=BET, script=no_wild())  # the bet itself is covered
    assert api.balance(token) == 1_000 - BET

    # Another round of the game in play (a pop's Lock & Spin): 409.
    rich = api.new_player("rich", CREDIT)
    for now in range(LARGEST):
        api.start(rich, game=GAME, stake=BET, script=grow("left", now))
    pending = api.start(rich, game=GAME, stake=BET, script=pop_left(4))["round"]
    before = everything(api, "rich", rich)
    for mode in (BUY, SUPER):
        err = buy(api, rich, mode, expect=409)
        assert err["error"]["code"] == "round_pending" and str(pending["id"]) in err["error"]["message"]
    assert everything(api, "rich", rich) == before
    # A bought round in play blocks another buy too.
    api.finish(rich, {"round": pending})
    bought = buy(api, rich, BUY)["round"]
    before = everything(api, "rich", rich)
    err = buy(api, rich, SUPER, expect=409)
    assert err["error"]["code"] == "round_pending"
    assert everything(api, "rich", rich) == before
    api.finish(rich, {"round": bought})

    # The GB profile forbids buying a feature: 403, for a session opened under it.
    api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)
    gb = api.new_player("gb-buyer", CREDIT)
    before = everything(api, "gb-buyer", gb)
    for mode in (BUY, SUPER):
        err = buy(api, gb, mode, expect=403)
        assert err["error"]["code"] == "bonus_buy_forbidden" and err["error"]["message"]
    assert everything(api, "gb-buyer", gb) == before
    api.start(gb, game=GAME, stake=BET, script=no_wild())  # the base game is still offered
    check_books(db_url, tmp_path / "audit", {"poor": 1_000, "rich": CREDIT, "gb-buyer": CREDIT})


def test_a_repeated_buy_request_returns_the_same_reply_and_debits_once(api, db_url, tmp_path) -> None:
    token = api.new_player("twice", CREDIT)
    body = {"game": GAME, "stake": BET, "mode": BUY, "script": feature_start(LS, 4)}
    first = api.call("POST", "/rounds", token=token, json=body, idem="buy-once", expect=201)
    again = api.call("POST", "/rounds", token=token, json=body, idem="buy-once", expect=201)
    assert again == first and first["balance"] == CREDIT - 4_000 == api.balance(token)
    stakes = [e for e in ledger(api, "twice") if e["kind"] == "stake"]
    assert [(e["amount"], e["round_id"]) for e in stakes] == [(-4_000, first["round"]["id"])]
    assert len(history(api, token)) == 1
    err = api.call("POST", "/rounds", token=token, json={**body, "mode": SUPER}, idem="buy-once", expect=422)
    assert err["error"]["code"] == "idempotency_key_reused"
    final = api.finish(token, first)
    again = api.call("POST", "/rounds", token=token, json=body, idem="buy-once", expect=201)
    assert again == first  # still the first reply, after the round ended: nothing new
    assert api.balance(token) == final["balance"] and len(history(api, token)) == 1
    check_books(db_url, tmp_path / "audit", {"twice": CREDIT})


def test_an_operator_void_of_a_bought_round_refunds_its_price(api, server, db_url, tmp_path) -> None:
    token = api.new_player("voided", CREDIT)
    rnd = buy(api, token, SUPER, script=feature_start(SLS, 3))["round"]
    assert api.balance(token) == CREDIT - 8_000
    voided = api.operator("POST", f"/rounds/{rnd['id']}/void", json={"reason": "test"}, expect=200)
    assert voided["refund"] == 8_000 and voided["balance"] == CREDIT == api.balance(token)
    audit = server.audit()
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
    check_books(db_url, tmp_path / "audit", {"voided": CREDIT})  # the stake row and its one refund


# -- recall and replay ----------------------------------------------------------------------------


def test_recall_and_replay_reproduce_lock_and_spin_rounds(api) -> None:
    token = api.new_player("recall", CREDIT)
    for now in range(LARGEST):
        api.start(token, game=GAME, stake=BET, script=grow("left", now))
    ids = []
    popped = api.start(token, game=GAME, stake=BET, script=pop_left(4))
    # A round in play shows its steps without draws, and does not replay yet.
    recall = api.call("GET", f"/rounds/{popped['round']['id']}", token=token, expect=200)
    assert recall["status"] == "pending" and all("draws" not in s for s in recall["steps"])
    err = api.call("GET", f"/rounds/{popped['round']['id']}/replay", token=token, expect=409)
    assert err["error"]["code"] == "round_pending"
    ids.append(api.finish(token, popped)["round"]["id"])  # its spins by the production draws
    for mode in (BUY, SUPER):
        ids.append(api.finish(token, buy(api, token, mode))["round"]["id"])
    for rid in ids:
        recall = api.call("GET", f"/rounds/{rid}", token=token, expect=200)
        steps = recall["steps"]
        assert recall["status"] == "complete" and len(steps) == recall["round"]["step"] >= 2
        assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
        assert steps[0]["action"]["name"] == "start" and all(s["draws"] for s in steps)
        assert all(s["action"] == {"name": "spin", "choice": None} for s in steps[1:])
        events = [e for s in steps for e in s["events"]]
        assert events == recall["round"]["events"]
        assert [e["type"] for e in events].count("lock_spin") == len(steps) - 1
        assert events[-1] == {"type": "round_end", "credits": recall["round"]["state"]["credits"],
                              "win": recall["win"]}  # fmt: skip
        replay = api.call("GET", f"/rounds/{rid}/replay", token=token, expect=200)
        assert replay["replay"] is True and replay["matches_record"] is True
        assert replay["win"] == replay["recorded_win"] == recall["win"]
        assert replay["stake"] == recall["stake"]
        assert [s["events"] for s in replay["steps"]] == [s["events"] for s in steps]
        operator = api.operator("GET", f"/rounds/{rid}/replay", expect=200)
        assert operator == replay
