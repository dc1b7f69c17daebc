"""One currency per player, on SQLite and on the real PostgreSQL: a round is always in the
player's wallet currency; a game is listed, priced and played only in the currencies the
operator offers it in (of those it has tables in); bets are switched per currency; the demo
wallet takes the profile's currency; bad settings and refused rounds change nothing."""

from __future__ import annotations

from typing import Any

from reelforge.games import registry
from server_support import Api, client_for, make_server
from test_server_bets import everything

GNOMES = "reign-of-gnomes"
PINGUINOS = "los-3-pinguinos"


def new_player(api: Api, name: str, currency: str, balance: int = 100_000) -> str:
    api.operator("POST", "/players", json={"external_id": name, "currency": currency}, expect=201)
    api.operator("POST", f"/players/{name}/credit", json={"amount": balance}, expect=200)
    return api.operator("POST", f"/players/{name}/sessions", json={}, expect=201)["token"]


def listing(api: Api, token: str) -> dict[str, Any]:
    return {g["id"]: g for g in api.call("GET", "/games", token=token, expect=200)["games"]}


def offer(api: Api, game: str, currencies: list[str], expect: int = 200) -> Any:
    return api.operator("PUT", f"/games/{game}/currencies", json={"currencies": currencies}, expect=expect)


def test_every_game_is_listed_and_played_in_the_players_own_currency(api: Api) -> None:
    for currency in ("GBP", "EUR"):
        token = new_player(api, f"cur-{currency}", currency)
        games = listing(api, token)
        # Every registered game has tables in both: each is listed, priced in the player's.
        assert set(games) == set(registry())
        assert {g["currency"] for g in games.values()} == {currency}
        assert api.call("GET", "/balance", token=token, expect=200)["currency"] == currency
        rnd = api.finish(token, api.start(token, GNOMES, 40))["round"]
        assert api.balance(token) == 100_000 - 40 + rnd["win"]
        view = api.operator("GET", f"/players/cur-{currency}/ledger", expect=200)
        assert view["currency"] == currency


def test_a_game_not_offered_in_the_players_currency_is_not_listed_and_its_round_refused(
    api: Api, server: Any
) -> None:
    gbp, eur = new_player(api, "cur-g", "GBP"), new_player(api, "cur-e", "EUR")
    assert offer(api, GNOMES, ["GBP"]) == {"game": GNOMES, "currencies": ["GBP", "EUR"], "offered": ["GBP"]}
    assert api.operator("GET", f"/games/{GNOMES}/currencies", expect=200)["offered"] == ["GBP"]
    assert GNOMES not in listing(api, eur) and GNOMES in listing(api, gbp)
    before = everything(server)
    err = api.start(eur, GNOMES, 40, expect=409)["error"]
    assert err["code"] == "currency_not_offered" and "EUR" in err["message"]
    body = {"game": GNOMES, "stake": 40, "spins": 5, "loss_limit": 1_000}
    err = api.call("POST", "/autoplay", token=eur, json=body, expect=409)["error"]
    assert err["code"] == "currency_not_offered"
    assert everything(server) == before  # nothing moved, nothing stored
    api.start(gbp, GNOMES, 40)  # the pound player plays on
    offer(api, GNOMES, ["EUR", "GBP"])  # offered again (in the game's order)
    assert api.operator("GET", f"/games/{GNOMES}/currencies", expect=200)["offered"] == ["GBP", "EUR"]
    assert GNOMES in listing(api, eur)
    api.start(eur, GNOMES, 40)
    games = api.call("GET", "/games", headers={"X-Operator-Key": api.op["X-Operator-Key"]}, expect=200)
    gnomes = next(g for g in games["games"] if g["id"] == GNOMES)
    assert gnomes["currencies"] == gnomes["currencies_offered"] == ["GBP", "EUR"]


