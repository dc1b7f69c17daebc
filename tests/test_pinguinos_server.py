"""Los 3 Pinguinos (the lower game) through the game server's HTTP API, on SQLite and on the
real PostgreSQL: Bonuses won credited to the machine state, ``GET /balance``, the side ledger,
history and recall; the RTP variant the operator sets and the bets switched off; every decision
(hold with a changed mask, nudges, done, collect and PLAY on both ladders with the seesaw, the
Disco stop) with scripted draws (pinguinos_helpers.py), the stored draws checked against the
script; actions not allowed now refused changing nothing; rounds left waiting finished by the
sweeper with the default play; autoplay with the AUTO-ADVANCE / AUTO-RISK settings and its stop
conditions (spins done, balance below the bet, the player stopping it, a nudge offer without
AUTO-ADVANCE, pressing PLAY) and the game's cap of 100 games."""

from __future__ import annotations

from typing import Any

from pinguinos_helpers import (
    BO,
    BV,
    SCALE,
    SEESAW,
    SP,
    D,
    NoMoreDraws,
    find,
    game,
    has_pair,
    hold_offer,
    judge,
    line,
    moved,
    penguins,
    step,
    three,
)
from reelforge.engine.round import Round
from reelforge.games import get_game
from reelforge.rng import RecordingRandom, ScriptedRandom, SeededRandom
from server_process import check_books
from server_support import Api

GAME = "los-3-pinguinos"
BET = 20  # the unit bet: coin 1
CREDIT = 100_000
STAKES = [20, 100, 500, 1000, 1500]
MANUAL = {"auto_advance": False, "auto_risk": False}
AUTO_RISK = {"auto_advance": True, "auto_risk": True}
DIRECT = [s for s in D.pays if s not in D.blue and s not in D.yellow]  # paid at once
RULES = get_game(GAME)  # the server's own instance: its exact figures and strategy are cached


# -- lines and scripts ------------------------------------------------------------------------


