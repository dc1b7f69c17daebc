"""RTP variants per bet (server/play/bet_variants.py), on SQLite and on the real PostgreSQL: a bet
with a variant of its own is dealt at it (the round's math is that variant's, the round
records it: history, recall, replay, reports, autoplay), other bets fall back to the game's
variant and then the game's default; the operator sets, clears and reads them (idempotent;
refusals change nothing); the listings show them to the player and the operator."""

from __future__ import annotations

from typing import Any

from pinguinos_helpers import BO, find, game
from reelforge.engine.round import Round
from reelforge.games import get_game
from reelforge.rng import RecordingRandom, ReplayError, ReplayRandom, ScriptedRandom, SeededRandom
from reelforge.server.storage import schema as t
from server_support import Api

GNOMES = "reign-of-gnomes"
GAMBINI = "ghost-of-gambini"
PINGUINOS = "los-3-pinguinos"
GNOMES_RULES = get_game(GNOMES)
PINGUINOS_RULES = get_game(PINGUINOS)


class NoMoreDraws:
    def randbelow(self, n: int) -> int:
        raise AssertionError(f"a draw beyond the script (range {n})")


def put_variant(api: Api, game: str, body: dict[str, Any], **kw: Any) -> Any:
    return api.operator("PUT", f"/games/{game}/variant", json=body, expect=kw.pop("expect", 200), **kw)


def variants(api: Api, game: str) -> dict[str, Any]:
    return api.operator("GET", f"/games/{game}/variant", expect=200)


def dealt(view: dict[str, Any], table: str = "base") -> dict[int, tuple[str, bool]]:
    """{stake: (variant dealt, set for the bet)} of one table of the operator's view."""
    return {b["stake"]: (b["variant"], b["own"]) for b in view["bets"][table]}


def listed(api: Api, token: str | None, game: str) -> dict[str, Any]:
    kw: dict[str, Any] = {"token": token} if token else {"headers": api.op}
    return next(g for g in api.call("GET", "/games", expect=200, **kw)["games"] if g["id"] == game)


def settings(server) -> list[tuple[str, str]]:
    with server.engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(t.settings_table.select()))


def deal(game_id: str, stake: int, script: list[int], variant: str) -> Round:
    return get_game(game_id).start(stake, ScriptedRandom(script, NoMoreDraws()), variant=variant)


def gnomes_script() -> list[int]:
    """Reel stops of a round over at its first step whose outcome differs between the
    variants 92.00 and 95.97 (their strips differ), so a round shows the math it was dealt."""
    for seed in range(200):
        rec = RecordingRandom(SeededRandom(seed))
        rnd = GNOMES_RULES.start(80, rec, variant="92.00")
        script = [v for _, v in rec.draws]
        try:
            other = deal(GNOMES, 80, script, "95.97")
        except (ValueError, AssertionError):
            continue
        if rnd.complete and other.complete and other.events != rnd.events:
            return script
    raise AssertionError("no round tells 92.00 from 95.97")


