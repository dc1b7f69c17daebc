"""Los 3 Pinguinos' cabinet in a real browser (Debian's Chromium driven by Playwright against a
real ``reelforge serve`` process, SQLite, scripted draws each dealt in-process first):

* under the GB profile (no autoplay) the machine's AUTO-PLAY is dark, struck out and says why, on
  the lower and on the upper screen; its key (−) and a press start nothing and say why on the
  marquee; the key legend says it is off; on a phone it is gone, with the control bar's;
* CHANGE GAME is dark with fewer Bonuses than the cheapest upper bet on offer takes (and says so),
  lit when they cover it, also when the operator switched the cheapest bet off;
* an upper bet the machine no longer covers offers the cheaper bets it covers (one is chosen and
  played) and, with none left, the way back to the lower game;
* an autoplay of lower games with AUTO off that stops for a nudge offer shows that decision (the
  nudge lamps and HOLD / ADVANCE lit, the marquee saying autoplay paused), not a note over an
  idle machine, also when the stopping reply comes without its round (found on the server).

Screenshots (desktop 1366 x 768, phone 390 x 844): test-artifacts/screenshots/cabinet-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import product
from typing import Any

import httpx
import pytest

from pinguinos_helpers import find, game, judge
from reelforge.engine.round import Round
from reelforge.games import get_game
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.los_3_pinguinos.upper_lines import evaluate
from reelforge.rng import ScriptedRandom
from server_process import OP_HEADERS, ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

GAME_ID = "los-3-pinguinos"
GAME = f"#/game/{GAME_ID}"
MACHINE = "[data-testid=renderer-los-3-pinguinos]"
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
EUROS = 100


@pytest.fixture(scope="module")
def d() -> LowerData:
    return get_game(GAME_ID).data()  # type: ignore[no-any-return, attr-defined]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-pinguinos-cabinet"), "20261219")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    token = op.player("cab-warmup", 0, currency="EUR")  # the first game list computes the exact RTPs
    r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("cabinet")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"), viewport=DESKTOP)


# -- scripts: draws dealt in-process first, so each is exactly what the rules draw ---------------


class Unscripted:
    def randbelow(self, n: int) -> int:
        raise AssertionError(f"the script ran out (a draw below {n} was asked for)")


def bonus_game(d: LowerData, symbols: int) -> list[int]:
    """A lower game whose line wins the Bonus prize of ``symbols`` Bonus symbols (wilds join a
    Bonus symbol): ``bonus_pays[symbols]`` Bonuses at the unit bet."""
    script = game(find(lambda sym: judge(sym) == ("bonus", d.bonus_pays[symbols]), near=None))
    rnd = get_game(GAME_ID).start(20, ScriptedRandom(list(script), Unscripted()))
    assert rnd.complete and rnd.state["bonuses_won"] == d.bonus_pays[symbols], rnd.events
    return script


def losing_upper(d: LowerData) -> list[int]:
    """Upper stops that win nothing and show no feature, on 5 and on 8 lines, at every bet."""
    u = d.upper
    for stops in product(range(16), repeat=3):
        evals = [evaluate(u, bet, stops, eight) for bet in u.bets for eight in (False, True)]
        if all(not e.wins and not e.accumulator and not e.vertical for e in evals):
            return list(stops)
    raise AssertionError("no losing upper stops")


def dealt_upper(d: LowerData, stake: int, bonuses: int, script: list[int]) -> Round:
    rng = ScriptedRandom(list(script), Unscripted())
    state = {"bonuses": bonuses, "vertical_lines": 0, "accumulators": {}}
    rnd = get_game(GAME_ID).start(stake, rng, mode="upper", player_state=state)
    assert rnd.complete and rnd.win == 0 and not rng.script, rnd.events
    return rnd


# -- helpers ----------------------------------------------------------------------------------------


def shot(tab: Tab, name: str, phone: bool = False) -> None:
    """The screen as a player sees it; ``phone``: the same page at 390 x 844, then back."""
    tab.shot(f"cabinet-{name}")
    if phone:
        tab.page.set_viewport_size(PHONE)
        tab.page.wait_for_timeout(50)  # one layout at the new size before the picture
        tab.shot(f"cabinet-{name}-phone")
        tab.page.set_viewport_size(DESKTOP)


def attr(tab: Tab, name: str, selector: str = MACHINE) -> str | None:
    value = tab.page.get_attribute(selector, name)
    return None if value is None else str(value)


def open_machine(tab: Tab, token: str) -> None:
    tab.open(token, GAME)
    tab.idle()
    tab.page.wait_for_selector(f"{MACHINE}[data-machine-loaded][data-settings-loaded]")


def play_lower(tab: Tab, script: list[int]) -> None:
    """PLAY one scripted lower game and wait until the machine is at rest again."""
    page = tab.page
    before = attr(tab, "data-last-round", ".game")
    tab.script(script)
    page.keyboard.press("Space")
    page.wait_for_function(
        "b => { const g = document.querySelector('.game');"
        " return g.dataset.state === 'idle' && g.dataset.lastRound !== b; }",
        arg=before or "",
        timeout=30_000,
    )


def words(tab: Tab, selector: str) -> str:
    """An element's text as written (the marquee shows it in capitals)."""
    return str(tab.page.locator(selector).first.text_content())