def lost(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and not has_pair(sym)


def paired(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and has_pair(sym)


LOST = find(lost, near=None)  # every lost line is a near miss: its offer is drawn (declined)
PAIRED = find(paired, near=None)
BONUS_LINE = find(lambda sym: sym[1] == BO)  # Bonuses, no near miss: three draws
CH, BE, OR, SE = three("CH"), three("BE"), three("OR"), three(DIRECT[-1])
DISCO = three(SP)


def lost_script() -> list[int]:
    return game(LOST)


def hold_script() -> list[int]:
    return [*game(PAIRED), hold_offer(True)]


def disco_script(*prizes: str) -> list[int]:
    return [*game(DISCO), *penguins(*prizes)]


def near_then_lost() -> tuple[tuple[int, int, int], list[int]]:
    """A lost near miss offered 3 nudges; one nudge of reel 0 leaves a lost line (no pair)."""
    s = find(lost, near=True, also=lambda t: lost(line(moved(t, (1, 0, 0)))))
    return s, game(s, nudges=3)


def near_then_cash() -> tuple[tuple[int, int, int], list[int]]:
    """A near miss offered 1 nudge; nudging reel 2 lands a prize paid at once."""

    def to_direct(t: tuple[int, int, int]) -> bool:
        after = line(moved(t, (0, 0, 1)))
        return judge(after)[0] == "cash" and after[1] in DIRECT

    s = find(lambda sym: judge(sym)[0] == "none", near=True, also=to_direct)
    return s, game(s, nudges=1)


# -- reading the server ---------------------------------------------------------------------------


def machine(api: Api, token: str) -> dict[str, Any] | None:
    """The stored machine state (one per player), as ``GET /state`` shows it."""
    states = api.call("GET", f"/state?game={GAME}", token=token, expect=200)["states"]
    if not states:
        return None
    (state,) = states
    assert (state["game"], state["state_key"]) == (GAME, "machine")
    return state["state"]


def bonuses(api: Api, token: str) -> int:
    return api.call("GET", "/balance", token=token, expect=200)["side"][GAME]["bonuses"]


def history(api: Api, token: str) -> list[dict[str, Any]]:
    return api.call("GET", "/history?limit=100", token=token, expect=200)["rounds"]


def recall(api: Api, token: str, rid: int) -> dict[str, Any]:
    return api.call("GET", f"/rounds/{rid}", token=token, expect=200)


def draws(api: Api, rid: int) -> list[list[int]]:
    """The values drawn at each step, as the operator's recall stores them."""
    return [[v for _, v in s["draws"]] for s in api.operator("GET", f"/rounds/{rid}", expect=200)["steps"]]


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


def start(api: Api, token: str, script: list[int] | None, stake: int = BET, **kw: Any) -> Any:
    return api.start(token, game=GAME, stake=stake, script=script, **kw)


def act(
    api: Api, token: str, rnd: dict, name: str, choice: int | None = None, script: list[int] | None = None
) -> dict[str, Any]:
    """One decision on the pending ``rnd`` at its step: the reply's round."""
    assert rnd["status"] == "pending"
    body = {"action": name, "choice": choice, "expected_step": rnd["step"], "script": script}
    reply = api.call("POST", f"/rounds/{rnd['id']}/actions", token=token, json=body, expect=200)
    new = reply["round"]
    assert new["step"] == rnd["step"] + 1 and new["events"][: len(rnd["events"])] == rnd["events"]
    return new


def names(rnd: dict) -> list[str]:
    return [a["name"] for a in rnd["actions"]]


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def script_server(server, values: list[int]) -> ScriptedRandom:
    """Every draw the server makes from now on is ``values``, and nothing more (autoplay)."""
    stream = ScriptedRandom(values, NoMoreDraws())
    server.rng_factory = lambda: stream
    return stream


def run_autoplay(api: Api, token: str, spins: int, stake: int = BET, **limits: Any) -> tuple[dict, list]:
    body = {"game": GAME, "stake": stake, "spins": spins, "loss_limit": 100_000, **limits}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    rounds = []
    while True:
        reply = api.call("POST", "/autoplay/next", token=token, expect=200)
        if reply["round"] is not None:
            rounds.append(reply["round"])
        if not reply["autoplay"]["running"]:
            return reply["autoplay"], rounds


# -- Bonuses --------------------------------------------------------------------------------------


def test_bonuses_won_go_to_the_machine_the_side_ledger_history_and_recall(api, db_url, tmp_path) -> None:
    token = api.new_player("bonus", CREDIT)
    assert api.call("GET", "/balance", token=token)["side"] == {GAME: {"bonuses": 0}}
    assert machine(api, token) is None

    # A Bonus line at €1 (coin 5): its Bonuses x5, won at the start step.
    kind, count = judge(line(BONUS_LINE))
    assert kind == "bonus"
    reply = start(api, token, game(BONUS_LINE), stake=100)
    rnd = reply["round"]
    won = count * 5
    assert rnd["status"] == "complete" and rnd["win"] == 0 and rnd["state"]["bonuses_won"] == won
    assert {"type": "bonuses", "won": won, "balance": won} in rnd["events"]
    assert rnd["player_state"]["bonuses"] == won == machine(api, token)["bonuses"] == bonuses(api, token)
    assert reply["balance"] == CREDIT - 100 == api.balance(token)
    line_of = history(api, token)[0]
    assert line_of["side"] == {"bonuses": {"before": 0, "after": won}} and line_of["win"] == 0
    got = recall(api, token, rnd["id"])
    assert got["side"] == {"bonuses": {"before": 0, "after": won}}
    assert [s["side"] for s in got["steps"]] == [{"bonuses": {"amount": won, "balance_after": won}}]
    assert draws(api, rnd["id"]) == [game(BONUS_LINE)]

    # The Disco at 20c: the lit penguin's B3 is won at the stop, not before.
    rnd = start(api, token, disco_script("C40", "B1", "B3", "C400", "B4"))["round"]
    assert rnd["status"] == "pending" and names(rnd) == ["stop"]
    assert bonuses(api, token) == won and history(api, token)[0]["side"]["bonuses"] == {
        "before": won,
        "after": won,
    }
    rnd = act(api, token, rnd, "stop", script=[2])
    assert rnd["status"] == "complete" and rnd["events"][-3]["prize"] == "B3"
    assert rnd["player_state"]["bonuses"] == won + 3 == bonuses(api, token) == machine(api, token)["bonuses"]
    got = recall(api, token, rnd["id"])
    assert got["side"] == {"bonuses": {"before": won, "after": won + 3}}
    assert [s["side"] for s in got["steps"]] == [{}, {"bonuses": {"amount": 3, "balance_after": won + 3}}]
    assert [s["actor"] for s in got["steps"]] == ["player", "player"]

    # A lost round moves nothing; another player's Bonuses are their own.
    rnd = start(api, token, lost_script())["round"]
    assert recall(api, token, rnd["id"])["side"] == {"bonuses": {"before": won + 3, "after": won + 3}}
    other = api.new_player("other", CREDIT)
    start(api, other, game(BONUS_LINE))
    assert bonuses(api, other) == count and bonuses(api, token) == won + 3
    # A new session of the same player (kept beside the first) sees the same machine.
    body = {"keep_other_sessions": True}
    again = api.operator("POST", "/players/bonus/sessions", json=body, expect=201)["token"]
    assert machine(api, again) == machine(api, token) and bonuses(api, again) == won + 3
    sides = [r["side"]["bonuses"] for r in reversed(history(api, token))]
    assert sides == [
        {"before": 0, "after": won},
        {"before": won, "after": won + 3},
        {"before": won + 3, "after": won + 3},
    ]
    audit = check_books(db_url, tmp_path / "audit", {"bonus": CREDIT, "other": CREDIT})
    assert audit["side_balances_match_ledger"] and audit["rounds"] == 4


# -- the operator's settings ----------------------------------------------------------------------


def info(api: Api, token: str) -> dict[str, Any]:
    games = api.call("GET", "/games", token=token, expect=200)["games"]
    return {g["id"]: g for g in games}


def test_the_operator_variant_and_bets_switched_off_are_what_is_listed_and_dealt(
    api, db_url, tmp_path
) -> None:
    token = api.new_player("op", CREDIT)
    games = info(api, token)
    listed = games[GAME]
    assert listed["variant"] == "95" and listed["rtp"] == RULES.exact("95")["rtp"]
    assert [b["stake"] for b in listed["bet_levels"]] == STAKES and listed["bets_disabled"] == []
    assert listed["side_balances"] == ["bonuses"] and listed["play_settings"] == MANUAL
    assert listed["autoplay_max_spins"] == 100  # the game's cap under the default profile's 1,000
    assert games["reign-of-gnomes"]["autoplay_max_spins"] == 1000

    # Variant 95 offers the hold on this draw; 70 does not.
    rnd = start(api, token, hold_script())["round"]
    assert rnd["variant"] == "95" and names(rnd) == ["hold"]
    api.finish(token, {"round": rnd})
    api.operator("PUT", f"/games/{GAME}/variant", json={"variant": "70"}, expect=200)
    listed = info(api, token)[GAME]
    assert listed["variant"] == "70" and listed["rtp"] == RULES.exact("70")["rtp"]
    assert abs(listed["rtp"] - 0.70) < 1e-4 and listed["rtp"] < RULES.exact("95")["rtp"] - 0.2
    rnd = start(api, token, hold_script())["round"]
    assert rnd["variant"] == "70" and rnd["status"] == "complete"
    assert types(rnd["events"]) == ["spin", "no_prize", "round_end"]
    assert history(api, token)[0]["variant"] == "70"
    assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=token)["matches_record"] is True
    assert api.operator("GET", f"/games/{GAME}/bets", expect=200)["variant"] == "70"

    # Bets switched off: not listed, refused (400 bet_disabled), nothing changed.
    reply = api.operator("PUT", f"/games/{GAME}/bets", json={"disabled": [500, 100]}, expect=200)
    assert reply == {
        "game": GAME,
        "variant": "70",
        "stakes": STAKES,
        "enabled": [20, 1000, 1500],
        "disabled": [100, 500],
    }
    listed = info(api, token)[GAME]
    assert [b["stake"] for b in listed["bet_levels"]] == [20, 1000, 1500]
    assert listed["bets_disabled"] == [100, 500]
    before = everything(api, "op", token)
    for stake in (100, 500):
        err = start(api, token, None, stake=stake, expect=400)["error"]
        assert err["code"] == "bet_disabled" and str(stake) in err["message"]
        body = {"game": GAME, "stake": stake, "spins": 5, "loss_limit": 1_000}
        err = api.call("POST", "/autoplay", token=token, json=body, expect=400)["error"]
        assert err["code"] == "bet_disabled"
    assert everything(api, "op", token) == before
    start(api, token, lost_script(), stake=1000)  # the others are dealt
    api.operator("PUT", f"/games/{GAME}/bets", json={"disabled": []}, expect=200)
    assert start(api, token, lost_script(), stake=100)["round"]["stake"] == 100

    # No autoplay under GB: the cap in force is none.
    api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)
    gb = api.new_player("gb", CREDIT)
    assert info(api, gb)[GAME]["autoplay_max_spins"] is None
    check_books(db_url, tmp_path / "audit", {"op": CREDIT, "gb": CREDIT})


