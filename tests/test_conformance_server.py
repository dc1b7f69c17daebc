"""The conformance kit, server part: every registered game with stored max-win sequences
(its ``reachability`` capability) is played through a real ``reelforge serve`` process, on
SQLite and on PostgreSQL, by the HTTP API alone.

For every mode, the default variant's stored sequence (from a new machine, at the mode's
lowest stake) is dealt as scripted draws, step by step, with its decisions: these rounds
pass through every kind of step the game has (free spins, picks, Lock & Spin, holds, the
upper game's minigames) and end in the max win.  The first time a kind of pending step (the
set of actions it offers) is reached, and after the first finished round of each mode, the
server is SIGKILLed and restarted: the round is found where it was (same step, same events),
and play goes on.  Every finished round pays what the rules say (the last: the declared
max win); its recall and its replay from the stored draws give byte-identical events, and
the books balance at the end.  No game's own module is imported here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from reelforge.analysis.reachability.sequences import load_sequences
from reelforge.engine.capabilities import has
from reelforge.engine.game import levels_for
from reelforge.engine.round import Action
from reelforge.games import get_game, registry
from reelforge.rng import ReplayRandom
from server_process import LOCAL, OP_HEADERS, ServerPool, check_books

CREDIT = 100_000_000
RANDOM_ROUNDS = 25
OK_OR_SHORT = (200, 201, 402)
GAMES = sorted(g for g, game in registry().items() if has(game, "reachability"))


def step_draws(game: Any, seq: dict[str, Any], rnd_data: dict[str, Any], state: Any) -> tuple[list, Any]:
    """The stored round's draws split by step (start, then each action), found by dealing them
    through the rules here; and the player state after it."""
    rng = ReplayRandom(rnd_data["draws"])
    mode = rnd_data.get("mode", seq["mode"])
    stake = rnd_data.get("stake", seq["stake"])
    rnd = game.start(stake, rng, variant=seq["variant"], mode=mode, player_state=state)
    cuts = [rng.position]
    for a in rnd_data["actions"]:
        rnd = game.act(rnd, Action(name=a["name"], choice=a.get("choice")), rng)
        cuts.append(rng.position)
    values = [int(v) for _, v in rnd_data["draws"]]
    parts = [values[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    return parts, rnd.player_state


class Player:
    def __init__(self, server: Any, name: str) -> None:
        self.server, self.name, self.n = server, name, 0
        self.operator("POST", "/players", {"external_id": name})
        self.operator("POST", f"/players/{name}/credit", {"amount": CREDIT})
        self.token = self.operator("POST", f"/players/{name}/sessions", {})["token"]

    def _key(self) -> str:
        self.n += 1
        return f"{self.name}-{self.n}"

    def operator(self, method: str, path: str, body: dict[str, Any]) -> Any:
        headers = {**OP_HEADERS, "Idempotency-Key": self._key()}
        url = self.server.url + "/operator" + path
        r = LOCAL.request(method, url, json=body, headers=headers, timeout=60)
        assert r.status_code in (200, 201), r.text
        return r.json()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, ok: tuple = (200, 201)) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"}
        if method == "POST":
            headers["Idempotency-Key"] = self._key()
        r = LOCAL.request(method, self.server.url + path, json=body, headers=headers, timeout=60)
        assert r.status_code in ok, (path, r.text)
        return r.json()


def kill_and_find(server: Any, player: Player, rnd: dict[str, Any]) -> None:
    """SIGKILL the server, restart it, and find the round as the last reply left it."""
    server.restart()
    if rnd["status"] == "pending":
        pending = {r["id"]: r for r in player.call("GET", "/rounds/pending")["rounds"]}
        again = pending[rnd["id"]]
        assert again["step"] == rnd["step"] and again["events"] == rnd["events"]
        assert again["actions"] == rnd["actions"]
    else:
        again = player.call("GET", f"/rounds/{rnd['id']}")
        assert again["status"] == "complete" and again["win"] == rnd["win"]


def check_recall_and_replay(player: Player, round_id: int) -> None:
    recall = player.call("GET", f"/rounds/{round_id}")
    replay = player.call("GET", f"/rounds/{round_id}/replay")
    assert replay["matches_record"] is True and replay["win"] == recall["win"]
    dump = [json.dumps(s["events"], sort_keys=True) for s in recall["steps"]]
    assert dump == [json.dumps(s["events"], sort_keys=True) for s in replay["steps"]]


@pytest.mark.parametrize("game_id", GAMES)
def test_stored_max_wins_play_through_the_server_surviving_a_sigkill_at_every_kind_of_step(
    game_id: str, db_url: str, tmp_path: Any
) -> None:
    game = get_game(game_id)
    stored = load_sequences(game_id)["sequences"]
    pool = ServerPool(tmp_path)
    server = pool.new(db_url).start()
    killed: set[Any] = set()
    credits: dict[str, int] = {}
    try:
        for mode in game.modes:
            seq = next(s for s in stored if s["variant"] == game.default_variant and s["mode"] == mode)
            assert seq["player_state"] is None  # from a new machine: a new player
            player = Player(server, f"{game_id}-{mode}")
            credits[player.name] = CREDIT
            state = None
            for k, rnd_data in enumerate(seq["rounds"]):
                parts, state = step_draws(game, seq, rnd_data, state)
                body = {
                    "game": game_id,
                    "stake": rnd_data.get("stake", seq["stake"]),
                    "mode": rnd_data.get("mode", seq["mode"]),
                    "script": parts[0],
                }
                rnd = player.call("POST", "/rounds", body)["round"]
                for a, draws in zip(rnd_data["actions"], parts[1:], strict=True):
                    kind = (game_id, tuple(sorted(x["name"] for x in rnd["actions"])))
                    if kind not in killed:
                        killed.add(kind)
                        kill_and_find(server, player, rnd)
                    body = {"action": a["name"], "choice": a.get("choice"), "script": draws}
                    rnd = player.call("POST", f"/rounds/{rnd['id']}/actions", body)["round"]
                assert rnd["status"] == "complete"
                if k == len(seq["rounds"]) - 1:
                    assert rnd["win"] == seq["expected_win"] == seq["declared_max_win"]
                if ("done", mode) not in killed:
                    killed.add(("done", mode))
                    kill_and_find(server, player, rnd)
                check_recall_and_replay(player, rnd["id"])
            # Then rounds the server deals itself, at the default play: the commoner kinds of
            # step the max win does not pass through (holds, nudges, ladders).
            stake = levels_for(game, game.default_variant, mode)[0].stake
            for _ in range(RANDOM_ROUNDS):
                body = {"game": game_id, "stake": stake, "mode": mode}
                reply = player.call("POST", "/rounds", body, OK_OR_SHORT)
                if "error" in reply:  # the mode takes a side balance the player no longer holds
                    assert reply["error"]["code"] == "insufficient_side_balance", reply
                    break
                rnd = reply["round"]
                while rnd["status"] == "pending":
                    kind = (game_id, tuple(sorted(x["name"] for x in rnd["actions"])))
                    if kind not in killed:
                        killed.add(kind)
                        kill_and_find(server, player, rnd)
                    spec = rnd["actions"][0]
                    body = {"action": spec["name"], "choice": spec.get("default")}
                    rnd = player.call("POST", f"/rounds/{rnd['id']}/actions", body)["round"]
                check_recall_and_replay(player, rnd["id"])
    finally:
        pool.close()
    audit = check_books(db_url, tmp_path / "audit", credits)
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
    pending_kinds = [k for k in killed if k[0] == game_id]
    print(game_id, "SIGKILLs:", server.kills, "kinds of pending step:", sorted(k[1] for k in pending_kinds))
    assert pending_kinds or all(not s["rounds"][-1]["actions"] for s in stored)