def side_bonuses(operator: Operator, token: str) -> int:
    return int(operator.as_player(token, "GET", "/balance")["side"][GAME_ID]["bonuses"])


def set_upper_bets_off(operator: Operator, stakes: list[int]) -> None:
    r = operator.http.put(
        f"/operator/games/{GAME_ID}/bets?mode=upper",
        json={"disabled": stakes},
        headers={**OP_HEADERS, "Idempotency-Key": f"cab-bets-{json.dumps(stakes)}"},
    )
    assert r.status_code == 200, r.text


def autoplay_off_with_reason(tab: Tab, screen: str) -> None:
    """The machine's AUTO-PLAY on ``screen``: dark with its reason; − and a press start nothing."""
    page = tab.page
    assert attr(tab, "data-screen") == screen
    btn = "[data-testid=machine-autoplay]"
    assert page.locator(btn).is_visible()
    assert attr(tab, "data-unavailable", btn) == "1" and attr(tab, "aria-disabled", btn) == "true"
    assert page.locator("[data-testid=machine-autoplay-note]").text_content() == "Off: UK rules"
    assert "not allowed under UK rules" in (attr(tab, "title", btn) or "")
    assert page.locator("[data-testid=autoplay]").is_hidden()  # the control bar's Auto-Play: gone
    assert tab.text("[data-testid=key-autoplay]") == "Auto-play: off under UK rules"
    page.keyboard.press("-")
    page.wait_for_selector(f"{MACHINE}[data-refused='autoplay']")
    assert tab.text("[data-testid=message]") == "NO AUTO-PLAY"
    assert (
        words(tab, "[data-testid=message-sub]")
        == "Auto-play is not allowed under UK rules: start every game with PLAY."
    )
    page.evaluate("() => { delete document.querySelector('.l3p').dataset.refused; }")
    page.click(btn, force=True)  # aria-disabled: Playwright would wait for it to be enabled
    page.wait_for_selector(f"{MACHINE}[data-refused='autoplay']")
    assert page.locator("[data-testid=dialog-autoplay]").count() == 0


# -- GB: no AUTO-PLAY, lower and upper, desktop and phone --------------------------------------------


def test_gb_cabinet_shows_auto_play_off_with_its_reason_lower_and_upper(
    tab: Tab, operator: Operator, d: LowerData
) -> None:
    token = operator.player("cab-gb", EUROS * 100, profile="gb", currency="EUR")
    page = tab.page
    open_machine(tab, token)
    autoplay_off_with_reason(tab, "lower")
    assert operator.as_player(token, "GET", "/autoplay")["autoplay"] is None
    shot(tab, "01-gb-lower-autoplay-off", phone=True)

    # On a phone the machine's AUTO-PLAY and the control bar's are not there at all.
    page.set_viewport_size(PHONE)
    assert page.locator("[data-testid=machine-autoplay]").is_hidden()
    assert page.locator("[data-testid=autoplay]").is_hidden()
    page.set_viewport_size(DESKTOP)

    # Bonuses won down here (the GB cycle times the games), then the upper screen: still off.
    play_lower(tab, bonus_game(d, 3))
    assert side_bonuses(operator, token) == d.bonus_pays[3]
    page.wait_for_selector("[data-testid=change-game][data-lit='1']")
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
    autoplay_off_with_reason(tab, "upper")
    page.set_viewport_size(PHONE)
    assert page.locator("[data-testid=machine-autoplay]").is_hidden()
    assert page.locator("[data-testid=autoplay]").is_hidden()
    page.set_viewport_size(DESKTOP)
    shot(tab, "02-gb-upper-autoplay-off", phone=True)
    assert operator.as_player(token, "GET", "/autoplay")["autoplay"] is None


