"""Kill-and-resume: the real ``reelforge serve`` process is SIGKILLed at random points of
real play, on SQLite and on PostgreSQL, and restarted on the same database.

Play covers the moments a crash hurts most: right after the wager, Reign of Gnomes free
spins (forced with scripted draws), the Ice Diamonds pick, autoplay, and the test game's
hold and gamble ladder.  A seeded ``random.Random`` decides which requests die and how:

* ``between``: after the reply arrived, before the next request;
* ``early`` / ``race``: while the request is in flight (sent from a thread, SIGKILL after a
  random delay shorter or about as long as such a request takes), so kills land before,
  inside and after the transaction;
* ``lost``: the reply was sent but never reached the player (kill after it, then forget it):
  the commit happened and the player does not know.

After every restart: the state is the one the last received reply describes (pending round
at the same step with the same events, balance, autoplay); a request that got no reply is
either not done (state unchanged) or done (state moved on once), and retrying its SAME
Idempotency-Key returns the committed reply (exactly the lost one, where we kept it) or
does it once, and repeating it changes nothing.  Stored draws never change.  At the end
every round is finished, replays from its draws, has one stake and at most one win, and
the server's audit holds.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from helpers import trigger_script, wheel_draw
from server_process import OP_HEADERS, ServerPool, ServerProcess, check_books

GNOMES = "reign-of-gnomes"
METER = "test-meter"
CREDIT = 1_000_000
MOMENTS = ("start", "free_spins", "ice_pick", "autoplay", "hold", "gamble")
MODES = ("between", "early", "race", "lost")
# Kills per moment and database (26: both databases together, 52), and how likely a request
# of that moment is killed until its quota is reached; the first kill of each moment lands
# while a request is in flight.
QUOTA = {"start": 6, "free_spins": 6, "ice_pick": 4, "autoplay": 4, "hold": 3, "gamble": 3}
KILL_P = {"start": 0.4, "free_spins": 0.2, "ice_pick": 0.4, "autoplay": 0.5, "hold": 1.0, "gamble": 0.7}
KILLS_PER_DB = sum(QUOTA.values())
MAX_CYCLES = 10
SEEDS = {"sqlite": 20_240_601, "postgresql": 20_240_602}
NON_ICE = ("x3", "x5", "x6", "spin_to_win", "random_wilds")
ALL_XS = [6, 5, 4]  # Test Meter stops showing three blanks: no win, the hold is offered
ALL_AS = [0, 0, 0]  # three apples: a line win, the gamble ladder is offered

RUNS: dict[str, dict[str, Any]] = {}  # per database: kills and run time (printed at the end)


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


@dataclass
class Reply:
    status: int
    body: Any


class Rig:
    """Drives one server process, kills it where the seeded generator says, restarts it on
    the same database and checks the resumption.  Every call returns the reply that holds
    after any kill (received, retried or kept)."""

    def __init__(
        self,
        proc: ServerProcess,
        rng: random.Random,
        quota: dict[str, int] | None = None,
        kill_p: dict[str, float] | None = None,
    ):
        self.proc = proc
        self.rng = rng
        self.quota = quota or {}
        self.kill_p = kill_p or KILL_P  # per moment: how likely a request is killed
        self.schedule: list[str] = []  # kill modes to come, shuffled in blocks of all four
        self.http = proc.client()
        self.keys = itertools.count(1)
        self.kills: Counter[str] = Counter()  # by moment
        self.in_flight_kills: Counter[str] = Counter()  # by moment: early / race
        self.modes: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.latency: dict[str, float] = {}
        self.draws: dict[int, dict[int, Any]] = {}  # round -> step -> stored draws
        self.recent: dict[str, deque[int]] = {}  # player token -> latest round ids
        self.credits: dict[str, int] = {}

    # -- plumbing ----------------------------------------------------------------------

    @staticmethod
    def send(client: httpx.Client, method: str, path: str, token: str, body: Any, key: str | None) -> Reply:
        headers = {"Authorization": f"Bearer {token}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        r = client.request(method, path, json=body, headers=headers)
        return Reply(r.status_code, r.json())

    def get(self, token: str, path: str) -> Any:
        r = self.http.get(path, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, (path, r.status_code, r.text)
        return r.json()

    def operator(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        headers = dict(OP_HEADERS)
        if key is not None:
            headers["Idempotency-Key"] = key
        r = self.http.request(method, "/operator" + path, json=body, headers=headers)
        assert r.status_code in (200, 201), (path, r.status_code, r.text)
        return r.json()

    def new_player(self, name: str, credit: int = CREDIT) -> str:
        self.operator("POST", "/players", {"external_id": name})
        self.operator("POST", f"/players/{name}/credit", {"amount": credit}, key=f"credit-{name}")
        self.credits[name] = credit
        return self.operator("POST", f"/players/{name}/sessions", {}, key=f"session-{name}")["token"]

    def kill(self) -> None:
        self.http.close()
        self.proc.kill()

    def start(self) -> None:
        self.proc.start()
        self.http = self.proc.client()

    # -- what the server holds -----------------------------------------------------------

    def snapshot(self, token: str) -> dict[str, Any]:
        """Everything a request of this player can change, as the player reads it."""
        return {
            "balance": self.get(token, "/balance")["balance"],
            "pending": self.get(token, "/rounds/pending")["rounds"],
            "last": self.get(token, "/history?limit=1")["rounds"],
            "autoplay": self.get(token, "/autoplay")["autoplay"],
        }

    def check_matches(self, token: str, reply: Reply) -> None:
        """The server's state is the one ``reply`` describes: the round at the same step with
        the same events (still pending, or finished), the balance, the autoplay."""
        if reply.status >= 400:
            return
        body = reply.body
        if "balance" in body:
            assert self.get(token, "/balance")["balance"] == body["balance"]
        rnd = body.get("round")
        if rnd is not None:
            recall = self.get(token, f"/rounds/{rnd['id']}")
            assert recall["round"] == rnd, (recall["round"], rnd)
            assert recall["status"] == rnd["status"]
            assert [s["step"] for s in recall["steps"]] == list(range(1, rnd["step"] + 1))
            pending = {r["id"]: r for r in self.get(token, "/rounds/pending")["rounds"]}
            if rnd["status"] == "pending":
                assert pending.get(rnd["id"]) == rnd, "the pending round is not the one last replied"
            else:
                assert rnd["id"] not in pending
        if "autoplay" in body:
            assert self.get(token, "/autoplay")["autoplay"] == body["autoplay"]

    def note_rounds(self, token: str, reply: Reply) -> None:
        if reply.status < 400 and isinstance(reply.body, dict) and reply.body.get("round"):
            recent = self.recent.setdefault(token, deque(maxlen=3))
            rid = reply.body["round"]["id"]
            if rid not in recent:
                recent.append(rid)

    def check_draws(self, round_ids: Any) -> None:
        """Draws stored for a step never change; record the steps not seen before."""
        for rid in round_ids:
            steps = {s["step"]: s["draws"] for s in self.operator("GET", f"/rounds/{rid}")["steps"]}
            seen = self.draws.setdefault(rid, {})
            for step, draws in seen.items():
                assert steps.get(step) == draws, f"round {rid}: the draws of step {step} changed"
            seen.update(steps)

    # -- requests, some of them killed ---------------------------------------------------------

    def op(
        self,
        moment: str,
        token: str,
        method: str,
        path: str,
        body: Any = None,
        expect: tuple[int, ...] = (200, 201),
    ) -> dict[str, Any]:
        key = f"{moment}-{next(self.keys)}"
        mode = None
        if self.kills[moment] < self.quota.get(moment, 0) and self.rng.random() < self.kill_p[moment]:
            mode = self.next_mode(moment)
        if mode in (None, "between"):
            t0 = time.perf_counter()
            reply = self.send(self.http, method, path, token, body, key)
            elapsed = time.perf_counter() - t0
            self.latency[moment] = 0.7 * self.latency.get(moment, elapsed) + 0.3 * elapsed
            self.note_rounds(token, reply)
            if mode == "between":
                self.check_draws(self.recent.get(token, ()))
                self.kill()
                self.count(moment, mode, "reply")
                self.start()
                self.check_matches(token, reply)
                if reply.status < 400:  # the key answers the same again, changing nothing
                    before = self.snapshot(token)
                    again = self.send(self.http, method, path, token, body, key)
                    assert (again.status, again.body) == (reply.status, reply.body)
                    assert self.snapshot(token) == before
                self.check_draws(self.recent.get(token, ()))
        else:
            reply = self.in_flight(moment, mode, token, method, path, body, key)
        assert reply.status in expect, (method, path, reply.status, reply.body)
        return reply.body

    def next_mode(self, moment: str) -> str:
        """The next mode of the shuffled schedule; a moment's first kill is in flight."""
        while len(self.schedule) < len(MODES):
            block = list(MODES)
            self.rng.shuffle(block)
            self.schedule += block
        i = 0
        if not self.in_flight_kills[moment]:
            i = next(i for i, m in enumerate(self.schedule) if m in ("early", "race"))
        return self.schedule.pop(i)

    def count(self, moment: str, mode: str, outcome: str) -> None:
        self.kills[moment] += 1
        self.modes[mode] += 1
        self.outcomes[f"{mode}: {outcome}"] += 1
        if mode in ("early", "race"):
            self.in_flight_kills[moment] += 1

    def in_flight(
        self, moment: str, mode: str, token: str, method: str, path: str, body: Any, key: str
    ) -> Reply:
        self.check_draws(self.recent.get(token, ()))
        before = self.snapshot(token)
        box: dict[str, Any] = {}
        sent = threading.Event()

        def fire() -> None:
            try:
                with self.proc.client() as client:
                    sent.set()
                    box["reply"] = self.send(client, method, path, token, body, key)
            except (httpx.HTTPError, OSError, ValueError) as exc:  # the server died under it
                box["error"] = exc
            finally:
                sent.set()

        thread = threading.Thread(target=fire, name="in-flight request", daemon=True)
        thread.start()
        if mode == "lost":
            thread.join(30)  # the reply arrives, and is lost on its way to the player
        else:
            assert sent.wait(10)
            typical = self.latency.get(moment, 0.01)
            low, high = (0.0, 0.6 * typical) if mode == "early" else (0.6 * typical, 1.5 * typical)
            time.sleep(self.rng.uniform(low, high))
        self.kill()
        thread.join(30)
        assert not thread.is_alive(), "the in-flight request did not end with the server"
        kept: Reply | None = box.get("reply")
        received = None if mode == "lost" else kept
        self.start()

        if received is not None:  # the reply came before the kill: it is what holds
            self.count(moment, mode, "reply")
            self.note_rounds(token, received)
            self.check_matches(token, received)
            if received.status < 400:
                state = self.snapshot(token)
                again = self.send(self.http, method, path, token, body, key)
                assert (again.status, again.body) == (received.status, received.body)
                assert self.snapshot(token) == state
            self.check_draws(self.recent.get(token, ()))
            return received

        # No reply: the request was not done, or done once; either way the key settles it.
        after = self.snapshot(token)
        committed = after != before
        if kept is not None and kept.status < 400:
            assert committed, "a reply was sent for a change that is not in the database"
            self.check_matches(token, kept)  # the same step and events as the lost reply
        if committed and method == "POST" and "/actions" in path:
            old = next(r for r in before["pending"] if f"/rounds/{r['id']}/" in path)
            now = next((r for r in after["pending"] if r["id"] == old["id"]), None)
            assert now is None or now["step"] == old["step"] + 1, (old["step"], now and now["step"])
        retry = self.send(self.http, method, path, token, body, key)
        settled = self.snapshot(token)
        if committed:
            assert settled == after, "retrying a committed request changed the state"
            if kept is not None:
                assert (retry.status, retry.body) == (kept.status, kept.body), "not the committed reply"
        elif retry.status < 400:
            assert settled != before, "the retried request did nothing"
        if retry.status < 400 and method == "POST" and "/actions" in path:
            old = next(r for r in before["pending"] if f"/rounds/{r['id']}/" in path)
            assert retry.body["round"]["step"] == old["step"] + 1
        self.note_rounds(token, retry)
        self.check_matches(token, retry)
        again = self.send(self.http, method, path, token, body, key)
        if retry.status < 400:
            assert (again.status, again.body) == (retry.status, retry.body)
        assert self.snapshot(token) == settled, "repeating the key changed the state"
        self.count(moment, mode, "committed, no reply" if committed else "not done")
        self.check_draws(self.recent.get(token, ()))
        return retry

    # -- game play -------------------------------------------------------------------------

    def act(
        self, moment: str, token: str, rnd: dict, name: str, choice: int | None, script: list[int] | None
    ) -> dict:
        body: dict[str, Any] = {"action": name, "choice": choice, "expected_step": rnd["step"]}
        if script is not None:
            body["script"] = script
        return self.op(moment, token, "POST", f"/rounds/{rnd['id']}/actions", body)["round"]

    def finish(self, token: str, rnd: dict, gnomes_data: Any) -> dict:
        """Play a round to its end: scripted free spins (no Ice Diamonds unless it is the
        first spin of an ice round), random picks, holds and gamble decisions."""
        while rnd["status"] == "pending":
            specs = {s["name"]: s for s in rnd["actions"]}
            if "spin" in specs:
                label = self.rng.choice(NON_ICE)
                rnd = self.act("free_spins", token, rnd, "spin", None, [wheel_draw(gnomes_data, label)])
            elif "pick" in specs:
                rnd = self.act(
                    "ice_pick", token, rnd, "pick", self.rng.choice(specs["pick"]["choices"]), None
                )
            elif "hold" in specs:
                rnd = self.act("hold", token, rnd, "hold", self.rng.choice(specs["hold"]["choices"]), None)
            elif "gamble" in specs and self.rng.random() < 0.6:
                rnd = self.act("gamble", token, rnd, "gamble", None, [self.rng.choice((0, 1, 1))])
            else:
                rnd = self.act("gamble", token, rnd, "collect", None, None)
        return rnd

    def start_round(self, token: str, game: str, stake: int, script: list[int] | None) -> dict:
        body: dict[str, Any] = {"game": game, "stake": stake}
        if script is not None:
            body["script"] = script
        return self.op("start", token, "POST", "/rounds", body, expect=(201,))["round"]

    def done(self) -> bool:
        return all(self.kills[m] >= n and self.in_flight_kills[m] >= 1 for m, n in self.quota.items())