# -- every decision through the API ---------------------------------------------------------------


def test_a_hold_with_a_mask_other_than_the_suggested_one(api, db_url, tmp_path) -> None:
    token = api.new_player("holder", CREDIT)
    script = hold_script()
    rnd = start(api, token, script)["round"]
    suggested = rnd["state"]["suggested_hold"]
    assert rnd["status"] == "pending" and rnd["step"] == 1 and rnd["win"] == 0
    assert rnd["actions"] == [
        {"name": "hold", "choices": [0, 1, 2, 3, 4, 5, 6], "default": suggested, "needs_player": True}
    ]
    assert rnd["events"][-1] == {"type": "hold_offer", "suggested": suggested}
    mask = 1 if suggested != 1 else 2  # hold one reel only: the other two spin
    held = [r for r in range(3) if mask >> r & 1]
    free = [r for r in range(3) if r not in held]

    def respun(t: tuple[int, int, int]) -> bool:
        return all(t[r] == PAIRED[r] for r in held) and all(t[r] != PAIRED[r] for r in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=respun)
    held_script = game(new, held=True, spinning=free)
    after = act(api, token, rnd, "hold", mask, held_script)
    fresh = after["events"][len(rnd["events"]) :]
    assert fresh[0] == {"type": "hold", "mask": mask, "held": held, "suggested": suggested}
    assert fresh[1]["type"] == "spin" and fresh[1]["game"] == "held" and fresh[1]["spinning"] == free
    assert fresh[1]["stops"] == list(new) and after["state"]["held_game"] is True
    assert after["status"] == "complete" and types(fresh)[-2:] == ["no_prize", "round_end"]
    assert draws(api, rnd["id"]) == [script, held_script]
    steps = recall(api, token, rnd["id"])["steps"]
    assert [s["action"] for s in steps[1:]] == [{"name": "hold", "choice": mask}]
    assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=token)["matches_record"] is True
    check_books(db_url, tmp_path / "audit", {"holder": CREDIT})