# -- CHANGE GAME: lit only when the Bonuses cover the cheapest upper bet on offer --------------------


def test_change_game_lights_when_the_bonuses_cover_the_cheapest_upper_bet_on_offer(
    tab: Tab, operator: Operator, d: LowerData
) -> None:
    page = tab.page
    cheapest, second = sorted(d.upper_stakes)[:2]
    need1, need2 = d.upper_bet(cheapest)[1].bonuses, d.upper_bet(second)[1].bonuses
    assert d.bonus_pays[1] >= need1 and d.bonus_pays[1] < need2 <= d.bonus_pays[1] + d.bonus_pays[3]
    token = operator.player("cab-change", EUROS * 100, currency="EUR")
    open_machine(tab, token)
    change = "[data-testid=change-game]"

    # No Bonuses: dark, its title says what it needs; a press is refused and says why.
    assert attr(tab, "data-lit", change) == "0" and attr(tab, "aria-disabled", change) == "true"
    assert attr(tab, "data-need", change) == str(need1)
    assert f"needs {need1} Bonus" in (attr(tab, "title", change) or "")
    shot(tab, "03-change-game-dark", phone=True)
    page.click(change, force=True)  # dark (aria-disabled) but a press says why
    page.wait_for_selector(f"{MACHINE}[data-refused='change-game-bonuses']")
    assert attr(tab, "data-screen") == "lower"

    # One Bonus symbol: the Bonuses cover the cheapest bet: lit.
    play_lower(tab, bonus_game(d, 1))
    assert side_bonuses(operator, token) == d.bonus_pays[1] == int(tab.text("[data-testid=bonuses-display]"))
    page.wait_for_selector(f"{change}[data-lit='1']")
    assert attr(tab, "aria-disabled", change) == "false"
    shot(tab, "04-change-game-lit", phone=True)

    # The operator switches the cheapest upper bet off: the next one's Bonuses count.
    set_upper_bets_off(operator, [cheapest])
    try:
        page.reload()
        page.wait_for_selector("#app[data-ready='1']")
        tab.idle()
        page.wait_for_selector(f"{MACHINE}[data-machine-loaded]")
        assert attr(tab, "data-need", change) == str(need2)
        assert attr(tab, "data-lit", change) == "0"
        assert f"needs {need2} Bonuses" in (attr(tab, "title", change) or "")
        page.keyboard.press("0")
        page.wait_for_selector(f"{MACHINE}[data-refused='change-game-bonuses']")
        assert f"NEEDS {need2} BONUSES" in tab.text("[data-testid=message-sub]").upper()
        shot(tab, "05-change-game-dark-cheapest-off")
        play_lower(tab, bonus_game(d, 3))
        assert side_bonuses(operator, token) == d.bonus_pays[1] + d.bonus_pays[3]
        page.wait_for_selector(f"{change}[data-lit='1']")
        page.click(change)
        page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
        assert page.locator(f"[data-testid=upper-bet-{cheapest}]").count() == 0  # switched off: not offered
        assert attr(tab, "data-upper-bet") == str(second)
        assert attr(tab, "data-lit", change) == "1"  # on the upper screen: the way back
    finally:
        set_upper_bets_off(operator, [])


# -- a refused upper bet offers the cheaper bets covered, or the way back -----------------------------


