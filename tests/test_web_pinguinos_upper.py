"""Los 3 Pinguinos' upper game in a real browser: Debian's Chromium driven by Playwright against
a real ``reelforge serve`` process (SQLite, scripted draws dealt through the real rules; each
script is first dealt in-process to check that the rules use it up exactly).

Covered: CHANGE GAME refused without Bonuses; Bonuses won in the lower game; CHANGE GAME (the
button, Shift, numpad 0) to the upper screen and back; the bets the machine covers; the
Roulette played with PLAY, then Double or Bonuses with a PLAY and a COLLECT ALL (COLLECT held);
the Slides picked with a click, a fraction turned into Bonuses and one collected with a tap;
the Fishing under AUTO-RISK, which plays every fraction; AUTO-PLAY of upper games (the server's
autoplay in mode "upper"); recall of an upper round; phones in portrait and landscape.  After
every round the BALANCE, BONUSES, vertical-lines and accumulator displays are checked against
the server.  No console errors.  Screenshots: test-artifacts/screenshots/l3pu-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pinguinos_helpers import chance, find, game, judge, pick
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.los_3_pinguinos.upper_lines import evaluate
from reelforge.rng import ScriptedRandom
from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, money, new_tab

GAME_ID = "los-3-pinguinos"
GAME = f"#/game/{GAME_ID}"
MACHINE = "[data-testid=renderer-los-3-pinguinos]"
EUROS = 100

# Upper stops (reel 0, 1, 2) and what their window shows (data/upper.toml's strips).
ROULETTE_VL = (2, 11, 0)  # three Ice Cubes on line 5, the vertical-lines symbol in view
SLIDES = (0, 9, 4)  # three Touch Discs on line 2
FISHING = (5, 5, 12)  # three Cocktails on line 3
PIECE = (0, 6, 0)  # the accumulator symbol in view, no winning line (on 5 or 8 lines)
BELLS = (11, 14, 11)  # three Bells on line 3
MIXED = (4, 4, 4)  # three Lemons on line 1, mixed sevens on line 3


@pytest.fixture(scope="module")
def d() -> LowerData:
    return get_game(GAME_ID).data()  # type: ignore[no-any-return, attr-defined]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-pinguinos-upper"), "20261207")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    token = player(op, "l3pu-warmup", 0)  # the first game list computes the exact RTPs (seconds)
    r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("l3pu")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


def player(op: Operator, external_id: str, credit: int) -> str:
    """A player whose wallet is in euros (the machine's currency), with a session."""
    return op.player(external_id, credit, currency="EUR")


# -- scripts ------------------------------------------------------------------------------------


class Unscripted:
    def randbelow(self, n: int) -> int:
        raise AssertionError(f"the script ran out (a draw below {n} was asked for)")


def before(weights: list[int], index: int) -> int:
    """The draw that picks ``index`` from a weight list."""
    return sum(weights[:index])


def upper_start(
    d: LowerData,
    state: dict[str, Any],
    stake: int,
    stops: tuple[int, int, int],
    *,
    offer: bool = True,
    vertical: int = 1,
    pieces: int = 1,
    mixed: tuple[int, ...] = (),
) -> list[int]:
    """The start of an upper game at ``stake`` from the machine ``state``: the stops, the
    vertical-lines and accumulator steps where their symbols show, the mixed-sevens prizes, the
    minigame offer."""
    i, bet = d.upper_bet(stake)
    u = d.upper
    lines = 8 if state["vertical_lines"] > 0 else 5
    ev = evaluate(u, bet, stops, lines == 8)
    draws = list(stops)
    if ev.vertical:
        draws.append(pick(u.vertical_step, vertical))
    if ev.accumulator:
        draws.append(pick(u.accumulator_step, pieces))
    assert ev.mixed_lines == len(mixed)
    draws += [pick(bet.mixed, cents) for cents in mixed]
    if ev.minigame:
        draws.append(chance(u.offer(i, lines), offer))  # type: ignore[arg-type]
    return draws


def doubled(d: LowerData, win: bool) -> int:
    return before(d.upper.double.weights, 1 if win else 0)


def deal_upper(
    d: LowerData,
    state: dict[str, Any],
    stake: int,
    start: list[int],
    *steps: tuple[str, int | None, list[int]],
) -> Round:
    """Deal the round in-process first: the scripts must be exactly what the rules draw."""
    g = get_game(GAME_ID)
    rng = ScriptedRandom(start, Unscripted())
    rnd = g.start(stake, rng, mode="upper", player_state=json.loads(json.dumps(state)))
    assert not rng.script, f"draws left over: {rng.script}"
    for name, choice, script in steps:
        rng = ScriptedRandom(script, Unscripted())
        rnd = g.act(rnd, Action(name=name, choice=choice), rng)
        assert not rng.script, f"draws left over after {name}: {rng.script}"
    assert rnd.complete
    return rnd


def bonus_round(d: LowerData) -> list[int]:
    """A lower game with three Bonus symbols on the line."""
    return game(find(lambda sym: judge(sym) == ("bonus", d.bonus_pays[3]), near=None))


# -- helpers ----------------------------------------------------------------------------------------


def shot(tab: Tab, name: str) -> None:
    tab.shot(f"l3pu-{name}")


def attr(tab: Tab, name: str, selector: str = MACHINE) -> str | None:
    value = tab.page.get_attribute(selector, name)
    return None if value is None else str(value)


def machine_state(operator: Operator, token: str) -> dict[str, Any]:
    states = operator.as_player(token, "GET", f"/state?game={GAME_ID}")["states"]
    stored = [s["state"] for s in states if s["state_key"] == "machine"]
    return dict(stored[0]) if stored else {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}


def last_round(operator: Operator, token: str, external_id: str) -> dict[str, Any]:
    rnd = operator.history(external_id)[0]
    return dict(operator.as_player(token, "GET", f"/rounds/{rnd['id']}"))


def events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for s in rec["steps"] for e in s["events"]]