def test_nudges_one_at_a_time_then_done_or_the_last_nudge_settles(api, db_url, tmp_path) -> None:
    token = api.new_player("nudger", CREDIT)
    s, script = near_then_lost()
    rnd = start(api, token, script)["round"]
    assert rnd["state"]["phase"] == "nudge" and rnd["state"]["nudges_left"] == 3
    assert set(names(rnd)) == {"nudge", "done"} and all(a["needs_player"] for a in rnd["actions"])
    nudge = next(a for a in rnd["actions"] if a["name"] == "nudge")
    assert nudge["choices"] == [0, 1, 2]
    rnd = act(api, token, rnd, "nudge", 0)
    assert rnd["events"][-1]["type"] == "nudge" and rnd["events"][-1]["reel"] == 0
    assert (rnd["events"][-1]["from"], rnd["events"][-1]["to"]) == (s[0], (s[0] - 1) % 16)
    assert rnd["state"]["nudges_left"] == 2 and rnd["state"]["stops"] == list(moved(s, (1, 0, 0)))
    assert rnd["status"] == "pending" and api.balance(token) == CREDIT - BET
    rnd = act(api, token, rnd, "done")
    assert types(rnd["events"])[-3:] == ["nudges_done", "no_prize", "round_end"]
    assert rnd["events"][-3]["left"] == 2 and rnd["status"] == "complete" and rnd["win"] == 0
    assert draws(api, rnd["id"]) == [script, [], []]

    s, script = near_then_cash()
    rnd = start(api, token, script)["round"]
    assert rnd["state"]["nudges_left"] == 1
    rnd = act(api, token, rnd, "nudge", 2)  # the last nudge settles the line: paid at once
    symbol = line(moved(s, (0, 0, 1)))[1]
    assert rnd["status"] == "complete" and rnd["win"] == D.pays[symbol]
    assert next(e for e in rnd["events"] if e["type"] == "prize")["symbol"] == symbol
    assert api.balance(token) == CREDIT - 2 * BET + D.pays[symbol]
    assert draws(api, rnd["id"]) == [script, []]
    check_books(db_url, tmp_path / "audit", {"nudger": CREDIT})