def test_a_refused_upper_bet_offers_the_cheaper_bets_or_the_lower_game(
    tab: Tab, operator: Operator, d: LowerData
) -> None:
    page = tab.page
    stakes = sorted(d.upper_stakes)
    bets = {s: d.upper_bet(s)[1] for s in stakes}
    big = stakes[2]  # €5 + 25 Bonuses
    bonuses = d.bonus_pays[3] * 5 + d.bonus_pays[3]  # three Bonus symbols at €1, then at €0.20
    left = bonuses - bets[big].bonuses
    affordable = [s for s in stakes[:2] if bets[s].bonuses <= left]
    assert len(affordable) == 2, (bonuses, left)  # both cheaper bets stay covered
    token = operator.player("cab-offer", EUROS * 100, currency="EUR")
    open_machine(tab, token)
    page.keyboard.press(".")  # the lower bet: €1
    play_lower(tab, bonus_game(d, 3))
    page.keyboard.press(".")
    page.keyboard.press(".")
    page.keyboard.press(".")
    page.keyboard.press(".")  # round again to €0.20
    assert tab.text("[data-testid=bet-value]") == "€0.20"
    play_lower(tab, bonus_game(d, 3))
    assert side_bonuses(operator, token) == bonuses
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
    page.click(f"[data-testid=upper-bet-{big}]")
    assert attr(tab, "data-upper-bet") == str(big)

    # A game at €5 + 25 Bonuses that wins nothing: the Bonuses no longer cover that bet.
    lose = losing_upper(d)
    dealt_upper(d, big, bonuses, lose)
    play_lower(tab, lose)  # (PLAY on the upper screen plays its bet)
    assert side_bonuses(operator, token) == left

    # PLAY again: refused, and offered the cheaper bets covered (dearest first) or the way back.
    page.keyboard.press("Space")
    offer = page.locator("[data-testid=bet-offer]")
    offer.wait_for()
    assert attr(tab, "data-why", "[data-testid=bet-offer]") == "bonuses"
    assert attr(tab, "data-offered", "[data-testid=bet-offer]") == " ".join(
        str(s) for s in reversed(affordable)
    )
    assert offer.locator("button.l3p-offer__btn").all_text_contents() == [
        "Play at €1 + 5 Bonuses",
        "Play at €0.20 + 1 Bonus",
        "Back to the lower game",
    ]
    assert f"the machine holds {left} Bonuses" in str(offer.text_content())
    assert attr(tab, "data-refused") == "bet"
    assert len(operator.history("cab-offer")) == 3  # nothing was played
    shot(tab, "06-refused-bet-offers-cheaper", phone=True)
    page.click(f"[data-testid=offer-bet-{affordable[1]}]")
    assert offer.count() == 0 and attr(tab, "data-upper-bet") == str(affordable[1])
    assert tab.text("[data-testid=bet-value]") == "€1 + 5 Bonuses"

    # The chosen bet plays; then nothing upper is covered: only the way back is offered.
    dealt_upper(d, affordable[1], left, lose)
    play_lower(tab, lose)
    assert side_bonuses(operator, token) == left - bets[affordable[1]].bonuses == 0
    page.keyboard.press("Space")
    offer.wait_for()
    assert offer.locator("button.l3p-offer__btn").all_text_contents() == ["Back to the lower game"]
    assert "Win Bonuses in the lower game." in str(offer.text_content())
    shot(tab, "07-refused-bet-way-back", phone=True)
    page.keyboard.press("Enter")  # the lit choice: back down
    page.wait_for_selector(f"{MACHINE}[data-screen='lower'][data-switched='2']")
    assert offer.count() == 0
    assert attr(tab, "data-lit", "[data-testid=change-game]") == "0"  # no Bonuses left: dark again


# -- an autoplay paused for the player's nudges shows them ---------------------------------------------


STRIPPED: list[int] = []


def strip_the_waiting_round(route: Any) -> None:
    """The stopping reply of autoplay/next without its round (as a reply replayed or cut short
    would be): the client must find the round in play on the server and show its decision."""
    response = route.fetch()
    body = response.json()
    if body.get("autoplay", {}).get("stop_reason") == "player_action":
        STRIPPED.append(body["round"]["id"])
        body["round"] = None
    route.fulfill(response=response, json=body)


@pytest.fixture
def fresh(tmp_path: Any, browser: Any) -> Iterator[tuple[Tab, Operator]]:
    """A server of its own, dealing from the start of its seeded stream: how many autoplayed
    games pass before a nudge offer is then the same every run, whatever ran before (on the
    module's server the stream had moved on, and the search took hundreds of games)."""
    for server in browser_server(tmp_path, "20261219"):
        op = Operator(server)
        token = op.player("fresh-warmup", 0, currency="EUR")  # the first game list computes RTPs
        r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
        assert r.status_code == 200, r.text
        try:
            for tab in new_tab(browser, server.url.removesuffix("/api/v1"), viewport=DESKTOP):
                yield tab, op
        finally:
            op.close()