def test_a_bet_with_its_own_variant_is_dealt_at_it_and_the_round_records_it(api, server) -> None:
    token = api.new_player("own", 100_000)
    assert put_variant(api, GNOMES, {"variant": "92.00", "stake": 80})["variant"] == "95.97"
    script = gnomes_script()
    at_80 = api.start(token, GNOMES, 80, script=script)["round"]
    at_40 = api.start(token, GNOMES, 40, script=script)["round"]
    # The bet at 80 is dealt 92.00's math, the one at 40 the game's 95.97.
    assert at_80["variant"] == "92.00" and at_40["variant"] == "95.97"
    assert at_80["events"] == deal(GNOMES, 80, script, "92.00").public_view()["events"]
    assert at_80["events"] != deal(GNOMES, 80, script, "95.97").public_view()["events"]
    assert at_40["events"] == deal(GNOMES, 40, script, "95.97").public_view()["events"]
    # Recorded: history, recall (player and operator), replay, the rounds table.
    lines = {r["id"]: r["variant"] for r in api.call("GET", "/history", token=token, expect=200)["rounds"]}
    assert lines == {at_80["id"]: "92.00", at_40["id"]: "95.97"}
    for rid, variant in lines.items():
        assert api.call("GET", f"/rounds/{rid}", token=token, expect=200)["variant"] == variant
        assert api.operator("GET", f"/rounds/{rid}", expect=200)["variant"] == variant
        replay = api.call("GET", f"/rounds/{rid}/replay", token=token, expect=200)
        assert replay["variant"] == variant and replay["matches_record"] is True
    with server.engine.connect() as conn:
        rows = {r.id: r.variant for r in conn.execute(t.rounds.select())}
    assert rows == lines
    # Autoplay at the bet deals its variant too.
    body = {"game": GNOMES, "stake": 80, "spins": 3, "loss_limit": 10_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    auto = []
    while (reply := api.call("POST", "/autoplay/next", token=token, expect=200))["autoplay"]["running"]:
        auto.append(reply["round"])
    auto += [reply["round"]] if reply["round"] else []
    for rnd in auto:
        if rnd["status"] == "pending":  # a pick the player makes
            api.finish(token, {"round": rnd})
    assert auto and {r["variant"] for r in auto} == {"92.00"}
    # Reports: one row per variant dealt, each with its rounds and stakes.
    report = api.operator("GET", f"/reports?theory=false&game={GNOMES}", expect=200)
    rows_by = {(r["variant"], r["mode"]): (r["rounds"], r["stakes"]) for r in report["games"]}
    assert rows_by == {("92.00", "base"): (1 + len(auto), 80 * (1 + len(auto))), ("95.97", "base"): (1, 40)}
    assert server.audit()["balances_match_ledger"]


def test_bets_fall_back_to_the_games_variant_then_its_default(api, server) -> None:
    token = api.new_player("fallback", 100_000)

    def round_variant(stake: int) -> str:
        reply = api.finish(token, api.start(token, GNOMES, stake))
        return reply["round"]["variant"]

    view = variants(api, GNOMES)
    assert view["variant"] == view["default_variant"] == "95.97" and view["variants"] == GNOMES_RULES.variants
    assert set(dealt(view).values()) == {("95.97", False)}
    assert round_variant(80) == "95.97"  # nothing set: the default
    put_variant(api, GNOMES, {"variant": "92.00", "stake": 80})
    put_variant(api, GNOMES, {"variant": "94.00"})  # the game's: the other bets follow it
    view = variants(api, GNOMES)
    assert (
        view["variant"] == "94.00"
        and dealt(view)[80] == ("92.00", True)
        and dealt(view)[40] == ("94.00", False)
    )
    assert round_variant(80) == "92.00" and round_variant(40) == "94.00"
    # A bet set to the game's variant keeps it when the game's changes (it pins the bet).
    put_variant(api, GNOMES, {"variant": "94.00", "mode": "base", "stake": 120})
    put_variant(api, GNOMES, {"variant": "95.97"})
    assert dealt(variants(api, GNOMES))[120] == ("94.00", True) and round_variant(120) == "94.00"
    # Cleared (null): the bet is dealt at the game's again; clearing twice changes nothing.
    for _ in range(2):
        view = put_variant(api, GNOMES, {"variant": None, "stake": 80})
        assert dealt(view)[80] == ("95.97", False)
    assert round_variant(80) == "95.97"
    # Other games are not touched.
    assert set(dealt(variants(api, GAMBINI)).values()) == {("96.00", False)}


def test_bad_variant_settings_are_refused_and_change_nothing(api, server) -> None:
    put_variant(api, GNOMES, {"variant": "94.00", "stake": 40})
    put_variant(api, PINGUINOS, {"variant": "80", "mode": "upper", "stake": 500})
    before = settings(server)
    view = variants(api, GNOMES)
    refusals = [
        (GNOMES, {"variant": "50", "stake": 80}, 400, "invalid_variant"),
        (GNOMES, {"variant": "50"}, 400, "invalid_variant"),
        (GNOMES, {"variant": "92.00", "stake": 41}, 400, "invalid_bet"),  # not on the table
        (GNOMES, {"variant": "92.00", "mode": "upper", "stake": 80}, 400, "invalid_mode"),
        (GNOMES, {"variant": "92.00", "mode": "base"}, 400, "invalid_bet"),  # a mode needs a stake
        (GNOMES, {"variant": None}, 400, "invalid_variant"),  # a game always has one
        (GAMBINI, {"variant": "92.00", "mode": "buy-lock-spin", "stake": 80}, 400, "invalid_mode"),
        (PINGUINOS, {"variant": "70", "mode": "upper", "stake": 20}, 400, "invalid_bet"),  # a lower stake
        (PINGUINOS, {"variant": "70", "stake": 13500}, 400, "invalid_bet"),  # an upper one
        (GNOMES, {"variant": "92.00", "stake": "80"}, 422, "invalid_request"),
        (GNOMES, {"variant": "92.00", "stake": 80.0}, 422, "invalid_request"),
        (GNOMES, {"variant": "92.00", "stake": 0}, 422, "invalid_request"),
        (GNOMES, {"variant": "92.00", "stake": 80, "x": 1}, 422, "invalid_request"),
        (GNOMES, {"stake": 80}, 422, "invalid_request"),
        ("no-such-game", {"variant": "92.00", "stake": 80}, 404, "not_found"),
    ]
    for game_id, body, status, code in refusals:
        err = put_variant(api, game_id, body, expect=status)
        assert err["error"]["code"] == code, (body, err)
        assert set(err) == {"error"} and err["error"]["message"]
    err = put_variant(api, GNOMES, {"variant": "92.00", "stake": 80}, idem=None, expect=400)
    assert err["error"]["code"] == "idempotency_key_missing"
    api.call("PUT", f"/operator/games/{GNOMES}/variant", json={"variant": "92.00", "stake": 80}, expect=401)
    api.call("GET", f"/operator/games/{GNOMES}/variant", expect=401)
    api.operator("GET", "/games/no-such-game/variant", expect=404)
    assert settings(server) == before and variants(api, GNOMES) == view
    # The game's variant keeps working without a key, as it always did.
    assert put_variant(api, GNOMES, {"variant": "92.00"}, idem=None)["variant"] == "92.00"


def test_a_repeated_key_returns_the_first_reply_and_changes_nothing(api, server) -> None:
    first = put_variant(api, GNOMES, {"variant": "92.00", "stake": 80}, idem="v-1")
    assert "Idempotency-Replayed" not in api.last.headers
    second = put_variant(api, GNOMES, {"variant": "94.00", "stake": 80}, idem="v-2")
    assert put_variant(api, GNOMES, {"variant": "92.00", "stake": 80}, idem="v-1") == first
    assert api.last.headers["Idempotency-Replayed"] == "true"
    assert dealt(variants(api, GNOMES))[80] == ("94.00", True)  # the replay changed nothing
    err = put_variant(api, GNOMES, {"variant": "92.00", "stake": 120}, idem="v-1", expect=422)
    assert err["error"]["code"] == "idempotency_key_reused"
    # "base" names the same bet as no mode: the same request.
    again = put_variant(api, GNOMES, {"variant": "94.00", "mode": "base", "stake": 80}, idem="v-2")
    assert api.last.headers["Idempotency-Replayed"] == "true" and again == second


def test_the_listings_show_each_bets_variant(api, server) -> None:
    token = api.new_player("lists", 10_000)
    put_variant(api, GNOMES, {"variant": "92.00", "stake": 80})
    put_variant(api, PINGUINOS, {"variant": "70", "stake": 100})
    put_variant(api, PINGUINOS, {"variant": "80", "mode": "upper", "stake": 500})
    gnomes_rtp = {v: GNOMES_RULES.exact(v)["rtp"] for v in ("92.00", "95.97")}
    for who in (token, None):  # the player's listing and the operator's
        gnomes = listed(api, who, GNOMES)
        assert gnomes["variant"] == "95.97" and gnomes["rtp"] == gnomes_rtp["95.97"]
        levels = {b["stake"]: b for b in gnomes["bet_levels"]}
        assert levels[80]["variant"] == "92.00" and levels[80]["rtp"] == gnomes_rtp["92.00"]
        assert abs(levels[80]["rtp"] - 0.92) < 1e-4
        assert all("variant" not in b and "rtp" not in b for s, b in levels.items() if s != 80)
        pinguinos = listed(api, who, PINGUINOS)
        lower = {b["stake"]: b.get("variant") for b in pinguinos["bet_levels"]}
        upper = {b["stake"]: b.get("variant") for b in pinguinos["bet_levels_by_mode"]["upper"]}
        assert lower == {20: None, 100: "70", 500: None, 1000: None, 1500: None}
        assert upper[500] == "80" and upper[100] is None  # the upper 100 is not the lower 100
        assert {b["stake"]: b.get("rtp") for b in pinguinos["bet_levels"]}[100] == PINGUINOS_RULES.exact(
            "70"
        )["rtp"]
    operator = listed(api, None, PINGUINOS)
    assert operator["bets"]["base"]["bet_variants"] == [{"stake": 100, "variant": "70"}]
    assert operator["bets"]["upper"]["bet_variants"] == [{"stake": 500, "variant": "80"}]
    assert "bet_variants" not in listed(api, None, GAMBINI)["bets"]["base"]
    # The bet tables' own view, and the variants' view.
    bets = api.operator("GET", f"/games/{PINGUINOS}/bets?mode=upper", expect=200)
    assert bets["variant"] == "95" and bets["bet_variants"] == [{"stake": 500, "variant": "80"}]
    assert "bet_variants" not in api.operator("GET", f"/games/{GAMBINI}/bets", expect=200)
    view = variants(api, PINGUINOS)
    assert dealt(view) == {20: ("95", False), 100: ("70", True), 500: ("95", False), 1000: ("95", False),
                           1500: ("95", False)}  # fmt: skip
    assert dealt(view, "upper")[500] == ("80", True) and dealt(view, "upper")[100] == ("95", False)


def first_step_matches(api: Api, rid: int, variant: str) -> bool:
    """The round's first step re-dealt by the rules at ``variant`` from its stored draws and
    start state gives the stored events (False where the draws do not fit that variant)."""
    step = api.operator("GET", f"/rounds/{rid}", expect=200)["steps"][0]
    start = step["action"]
    try:
        rnd = PINGUINOS_RULES.start(
            start["stake"],
            ReplayRandom(step["draws"]),
            variant=variant,
            mode=start["mode"],
            player_state=start["player_state"],
        )
    except ReplayError:
        return False
    return rnd.events == step["events"]


def test_los_3_pinguinos_deals_each_bet_at_its_variant(api, server) -> None:
    token = api.new_player("pinguinos", 100_000)
    put_variant(api, PINGUINOS, {"variant": "70", "stake": 100})
    put_variant(api, PINGUINOS, {"variant": "80", "mode": "upper", "stake": 500})
    # Bonuses for the upper bet, from a lower round at 1500 (the game's variant, 95).
    funded = api.start(token, PINGUINOS, 1500, script=game(find(lambda sym: sym[1] == BO)))["round"]
    assert funded["variant"] == "95" and funded["player_state"]["bonuses"] > 0
    told_apart = 0
    for _ in range(12):
        rnd = api.finish(token, api.start(token, PINGUINOS, 100))["round"]
        assert rnd["variant"] == "70" and first_step_matches(api, rnd["id"], "70")
        told_apart += not first_step_matches(api, rnd["id"], "95")
    assert told_apart, "no round at 100 would have been dealt alike at 95"
    lower = api.finish(token, api.start(token, PINGUINOS, 20))["round"]
    assert lower["variant"] == "95" and first_step_matches(api, lower["id"], "95")
    upper = api.finish(token, api.start(token, PINGUINOS, 500, mode="upper"))["round"]
    assert upper["variant"] == "80" and first_step_matches(api, upper["id"], "80")
    for rid in (funded["id"], lower["id"], upper["id"]):
        replay = api.call("GET", f"/rounds/{rid}/replay", token=token, expect=200)
        assert replay["matches_record"] is True
    history = api.call("GET", "/history?limit=100", token=token, expect=200)["rounds"]
    assert {(r["stake"] if r["mode"] == "base" else "upper", r["variant"]) for r in history} >= {
        (100, "70"),
        (20, "95"),
        ("upper", "80"),
    }
    assert server.audit()["side_balances_match_ledger"]