# -- the scenarios -----------------------------------------------------------------------------


def play_base_round(rig: Rig, token: str, d: Any) -> None:
    """A wager on Reign of Gnomes' base game (its free spins, if they come, are played)."""
    rig.finish(token, rig.start_round(token, GNOMES, 40, None), d)


def play_free_spins(rig: Rig, token: str, d: Any) -> None:
    rnd = rig.start_round(token, GNOMES, 40, trigger_script(d))
    assert rnd["status"] == "pending" and rnd["actions"][0]["name"] == "spin"
    rig.finish(token, rnd, d)


def play_ice_diamonds(rig: Rig, token: str, d: Any) -> None:
    rnd = rig.start_round(token, GNOMES, 80, trigger_script(d))
    rnd = rig.act("free_spins", token, rnd, "spin", None, [wheel_draw(d, "ice_diamonds")])
    assert rnd["status"] == "complete" or rnd["actions"][0]["name"] == "pick"
    rig.finish(token, rnd, d)


def play_autoplay(rig: Rig, token: str, d: Any) -> None:
    body = {"game": GNOMES, "stake": 40, "spins": 4, "loss_limit": 100_000}
    ap = rig.op("autoplay", token, "POST", "/autoplay", body, expect=(201,))["autoplay"]
    while ap["running"]:
        reply = rig.op("autoplay", token, "POST", "/autoplay/next")
        ap = reply["autoplay"]
        if reply["round"] is not None and reply["round"]["status"] == "pending":
            assert not ap["running"] and ap["stop_reason"] == "player_action"
            rig.finish(token, reply["round"], d)  # a pick stops autoplay: the player picks
    assert ap["stop_reason"] in ("spins_done", "player_action"), ap


