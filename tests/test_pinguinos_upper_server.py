"""Los 3 Pinguinos' upper game (mode ``upper``) through the game server's HTTP API, on SQLite and
on the real PostgreSQL, with scripted draws (pinguinos_upper_helpers.py; the Bonuses are won in
the lower game first, as a player would):

* an upper bet debits its cash part and takes its Bonuses inside the round's first step: the side
  ledger (step 1, -N), history, recall and the audit show it; Bonuses won in Double-or-Bonuses
  are movements of their steps; the win is paid once; the round replays from its draws;
* a start the Bonuses (or the cash) do not cover is refused (402) and changes nothing; the upper
  stake 100 (€0.20 + 1 Bonus) is never the lower €1;
* the operator switches upper bets off one by one, apart from the lower bets, and GET /games
  lists both tables;
* autoplay in mode upper plays minigames and Double-or-Bonuses by the game's AUTO decisions and
  stops, changing nothing, when the Bonuses or the cash no longer cover the bet; the cap of 100;
* a repeated Idempotency-Key moves nothing twice; a void gives the cash and the Bonus stake back;
  the Slides' hidden order never reaches the player before the pick.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pinguinos_upper_helpers as U
from pinguinos_helpers import NoMoreDraws, find, judge
from pinguinos_helpers import game as lower_game
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.rng import RecordingRandom, ScriptedRandom, SeededRandom
from server_process import check_books
from server_support import Api

GAME = "los-3-pinguinos"
CREDIT = 1_000_000
RULES = get_game(GAME)
UPPER = [100, 500, 2500, 5000, 7500, 13500]
LOWER = [20, 100, 500, 1000, 1500]
MANUAL = {"auto_advance": False, "auto_risk": False}
AUTO_RISK = {"auto_advance": False, "auto_risk": True}
# Three Bonus symbols on the lower line (wilds join them): 5 Bonuses a coin, no vertical line.
BONUS_LINE = find(lambda sym: judge(sym) == ("bonus", 5), near=None)
SECTIONS = U.RAW["roulette"]["sections"]


def same_on_5_and_8(s: U.Stops, stake: int = 100) -> bool:
    """Stops whose outcome does not depend on the vertical-lines counter."""
    return U.plain(s) and U.judge(s, stake, 8).wins == U.judge(s, stake, 5).wins


def trigger(kind: str) -> U.Stops:
    return U.find(lambda s: same_on_5_and_8(s) and U.judge(s).minigame == kind and not U.judge(s).mixed)


ROULETTE, FISHING, SLIDES = trigger("roulette"), trigger("fishing"), trigger("slides")
LOST = U.find(U.lost)
DIRECT = U.find(lambda s: same_on_5_and_8(s) and U.judge(s).pays and U.judge(s).minigame is None)
SHOWS_VL = U.find(
    lambda s: U.judge(s).vertical and not U.judge(s).accumulator and not U.judge(s, 100, 8).wins
)


def vals(*parts: Any) -> list[int]:
    """The values of draws (``(range, value)`` pairs, or lists of them): what a script deals."""
    out: list[int] = []
    for part in parts:
        if isinstance(part, tuple):
            out.append(part[1])
        else:
            out.extend(d[1] for d in part)
    return out


# -- reading the server ---------------------------------------------------------------------------


def machine(api: Api, token: str) -> dict[str, Any]:
    (state,) = api.call("GET", f"/state?game={GAME}", token=token, expect=200)["states"]
    return state["state"]


def bonuses(api: Api, token: str) -> int:
    return api.call("GET", "/balance", token=token, expect=200)["side"][GAME]["bonuses"]


def history(api: Api, token: str) -> list[dict[str, Any]]:
    return api.call("GET", "/history?limit=100", token=token, expect=200)["rounds"]


def recall(api: Api, token: str, rid: int) -> dict[str, Any]:
    return api.call("GET", f"/rounds/{rid}", token=token, expect=200)


def draws(api: Api, rid: int) -> list[list[int]]:
    return [[v for _, v in s["draws"]] for s in api.operator("GET", f"/rounds/{rid}", expect=200)["steps"]]


def ledger(api: Api, player: str, rid: int) -> list[tuple[str, int]]:
    entries = api.operator("GET", f"/players/{player}/ledger", expect=200)["entries"]
    return sorted((e["kind"], e["amount"]) for e in entries if e["round_id"] == rid)


def everything(api: Api, player: str, token: str) -> dict[str, Any]:
    """What a refused request must leave alone."""
    out = {
        "balance": api.call("GET", "/balance", token=token, expect=200),
        "ledger": api.operator("GET", f"/players/{player}/ledger", expect=200)["entries"],
        "history": history(api, token),
        "pending": api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"],
        "state": api.call("GET", f"/state?game={GAME}", token=token, expect=200),
        "autoplay": api.call("GET", "/autoplay", token=token, expect=200),
    }
    out["recalls"] = [recall(api, token, r["id"]) for r in out["history"]]
    return out


def games(api: Api, token: str) -> dict[str, Any]:
    return {g["id"]: g for g in api.call("GET", "/games", token=token, expect=200)["games"]}


# -- playing --------------------------------------------------------------------------------------


def fund(api: Api, token: str, stake: int = 1500) -> int:
    """A lower round winning Bonuses (5 a coin): what an upper bet needs."""
    rnd = api.start(token, game=GAME, stake=stake, script=lower_game(BONUS_LINE))["round"]
    assert rnd["status"] == "complete" and rnd["state"]["bonuses_won"] == 5 * stake // 20
    return rnd["player_state"]["bonuses"]


def start(api: Api, token: str, stake: int, script: list[int] | None, **kw: Any) -> Any:
    return api.start(token, game=GAME, stake=stake, mode="upper", script=script, **kw)


def act(api: Api, token: str, rnd: dict, name: str, choice: int | None = None, script: Any = None) -> dict:
    body = {"action": name, "choice": choice, "expected_step": rnd["step"], "script": script}
    new = api.call("POST", f"/rounds/{rnd['id']}/actions", token=token, json=body, expect=200)["round"]
    assert new["step"] == rnd["step"] + 1 and new["events"][: len(rnd["events"])] == rnd["events"]
    return new


def names(rnd: dict) -> list[str]:
    return [a["name"] for a in rnd["actions"]]


def by_the_rules(stake: int, state: dict, steps: list[tuple[str | None, int | None, list[int]]]) -> Round:
    """The round the rules deal from ``state`` with these (action, choice, draws) steps (the
    first one's action is None: the start)."""
    (_, _, first), *rest = steps
    rng = ScriptedRandom(first, NoMoreDraws())
    rnd = RULES.start(stake, rng, mode="upper", player_state=state)
    for name, choice, script in rest:
        rng = ScriptedRandom(script, NoMoreDraws())
        rnd = RULES.act(rnd, Action(name=name or "", choice=choice), rng)
        assert not rng.script
    return rnd


def script_server(server, values: list[int]) -> ScriptedRandom:
    stream = ScriptedRandom(values, NoMoreDraws())
    server.rng_factory = lambda: stream
    return stream


# -- one upper round, step by step ------------------------------------------------------------------


def test_an_upper_round_takes_cash_and_bonuses_and_moves_them_step_by_step(api, db_url, tmp_path) -> None:
    token = api.new_player("upper", CREDIT)
    b0 = fund(api, token)
    m0 = machine(api, token)
    assert b0 == 375 == m0["bonuses"] and m0["vertical_lines"] == 0
    balance = CREDIT - 1500

    # Step 1: €0.20 + 1 Bonus; three Ice Cubes, the Roulette offered (it replaces 3.00).
    s1 = vals(U.spin(ROULETTE), U.offer(100, True))
    reply = start(api, token, 100, s1)
    rnd = reply["round"]
    assert reply["balance"] == balance - 20 == api.balance(token)
    assert (rnd["status"], rnd["mode"], rnd["stake"], rnd["step"]) == ("pending", "upper", 20, 1)
    assert names(rnd) == ["spin"] and rnd["state"]["phase"] == "roulette"
    assert rnd["events"][0] == {
        "type": "upper_start", "bet_value": 100, "cash": 20, "bonuses": 1, "bonuses_left": b0 - 1,
        "lines": 5, "counter": 0,
    }  # fmt: skip
    assert rnd["events"][-1] == {"type": "minigame_start", "minigame": "roulette", "replaces": 300}
    assert bonuses(api, token) == b0 - 1 == machine(api, token)["bonuses"]
    line = history(api, token)[0]
    assert (line["status"], line["mode"], line["stake"], line["win"]) == ("pending", "upper", 20, 0)
    assert line["side"] == {"bonuses": {"before": b0, "after": b0 - 1}}
    got = recall(api, token, rnd["id"])
    assert [s["side"] for s in got["steps"]] == [{"bonuses": {"amount": -1, "balance_after": b0 - 1}}]
    assert "draws" not in got["steps"][0]  # a round in play shows no draws
    assert ledger(api, "upper", rnd["id"]) == [("stake", -20)]

    # Step 2: the wheel lights €10.00 and stops: Double-or-Bonuses on 10.00 in fractions of 4.00.
    s2 = vals(U.roulette(SECTIONS.index(1000)))
    rnd = act(api, token, rnd, "spin", script=s2)
    assert rnd["events"][-2] == {
        "type": "minigame_end", "minigame": "roulette", "sections": [SECTIONS.index(1000)],
        "result": 1000, "prize": 1000,
    }  # fmt: skip
    assert rnd["events"][-1] == {"type": "double_start", "prize": 1000, "fraction": 400}
    assert names(rnd) == ["collect_all", "collect", "play"] and rnd["win"] == 0
    # Step 3: PLAY the first 4.00: its value in Bonuses (5).  Step 4: COLLECT 4.00.
    s3 = vals(U.double(False))
    rnd = act(api, token, rnd, "play", script=s3)
    assert rnd["events"][-1]["bonuses"] == 5 and bonuses(api, token) == b0 - 1 + 5
    rnd = act(api, token, rnd, "collect")
    assert rnd["state"]["double"] == {"prize": 1000, "remaining": 200, "secured": 400, "bonuses": 5}
    # Step 5: PLAY the last 2.00: 2.5 Bonuses, rounded up by the draw 39 < 40.
    s5 = vals(U.double(False), U.rounding(39))
    rnd = act(api, token, rnd, "play", script=s5)
    assert rnd["status"] == "complete" and rnd["win"] == 400 and rnd["state"]["bonuses_won"] == 8
    b1 = b0 - 1 + 8
    assert rnd["player_state"]["bonuses"] == b1 == bonuses(api, token) == machine(api, token)["bonuses"]
    assert api.balance(token) == balance - 20 + 400

    expected = by_the_rules(
        100,
        m0,
        [(None, None, s1), ("spin", None, s2), ("play", None, s3), ("collect", None, []), ("play", None, s5)],
    )
    assert rnd["events"] == expected.events and rnd["player_state"] == expected.player_state
    got = recall(api, token, rnd["id"])
    assert got["side"] == {"bonuses": {"before": b0, "after": b1}} and got["win"] == 400
    assert [s["side"] for s in got["steps"]] == [
        {"bonuses": {"amount": -1, "balance_after": b0 - 1}},
        {},
        {"bonuses": {"amount": 5, "balance_after": b0 + 4}},
        {},
        {"bonuses": {"amount": 3, "balance_after": b1}},
    ]
    assert [s["action"]["name"] for s in got["steps"]] == ["start", "spin", "play", "collect", "play"]
    assert draws(api, rnd["id"]) == [s1, s2, s3, [], s5]
    assert ledger(api, "upper", rnd["id"]) == [("stake", -20), ("win", 400)]
    assert history(api, token)[0]["side"] == {"bonuses": {"before": b0, "after": b1}}
    assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=token)["matches_record"] is True

    # The €15 + 150 Bonuses bet, lost: €15.00 and 150 Bonuses, both in one step.
    rnd = start(api, token, 13500, vals(U.spin(LOST)))["round"]
    assert (rnd["status"], rnd["stake"], rnd["coin"]) == ("complete", 1500, 135)
    assert bonuses(api, token) == b1 - 150 and api.balance(token) == balance - 20 + 400 - 1500
    assert history(api, token)[0]["side"] == {"bonuses": {"before": b1, "after": b1 - 150}}
    audit = check_books(db_url, tmp_path / "audit", {"upper": CREDIT})
    assert audit["side_balances_match_ledger"] and audit["rounds"] == 3