def check_displays(tab: Tab, operator: Operator, token: str, external_id: str) -> dict[str, Any]:
    """BALANCE, BONUSES, the vertical lines and the chosen bet's accumulator show the server's."""
    balance = operator.balance(external_id)
    assert money(tab.text("[data-testid=balance-display]")) == balance
    assert money(tab.text("[data-testid=balance]")) == balance
    state = machine_state(operator, token)
    side = operator.as_player(token, "GET", "/balance")["side"][GAME_ID]["bonuses"]
    assert int(tab.text("[data-testid=bonuses-display]")) == side == state["bonuses"]
    assert attr(tab, "data-counter", "[data-testid=vertical-lines]") == str(state["vertical_lines"])
    if attr(tab, "data-screen") == "upper":
        assert attr(tab, "data-counter", "[data-testid=upper-vertical-lines]") == str(state["vertical_lines"])
        bet = attr(tab, "data-bet", "[data-testid=accumulator]")
        assert attr(tab, "data-pieces", "[data-testid=accumulator]") == str(state["accumulators"].get(bet, 0))
    return state


def decision(tab: Tab, phase: str, step: int) -> None:
    tab.page.wait_for_selector(f"{MACHINE}[data-decision='{phase}'][data-step='{step}']", timeout=30_000)


def press(tab: Tab, key: str, *scripts: list[int]) -> None:
    if scripts:
        tab.script(*scripts)
    tab.page.keyboard.press(key)


def win_bonuses(tab: Tab, d: LowerData, stake_key_presses: int = 1) -> None:
    """A lower game with three Bonus symbols at the bet ``stake_key_presses`` up (€1: 25 Bonuses)."""
    page = tab.page
    for _ in range(stake_key_presses):
        page.keyboard.press(".")
    press(tab, "Space", bonus_round(d))
    page.wait_for_selector(".game[data-state='busy']")
    tab.idle()


# -- the upper game by hand ---------------------------------------------------------------------------