@pytest.mark.parametrize("reply_without_round", [False, True], ids=["reply", "reply-without-round"])
def test_autoplay_with_auto_off_stops_at_nudges_and_shows_them(
    fresh: tuple[Tab, Operator], reply_without_round: bool
) -> None:
    tab, operator = fresh
    token = operator.player(f"cab-autoplay-{reply_without_round}", EUROS * 1000, currency="EUR")
    page = tab.page
    if reply_without_round:
        page.route("**/api/v1/autoplay/next", strip_the_waiting_round)
    open_machine(tab, token)
    assert attr(tab, "data-auto-advance") == "0" and attr(tab, "data-auto-risk") == "0"
    # The search for a nudge offer plays its games at a twentieth of their length: what is
    # checked is where autoplay stops and what the machine shows then, not the reels' motion.
    tab.speed(0.05)
    # each run: up to 100 games from the server's draws, until a nudge offer; offers come in
    # about 0.5% of games (a Bonus on every reel leaves them rare): 1,500 games miss one with a
    # chance near 1 in 2,500, and the first run or three usually meets one
    for _ in range(15):
        page.evaluate("() => { delete document.querySelector('.game').dataset.autoplayStop; }")
        page.keyboard.press("-")
        dialog = page.locator("[data-testid=dialog-autoplay]")
        dialog.wait_for()
        dialog.locator("[data-spins='100']").click()
        page.fill("#ap-loss", "500.00")
        dialog.locator("[data-testid=autoplay-start]").click()
        page.wait_for_selector(".game[data-autoplay-stop]", timeout=300_000)
        if attr(tab, "data-autoplay-stop", ".game") == "player_action":
            break
        assert attr(tab, "data-autoplay-stop", ".game") == "spins_done"
        tab.idle()
    else:
        raise AssertionError("1,500 games without a nudge offer")
    tab.speed(1)

    # The decision the server stopped for is on the machine: lamps, HOLD / ADVANCE, the marquee.
    waiting = operator.as_player(token, "GET", f"/rounds/pending?game={GAME_ID}")["rounds"]
    assert len(waiting) == 1 and waiting[0]["state"]["phase"] == "nudge"
    nudges = waiting[0]["state"]["nudges_left"]
    page.wait_for_selector(f"{MACHINE}[data-decision='nudge'][data-autoplay-paused='{waiting[0]['id']}']")
    assert attr(tab, "data-autoplay-waiting", ".game") == str(waiting[0]["id"])
    stripped = [waiting[0]["id"]] if reply_without_round else []
    assert stripped == STRIPPED  # the reply came without its round (or untouched)
    assert attr(tab, "data-left", "[data-testid=nudge-lamps]") == str(nudges)
    assert page.locator(".l3p-lamp.is-on").count() == nudges
    assert all(page.locator(f"[data-testid=reel-btn-{r}]").is_enabled() for r in range(3))
    assert page.locator("[data-testid=collect]").is_enabled()
    assert words(tab, "[data-testid=message-sub]").startswith("Auto-play paused, your move:")
    assert page.locator("[data-testid=autoplay-stopped]").count() == 0  # no note over the marquee
    spins = [e for e in waiting[0]["events"] if e["type"] == "spin"]
    assert json.loads(attr(tab, "data-stops", "[data-testid=reels]") or "[]") == spins[-1]["stops"]
    if not reply_without_round:
        shot(tab, "08-autoplay-paused-nudges", phone=True)

    # COLLECT keeps the line; the round goes on by hand to its end; nothing says "decision needed".
    settled = """s => { const m = document.querySelector('.l3p'); const g = document.querySelector('.game');
        return (g.dataset.state === 'idle' && !m.dataset.decision)
          || (m.dataset.decision && m.dataset.step !== s); }"""
    step = attr(tab, "data-step")
    page.keyboard.press("Backspace")
    for _ in range(20):
        page.wait_for_function(settled, arg=step, timeout=30_000)
        if attr(tab, "data-state", ".game") == "idle" and attr(tab, "data-decision") is None:
            break
        step = attr(tab, "data-step")
        page.keyboard.press("Space")  # a hold offer after the nudges: the held game
    rec = operator.as_player(token, "GET", f"/rounds/{waiting[0]['id']}")
    assert rec["status"] == "complete" and rec["steps"][1]["actor"] == "player"
    assert attr(tab, "data-autoplay-paused") is None
    assert operator.as_player(token, "GET", f"/rounds/pending?game={GAME_ID}")["rounds"] == []