# -- refusals ---------------------------------------------------------------------------------------


def test_a_bet_the_bonuses_or_the_cash_do_not_cover_is_refused_and_changes_nothing(api) -> None:
    token = api.new_player("poor-b", CREDIT)
    before = everything(api, "poor-b", token)
    for stake in (100, 13500):
        err = start(api, token, stake, None, expect=402)["error"]
        assert err["code"] == "insufficient_bonuses" and "Bonuses" in err["message"]
    assert everything(api, "poor-b", token) == before

    # 5 Bonuses: €1 + 5 is dealt, €5 + 25 is not.
    assert fund(api, token, 20) == 5
    before = everything(api, "poor-b", token)
    err = start(api, token, 2500, None, expect=402)["error"]
    assert err["code"] == "insufficient_bonuses" and "25" in err["message"]
    for stake, mode in ((20, "upper"), (13500, "base"), (99, "upper")):  # other tables' stakes
        err = api.start(token, game=GAME, stake=stake, mode=mode, expect=400)["error"]
        assert err["code"] == "invalid_bet", err
    assert everything(api, "poor-b", token) == before
    assert start(api, token, 500, vals(U.spin(LOST)))["round"]["stake"] == 100
    assert bonuses(api, token) == 0

    # The cash part is what the balance must cover: 40c pays the lower 20c bet and the upper
    # €0.20 + 1 Bonus, not the lower €1 (also the stake 100).
    cash = api.new_player("poor-c", 40)
    assert fund(api, cash, 20) == 5 and api.balance(cash) == 20
    before = everything(api, "poor-c", cash)
    err = api.start(cash, game=GAME, stake=100, expect=402)["error"]
    assert err["code"] == "insufficient_funds"
    assert everything(api, "poor-c", cash) == before
    assert start(api, cash, 100, vals(U.spin(LOST)))["balance"] == 0
    before = everything(api, "poor-c", cash)
    err = start(api, cash, 100, None, expect=402)["error"]
    assert err["code"] == "insufficient_funds"  # the cash is checked first
    assert everything(api, "poor-c", cash) == before and bonuses(api, cash) == 4