def test_change_game_roulette_slides_fishing_and_back(tab: Tab, operator: Operator, d: LowerData) -> None:
    pid = "l3pu-hand"
    token = player(operator, pid, EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded][data-settings-loaded]")

    # No Bonuses: CHANGE GAME (Shift) is refused, and says why.
    page.keyboard.press("Shift")
    page.wait_for_selector(f"{MACHINE}[data-refused='change-game-bonuses']")
    assert attr(tab, "data-screen") == "lower"
    assert "BONUSES" in tab.text("[data-testid=message]")
    assert "NEEDS 1 BONUS" in tab.text("[data-testid=message-sub]").upper()
    shot(tab, "01-change-game-refused")

    # Three Bonus symbols at €1: 25 Bonuses; CHANGE GAME (the button) now opens the upper game.
    win_bonuses(tab, d)
    assert tab.text("[data-testid=bonuses-display]") == str(5 * d.bonus_pays[3])
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
    assert page.locator("[data-testid=upper-reels]").is_visible()
    assert not page.locator("[data-testid=reels]").is_visible()
    assert tab.text("[data-testid=bet-value]") == "€0.20 + 1 Bonus"
    # The bets the machine covers (25 Bonuses, €99): up to €5 + 25 Bonuses.
    for stake, ok in [(100, True), (500, True), (2500, True), (5000, False), (7500, False), (13500, False)]:
        assert page.locator(f"[data-testid=upper-bet-{stake}]").is_enabled() is ok, stake
    assert not page.locator("[data-testid=upper-pay-mixed]").is_visible()  # no mixed sevens at €0.20
    state = check_displays(tab, operator, token, pid)
    shot(tab, "02-upper-screen")

    # A game at €0.20 + 1 Bonus: three Ice Cubes on line 5 and the vertical-lines symbol: the
    # Roulette.  PLAY spins it: €10 and (again) €5.
    sections = list(d.upper.roulette.sections)
    ten, five = sections.index(1000), sections.index(500)
    again = d.upper.roulette.again
    start = upper_start(d, state, 100, ROULETTE_VL, vertical=3)
    spin = [ten, chance(again, True), five, chance(again, False)]  # type: ignore[arg-type]
    play1 = [doubled(d, True)]
    rnd = deal_upper(
        d, state, 100, start, ("spin", None, spin), ("play", None, play1), ("collect_all", None, [])
    )
    assert rnd.win == 2 * 400 + 1100
    press(tab, "Space", start)
    decision(tab, "roulette", 1)
    assert json.loads(attr(tab, "data-wins", "[data-testid=upper-reels]") or "[]") == [5]
    assert "is-win" in (attr(tab, "class", "[data-testid=upper-line-5]") or "")
    counter = str(rnd.player_state["vertical_lines"])  # type: ignore[index]
    assert attr(tab, "data-counter", "[data-testid=upper-vertical-lines]") == counter
    assert attr(tab, "data-kind", "[data-testid=minigame]") == "roulette"
    assert "is-on" in (attr(tab, "class", "[data-testid=lamp-roulette]") or "")
    shot(tab, "03-roulette-offered")
    press(tab, "Space", spin)
    decision(tab, "double", 2)
    assert json.loads(attr(tab, "data-lit", "[data-testid=minigame-roulette]") or "[]") == [ten, five]
    assert json.loads(attr(tab, "data-fractions", "[data-testid=double]") or "[]") == [400, 400, 400, 300]
    assert money(tab.text("[data-testid=prize-display]")) == 1500
    assert "PLAY" in tab.text("[data-testid=message-sub]")
    shot(tab, "04-double-offered")
    page.reload()  # the round in play is restored on the upper screen, where it stood
    page.wait_for_selector("#app[data-ready='1']")
    decision(tab, "double", 2)
    assert attr(tab, "data-screen") == "upper"
    assert json.loads(attr(tab, "data-fractions", "[data-testid=double]") or "[]") == [400, 400, 400, 300]
    assert money(tab.text("[data-testid=prize-display]")) == 1500
    press(tab, "Space", play1)  # PLAY/ACCUMULATE: the first fraction doubled
    decision(tab, "double", 3)
    assert attr(tab, "data-result", "[data-testid=fraction-0]") == "double"
    assert money(tab.text("[data-testid=double-secured]")) == 800
    shot(tab, "05-double-played")
    page.keyboard.down("Backspace")  # COLLECT held: the whole prize
    page.wait_for_timeout(900)
    page.keyboard.up("Backspace")
    tab.idle()
    rec = last_round(operator, token, pid)
    assert rec["status"] == "complete" and rec["win"] == rnd.win
    assert [s["action"]["name"] for s in rec["steps"]] == ["start", "spin", "play", "collect_all"]
    assert [attr(tab, "data-result", f"[data-testid=fraction-{i}]") for i in range(4)] == ["double"] + [
        "collected"
    ] * 3
    assert money(tab.text("[data-testid=win]")) == rnd.win
    assert money(tab.text("[data-testid=prize-display]")) == rnd.win
    state = check_displays(tab, operator, token, pid)
    assert state["bonuses"] == 5 * d.bonus_pays[3] - 1
    shot(tab, "06-collected-all")

    # The Slides: five platforms; a click on the third; a fraction turned into Bonuses, then
    # COLLECT (a tap) takes the last one.
    slides = d.upper.slides
    shown = [500, 800, 1000, 500, 1500]
    start = upper_start(d, state, 100, SLIDES) + [pick(slides.prizes, f"C{c}") for c in shown] + [0, 0, 0, 0]
    order = [1, 2, 3, 4, 0]  # Fisher-Yates with j = 0 each time: platform 2 holds shown[3]
    rnd = deal_upper(
        d, state, 100, start, ("pick", 2, []), ("play", None, [doubled(d, False)]), ("collect", None, [])
    )
    assert rnd.win == 100
    press(tab, "Enter", start)
    decision(tab, "slides", 1)
    page.wait_for_selector("[data-testid=minigame-slides][data-ready]")
    assert json.loads(attr(tab, "data-shown", "[data-testid=minigame-slides]") or "[]") == shown
    page.keyboard.press("ArrowRight")
    assert attr(tab, "data-cursor", "[data-testid=minigame-slides]") == "1"
    shot(tab, "07-slides")
    page.click("[data-testid=platform-2]")
    decision(tab, "double", 2)
    revealed = json.loads(attr(tab, "data-revealed", "[data-testid=minigame-slides]") or "[]")
    assert revealed == [shown[k] for k in order]
    assert money(tab.text("[data-testid=prize-display]")) == 500
    press(tab, "Space", [doubled(d, False)])  # PLAY: the first fraction turns into 5 Bonuses
    decision(tab, "double", 3)
    assert attr(tab, "data-result", "[data-testid=fraction-0]") == "bonuses"
    assert tab.text("[data-testid=bonuses-display]") == str(state["bonuses"] - 1 + 5)
    shot(tab, "08-double-bonuses")
    page.click("[data-testid=collect]")  # a tap on COLLECT: the last fraction
    tab.idle()
    rec = last_round(operator, token, pid)
    assert [s["action"]["name"] for s in rec["steps"]] == ["start", "pick", "play", "collect"]
    assert rec["win"] == rnd.win == 100
    assert attr(tab, "data-result", "[data-testid=fraction-1]") == "collected"
    state = check_displays(tab, operator, token, pid)

    # The Fishing under AUTO-RISK (*): PLAY sends the penguins fishing, then every fraction is
    # played by itself: doubled, Bonuses, doubled, Bonuses (the last, €3, rounded up to 4).
    page.keyboard.press("*")
    page.wait_for_selector(f"{MACHINE}[data-auto-risk='1'][data-settings-saved='1']")
    fishing = d.upper.fishing
    start = upper_start(d, state, 100, FISHING)
    fish = [
        pick(fishing.catch, "C1000"),
        pick(fishing.catch, "X"),
        pick(fishing.catch, "C500"),
        pick(fishing.catch, "X"),
        pick(fishing.catch, "X"),
    ]
    plays = [[doubled(d, True)], [doubled(d, False)], [doubled(d, True)], [doubled(d, False), 0]]
    rnd = deal_upper(d, state, 100, start, ("fish", None, fish), *[("play", None, p) for p in plays])
    assert rnd.win == 2 * 800 and rnd.state["bonuses_won"] == 5 + 4
    tab.script(start, fish, *plays)
    page.keyboard.press("Space")
    decision(tab, "fishing", 1)
    shot(tab, "09-fishing")
    page.keyboard.press("Space")
    tab.idle()
    rec = last_round(operator, token, pid)
    assert [s["action"]["name"] for s in rec["steps"]] == ["start", "fish", "play", "play", "play", "play"]
    assert rec["win"] == rnd.win
    assert json.loads(attr(tab, "data-catches", "[data-testid=fisher-0]") or "[]") == [1000]
    crosses = page.locator("[data-testid=minigame-fishing] [data-testid^=cross-]")
    assert crosses.count() == 3  # every penguin ended on a cross
    assert [attr(tab, "data-result", f"[data-testid=fraction-{i}]") for i in range(4)] == [
        "double",
        "bonuses",
        "double",
        "bonuses",
    ]
    check_displays(tab, operator, token, pid)
    shot(tab, "10-auto-risk-done")
    page.keyboard.press("*")
    page.wait_for_selector(f"{MACHINE}[data-auto-risk='0'][data-settings-saved='2']")

    # CHANGE GAME back (numpad 0), forth (Shift) and back (the button).  (Since the reload the
    # machine has made no switch of its own: the restored round put it on the upper screen.)
    page.keyboard.press("0")
    page.wait_for_selector(f"{MACHINE}[data-screen='lower'][data-switched='1']")
    assert page.locator("[data-testid=reels]").is_visible()
    assert tab.text("[data-testid=bet-value]") == "€1.00"
    check_displays(tab, operator, token, pid)
    shot(tab, "11-back-to-lower")
    page.keyboard.press("Shift")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='2']")
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{MACHINE}[data-screen='lower'][data-switched='3']")

    # Recall of the Slides round, step by step: each picture carries on from the one before.
    slides_round = operator.history(pid)[1]
    page.goto(f"{tab.base_url}/#/history/{slides_round['id']}")
    page.wait_for_selector(".l3p-snapshot[data-ready] .l3p[data-screen='upper']")
    assert "upper game, bet €0.20 + 1 Bonus" in tab.text("[data-testid=recall-step]")
    assert "Slides starts" in tab.text("[data-testid=recall-events]")
    page.keyboard.press("ArrowRight")  # the pick
    page.wait_for_selector(".l3p-snapshot[data-ready] [data-testid=minigame-slides][data-revealed]")
    snap = page.locator(".l3p-snapshot [data-testid=minigame-slides]")
    assert json.loads(snap.get_attribute("data-revealed") or "[]") == revealed
    assert "Slides: platform 3" in tab.text("[data-testid=recall-events]")
    page.keyboard.press("ArrowRight")  # PLAY: Bonuses
    page.wait_for_selector(".l3p-snapshot[data-ready] [data-testid=fraction-0][data-result=bonuses]")
    assert page.locator(".l3p-snapshot [data-testid=fraction-1]").get_attribute("data-result") is None
    shot(tab, "11b-recall-slides")


