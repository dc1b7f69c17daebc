"""Autoplay stops only where the round really waits for a person, and then the round shows it.

Los 3 Pinguinos' lower game, many games with AUTO (auto-advance) and AUTO-RISK off, through the
server's HTTP API on SQLite and PostgreSQL, with the server's seeded draws: every run either
plays all its games or stops with ``player_action`` on a round that is in play, offers a
decision that needs the player (the nudges: the only decision the seed's AUTO-PLAY leaves to a
person while AUTO is off) and is the game's pending round; every completed round was played the
way the seed's AUTO-PLAY plays it (the suggested hold, the Disco stopped, every ladder
collected).  (A game's ``None`` is the player's settings leaving a step to the player, which
the server respects even at a step that needs no decision: tests/test_server_play_settings.py.)
"""

from __future__ import annotations

from typing import Any

from reelforge.engine.round import Round
from reelforge.games import get_game
from server_support import Api

GAME = "los-3-pinguinos"
BET = 20
MANUAL = {"auto_advance": False, "auto_risk": False}
RULES = get_game(GAME)


def recall(api: Api, token: str, rid: int) -> dict[str, Any]:
    return api.call("GET", f"/rounds/{rid}", token=token, expect=200)


def finish_by_hand(api: Api, token: str, rnd: dict[str, Any]) -> dict[str, Any]:
    """The player takes the decision autoplay left (COLLECT ends the nudges), then the defaults."""
    while rnd["status"] == "pending":
        names = [a["name"] for a in rnd["actions"]]
        name = "done" if "done" in names else rnd["actions"][0]["name"]
        spec = next(a for a in rnd["actions"] if a["name"] == name)
        body = {"action": name, "choice": spec.get("default"), "expected_step": rnd["step"]}
        rnd = api.call("POST", f"/rounds/{rnd['id']}/actions", token=token, json=body, expect=200)["round"]
    return rnd


def played_as_autoplay_plays(rec: dict[str, Any]) -> None:
    """Every step after the start was the autoplay's, and the one the seed's AUTO-PLAY takes."""
    events = [e for s in rec["steps"] for e in s["events"]]
    suggested = [e["suggested"] for e in events if e["type"] == "hold_offer"]
    for s in rec["steps"][1:]:
        action = s["action"]
        assert s["actor"] == "autoplay", rec["steps"]
        assert action["name"] in ("hold", "collect", "stop"), action  # AUTO off: no nudge, no PLAY
        if action["name"] == "hold":
            assert action["choice"] == suggested.pop(0)  # the hold the game suggests


def test_many_lower_games_with_auto_off_stop_only_at_a_decision_the_round_has(api, server) -> None:
    token = api.new_player("many", 1_000_000)
    settings = api.call("GET", f"/settings?game={GAME}", token=token, expect=200)["settings"]
    assert settings == MANUAL
    played, stops, kinds = 0, 0, set()
    while played < 400:
        body = {"game": GAME, "stake": BET, "spins": 100, "loss_limit": 100_000}
        api.call("POST", "/autoplay", token=token, json=body, expect=201)
        while True:
            reply = api.call("POST", "/autoplay/next", token=token, expect=200)
            ap, rnd = reply["autoplay"], reply["round"]
            assert rnd is not None, reply  # the balance and the loss limit never run out here
            played += 1
            if rnd["status"] == "complete":
                rec = recall(api, token, rnd["id"])
                played_as_autoplay_plays(rec)
                kinds |= {s["action"]["name"] for s in rec["steps"][1:]}
                if ap["running"]:
                    continue
                assert ap["stop_reason"] == "spins_done", ap
                break
            # Stopped in the middle of a round: the round itself must wait for a person.
            assert not ap["running"] and ap["stop_reason"] == "player_action", ap
            waiting = Round.model_validate({k: v for k, v in rnd.items() if k != "id"})
            assert any(a.needs_player for a in waiting.actions)
            assert waiting.state["phase"] == "nudge" and {a.name for a in waiting.actions} == {
                "nudge",
                "done",
            }
            assert RULES.auto_action(waiting, MANUAL) is None  # what AUTO off leaves to the player
            assert rnd["events"][-1]["type"] == "nudge_offer"  # what the machine shows: the offer
            assert api.call("GET", f"/rounds/pending?game={GAME}", token=token)["rounds"] == [rnd]
            stops += 1
            assert finish_by_hand(api, token, rnd)["status"] == "complete"
            break
    assert stops >= 2, stops  # real decisions were met (and nothing else stopped the runs)
    assert {"hold", "collect"} <= kinds, kinds  # holds and ladders were resolved by autoplay
