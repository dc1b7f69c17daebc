"""The soak's players: real clients of ``reelforge serve`` over HTTP (the raw keep-alive
connection of ``server_load.py``), one asyncio task each.

A player plays every real game the way a person at the browser client would: Reign of Gnomes
(Ice Diamonds picks chosen at random), Ghost of Gambini (its base game with the piggy banks,
and its bought features), Los 3 Pinguinos' lower game (holds, nudges, collect or play the
ladder, chosen at random, with its play settings switched at random) and its upper game once
the Bonuses won below cover a bet, and autoplay of each.

What makes no cent be lost: every request that gets no answer (connection refused or reset,
a timeout) or a 5xx is sent again (a 5xx other than 502-504 is also an error: the browser
client, ``web/js/api.js``, resends only those), the same method, path, body and Idempotency-Key, until an
answer comes, to whichever server process is up.  Every answer is checked against what the
player knew: a round's reply must leave the balance where the stake and win say; a round left
in play (the player "reloads" the page, or a request failed while the round was open) must come
back from ``GET /rounds/pending`` exactly as the player last saw it.  A sample of answered
requests is kept and sent again later (after kills and the PostgreSQL restart): the stored
reply must come back byte for byte, marked ``Idempotency-Replayed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from server_load import Conn, HttpError
from server_process import OPERATOR_KEY, ServerProcess

GNOMES, GAMBINI, PINGUINOS = "reign-of-gnomes", "ghost-of-gambini", "los-3-pinguinos"
REQUEST_TIMEOUT = 20.0  # seconds without an answer before the request counts as lost (and is resent)
GIVE_UP = 180.0  # a request unanswered this long is an error: the soak fails
TRANSPORT = (OSError, asyncio.IncompleteReadError, HttpError, ValueError, asyncio.TimeoutError)
_keys = itertools.count(1)


class Servers:
    """The server processes; the chaos thread flips ``up`` around a kill and a restart."""

    def __init__(self, procs: list[ServerProcess]) -> None:
        self.procs = procs
        self.up = [True] * len(procs)

    def pick(self, home: int, rng: random.Random) -> ServerProcess | None:
        """The player's own process if up, else another (a load balancer's failover)."""
        if self.up[home % len(self.procs)]:
            return self.procs[home % len(self.procs)]
        live = [p for p, up in zip(self.procs, self.up, strict=True) if up]
        return rng.choice(live) if live else None


@dataclass
class Stats:
    requests: int = 0
    resends: int = 0  # a request sent again (same key) after no answer or a 5xx
    no_answer: int = 0  # connection refused / reset / timed out
    dropped: int = 0  # of those, the client hung up on purpose before the answer
    server_errors: Counter = field(default_factory=Counter)  # 5xx by status
    answered_after_resend: int = 0
    replayed_after_resend: int = 0  # of those, the stored reply (the first send had committed)
    replays_checked: int = 0
    restored: int = 0  # rounds taken back from GET /rounds/pending and matched
    away: int = 0  # rounds a player left in play to come back to later
    server_completed: int = 0  # of the rounds left, those the server's sweeper finished meanwhile
    voided: int = 0  # rounds the operator voided (support: rounds waiting for a player)
    voids_refused: int = 0  # voids that came too late: the round was no longer in play
    learnt_voided: int = 0  # voided rounds their players found on coming back
    reloads: int = 0
    new_sessions: int = 0
    actions: Counter = field(default_factory=Counter)  # (game, action) decisions sent
    plays: Counter = field(default_factory=Counter)  # what the players chose to play
    errors: list[str] = field(default_factory=list)

    def error(self, text: str) -> None:
        self.errors.append(text[:600])


class Stuck(Exception):
    """A request that got no answer within GIVE_UP seconds."""


@dataclass
class Seen:
    game: str
    mode: str
    stake: int
    win: int
    status: str


@dataclass
class Player:
    name: str
    home: int
    rng: random.Random
    opening: int
    token: str = ""
    balance: int = 0  # the balance in the last reply
    bonuses: int = 0  # Los 3 Pinguinos' Bonuses in the last round reply
    rounds: dict[int, Seen] = field(default_factory=dict)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)  # game -> last view of its open round
    kept: list[tuple[str, str, Any, str, int, Any]] = field(default_factory=list)  # for replay checks
    conns: dict[int, Conn] = field(default_factory=dict)
    replayed: bool = False  # the last answer carried Idempotency-Replayed: true
    back_at: dict[str, float] = field(default_factory=dict)  # game -> when to come back to its open round
    # Wins the sweeper paid into rounds the player had left: seen as a balance higher than the
    # reply's own round explains (drift), and learnt from the round's recall (explained).
    drift: int = 0
    explained: int = 0
    bonuses_at_start: dict[int, int] = field(default_factory=dict)  # round id -> Bonuses before it


class Client:
    """Sends one player's requests, resending until answered, and checks every answer."""

    def __init__(self, servers: Servers, stats: Stats, games: dict[str, Any], drop: float,
                 away_seconds: float = 0.0) -> None:  # fmt: skip
        self.servers = servers
        self.drop = drop  # the chance that a keyed request's answer is not waited for
        # > 0: players leave rounds in play for up to twice this long (the server's pending
        # timeout), so the sweeper finishes some of them while players come back to others.
        self.away_seconds = away_seconds
        self.voids = False  # an operator task voids rounds waiting for their player
        self.stats = stats
        self.games = games
        self.stop = False  # set at the soak's end: players stop at their next decision

    @property
    def ends_elsewhere(self) -> bool:
        """Whether a round may end without its player: by the sweeper or by a void."""
        return bool(self.away_seconds) or self.voids

    # -- transport ------------------------------------------------------------------------

    async def send(self, p: Player, method: str, path: str, body: Any = None, *, keyed: bool = False,
                   operator: bool = False, key: str | None = None) -> tuple[int, Any]:  # fmt: skip
        """One request, sent until a server answers it with a status under 500."""
        if keyed and key is None:
            key = f"{p.name}-{next(_keys)}"
        auth = f"X-Operator-Key: {OPERATOR_KEY}\r\n" if operator else f"Authorization: Bearer {p.token}\r\n"
        headers = (auth + (f"Idempotency-Key: {key}\r\n" if key else "")).encode()
        started = time.monotonic()
        tries = 0
        while True:
            if tries:
                self.stats.resends += 1
                if time.monotonic() - started > GIVE_UP:
                    raise Stuck(f"{method} {path} (key {key}): no answer in {GIVE_UP:.0f} s")
                await asyncio.sleep(min(0.05 * 2 ** min(tries, 5), 1.0) * p.rng.uniform(0.5, 1.0))
            tries += 1
            srv = self.servers.pick(p.home, p.rng)
            if srv is None:
                continue
            port = srv.port
            conn = p.conns.get(port)
            if conn is None:
                conn = p.conns[port] = Conn("127.0.0.1", port)
            # Now and then the client hangs up before the answer (a dropped mobile connection):
            # the request may or may not have committed; the resend must find out which.
            drop = bool(key) and p.rng.random() < self.drop
            limit = p.rng.uniform(0.0, 0.05) if drop else REQUEST_TIMEOUT
            try:
                status, data, _ = await asyncio.wait_for(conn.request(method, path, headers, body), limit)
            except TRANSPORT:
                self.stats.no_answer += 1
                self.stats.dropped += drop
                p.conns.pop(port, None)
                with contextlib.suppress(*TRANSPORT):
                    await conn.close()
                continue
            self.stats.requests += 1
            if status >= 500:
                self.stats.server_errors[status] += 1
                if status not in (502, 503, 504):  # the browser client resends only these
                    self.stats.error(f"{p.name}: {method} {path}: {status} {data} (not resent by a browser)")
                continue
            p.replayed = conn.replayed
            if tries > 1:
                self.stats.answered_after_resend += 1
                self.stats.replayed_after_resend += conn.replayed
            if key and status < 300 and p.rng.random() < 0.03:
                keep = (method, path, body, key, status, data)
                if len(p.kept) < 12:
                    p.kept.append(keep)
                else:
                    p.kept[p.rng.randrange(12)] = keep
            return status, data

    async def expect(self, p: Player, want: int, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, data = await self.send(p, method, path, body, **kw)
        if status != want:
            raise AssertionError(f"{p.name}: {method} {path} {body}: {status} {data} (wanted {want})")
        return data

    async def check_replay(self, p: Player) -> None:
        """Send a kept request again: its stored reply must come back unchanged."""
        if not p.kept:
            return
        method, path, body, key, status, data = p.kept[p.rng.randrange(len(p.kept))]
        operator = path.startswith("/api/v1/operator/")
        got_status, got = await self.send(p, method, path, body, key=key, operator=operator)
        replayed = p.replayed
        if (got_status, got) != (status, data) or not replayed:
            self.stats.error(f"{p.name}: replay of {method} {path} key {key}: {got_status} {got} "
                             f"(replayed header {replayed}), first reply {status} {data}")  # fmt: skip
        self.stats.replays_checked += 1

    # -- accounting -----------------------------------------------------------------------

    def seen(self, p: Player, data: dict[str, Any], new: bool) -> dict[str, Any]:
        """A reply holding a round: check the balance moved as its stake and win say."""
        rnd = data["round"]
        expected = (
            p.balance - (rnd["stake"] if new else 0) + (rnd["win"] if rnd["status"] == "complete" else 0)
        )
        unseen = p.pending.keys() - {rnd["game"]} or p.explained > p.drift  # sweeper wins maybe unseen
        if data["balance"] > expected and self.ends_elsewhere and unseen:
            p.drift += data["balance"] - expected  # a left round the sweeper paid: learnt later
        elif data["balance"] != expected:
            self.stats.error(f"{p.name}: round {rnd['id']} ({rnd['game']}, {'start' if new else 'step'}): "
                             f"balance {data['balance']}, expected {expected} (was {p.balance})")  # fmt: skip
        if not new and rnd["id"] not in p.rounds:
            self.stats.error(f"{p.name}: a step of round {rnd['id']}, which it never started")
        if new and rnd["id"] in p.rounds:
            self.stats.error(f"{p.name}: round {rnd['id']} started twice")
        if new:
            p.bonuses_at_start[rnd["id"]] = p.bonuses
        p.balance = data["balance"]
        p.rounds[rnd["id"]] = Seen(rnd["game"], rnd["mode"], rnd["stake"], rnd["win"], rnd["status"])
        if rnd["game"] == PINGUINOS and rnd.get("player_state"):
            p.bonuses = rnd["player_state"]["bonuses"]
        if rnd["status"] == "complete":
            p.pending.pop(rnd["game"], None)
            p.back_at.pop(rnd["game"], None)
        else:
            p.pending[rnd["game"]] = rnd
        return rnd

    # -- playing --------------------------------------------------------------------------

    async def setup(self, p: Player) -> None:
        base = f"/api/v1/operator/players/{p.name}"
        await self.send(p, "POST", "/api/v1/operator/players", {"external_id": p.name}, operator=True)
        await self.expect(p, 200, "POST", f"{base}/credit", {"amount": p.opening}, keyed=True, operator=True)
        await self.new_session(p)
        p.balance = p.opening
        if p.rng.random() < 0.5:  # Pinguinos' play settings, as a player may switch them
            body = {"auto_advance": p.rng.random() < 0.5, "auto_risk": p.rng.random() < 0.5}
            await self.expect(p, 200, "PUT", f"/api/v1/settings?game={PINGUINOS}", body, keyed=True)

    async def new_session(self, p: Player) -> None:
        """The operator opens a session (a relaunch): it replaces the player's last one."""
        data = await self.expect(p, 201, "POST", f"/api/v1/operator/players/{p.name}/sessions", {},
                                 keyed=True, operator=True)  # fmt: skip
        p.token = data["token"]
        self.stats.new_sessions += 1

    def levels(self, game: str, mode: str = "base") -> list[dict[str, Any]]:
        info = self.games[game]
        return info["bet_levels_by_mode"][mode] if mode != "base" else info["bet_levels"]

    def stake(self, p: Player, game: str, mode: str = "base") -> int:
        levels = self.levels(game, mode)
        return int(levels[min(int(p.rng.expovariate(1.2)), len(levels) - 1)]["stake"])

    def upper_stake(self, p: Player) -> int | None:
        fits = [lv for lv in self.levels(PINGUINOS, "upper") if lv["bonuses"] <= p.bonuses]
        return int(p.rng.choice(fits[:3])["stake"]) if fits else None

    async def run(self, p: Player, think: float) -> None:
        try:
            await self.setup(p)
            while not self.stop:
                await self.play_one(p)
                if p.rng.random() < 0.01:
                    await self.check_replay(p)
                if think:
                    await asyncio.sleep(p.rng.uniform(0, 2 * think))
        except (Stuck, AssertionError, KeyError, TypeError) as exc:
            self.stats.error(f"{p.name}: {type(exc).__name__}: {exc}")

    async def play_one(self, p: Player) -> None:
        now = time.monotonic()
        for game, at in list(p.back_at.items()):
            if at <= now:
                await self.come_back(p, game)
                return
        r = p.rng.random()
        if r < 0.22:
            await self.play_round(p, GNOMES, self.stake(p, GNOMES))
        elif r < 0.40:
            await self.play_round(p, GAMBINI, self.stake(p, GAMBINI))
        elif r < 0.43:
            mode = p.rng.choice(["buy-lock-spin", "buy-super-lock-spin"])
            await self.play_round(p, GAMBINI, self.stake(p, GAMBINI), mode)
        elif r < 0.68:
            await self.play_round(p, PINGUINOS, self.stake(p, PINGUINOS))
        elif r < 0.86:
            upper = self.upper_stake(p)
            if upper is None:
                await self.play_round(p, PINGUINOS, self.stake(p, PINGUINOS))
            else:
                await self.play_round(p, PINGUINOS, upper, "upper")
        else:
            game = p.rng.choice([GNOMES, GAMBINI, PINGUINOS, PINGUINOS])
            upper = self.upper_stake(p) if game == PINGUINOS and p.rng.random() < 0.5 else None
            if upper is not None:
                await self.autoplay(p, game, upper, "upper")
            else:
                await self.autoplay(p, game, self.stake(p, game))

    async def come_back(self, p: Player, game: str) -> None:
        """Back to a round left in play: restored (or finished by the server meanwhile)."""
        p.back_at.pop(game, None)
        rnd = await self.restore(p, p.pending[game])
        if rnd is not None:
            await self.finish(p, rnd)

    async def play_round(self, p: Player, game: str, stake: int, mode: str = "base") -> None:
        if game in p.pending:  # one round of a game at a time: the player is away from it
            await asyncio.sleep(0.05)
            return
        self.stats.plays[(game, mode)] += 1
        body: dict[str, Any] = {"game": game, "stake": stake}
        if mode != "base":
            body["mode"] = mode
        data = await self.expect(p, 201, "POST", "/api/v1/rounds", body, keyed=True)
        await self.finish(p, self.seen(p, data, new=True))

    async def finish(self, p: Player, rnd: dict[str, Any] | None, may_leave: bool = True) -> None:
        """Take the round's decisions (at random) until it completes; at the soak's end, or
        now and then (a closed tab), leave it in play, to be restored later."""
        while rnd is not None and rnd["status"] != "complete":
            if may_leave and (self.stop and p.rng.random() < 0.5):
                return
            if may_leave and self.away_seconds and p.rng.random() < 0.05:
                self.stats.away += 1  # the player goes away; back in 0 to 2 pending timeouts
                p.back_at[rnd["game"]] = time.monotonic() + p.rng.uniform(0, 2 * self.away_seconds)
                return
            if may_leave and p.rng.random() < 0.03:  # the player reloads the page mid-round
                self.stats.reloads += 1
                if p.rng.random() < 0.3:
                    await self.new_session(p)
                rnd = await self.restore(p, rnd)
                if rnd is None:
                    return
            spec = p.rng.choice(rnd["actions"])
            body: dict[str, Any] = {"action": spec["name"], "expected_step": rnd["step"]}
            if spec.get("choices") is not None:
                body["choice"] = p.rng.choice(spec["choices"])
            self.stats.actions[(rnd["game"], spec["name"])] += 1
            before = self.stats.no_answer + sum(self.stats.server_errors.values())
            path = f"/api/v1/rounds/{rnd['id']}/actions"
            status, data = await self.send(p, "POST", path, body, keyed=True)
            refused = status == 409 and data["error"]["code"] in ("round_not_pending", "step_mismatch")
            if refused and self.ends_elsewhere:
                await self.learn(p, rnd)  # the sweeper or a void ended it first
                return
            if status != 200:
                raise AssertionError(f"{p.name}: POST {path} {body}: {status} {data}")
            rnd = self.seen(p, data, new=False)
            if (
                rnd["status"] != "complete"
                and self.stats.no_answer + sum(self.stats.server_errors.values()) > before
            ):
                rnd = await self.restore(p, rnd)  # after a failure, as a client reloading would

    async def restore(self, p: Player, rnd: dict[str, Any]) -> dict[str, Any] | None:
        """Take the round back from the server; it must be exactly the last one seen.  None:
        the server's sweeper finished it meanwhile (only where rounds may be left that long)."""
        data = await self.expect(p, 200, "GET", f"/api/v1/rounds/pending?game={rnd['game']}")
        found = [r for r in data["rounds"] if r["id"] == rnd["id"]]
        if not found and self.ends_elsewhere:
            await self.learn(p, rnd)
            return None
        if len(found) != 1:
            self.stats.error(
                f"{p.name}: round {rnd['id']} not restored: pending {[r['id'] for r in data['rounds']]}"
            )
            return rnd
        differs = sorted(k for k in set(found[0]) | set(rnd) if found[0].get(k) != rnd.get(k))
        if differs:
            self.stats.error(f"{p.name}: round {rnd['id']} restored with other {differs}: "
                             f"{ {k: (rnd.get(k), found[0].get(k)) for k in differs} }")  # fmt: skip
        self.stats.restored += 1
        return found[0]

    async def learn(self, p: Player, rnd: dict[str, Any]) -> None:
        """A round the player left is no longer in play: the recall must say the server's
        default play finished it (its win is what the balance gained meanwhile) or the operator
        voided it (its stake came back, and the Bonuses are those from before it)."""
        rc = await self.expect(p, 200, "GET", f"/api/v1/rounds/{rnd['id']}")
        if rc["status"] == "voided" and rc["completed_by"] == "void" and rc["stake"] == rnd["stake"]:
            self.stats.learnt_voided += 1
            p.rounds[rnd["id"]] = Seen(rnd["game"], rnd["mode"], rc["stake"], rc["win"], rc["status"])
            p.explained += rc["stake"]
            p.pending.pop(rnd["game"], None)
            p.back_at.pop(rnd["game"], None)
            if rnd["game"] == PINGUINOS:
                p.bonuses = p.bonuses_at_start[rnd["id"]]
            return
        if rc["status"] != "complete" or rc["completed_by"] != "server" or rc["stake"] != rnd["stake"]:
            self.stats.error(f"{p.name}: round {rnd['id']} left in play is now {rc['status']} by "
                             f"{rc.get('completed_by')}, stake {rc['stake']} not {rnd['stake']}")  # fmt: skip
        self.stats.server_completed += 1
        p.rounds[rnd["id"]] = Seen(rnd["game"], rnd["mode"], rc["stake"], rc["win"], rc["status"])
        p.explained += rc["win"]
        p.pending.pop(rnd["game"], None)
        p.back_at.pop(rnd["game"], None)
        if rnd["game"] == PINGUINOS:  # no later round of the game: it was in play till now
            p.bonuses = rc["round"]["player_state"]["bonuses"]

    async def autoplay(self, p: Player, game: str, stake: int, mode: str = "base") -> None:
        if game in p.pending:
            await asyncio.sleep(0.05)
            return
        self.stats.plays[(game, f"{mode} autoplay")] += 1
        spins = p.rng.randint(3, 12)
        body: dict[str, Any] = {
            "game": game,
            "stake": stake,
            "spins": spins,
            "loss_limit": 50 * stake * spins,
        }
        if mode != "base":
            body["mode"] = mode
        await self.expect(p, 201, "POST", "/api/v1/autoplay", body, keyed=True)
        while True:
            status, data = await self.send(p, "POST", "/api/v1/autoplay/next", keyed=True)
            if status == 409 and data["error"]["code"] == "autoplay_not_running":
                return  # e.g. the last reply said running, and a stop since (none here): done
            if status != 200:
                raise AssertionError(f"{p.name}: autoplay/next: {status} {data}")
            if data.get("round") is not None:
                rnd = self.seen(p, data, new=True)
                if rnd["status"] != "complete":  # the round needs the player (a pick)
                    await self.finish(p, rnd)
                    if rnd["game"] in p.pending:
                        return
            if not data["autoplay"]["running"]:
                return
            if self.stop:
                # 409: it stopped meanwhile (a void or a newer session stops a player's autoplay)
                status, data = await self.send(p, "POST", "/api/v1/autoplay/stop", keyed=True)
                if status != 200 and not (status == 409 and data["error"]["code"] == "autoplay_not_running"):
                    raise AssertionError(f"{p.name}: autoplay/stop: {status} {data}")
                return

    async def operator(self, op: Player) -> None:
        """Support at work: every 1-4 s, void a round that has waited for its player 2 s or
        more (they race with the player coming back and with the sweeper)."""
        try:
            while not self.stop:
                await asyncio.sleep(op.rng.uniform(1.0, 4.0))
                path = "/api/v1/operator/rounds/pending?limit=100"
                data = await self.expect(op, 200, "GET", path, operator=True)
                waiting = [r for r in data["rounds"] if r["waiting_seconds"] >= 2]
                if not waiting or self.stop:
                    continue
                rid = op.rng.choice(waiting)["id"]
                path = f"/api/v1/operator/rounds/{rid}/void"
                status, got = await self.send(op, "POST", path, {"reason": "soak"}, keyed=True, operator=True)
                if status == 200 and got["status"] == "voided":
                    self.stats.voided += 1
                elif status == 409 and got["error"]["code"] == "not_pending":  # it ended meanwhile
                    self.stats.voids_refused += 1
                else:
                    self.stats.error(f"operator: void of round {rid}: {status} {got}")
        except (Stuck, AssertionError, KeyError, TypeError) as exc:
            self.stats.error(f"operator: {type(exc).__name__}: {exc}")
        finally:
            for conn in op.conns.values():
                with contextlib.suppress(*TRANSPORT):
                    await conn.close()

    async def wind_up(self, p: Player) -> None:
        """After the last crash: take back every round left in play, finish it, and compare
        the player's balance and Bonuses with what the server now says."""
        try:
            data = await self.expect(p, 200, "GET", "/api/v1/rounds/pending")
            open_ids = {r["id"] for r in data["rounds"]}
            known = {r["id"] for r in p.pending.values()}
            # Without a sweeper both sets are equal; with one, rounds the player left may be done.
            if (open_ids != known) if not self.ends_elsewhere else not open_ids <= known:
                self.stats.error(
                    f"{p.name}: pending on the server {sorted(open_ids)}, the player's {sorted(known)}"
                )
            for rnd in list(p.pending.values()):
                await self.finish(p, await self.restore(p, rnd), may_leave=False)
            for _ in range(3):
                await self.check_replay(p)
            bal = await self.expect(p, 200, "GET", "/api/v1/balance")
            bonuses = bal["side"].get(PINGUINOS, {}).get("bonuses", 0)
            # Wins the sweeper paid and no reply has shown yet are in the balance now.
            p.balance += p.explained - p.drift
            p.drift = p.explained
            if (bal["balance"], bonuses) != (p.balance, p.bonuses):
                self.stats.error(f"{p.name}: server balance {bal['balance']} and Bonuses {bonuses}; "
                                 f"the player last saw {p.balance} and {p.bonuses}")  # fmt: skip
        except (Stuck, AssertionError, KeyError, TypeError) as exc:
            self.stats.error(f"{p.name} (wind-up): {type(exc).__name__}: {exc}")
        finally:
            for conn in p.conns.values():
                with contextlib.suppress(*TRANSPORT):
                    await conn.close()
            p.conns.clear()