# -- mixed sevens, the accumulator and the WINNING SPIN -----------------------------------------------


def test_mixed_sevens_accumulator_and_winning_spin(tab: Tab, operator: Operator, d: LowerData) -> None:
    pid = "l3pu-winning"
    token = player(operator, pid, EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded][data-settings-loaded]")
    win_bonuses(tab, d, 2)  # three Bonus symbols at €5: 125 Bonuses
    assert tab.text("[data-testid=bonuses-display]") == str(25 * d.bonus_pays[3])
    page.keyboard.press("0")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")  # the shutter is up
    state = check_displays(tab, operator, token, pid)

    # €10 + 50 Bonuses: its paytable has the mixed sevens; three Lemons and mixed sevens.
    page.click("[data-testid=upper-bet-5000]")
    assert tab.text("[data-testid=bet-value]") == "€10 + 50 Bonuses"
    assert page.locator("[data-testid=upper-pay-mixed]").is_visible()
    assert "€50–€1.5K" in tab.text("[data-testid=upper-pay-mixed]")
    assert "€100" in tab.text("[data-testid=upper-pay-LE]")
    start = upper_start(d, state, 5000, MIXED, mixed=(20000,))
    rnd = deal_upper(d, state, 5000, start, ("collect_all", None, []))
    assert rnd.win == 10000 + 20000
    press(tab, "Space", start)
    decision(tab, "double", 1)
    assert json.loads(attr(tab, "data-wins", "[data-testid=upper-reels]") or "[]") == [1, 3]
    assert "is-on" in (attr(tab, "class", "[data-testid=lamp-mixed]") or "")
    assert "is-hit" in (attr(tab, "class", "[data-testid=upper-pay-mixed]") or "")
    assert json.loads(attr(tab, "data-fractions", "[data-testid=double]") or "[]") == [10000, 10000, 10000]
    shot(tab, "14-mixed-sevens")
    page.keyboard.down("Backspace")
    page.wait_for_timeout(900)
    page.keyboard.up("Backspace")
    tab.idle()
    assert last_round(operator, token, pid)["win"] == rnd.win
    state = check_displays(tab, operator, token, pid)

    # €0.20 + 1 Bonus: the accumulator symbol three times (3 pieces each): the third fills it and
    # the WINNING SPIN follows, spinning until it pays (here at the second spin: three Bells).
    page.click("[data-testid=upper-bet-100]")
    for game_no in (1, 2):
        start = upper_start(d, state, 100, PIECE, pieces=3)
        deal_upper(d, state, 100, start)
        press(tab, "Space", start)
        page.wait_for_selector(".game[data-state='busy']")
        tab.idle()
        state = check_displays(tab, operator, token, pid)
        assert state["accumulators"]["100"] == 3 * game_no
    assert attr(tab, "data-pieces", "[data-testid=accumulator]") == "6"
    start = upper_start(d, state, 100, PIECE, pieces=3) + list(PIECE) + list(BELLS)
    rnd = deal_upper(d, state, 100, start, ("play", None, [doubled(d, True)]), ("collect", None, []))
    assert rnd.win == 2 * 400 + 400
    press(tab, "Space", start)
    decision(tab, "double", 1)
    assert attr(tab, "data-winning-spin") == "1"
    assert "is-on" in (attr(tab, "class", "[data-testid=lamp-winning]") or "")
    assert attr(tab, "data-pieces", "[data-testid=accumulator]") == "0"
    assert json.loads(attr(tab, "data-wins", "[data-testid=upper-reels]") or "[]") == [3]
    shot(tab, "15-winning-spin")
    press(tab, "Space", [doubled(d, True)])
    decision(tab, "double", 2)
    page.click("[data-testid=collect]")
    tab.idle()
    rec = last_round(operator, token, pid)
    assert rec["win"] == rnd.win
    spins = [e for e in events(rec) if e["type"] == "upper_spin"]
    assert [(e["game"], e["tries"]) for e in spins] == [("paid", 1), ("winning", 2)]
    state = check_displays(tab, operator, token, pid)
    assert state["accumulators"]["100"] == 0