def test_collect_and_play_on_both_ladders_and_the_seesaw_into_bonuses(api, db_url, tmp_path) -> None:
    token = api.new_player("ladders", CREDIT)
    balance = CREDIT

    # Sube-Bonos at €1 (coin 5): two PLAYs up, then COLLECT.
    rnd = start(api, token, game(CH), stake=100)["round"]
    assert rnd["state"]["ladder"] == {"kind": "sube_bonos", "level": 0} and names(rnd) == ["collect", "play"]
    plays = [step("sube_bonos", 0, True), step("sube_bonos", 1, True)]
    for i, value in enumerate(plays):
        rnd = act(api, token, rnd, "play", script=[value])
        assert rnd["events"][-1] == {"type": "ladder_step", "result": "up", "credits": SCALE[i + 1]}
    rnd = act(api, token, rnd, "collect")
    assert rnd["events"][-2] == {"type": "ladder_end", "how": "collect", "credits": SCALE[2]}
    assert rnd["status"] == "complete" and rnd["win"] == SCALE[2] * 5
    balance += SCALE[2] * 5 - 100
    assert api.balance(token) == balance
    assert draws(api, rnd["id"]) == [game(CH), [plays[0]], [plays[1]], []]

    # Sube-Nada: a PLAY up, then a PLAY that fails: nothing.
    rnd = start(api, token, game(OR))["round"]
    level = SCALE.index(D.pays["OR"])
    assert rnd["state"]["ladder"] == {"kind": "sube_nada", "level": level}
    rnd = act(api, token, rnd, "play", script=[step("sube_nada", level, True)])
    assert rnd["state"]["ladder"]["level"] == level + 1
    rnd = act(api, token, rnd, "play", script=[step("sube_nada", level + 1, False)])
    assert rnd["events"][-2] == {"type": "ladder_step", "result": "nothing", "credits": 0}
    assert rnd["status"] == "complete" and rnd["win"] == 0
    balance -= BET
    assert api.balance(token) == balance

    # Sube-Bonos from the 3 Bells: up above the seesaw, a failed PLAY falls back one level, a
    # failed PLAY at the 3 Bells turns the prize into Bonuses (200c / 80c = 2, and the
    # remainder 40c wins one more Bonus when the draw is below 40).
    rnd = start(api, token, game(BE))["round"]
    assert rnd["state"]["ladder"]["level"] == SEESAW and SCALE[SEESAW] == D.ladders.seesaw_above
    rnd = act(api, token, rnd, "play", script=[step("sube_bonos", SEESAW, True)])
    assert rnd["state"]["ladder"]["level"] == SEESAW + 1
    rnd = act(api, token, rnd, "play", script=[step("sube_bonos", SEESAW + 1, False)])
    assert rnd["events"][-1] == {"type": "ladder_step", "result": "down", "credits": SCALE[SEESAW]}
    assert rnd["status"] == "pending" and rnd["state"]["ladder"]["level"] == SEESAW
    whole, rest = divmod(SCALE[SEESAW], BV)
    rnd = act(api, token, rnd, "play", script=[step("sube_bonos", SEESAW, False), rest - 1])
    assert rnd["events"][-3] == {
        "type": "ladder_step",
        "result": "bonuses",
        "bonuses": whole + 1,
        "from_credits": SCALE[SEESAW],
    }
    assert rnd["status"] == "complete" and rnd["win"] == 0 and rnd["state"]["bonuses_won"] == whole + 1
    assert bonuses(api, token) == whole + 1 == machine(api, token)["bonuses"]
    got = recall(api, token, rnd["id"])
    assert [s["side"] for s in got["steps"]] == [
        {},
        {},
        {},
        {"bonuses": {"amount": whole + 1, "balance_after": whole + 1}},
    ]
    assert [s["action"]["name"] for s in got["steps"][1:]] == ["play", "play", "play"]
    balance -= BET
    assert api.balance(token) == balance
    check_books(db_url, tmp_path / "audit", {"ladders": CREDIT})


def test_the_disco_stop_pays_the_lit_penguin_or_opens_its_ladder(api, db_url, tmp_path) -> None:
    token = api.new_player("disco", CREDIT)
    shown = ["C60", "B1", "C400", "C1000", "B4"]
    rnd = start(api, token, disco_script(*shown))["round"]
    assert rnd["events"][-1] == {"type": "disco_start", "penguins": shown, "at_bet": True}
    assert names(rnd) == ["stop"]
    rnd = act(api, token, rnd, "stop", script=[2])  # C400: above the 3 Bells, paid at once
    assert rnd["events"][-2] == {"type": "disco_stop", "penguin": 2, "prize": "C400", "at_bet": True}
    assert rnd["status"] == "complete" and rnd["win"] == 400
    assert draws(api, rnd["id"]) == [disco_script(*shown), [2]]
    rnd = start(api, token, disco_script(*shown))["round"]
    rnd = act(api, token, rnd, "stop", script=[0])  # C60: into Sube-Bonos
    assert rnd["state"]["ladder"] == {"kind": "sube_bonos", "level": SCALE.index(60)}
    rnd = act(api, token, rnd, "collect")
    assert rnd["status"] == "complete" and rnd["win"] == 60
    assert api.balance(token) == CREDIT - 2 * BET + 400 + 60
    check_books(db_url, tmp_path / "audit", {"disco": CREDIT})