# -- the operator's bet switches --------------------------------------------------------------------


def test_upper_bets_are_switched_off_one_by_one_apart_from_the_lower_ones(api, server) -> None:
    token = api.new_player("switch", CREDIT)
    fund(api, token)
    listed = games(api, token)[GAME]
    assert [b["stake"] for b in listed["bet_levels"]] == LOWER and listed["bets_disabled"] == []
    upper = listed["bet_levels_by_mode"]["upper"]
    assert [b["stake"] for b in upper] == UPPER and listed["bets_disabled_by_mode"] == {"upper": []}
    assert upper[0] == {
        "coin": 1, "credits": 100, "stake": 100, "cash": 20, "bonuses": 1, "multiplier": 1,
        "fraction": 400, "minigame_floor": 500, "max_prize": 10000, "mixed": [],
    }  # fmt: skip
    assert [(b["cash"], b["bonuses"]) for b in upper] == [(b["cash"], b["bonuses"]) for b in U.BETS]
    assert games(api, token)["reign-of-gnomes"]["bet_levels_by_mode"] == {}

    reply = api.operator("PUT", f"/games/{GAME}/bets", json={"disabled": [100], "mode": "upper"}, expect=200)
    view = {"game": GAME, "variant": "95", "mode": "upper", "stakes": UPPER}
    view |= {"enabled": UPPER[1:], "disabled": [100]}
    assert reply == view == api.operator("GET", f"/games/{GAME}/bets?mode=upper", expect=200)
    base = api.operator("GET", f"/games/{GAME}/bets", expect=200)
    assert base == {"game": GAME, "variant": "95", "stakes": LOWER, "enabled": LOWER, "disabled": []}
    listed = games(api, token)[GAME]
    assert [b["stake"] for b in listed["bet_levels_by_mode"]["upper"]] == UPPER[1:]
    assert listed["bets_disabled_by_mode"] == {"upper": [100]}
    assert [b["stake"] for b in listed["bet_levels"]] == LOWER and listed["bets_disabled"] == []

    before = everything(api, "switch", token)
    err = start(api, token, 100, None, expect=400)["error"]
    assert err["code"] == "bet_disabled" and "upper stake 100" in err["message"]
    body = {"game": GAME, "mode": "upper", "stake": 100, "spins": 5, "loss_limit": 1_000}
    assert (
        api.call("POST", "/autoplay", token=token, json=body, expect=400)["error"]["code"] == "bet_disabled"
    )
    assert everything(api, "switch", token) == before
    # The lower €1 (the same stake, 100) plays on, and the other upper bets too.
    lower = api.start(token, game=GAME, stake=100, script=lower_game(BONUS_LINE))["round"]
    assert (lower["mode"], lower["stake"], lower["status"]) == ("base", 100, "complete")
    assert start(api, token, 500, vals(U.spin(LOST)))["round"]["stake"] == 100

    # The lower €1 off: the upper €0.20 + 1 Bonus comes back by the query's mode; each table
    # keeps its own list.
    api.operator("PUT", f"/games/{GAME}/bets", json={"disabled": [100]}, expect=200)
    reply = api.operator("PUT", f"/games/{GAME}/bets?mode=upper", json={"disabled": [500, 13500]}, expect=200)
    assert reply["disabled"] == [500, 13500]
    assert api.start(token, game=GAME, stake=100, expect=400)["error"]["code"] == "bet_disabled"
    assert start(api, token, 100, vals(U.spin(LOST)))["round"]["stake"] == 20
    listed = games(api, token)[GAME]
    assert listed["bets_disabled"] == [100] and listed["bets_disabled_by_mode"] == {"upper": [500, 13500]}

    # Bad requests change nothing.
    settings = everything(api, "switch", token)
    for body, query, code in (
        ({"disabled": UPPER, "mode": "upper"}, "", "all_bets_disabled"),
        ({"disabled": [20], "mode": "upper"}, "", "invalid_bet"),
        ({"disabled": [], "mode": "nope"}, "", "invalid_mode"),
        ({"disabled": [], "mode": "upper"}, "?mode=base", "invalid_mode"),
    ):
        err = api.operator("PUT", f"/games/{GAME}/bets{query}", json=body, expect=400)["error"]
        assert err["code"] == code, (body, err)
    err = api.operator(
        "PUT", "/games/ghost-of-gambini/bets?mode=buy-lock-spin", json={"disabled": []}, expect=400
    )
    assert err["error"]["code"] == "invalid_mode" and "base bets" in err["error"]["message"]
    assert api.operator("GET", f"/games/{GAME}/bets?mode=nope", expect=400)["error"]["code"] == "invalid_mode"
    assert everything(api, "switch", token) == settings
    assert api.operator("GET", f"/games/{GAME}/bets?mode=upper", expect=200)["disabled"] == [500, 13500]
    assert server.audit()["side_balances_match_ledger"]