def play_hold(rig: Rig, token: str, d: Any) -> None:
    for stake in (10, 20):  # two rounds, each on the meter of its bet level
        rnd = rig.start_round(token, METER, stake, ALL_XS)
        assert rnd["actions"][0]["name"] == "hold"
        rig.finish(token, rnd, d)


def play_gamble(rig: Rig, token: str, d: Any) -> None:
    rnd = rig.start_round(token, METER, rig.rng.choice((10, 50)), ALL_AS)
    assert {a["name"] for a in rnd["actions"]} == {"collect", "gamble"}
    rig.finish(token, rnd, d)


SCENARIOS = (
    (play_base_round, "gnomes"),
    (play_free_spins, "gnomes"),
    (play_ice_diamonds, "gnomes"),
    (play_autoplay, "autoplay"),
    (play_hold, "meter"),
    (play_gamble, "meter"),
)


def final_checks(rig: Rig, tokens: dict[str, str], db_url: str, tmp_path) -> None:
    """Nothing left in play; every round replays from its stored draws, which never changed;
    one stake and at most one win per round; balances are the opening credit plus the
    rounds' money; the server's audit agrees."""
    rounds = 0
    for name, token in tokens.items():
        assert rig.get(token, "/rounds/pending")["rounds"] == []
        before = None
        ids: list[int] = []
        while True:
            query = f"/players/{name}/history?limit=100" + (f"&before={before}" if before else "")
            page = rig.operator("GET", query)
            ids += [r["id"] for r in page["rounds"]]
            assert all(r["status"] == "complete" for r in page["rounds"])
            if page["next_before"] is None:
                break
            before = page["next_before"]
        rig.check_draws(ids)
        for rid in ids:
            replay = rig.operator("GET", f"/rounds/{rid}/replay")
            assert replay["matches_record"] is True, replay
        rounds += len(ids)
        history_money = sum(
            s["win"] - s["stake"] for s in (rig.operator("GET", f"/rounds/{rid}") for rid in ids)
        )
        assert rig.get(token, "/balance")["balance"] == rig.credits[name] + history_money
    audit = check_books(db_url, tmp_path / "audit", rig.credits)
    assert audit["rounds"] == rounds