def test_an_action_not_allowed_now_is_refused_clearly_and_changes_nothing(api, db_url, tmp_path) -> None:
    token = api.new_player("wrong", CREDIT)
    hold = start(api, token, hold_script())["round"]
    before = everything(api, "wrong", token)

    def refused(rnd: dict, body: dict, code: str, *phrases: str, status: int = 409) -> None:
        path = f"/rounds/{rnd['id']}/actions"
        err = api.call("POST", path, token=token, json=body, expect=status)["error"]
        assert err["code"] == code and all(p in err["message"] for p in phrases), err

    refused(hold, {"action": "play"}, "action_not_allowed", "'play' is not allowed now", "['hold']")
    refused(hold, {"action": "nudge", "choice": 0}, "action_not_allowed", "['hold']")
    refused(hold, {"action": "hold", "choice": 7}, "action_not_allowed", "choice from [0, 1, 2, 3, 4, 5, 6]")
    refused(hold, {"action": "hold"}, "action_not_allowed", "choice from")
    refused(hold, {"action": "hold", "choice": 1, "expected_step": 2}, "step_mismatch", "at step 1")
    refused(hold, {"action": "hold", "choice": "left"}, "invalid_request", status=422)
    err = api.start(token, game=GAME, stake=BET, expect=409)["error"]
    assert err["code"] == "round_pending" and str(hold["id"]) in err["message"]
    assert everything(api, "wrong", token) == before

    api.finish(token, {"round": hold})
    ladder = start(api, token, game(CH))["round"]
    before = everything(api, "wrong", token)
    refused(ladder, {"action": "done"}, "action_not_allowed", "['collect', 'play']")
    refused(ladder, {"action": "collect", "choice": 1}, "action_not_allowed", "takes no choice")
    refused(ladder, {"action": "stop"}, "action_not_allowed")
    assert everything(api, "wrong", token) == before
    done = act(api, token, ladder, "collect")
    before = everything(api, "wrong", token)
    refused(done, {"action": "play"}, "round_not_pending", "complete")
    assert everything(api, "wrong", token) == before
    check_books(db_url, tmp_path / "audit", {"wrong": CREDIT})


# -- rounds left waiting --------------------------------------------------------------------------


def test_rounds_left_waiting_are_finished_by_the_sweeper_with_the_default_play(
    api, server, db_url, tmp_path
) -> None:
    players = {name: api.new_player(name, CREDIT) for name in ("w-disco", "w-nudge", "w-ladder", "w-hold")}
    _, nudges = near_then_lost()
    scripts = {
        "w-disco": disco_script("C1000", "C1000", "C1000", "C1000", "C1000"),
        "w-nudge": nudges,
        "w-ladder": game(CH),
        "w-hold": hold_script(),
    }
    # AUTO-RISK would PLAY the ladder; the sweeper keeps the default play whatever the settings.
    api.call("PUT", f"/settings?game={GAME}", token=players["w-ladder"], json=AUTO_RISK, expect=200)
    rounds = {name: start(api, players[name], scripts[name])["round"] for name in players}
    assert all(r["status"] == "pending" for r in rounds.values())
    suggested = rounds["w-hold"]["state"]["suggested_hold"]
    assert server.complete_stale_rounds(older_than=-1) == 4
    for name, token in players.items():
        rid = rounds[name]["id"]
        got = recall(api, token, rid)
        assert got["status"] == "complete" and got["completed_by"] == "server", name
        assert [s["actor"] for s in got["steps"]] == ["player"] + ["server"] * (len(got["steps"]) - 1)
        assert history(api, token)[0]["completed_by"] == "server"
        assert api.call("GET", "/rounds/pending", token=token)["rounds"] == []
        assert api.call("GET", f"/rounds/{rid}/replay", token=token)["matches_record"] is True
        acted = [s["action"] for s in got["steps"][1:]]
        if name == "w-disco":
            assert acted == [{"name": "stop", "choice": None}] and got["win"] == 1000
        elif name == "w-ladder":
            assert acted == [{"name": "collect", "choice": None}] and got["win"] == D.pays["CH"]
        elif name == "w-hold":
            assert acted[0] == {"name": "hold", "choice": suggested}
        else:  # the best nudges for the default play, then done if any are left
            assert acted[0]["name"] in ("nudge", "done") and got["round"]["events"][-1]["type"] == "round_end"
            assert all(a["name"] in ("nudge", "done", "hold", "collect", "stop") for a in acted)
        assert got["round"]["player_state"] == machine(api, token)
    check_books(db_url, tmp_path / "audit", dict.fromkeys(players, CREDIT))


# -- autoplay ---------------------------------------------------------------------------------


def held_after(suggested: int) -> list[int]:
    free = [r for r in range(3) if not suggested >> r & 1]

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == PAIRED[r] for r in range(3) if r not in free)

    return game(find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=keeps), held=True,
                spinning=free)  # fmt: skip


def steps_of(api: Api, token: str, rid: int) -> list[tuple[str, str, int | None]]:
    return [
        (s["actor"], s["action"]["name"], s["action"].get("choice")) for s in recall(api, token, rid)["steps"]
    ]