# -- autoplay ---------------------------------------------------------------------------------------


def autoplay(api: Api, token: str, spins: int, stake: int = 100, **kw: Any) -> dict:
    body = {"game": GAME, "mode": "upper", "stake": stake, "spins": spins, "loss_limit": 100_000, **kw}
    return api.call("POST", "/autoplay", token=token, json=body, expect=201)["autoplay"]


def next_rounds(api: Api, player: str, token: str) -> tuple[dict, list[dict], dict]:
    """``/autoplay/next`` until it stops: the autoplay, the rounds, and what the last call
    (the one that stopped it) left besides the autoplay compared with before it."""
    rounds = []
    while True:
        before = everything(api, player, token)
        reply = api.call("POST", "/autoplay/next", token=token, expect=200)
        if reply["round"] is not None:
            rounds.append(reply["round"])
        if not reply["autoplay"]["running"]:
            after = everything(api, player, token)
            changed = {k for k in before if before[k] != after[k]}
            return reply["autoplay"], rounds, {"changed": changed, "round": reply["round"]}


def test_autoplay_in_upper_mode_stops_when_the_bonuses_no_longer_cover_the_bet(
    api, server, db_url, tmp_path
) -> None:
    token = api.new_player("auto-b", CREDIT)
    assert fund(api, token, 20) == 5
    ap = autoplay(api, token, 10)
    assert (ap["mode"], ap["stake"], ap["cost"]) == ("upper", 100, 20)
    stream = script_server(server, vals(*[U.spin(LOST)] * 5))
    ap, rounds, last = next_rounds(api, "auto-b", token)
    assert (ap["stop_reason"], ap["spins_left"], ap["staked"], len(rounds)) == (
        "insufficient_bonuses",
        5,
        100,
        5,
    )
    assert not stream.script and last["round"] is None
    assert last["changed"] == {"autoplay"}  # the stop moved nothing
    assert all((r["mode"], r["stake"], r["status"]) == ("upper", 20, "complete") for r in rounds)
    assert bonuses(api, token) == 0 and api.balance(token) == CREDIT - 20 - 5 * 20
    assert [r["autoplay_id"] for r in history(api, token)[:5]] == [ap["id"]] * 5

    # The cash runs out first: 20 + 2 x 20 cents.
    cash = api.new_player("auto-c", 60)
    assert fund(api, cash, 20) == 5
    autoplay(api, cash, 10)
    script_server(server, vals(*[U.spin(LOST)] * 2))
    ap, rounds, last = next_rounds(api, "auto-c", cash)
    assert (ap["stop_reason"], len(rounds), bonuses(api, cash), api.balance(cash)) == (
        "insufficient_balance",
        2,
        3,
        0,
    )
    assert last["changed"] == {"autoplay"}

    # The game's cap of 100 games holds in the upper game too; a bad mode or stake is refused.
    for body, code in (
        ({"spins": 101}, "invalid_autoplay"),
        ({"stake": 20}, "invalid_autoplay"),
        ({"mode": "nope"}, "invalid_mode"),
    ):
        full = {"game": GAME, "mode": "upper", "stake": 100, "spins": 5, "loss_limit": 1_000, **body}
        err = api.call("POST", "/autoplay", token=token, json=full, expect=400)["error"]
        assert err["code"] == code, (body, err)
    check_books(db_url, tmp_path / "audit", {"auto-b": CREDIT, "auto-c": 60})