# -- AUTO-PLAY in the upper game, and recall ---------------------------------------------------------


def test_auto_play_upper_games_and_recall(tab: Tab, operator: Operator, d: LowerData) -> None:
    pid = "l3pu-auto"
    token = player(operator, pid, EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded][data-settings-loaded]")
    win_bonuses(tab, d)
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
    page.keyboard.press("ArrowUp")  # the bet key: €1 + 5 Bonuses
    assert tab.text("[data-testid=bet-value]") == "€1 + 5 Bonuses"
    assert attr(tab, "data-upper-bet") == "500"
    page.keyboard.press("i")  # the paytable: the upper game's, at its bet
    dialog = page.locator("[data-testid=upper-paytable-dialog]")
    dialog.wait_for()
    assert "€1 + 5 Bonuses" in dialog.inner_text() and "Mixed sevens pay nothing" in dialog.inner_text()
    assert "€250.00" in dialog.locator("tr[data-symbol=R7]").inner_text()
    shot(tab, "16-paytable")
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    rules = page.locator("[data-testid=dialog-rules]")
    rules.wait_for()
    assert "Double or Bonuses" in rules.inner_text() and "WINNING SPIN" in rules.inner_text()
    page.keyboard.press("Escape")
    page.keyboard.press("-")  # AUTO-PLAY
    dialog = page.locator("[data-testid=dialog-autoplay]")
    dialog.wait_for()
    assert "€1.00" in dialog.inner_text()  # the cash part of the bet
    dialog.locator("[data-spins='10']").click()
    page.fill("#ap-loss", "50.00")
    dialog.locator("[data-testid=autoplay-start]").click()
    page.wait_for_selector(f"{MACHINE}[data-autoplay='1']")
    page.wait_for_selector(".game[data-autoplay-stop]", timeout=180_000)
    tab.idle()
    status = operator.as_player(token, "GET", "/autoplay")["autoplay"]
    # 25 Bonuses cover five games at 5 Bonuses (and those the Double won).
    assert status["stop_reason"] in ("insufficient_bonuses", "spins_done"), status
    recs = [operator.as_player(token, "GET", f"/rounds/{r['id']}") for r in operator.history(pid)]
    upper = [rec for rec in recs if rec["steps"][0]["action"].get("mode") == "upper"]
    assert len(upper) >= 5 and len(recs) == len(upper) + 1  # and the lower game that won the Bonuses
    for rec in upper:
        assert rec["status"] == "complete"
        assert rec["steps"][0]["action"]["stake"] == 500 and rec["stake"] == 100
    assert attr(tab, "data-screen") == "upper"
    check_displays(tab, operator, token, pid)
    shot(tab, "12-auto-play-done")

    # Recall: the upper round is told and pictured on the upper screen.
    page.goto(f"{tab.base_url}/#/history/{upper[-1]['id']}")
    page.wait_for_selector("[data-testid=recall]")
    page.wait_for_selector(".l3p-snapshot[data-ready] .l3p[data-screen='upper']")
    words = tab.text("[data-testid=recall-events]")
    assert "Upper game: bet €1 + 5 Bonuses" in words
    assert "upper game, bet €1 + 5 Bonuses" in tab.text("[data-testid=recall-step]")
    shot(tab, "13-recall")