def test_bad_currency_settings_are_refused_and_change_nothing(api: Api, server: Any) -> None:
    before = everything(server)
    assert offer(api, GNOMES, ["USD"], 400)["error"]["code"] == "invalid_currency"  # no USD tables
    assert offer(api, GNOMES, [], 400)["error"]["code"] == "invalid_currency"
    assert offer(api, GNOMES, ["eur"], 422)["error"]["code"] == "invalid_request"
    assert offer(api, "no-such-game", ["GBP"], 404)["error"]["code"] == "not_found"
    bad = {"disabled": [40], "currency": "USD"}
    err = api.operator("PUT", f"/games/{GNOMES}/bets", json=bad, expect=400)["error"]
    assert err["code"] == "invalid_currency"
    assert everything(server) == before


def test_bets_are_switched_per_currency(api: Api, server: Any) -> None:
    gbp, eur = new_player(api, "bet-g", "GBP"), new_player(api, "bet-e", "EUR")
    view = api.operator("PUT", f"/games/{GNOMES}/bets?currency=EUR", json={"disabled": [40, 80]}, expect=200)
    assert view["currency"] == "EUR" and view["disabled"] == [40, 80]
    assert api.operator("GET", f"/games/{GNOMES}/bets?currency=EUR", expect=200)["disabled"] == [40, 80]
    assert api.operator("GET", f"/games/{GNOMES}/bets", expect=200)["disabled"] == []  # every currency
    assert api.operator("GET", f"/games/{GNOMES}/bets?currency=GBP", expect=200)["disabled"] == []
    stakes = [b["stake"] for b in listing(api, eur)[GNOMES]["bet_levels"]]
    assert 40 not in stakes and 80 not in stakes and 120 in stakes
    assert [b["stake"] for b in listing(api, gbp)[GNOMES]["bet_levels"]][:2] == [40, 80]
    before = everything(server)
    assert api.start(eur, GNOMES, 40, expect=400)["error"]["code"] == "bet_disabled"
    assert everything(server) == before
    api.start(gbp, GNOMES, 40)
    api.start(eur, GNOMES, 120)
    # The list for every currency applies where a currency has none of its own.
    api.operator("PUT", f"/games/{GNOMES}/bets", json={"disabled": [120]}, expect=200)
    assert api.start(gbp, GNOMES, 120, expect=400)["error"]["code"] == "bet_disabled"
    api.start(eur, GNOMES, 120)  # the euro list replaces it


def test_los_3_pinguinos_is_played_in_pounds_at_its_tables_in_pence(api: Api) -> None:
    """Its prizes are money: its pound table is the euro table in pence, so the same exact math
    (the data names both); a pound player's round is staked and paid in pounds."""
    game = registry()[PINGUINOS]
    assert game.currencies == ("EUR", "GBP")
    token = new_player(api, "l3p-g", "GBP")
    info = listing(api, token)[PINGUINOS]
    assert info["currency"] == "GBP"
    stake = info["bet_levels"][0]["stake"]
    reply = api.finish(token, api.start(token, PINGUINOS, stake))
    assert reply["round"]["status"] == "complete"
    history = api.operator("GET", "/players/l3p-g/history", expect=200)["rounds"]
    assert history[0]["balance_after"] == 100_000 - stake + reply["round"]["win"] == api.balance(token)


def test_the_demo_wallet_takes_the_profiles_currency(db_url: str, tmp_path) -> None:
    server = make_server(db_url, tmp_path, demo_mode=True)
    try:
        api = Api(client_for(server))
        for profile, currency in (("es", "EUR"), ("gb", "GBP"), ("default", "GBP")):
            api.operator("PUT", "/profile", json={"profile": profile}, expect=200)
            token = api.call("POST", "/demo/session", expect=201)["token"]
            assert api.call("GET", "/balance", token=token, expect=200)["currency"] == currency
            assert {g["currency"] for g in listing(api, token).values()} == {currency}
    finally:
        server.engine.dispose()