def auto_rounds(
    settings: dict[str, bool], state: dict, prefixes: list[list[int]]
) -> tuple[list[Round], list[int]]:
    """The upper rounds autoplay deals with these settings, each starting with its prefix and
    going on with a seeded stream: the rounds and every value drawn, in order."""
    rounds, values = [], []
    for i, prefix in enumerate(prefixes):
        rec = RecordingRandom(ScriptedRandom(prefix, SeededRandom(300 + i)))
        rnd = RULES.start(100, rec, mode="upper", player_state=state)
        while not rnd.complete:
            action = RULES.auto_action(rnd, settings)
            assert action is not None
            rnd = RULES.act(rnd, action, rec)
        rounds.append(rnd)
        values += [v for _, v in rec.draws]
        state = rnd.player_state
    return rounds, values


def test_autoplay_plays_the_minigames_and_double_or_bonuses_by_the_games_auto_decisions(
    api, server, db_url, tmp_path
) -> None:
    prefixes = [
        vals(U.spin(ROULETTE), U.offer(100, True)),
        vals(U.spin(SHOWS_VL), U.vertical(3)),  # the counter at 3: the next rounds have 8 lines
        vals(U.spin(FISHING), U.offer(100, True, lines=8)),  # 8 lines: the 8-line offer table
        vals(U.spin(SLIDES), U.offer(100, True, lines=8)),
        vals(U.spin(DIRECT)),
    ]
    for name, settings in (("manual", MANUAL), ("risk", AUTO_RISK)):
        token = api.new_player(name, CREDIT)
        b0 = fund(api, token)
        api.call("PUT", f"/settings?game={GAME}", token=token, json=settings, expect=200)
        expected, values = auto_rounds(settings, machine(api, token), prefixes)
        stream = script_server(server, values)
        autoplay(api, token, len(prefixes))
        ap, rounds, _ = next_rounds(api, name, token)
        assert ap["stop_reason"] == "spins_done" and not stream.script
        assert [r["events"] for r in rounds] == [r.events for r in expected]
        assert [r["win"] for r in rounds] == [r.win for r in expected]
        assert [e["lines"] for r in rounds for e in r["events"] if e["type"] == "upper_start"] == [
            5,
            5,
            8,
            8,
            8,
        ]
        played = [[s["action"]["name"] for s in recall(api, token, r["id"])["steps"]] for r in rounds]
        assert played[0][:2] == ["start", "spin"] and played[2][1] == "fish" and played[3][1] == "pick"
        doubles = {a for steps in played for a in steps if a in ("play", "collect", "collect_all")}
        assert doubles == ({"play"} if settings["auto_risk"] else {"collect_all"})
        assert all(s["actor"] == "autoplay" for r in rounds for s in recall(api, token, r["id"])["steps"])
        won = sum(r.state["bonuses_won"] for r in expected)
        assert bonuses(api, token) == b0 - len(prefixes) + won == expected[-1].player_state["bonuses"]
        assert api.balance(token) == CREDIT - 1500 - 20 * len(prefixes) + sum(r.win for r in expected)
    check_books(db_url, tmp_path / "audit", {"manual": CREDIT, "risk": CREDIT})