# -- phones ------------------------------------------------------------------------------------------


def test_phone_portrait_and_landscape(
    browser: Any, server: ServerProcess, operator: Operator, d: LowerData
) -> None:
    pid = "l3pu-phone"
    token = player(operator, pid, EUROS * 100)
    base = server.url.removesuffix("/api/v1")
    gen = new_tab(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    tab = next(gen)
    try:
        page = tab.page

        def inside(width: int, height: int) -> None:
            for sel in [
                "[data-testid=upper-reels]",
                "[data-testid=accumulator]",
                "[data-testid=upper-vertical-lines]",
                "[data-testid=double]",
                "[data-testid=collect]",
                "[data-testid=change-game]",
                "[data-testid=marquee]",
                "[data-testid=prize-display]",
                "[data-testid=bonuses-display]",
                "[data-testid=balance-display]",
                "[data-testid=upper-pay-R7]",
                "[data-testid=upper-pay-CH]",
                "[data-testid=spin]",
                "[data-testid=bet-value]",
            ]:
                box = page.locator(sel).bounding_box()
                assert box is not None, sel
                assert box["x"] >= -1 and box["y"] >= -1, (sel, box)
                assert box["x"] + box["width"] <= width + 1 and box["y"] + box["height"] <= height + 1, (
                    sel,
                    box,
                )

        tab.open(token, GAME)
        tab.idle()
        page.wait_for_selector(f"{MACHINE}[data-machine-loaded]")
        page.tap("[data-testid=bet-up]")
        tab.script(bonus_round(d))
        page.tap("[data-testid=spin]")
        page.wait_for_selector(".game[data-state='busy']")
        tab.idle()
        page.tap("[data-testid=change-game]")
        page.wait_for_selector(f"{MACHINE}[data-screen='upper'][data-switched='1']")
        state = check_displays(tab, operator, token, pid)
        inside(390, 844)
        shot(tab, "20-phone-portrait-upper")

        # The Slides in portrait: a platform tapped.
        shown = [500, 800, 1000, 1500, 2000]
        start = (
            upper_start(d, state, 100, SLIDES)
            + [pick(d.upper.slides.prizes, f"C{c}") for c in shown]
            + [0, 0, 0, 0]
        )
        deal_upper(d, state, 100, start, ("pick", 0, []), ("collect_all", None, []))
        tab.script(start)
        page.tap("[data-testid=spin]")
        decision(tab, "slides", 1)
        page.wait_for_selector("[data-testid=minigame-slides][data-ready]")
        inside(390, 844)
        shot(tab, "21-phone-portrait-slides")
        page.tap("[data-testid=platform-0]")
        decision(tab, "double", 2)
        inside(390, 844)
        shot(tab, "22-phone-portrait-double")

        # Turned to landscape; COLLECT held (touch): the whole prize.
        page.set_viewport_size({"width": 844, "height": 390})
        page.wait_for_timeout(300)
        inside(844, 390)
        shot(tab, "23-phone-landscape-double")
        box = page.locator("[data-testid=collect]").bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.wait_for_timeout(900)
        page.mouse.up()
        tab.idle()
        rec = last_round(operator, token, pid)
        assert [s["action"]["name"] for s in rec["steps"]] == ["start", "pick", "collect_all"]
        state = check_displays(tab, operator, token, pid)

        # The Roulette in landscape.
        start = upper_start(d, state, 100, ROULETTE_VL)
        tab.script(start)
        page.tap("[data-testid=spin]")
        decision(tab, "roulette", 1)
        inside(844, 390)
        shot(tab, "24-phone-landscape-roulette")
        sections = list(d.upper.roulette.sections)
        tab.script([sections.index(2000), chance(d.upper.roulette.again, False)])  # type: ignore[arg-type]
        page.tap("[data-testid=spin]")
        decision(tab, "double", 2)
        shot(tab, "25-phone-landscape-roulette-won")
        page.keyboard.down("+")
        page.wait_for_timeout(900)
        page.keyboard.up("+")
        tab.idle()
        check_displays(tab, operator, token, pid)
    finally:
        next(gen, None)