def test_autoplay_without_auto_advance_plays_the_rest_and_stops_at_a_nudge_offer(
    api, server, db_url, tmp_path
) -> None:
    token = api.new_player("auto", CREDIT)
    suggested = RULES.start(BET, ScriptedRandom(hold_script(), NoMoreDraws())).state["suggested_hold"]
    _, nudges = near_then_lost()
    stream = script_server(
        server,
        [
            *game(SE),  # paid at once
            *game(CH),  # a ladder: collected (no AUTO-RISK)
            *hold_script(), *held_after(suggested),  # the suggested hold, as the game holds by itself
            *disco_script(*["C1000"] * 5), 4,  # the Disco stops itself
            *nudges,  # a nudge offer: autoplay stops, the player decides
        ],
    )  # fmt: skip
    ap, rounds = run_autoplay(api, token, 10)
    assert ap["stop_reason"] == "player_action" and ap["spins_left"] == 5 and not stream.script
    assert [r["status"] for r in rounds] == ["complete"] * 4 + ["pending"]
    assert steps_of(api, token, rounds[1]["id"]) == [
        ("autoplay", "start", None),
        ("autoplay", "collect", None),
    ]
    assert steps_of(api, token, rounds[2]["id"])[1] == ("autoplay", "hold", suggested)
    assert steps_of(api, token, rounds[3]["id"])[1:] == [("autoplay", "stop", None)]
    waiting = rounds[-1]
    assert waiting["state"]["phase"] == "nudge" and set(names(waiting)) == {"nudge", "done"}
    assert api.call("GET", "/rounds/pending", token=token)["rounds"] == [waiting]
    api.call("POST", "/autoplay/next", token=token, expect=409)  # stopped: the player decides
    done = act(api, token, waiting, "done")
    assert done["status"] == "complete"
    assert steps_of(api, token, waiting["id"])[-1] == ("player", "done", None)
    won = D.pays[DIRECT[-1]] + D.pays["CH"] + 1000
    assert api.balance(token) == CREDIT - 5 * BET + won
    check_books(db_url, tmp_path / "audit", {"auto": CREDIT})


def played_by_the_rules(
    settings: dict[str, bool], prefixes: list[list[int]]
) -> tuple[list[Round], list[int]]:
    """The rounds autoplay deals with these settings, each starting with its prefix and
    going on with a seeded stream: the rounds and every value drawn, in order."""
    rounds, values, state = [], [], None
    for i, prefix in enumerate(prefixes):
        rec = RecordingRandom(ScriptedRandom(prefix, SeededRandom(100 + i)))
        rnd = RULES.start(BET, rec, player_state=state)
        while not rnd.complete:
            action = RULES.auto_action(rnd, settings)
            assert action is not None
            rnd = RULES.act(rnd, action, rec)
        rounds.append(rnd)
        values += [v for _, v in rec.draws]
        state = rnd.player_state
    return rounds, values


def test_autoplay_with_auto_advance_and_auto_risk_plays_nudges_holds_and_ladders(
    api, server, db_url, tmp_path
) -> None:
    token = api.new_player("risk", CREDIT)
    reply = api.call("PUT", f"/settings?game={GAME}", token=token, json=AUTO_RISK, expect=200)
    assert reply["settings"] == AUTO_RISK
    s, _ = near_then_cash()
    blue = find(
        lambda sym: judge(sym)[0] == "none",
        near=True,
        also=lambda t: (
            line(moved(t, (0, 0, 1)))[1] in D.blue and judge(line(moved(t, (0, 0, 1))))[0] == "cash"
        ),
    )
    prefixes = [game(blue, nudges=1), game(s, nudges=1), hold_script(), game(CH), disco_script(*["C60"] * 5)]
    expected, values = played_by_the_rules(AUTO_RISK, prefixes)
    stream = script_server(server, values)
    ap, rounds = run_autoplay(api, token, len(prefixes))
    assert ap["stop_reason"] == "spins_done" and ap["spins_left"] == 0 and not stream.script
    assert [r["events"] for r in rounds] == [r.events for r in expected]
    assert [r["win"] for r in rounds] == [r.win for r in expected]
    played = [steps_of(api, token, r["id"]) for r in rounds]
    assert all(actor == "autoplay" for steps in played for actor, _, _ in steps)
    nudged = [name for _, name, _ in played[0][1:]]
    assert nudged[0] == "nudge" and "play" in nudged  # the nudge to a blue prize, then its ladder played
    assert played[2][1][1] == "hold"
    assert [a for _, a, _ in played[3][1:]] == ["play"] * (len(played[3]) - 1)  # never collected
    assert played[4][1][1] == "stop" and all(a == "play" for _, a, _ in played[4][2:])
    assert api.balance(token) == CREDIT - len(prefixes) * BET + sum(r.win for r in expected)
    assert machine(api, token) == expected[-1].player_state
    assert bonuses(api, token) == sum(r.state["bonuses_won"] for r in expected)
    check_books(db_url, tmp_path / "audit", {"risk": CREDIT})