# -- idempotency, void, hidden state ----------------------------------------------------------------


def test_a_repeated_key_replays_an_upper_start_and_action_moving_nothing_twice(api, server) -> None:
    token = api.new_player("idem", CREDIT)
    b0 = fund(api, token)
    body = {"game": GAME, "mode": "upper", "stake": 100, "script": vals(U.spin(FISHING), U.offer(100, True))}
    first = api.call("POST", "/rounds", token=token, json=body, idem="u-start", expect=201)
    state = everything(api, "idem", token)
    assert api.call("POST", "/rounds", token=token, json=body, idem="u-start", expect=201) == first
    assert everything(api, "idem", token) == state and bonuses(api, token) == b0 - 1
    rnd = first["round"]
    fish = vals(U.fishing([500, 800], [], [1000]))
    act_body = {"action": "fish", "expected_step": 1, "script": fish}
    path = f"/rounds/{rnd['id']}/actions"
    reply = api.call("POST", path, token=token, json=act_body, idem="u-fish", expect=200)
    assert reply["round"]["events"][-1] == {"type": "double_start", "prize": 2300, "fraction": 400}
    state = everything(api, "idem", token)
    assert api.call("POST", path, token=token, json=act_body, idem="u-fish", expect=200) == reply
    assert everything(api, "idem", token) == state
    # Another key: the step moved on, the action is refused.
    err = api.call("POST", path, token=token, json=act_body, idem="u-fish-2", expect=409)["error"]
    assert err["code"] == "step_mismatch"
    play = {"action": "play", "expected_step": 2, "script": vals(U.double(False))}
    reply = api.call("POST", path, token=token, json=play, idem="u-play", expect=200)
    assert bonuses(api, token) == b0 - 1 + 5
    state = everything(api, "idem", token)
    assert api.call("POST", path, token=token, json=play, idem="u-play", expect=200) == reply
    assert everything(api, "idem", token) == state and bonuses(api, token) == b0 + 4
    moves = [s["side"] for s in recall(api, token, rnd["id"])["steps"]]
    assert moves == [
        {"bonuses": {"amount": -1, "balance_after": b0 - 1}},
        {},
        {"bonuses": {"amount": 5, "balance_after": b0 + 4}},
    ]
    assert server.audit()["side_balances_match_ledger"]