def dialect(db_url: str) -> str:
    return "sqlite" if db_url.startswith("sqlite") else "postgresql"


def test_kill_and_resume_at_random_points_of_play(db_url, tmp_path, pool, gnomes_data) -> None:
    t0 = time.monotonic()
    proc = pool.new(db_url, "restore").start()
    rig = Rig(proc, random.Random(SEEDS[dialect(db_url)]), QUOTA)
    tokens = {name: rig.new_player(name) for name in ("gnomes", "autoplay", "meter")}
    for _ in range(MAX_CYCLES):
        for scenario, who in SCENARIOS:
            scenario(rig, tokens[who], gnomes_data)
        if rig.done():
            break
    total = sum(rig.kills.values())
    assert rig.done(), (total, dict(rig.kills), dict(rig.in_flight_kills), dict(rig.modes))
    assert total >= KILLS_PER_DB >= 25 and proc.kills == total, (total, proc.kills)
    assert set(rig.kills) == set(MOMENTS) and all(rig.modes[m] >= 2 for m in MODES), rig.modes
    final_checks(rig, tokens, db_url, tmp_path)
    proc.kill()
    RUNS[dialect(db_url)] = {
        "kills": total,
        "by_moment": dict(rig.kills),
        "modes": dict(rig.modes),
        "outcomes": dict(rig.outcomes),
        "seconds": round(time.monotonic() - t0, 1),
    }
    print(f"\nkill-and-resume on {dialect(db_url)}: {RUNS[dialect(db_url)]}")