def test_autoplay_stops_when_the_balance_is_below_the_bet_and_when_the_player_stops_it(
    api, server, db_url, tmp_path
) -> None:
    poor = api.new_player("poor", 2 * BET)
    script_server(server, [*lost_script(), *lost_script()])
    ap, rounds = run_autoplay(api, poor, 5)
    assert ap["stop_reason"] == "insufficient_balance" and len(rounds) == 2 and ap["spins_left"] == 3
    assert api.balance(poor) == 0
    token = api.new_player("stopper", CREDIT)
    script_server(server, lost_script())
    body = {"game": GAME, "stake": BET, "spins": 5, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    assert api.call("POST", "/autoplay/next", token=token, expect=200)["autoplay"]["spins_left"] == 4
    ap = api.call("POST", "/autoplay/stop", token=token, expect=200)["autoplay"]
    assert (ap["running"], ap["stop_reason"], ap["spins_left"]) == (False, "cancelled", 4)
    assert (
        api.call("POST", "/autoplay/next", token=token, expect=409)["error"]["code"] == "autoplay_not_running"
    )
    check_books(db_url, tmp_path / "audit", {"poor": 2 * BET, "stopper": CREDIT})


def test_pressing_play_while_autoplay_runs_stops_it_and_plays_the_round(
    api, server, db_url, tmp_path
) -> None:
    token = api.new_player("press", CREDIT)
    script_server(server, lost_script())
    body = {"game": GAME, "stake": BET, "spins": 10, "loss_limit": 1_000}
    autoplay_id = api.call("POST", "/autoplay", token=token, json=body, expect=201)["autoplay"]["id"]
    first = api.call("POST", "/autoplay/next", token=token, expect=200)
    assert first["autoplay"]["running"] and first["autoplay"]["spins_left"] == 9

    # A start refused for any reason leaves the autoplay running.
    before = everything(api, "press", token)
    start(api, token, None, stake=41, expect=400)
    api.operator("PUT", f"/games/{GAME}/bets", json={"disabled": [100]}, expect=200)
    start(api, token, None, stake=100, expect=400)
    assert everything(api, "press", token) == before

    # PLAY by hand: the round is played and the autoplay stopped, in one step.
    body = {"game": GAME, "stake": BET, "script": lost_script()}
    reply = api.call("POST", "/rounds", token=token, json=body, idem="press-play", expect=201)
    ap = reply["autoplay"]
    assert (ap["id"], ap["running"], ap["stop_reason"], ap["spins_left"]) == (
        autoplay_id,
        False,
        "cancelled",
        9,
    )
    assert reply["round"]["status"] == "complete" and reply["balance"] == CREDIT - 2 * BET
    assert api.call("GET", "/autoplay", token=token)["autoplay"] == ap
    again = api.call("POST", "/rounds", token=token, json=body, idem="press-play", expect=201)
    assert again == reply and api.balance(token) == CREDIT - 2 * BET
    assert [r["autoplay_id"] for r in history(api, token)] == [None, autoplay_id]
    err = api.call("POST", "/autoplay/next", token=token, expect=409)["error"]
    assert err["code"] == "autoplay_not_running"
    # Without an autoplay a start says nothing of one; another game's autoplay is left alone.
    assert "autoplay" not in start(api, token, lost_script())
    gnomes = {"game": "reign-of-gnomes", "stake": 40, "spins": 5, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=token, json=gnomes, expect=201)
    assert "autoplay" not in start(api, token, lost_script())
    assert api.call("GET", "/autoplay", token=token)["autoplay"]["running"] is True
    api.call("POST", "/autoplay/stop", token=token, expect=200)
    check_books(db_url, tmp_path / "audit", {"press": CREDIT})


def test_autoplay_plays_at_most_100_games(api, server, db_url, tmp_path) -> None:
    token = api.new_player("hundred", CREDIT)
    for spins in (101, 1000):
        body = {"game": GAME, "stake": BET, "spins": spins, "loss_limit": 100_000}
        err = api.call("POST", "/autoplay", token=token, json=body, expect=400)["error"]
        assert err["code"] == "invalid_autoplay" and "at most 100 games" in err["message"], err
    assert api.call("GET", "/autoplay", token=token)["autoplay"] is None
    # Another game keeps the profile's cap.
    gnomes = {"game": "reign-of-gnomes", "stake": 40, "spins": 101, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=token, json=gnomes, expect=201)
    api.call("POST", "/autoplay/stop", token=token, expect=200)
    # 100 games: all of them played (AUTO-ADVANCE on, nothing stops for the player).
    api.call("PUT", f"/settings?game={GAME}", token=token, json=AUTO_RISK, expect=200)
    server.rng_factory = (lambda stream: lambda: stream)(SeededRandom(2024))
    ap, rounds = run_autoplay(api, token, 100)
    assert ap["stop_reason"] == "spins_done" and ap["spins_left"] == 0 and len(rounds) == 100
    assert all(r["status"] == "complete" for r in rounds)
    played = [r for r in history(api, token) if r["game"] == GAME]
    assert len(played) == 100 and all(r["autoplay_id"] == ap["id"] for r in played)
    check_books(db_url, tmp_path / "audit", {"hundred": CREDIT})