def test_a_void_gives_back_the_cash_and_the_bonus_stake(api, server) -> None:
    token = api.new_player("void", CREDIT)
    b0 = fund(api, token)
    found = machine(api, token)
    rnd = start(api, token, 500, vals(U.spin(ROULETTE), U.offer(500, True)))["round"]
    rnd = act(api, token, rnd, "spin", script=vals(U.roulette(0)))  # 25.00, in fractions of 10.00
    assert rnd["events"][-1] == {"type": "double_start", "prize": 2500, "fraction": 1000}
    # 10.00 into 12.5 Bonuses: the draw 79 is not below the remainder 40, so 12.
    rnd = act(api, token, rnd, "play", script=vals(U.double(False), U.rounding(79)))
    assert bonuses(api, token) == b0 - 5 + 12 and api.balance(token) == CREDIT - 1500 - 100
    void = api.operator("POST", f"/rounds/{rnd['id']}/void", json={"reason": "fault"}, expect=200)
    assert void["refund"] == 100 and void["side"] == {"bonuses": 5 - 12}
    assert api.balance(token) == CREDIT - 1500 and bonuses(api, token) == b0 == machine(api, token)["bonuses"]
    assert machine(api, token) == found  # the whole machine as the round found it
    got = recall(api, token, rnd["id"])
    assert got["status"] == "voided" and got["side"] == {"bonuses": {"before": b0, "after": b0}}
    assert [s["side"] for s in got["steps"]][-1] == {"bonuses": {"amount": -7, "balance_after": b0}}
    assert server.audit()["side_balances_match_ledger"] and server.audit()["rounds_match_ledger"]
    assert server.audit()["player_states_follow_rounds"], server.audit()["bad_player_states"]