def test_a_round_left_pending_is_completed_by_the_server_after_a_restart(
    db_url, tmp_path, pool, gnomes_data
) -> None:
    proc = pool.new(db_url, "sweep").start()
    rig = Rig(proc, random.Random(7))
    gnome = rig.new_player("left-gnomes")
    meter = rig.new_player("left-meter")
    g = rig.start_round(gnome, GNOMES, 40, trigger_script(gnomes_data))
    g = rig.act("free_spins", gnome, g, "spin", None, [wheel_draw(gnomes_data, "ice_diamonds")])
    g = rig.act("ice_pick", gnome, g, "pick", g["actions"][0]["choices"][-1], None)
    m = rig.start_round(meter, METER, 20, ALL_XS)
    assert g["status"] == "pending" and m["status"] == "pending"
    rig.check_draws([g["id"], m["id"]])
    steps_before = {rid: dict(rig.draws[rid]) for rid in (g["id"], m["id"])}
    rig.kill()
    # Restarted with a tiny pending timeout and sweep interval: the server finishes both.
    proc.env.update(REELFORGE_PENDING_TIMEOUT_SECONDS="1", REELFORGE_SWEEP_INTERVAL_SECONDS="0.2")
    rig.start()
    deadline = time.monotonic() + 30
    for rid in (g["id"], m["id"]):
        while (recall := rig.operator("GET", f"/rounds/{rid}"))["status"] == "pending":
            assert time.monotonic() < deadline, "the server did not finish the round left waiting"
            time.sleep(0.1)
        assert recall["status"] == "complete" and recall["completed_by"] == "server", recall
        old = len(steps_before[rid])
        assert [s["actor"] for s in recall["steps"][old:]] and all(
            s["actor"] == "server" for s in recall["steps"][old:]
        )
        assert all(s["actor"] != "server" for s in recall["steps"][:old])
        assert recall["steps"][-1]["events"][-1]["type"] == "round_end"
    rig.check_draws([g["id"], m["id"]])
    for token in (gnome, meter):
        assert rig.get(token, "/rounds/pending")["rounds"] == []
    for rid in (g["id"], m["id"]):
        assert rig.operator("GET", f"/rounds/{rid}/replay")["matches_record"] is True
    audit = check_books(db_url, tmp_path / "audit", rig.credits)
    assert audit["rounds"] == 2
    assert proc.kills == 1


def test_kills_in_total_across_both_databases() -> None:
    """Runs after both kill-and-resume runs (file order): at least 50 kills together."""
    if set(RUNS) != {"sqlite", "postgresql"}:
        pytest.skip(f"needs the kill-and-resume runs on both databases in this session, got {sorted(RUNS)}")
    total = sum(run["kills"] for run in RUNS.values())
    print(f"\nkills in total: {total}; seconds: { {db: run['seconds'] for db, run in RUNS.items()} }")
    assert total >= 50