def test_the_audit_flags_a_machine_state_moved_outside_the_rounds(api, server) -> None:
    """The counter and the accumulators are audited like money: the stored machine must be
    the one the last round left, and every round must start from the one before it left."""
    from reelforge.server.storage import schema as t

    token = api.new_player("tamper", CREDIT)
    fund(api, token)
    rnd = start(api, token, 100, vals(U.spin(U.LOST)))["round"]
    assert rnd["status"] == "complete"
    assert server.audit()["player_states_follow_rounds"], server.audit()["bad_player_states"]
    state = machine(api, token)
    where = t.player_state.c.game == GAME
    with server.engine.begin() as conn:  # a counter raised behind the rounds' back
        conn.execute(
            t.player_state.update().where(where).values(state=json.dumps({**state, "vertical_lines": 9}))
        )
    audit = server.audit()
    assert not audit["player_states_follow_rounds"]
    assert [b["stored"]["vertical_lines"] for b in audit["bad_player_states"]] == [9]
    assert audit["side_balances_match_ledger"]  # the Bonuses alone would not have shown it
    # The next round starts from the tampered state: that round is listed too.
    start(api, token, 100, vals(U.spin(U.LOST)))
    bad = server.audit()["bad_player_states"]
    assert [b.get("round_id") is not None for b in bad] == [True]


def test_the_slides_order_is_hidden_from_the_player_until_the_pick(api) -> None:
    token = api.new_player("slides", CREDIT)
    fund(api, token)
    prizes, js = [500, 800, 1000, 2000, 20000], [0, 0, 1, 0]
    order = U.shuffled(js)
    rnd = start(api, token, 100, vals(U.spin(SLIDES), U.offer(100, True), U.slides(prizes, js)))["round"]
    assert rnd["state"]["phase"] == "slides" and rnd["state"]["minigame"]["platforms"] == prizes
    shown: list[Iterable[Any]] = [
        [rnd],
        api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"],
        [recall(api, token, rnd["id"])["round"]],
    ]
    for views in shown:
        for view in views:
            assert "_slides_order" not in view["state"] and "_slides_order" not in str(view)
    got = recall(api, token, rnd["id"])
    assert "draws" not in got["steps"][0] and "order" not in str(got["steps"])
    operator = api.operator("GET", f"/rounds/{rnd['id']}", expect=200)
    assert operator["state"]["_slides_order"] == order  # the operator sees everything
    pick = order.index(4)  # the platform the 200.00 slid to: the bet's maximum, 100.00
    rnd = act(api, token, rnd, "pick", pick)
    end = next(e for e in rnd["events"] if e["type"] == "minigame_end")
    assert end == {"type": "minigame_end", "minigame": "slides", "platform": pick, "order": order,
                   "result": 20000, "prize": 10000}  # fmt: skip
    assert rnd["status"] == "complete" and rnd["win"] == 10000  # the maximum is paid at once
