"""Los 3 Pinguinos (the lower game) in a real browser: Debian's Chromium driven by Playwright
against a real ``reelforge serve`` process (SQLite, scripted draws).

Covered, each with draws forced through the real rules (every script is first dealt in-process
to check that it is complete): a hold offer changed with the HOLD / ADVANCE keys and the held
game played; nudges offered, a reel nudged by hand and the line settled by PLAY, then AUTO
nudging by itself; Sube-Bonos collected, played up and into Bonuses, and past 3 Bells into the
seesaw (reloaded mid-ladder); Sube-Nada lost to nothing under AUTO-RISK; the Disco stopped on a
penguin, at two bets; the paytable lamps per bet; paytable, rules and recall; phones in portrait
and landscape.  The PRIZE, BONUSES, BALANCE and vertical-lines displays are checked against the
server after every round.  No console errors.  Screenshots:
test-artifacts/screenshots/pinguinos-*.png.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pinguinos_helpers import SP, WI, find, line, moved, shows, three
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.los_3_pinguinos.payline import (
    FEW_NUDGES,
    count_weights,
    evaluate,
    fewest_nudges,
    line_symbols,
)
from reelforge.rng import ScriptedRandom
from server_process import ServerProcess
from web_support import (
    SHOTS,
    Operator,
    Tab,
    browser_server,
    chromium_browser,
    money,
    new_tab,
)

GAME_ID = "los-3-pinguinos"
GAME = f"#/game/{GAME_ID}"
EUROS = 100
MACHINE = "[data-testid=renderer-los-3-pinguinos]"

# Stops (reel 0, 1, 2) and what they put on the line, found on data/rtp-95.toml's strips (a Bonus
# symbol on every reel; Melon, Seven and Penguin on the center reel only, paid as WI-X-WI).
CHERRIES = list(three("CH"))  # CH CH CH: 40 cents at EUR 0.20, blue: Sube-Bonos
ORANGES = list(three("OR"))  # OR OR OR: 100, yellow: Sube-Nada
SPEAKERS = list(three(SP))  # SP SP SP: the Disco
# WI ME SP: pairs of Speakers (suggested: the Disco ranks above every prize, reels 1 + 3) and of
# Melons (reels 1 + 2); holding the Melons, the right reel's wild pays the Melon at once
WILD_MELON_SPEAKER = list(find(shows(WI, "ME", SP), near=None))
MELONS_HELD = [*WILD_MELON_SPEAKER[:2], find(shows(WI, "ME", WI))[2]]  # the held game's line: WI ME WI
# WI ME x: one nudge of the right reel brings its wild, a Melon paid at once (with more nudges
# AUTO may go on to the Penguin above the Melon)
MELONS_NEAR = list(
    find(shows(WI, "ME", None), near=True, also=lambda t: line(moved(t, (0, 0, 1))) == (WI, "ME", WI))
)


# -- scripts: draws that force an outcome through the real rules ----------------------------------


@pytest.fixture(scope="module")
def d() -> LowerData:
    return get_game(GAME_ID).data()  # type: ignore[no-any-return, attr-defined]


def before(table: dict[Any, int], key: Any) -> int:
    """The draw that picks ``key`` from a weight table (weights in file order)."""
    keys = list(table)
    return sum(table[k] for k in keys[: keys.index(key)])


def game_draws(
    d: LowerData,
    stops: list[int],
    *,
    nudges: int | None = None,
    held: bool = False,
    hold: bool = False,
    spinning: tuple[int, ...] = (0, 1, 2),
) -> list[int]:
    """One game: the spinning reels' stops, the nudge offer where the rules draw one (offered
    ``nudges`` times, or refused), and the hold offer (``hold``) where they draw one."""
    out = [stops[r] for r in spinning]
    outcome = evaluate(d, line_symbols(d, tuple(stops)))  # type: ignore[arg-type]
    m = fewest_nudges(d, tuple(stops), outcome, held)  # type: ignore[arg-type]
    if m is not None and m <= FEW_NUDGES and not (held and len(spinning) == 3):
        if nudges is None:
            out.append(0)
        else:
            out += [d.nudges.offer.no, before(count_weights(d, m), nudges)]
            return out
    else:
        assert nudges is None, f"no near miss at {stops}: nudges cannot be offered"
    if outcome.kind == "none" and outcome.pairs and not held:
        out.append(d.hold.no if hold else 0)
    return out


def up(d: LowerData, kind: str, level: int) -> int:
    """A ladder PLAY that goes up from ``level``."""
    return getattr(d.ladders, kind)[level].fail


FAIL = 0  # a ladder PLAY that fails


class Unscripted:
    def randbelow(self, n: int) -> int:
        raise AssertionError(f"the script ran out (a draw below {n} was asked for)")


def deal(d: LowerData, stake: int, start: list[int], *steps: tuple[str, int | None, list[int]]) -> Round:
    """Deal the round in-process first: the scripts must be exactly what the rules draw."""
    game = get_game(GAME_ID)
    rng = ScriptedRandom(start, Unscripted())
    rnd = game.start(stake, rng)
    assert not rng.script, f"draws left over: {rng.script}"
    for name, choice, script in steps:
        rng = ScriptedRandom(script, Unscripted())
        rnd = game.act(rnd, Action(name=name, choice=choice), rng)
        assert not rng.script, f"draws left over after {name}: {rng.script}"
    return rnd


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-pinguinos"), "20261203")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    # The first game list computes every game's exact RTP (seconds): do it before the browser waits.
    token = player(op, "l3p-warmup", 0)
    r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("pinguinos")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


def player(op: Operator, external_id: str, credit: int) -> str:
    """A player whose wallet is in euros (the machine's currency), with a session."""
    return op.player(external_id, credit, currency="EUR")


# -- helpers ---------------------------------------------------------------------------------------


def shot_png(tab: Tab, name: str) -> None:
    tab.shot(f"pinguinos-{name}")


def live_png(tab: Tab, name: str) -> None:
    """A screenshot with the animations caught where they are (reels running)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"pinguinos-{name}.png"), animations="allow")


def attr(tab: Tab, name: str, selector: str = MACHINE) -> str | None:
    value = tab.page.get_attribute(selector, name)
    return None if value is None else str(value)


def shown(tab: Tab) -> list[str]:
    return [str(tab.page.get_attribute(f".l3p-reel[data-reel='{r}']", "data-line")) for r in range(3)]


def play(tab: Tab, script: list[int] | None = None, key: str = "Space") -> None:
    """PLAY a new game (scripted) from the keyboard and wait until it has been shown."""
    if script is not None:
        tab.script(script)
    tab.page.keyboard.press(key)
    tab.page.wait_for_selector(".game[data-state='busy']")


def decision(tab: Tab, phase: str, step: int) -> None:
    """Wait until the machine offers a decision of ``phase`` at the round's ``step``."""
    tab.page.wait_for_selector(f"{MACHINE}[data-decision='{phase}'][data-step='{step}']", timeout=30_000)


def act(tab: Tab, key: str, script: list[int] | None = None) -> None:
    if script is not None:
        tab.script(script)
    tab.page.keyboard.press(key)


def last_round(operator: Operator, token: str, external_id: str) -> dict[str, Any]:
    rnd = operator.history(external_id)[0]
    return dict(operator.as_player(token, "GET", f"/rounds/{rnd['id']}"))


def events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for s in rec["steps"] for e in s["events"]]


def machine_state(operator: Operator, token: str) -> dict[str, Any]:
    states = operator.as_player(token, "GET", f"/state?game={GAME_ID}")["states"]
    stored = [s["state"] for s in states if s["state_key"] == "machine"]
    return dict(stored[0]) if stored else {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}


def check_displays(
    tab: Tab, operator: Operator, token: str, external_id: str, prize: int | None = None
) -> None:
    """The machine's PRIZE, BONUSES, BALANCE and vertical lines show what the server holds."""
    balance = operator.balance(external_id)
    assert money(tab.text("[data-testid=balance-display]")) == balance
    assert money(tab.text("[data-testid=balance]")) == balance
    side = operator.as_player(token, "GET", "/balance")["side"][GAME_ID]["bonuses"]
    state = machine_state(operator, token)
    assert int(tab.text("[data-testid=bonuses-display]")) == side == state["bonuses"]
    assert attr(tab, "data-counter", "[data-testid=vertical-lines]") == str(state["vertical_lines"])
    if prize is not None:
        assert money(tab.text("[data-testid=prize-display]")) == prize


# -- the hold ----------------------------------------------------------------------------------------


def test_hold_offer_changed_and_the_held_game_played(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-hold", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded][data-settings-loaded]")
    check_displays(tab, operator, token, "l3p-hold", prize=0)
    assert tab.text("[data-testid=spin]").strip().lower().startswith("play")
    assert "PRESS PLAY" in tab.text("[data-testid=message]")
    shot_png(tab, "01-game")

    # Wild, Melon, Speaker: pairs of Speakers (suggested, reels 1 + 3) and Melons (reels 1 + 2).
    paid = game_draws(d, WILD_MELON_SPEAKER, hold=True)
    held_game = game_draws(d, MELONS_HELD, held=True, spinning=(2,))
    rnd = deal(d, 20, paid, ("hold", 0b011, held_game))
    assert [e["type"] for e in rnd.events if e["type"] in ("hold_offer", "hold", "prize")] == [
        "hold_offer",
        "hold",
        "prize",
    ]
    play(tab, paid)
    decision(tab, "hold", 1)
    assert shown(tab) == ["WI", "ME", SP]
    assert attr(tab, "data-mask", "[data-testid=reels]") == "5"  # the suggested pair of Speakers
    assert [attr(tab, "data-held", f".l3p-reel[data-reel='{r}']") for r in range(3)] == ["1", "0", "1"]
    marks = sum(stop in d.vertical_lines[r] for r, stop in enumerate(WILD_MELON_SPEAKER))
    assert attr(tab, "data-counter", "[data-testid=vertical-lines]") == str(marks)  # the line's signs
    assert "HOLD" in tab.text("[data-testid=message]")
    shot_png(tab, "02-hold-offer")

    # At most two reels: holding the center too is refused.
    page.keyboard.press("ArrowDown")
    assert attr(tab, "data-mask", "[data-testid=reels]") == "5"
    assert "TWO REELS" in tab.text("[data-testid=message]")
    # Release the right reel (3), hold the center (2): the Melons.
    page.keyboard.press("3")
    assert attr(tab, "data-mask", "[data-testid=reels]") == "1"
    page.click("[data-testid=reel-btn-1]")
    assert attr(tab, "data-mask", "[data-testid=reels]") == "3"
    assert page.get_attribute("[data-testid=reel-btn-1]", "aria-pressed") == "true"
    shot_png(tab, "03-hold-changed")

    # PLAY: the held game spins the right reel only; a third Melon is paid at once.
    act(tab, "Space", held_game)
    tab.idle()
    rec = last_round(operator, token, "l3p-hold")
    assert rec["status"] == "complete"
    hold_ev = next(e for e in events(rec) if e["type"] == "hold")
    assert hold_ev["mask"] == 3 and hold_ev["suggested"] == 5
    spin = [e for e in events(rec) if e["type"] == "spin"][-1]
    assert spin["game"] == "held" and spin["spinning"] == [2]
    assert shown(tab) == spin["line"] == ["WI", "ME", "WI"]
    assert json.loads(attr(tab, "data-window", "[data-testid=reels]") or "[]") == spin["window"]
    assert rec["win"] == 400 == d.pays["ME"]
    assert money(tab.text("[data-testid=win]")) == 400
    check_displays(tab, operator, token, "l3p-hold", prize=400)
    assert operator.balance("l3p-hold") == EUROS * 100 - 20 + 400
    assert attr(tab, "data-result") == "cash"
    shot_png(tab, "04-held-game-won")


# -- nudges ------------------------------------------------------------------------------------------


def test_nudges_by_hand_then_by_auto(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-nudge", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-settings-loaded]")

    start = game_draws(d, MELONS_NEAR, nudges=2)
    rnd = deal(d, 20, start, ("nudge", 2, []))
    assert rnd.actions[0].name == "done"  # with a third Melon on the line the best move is to stop
    play(tab, start)
    decision(tab, "nudge", 1)
    assert shown(tab) == list(line(MELONS_NEAR))
    assert attr(tab, "data-left", "[data-testid=nudge-lamps]") == "2"
    assert page.locator("[data-testid=nudge-lamps] .l3p-lamp.is-on").count() == 2
    assert page.get_attribute("[data-testid=auto-advance]", "aria-pressed") == "false"
    assert "NUDGE" in tab.text("[data-testid=message]")
    shot_png(tab, "05-nudges-offered")

    page.keyboard.press("ArrowRight")  # the right reel moves one stop down: its wild, a Melon paid
    decision(tab, "nudge", 2)
    assert shown(tab) == ["WI", "ME", "WI"]
    assert attr(tab, "data-left", "[data-testid=nudge-lamps]") == "1"
    shot_png(tab, "06-nudged")
    page.keyboard.press("Enter")  # PLAY: the best move, keep the line
    tab.idle()
    rec = last_round(operator, token, "l3p-nudge")
    evs = events(rec)
    nudge = next(e for e in evs if e["type"] == "nudge")
    assert nudge["reel"] == 2 and nudge["line"] == ["WI", "ME", "WI"] and nudge["left"] == 1
    assert any(e["type"] == "nudges_done" for e in evs)
    assert rec["win"] == d.pays["ME"]
    assert money(tab.text("[data-testid=win]")) == rec["win"]
    assert attr(tab, "data-left", "[data-testid=nudge-lamps]") == "0"
    check_displays(tab, operator, token, "l3p-nudge", prize=rec["win"])

    # AUTO (Delete): kept for the session on the server, and the machine nudges by itself.
    page.keyboard.press("Delete")
    page.wait_for_selector(f"{MACHINE}[data-auto-advance='1'][data-settings-saved='1']")
    assert operator.as_player(token, "GET", f"/settings?game={GAME_ID}")["settings"]["auto_advance"] is True
    assert page.get_attribute("[data-testid=auto-advance]", "aria-pressed") == "true"
    start = game_draws(d, MELONS_NEAR, nudges=3)
    play(tab, start)
    tab.idle()
    rec = last_round(operator, token, "l3p-nudge")
    evs = events(rec)
    moves = [e for e in evs if e["type"] == "nudge"]
    # the moves AUTO makes in-process on the same draws (with three nudges it may reach past
    # the Melon: the center reel's Penguin above it pays more)
    game = get_game(GAME_ID)
    auto = game.start(20, ScriptedRandom(list(start), Unscripted()))
    while not auto.complete:
        action = game.auto_action(auto, {"auto_advance": True, "auto_risk": False})
        assert action is not None
        auto = game.act(auto, action, ScriptedRandom([], Unscripted()))
    assert moves and [m["reel"] for m in moves] == [e["reel"] for e in auto.events if e["type"] == "nudge"]
    assert rec["status"] == "complete" and rec["win"] == auto.win >= d.pays["ME"]
    steps = [s["action"]["name"] for s in rec["steps"][1:]]
    assert set(steps) <= {"nudge", "done"} and len(steps) == len(moves) + (1 if steps[-1] == "done" else 0)
    assert money(tab.text("[data-testid=win]")) == rec["win"]
    check_displays(tab, operator, token, "l3p-nudge", prize=rec["win"])
    shot_png(tab, "07-auto-nudged")
    page.keyboard.press("/")  # AUTO off again
    page.wait_for_selector(f"{MACHINE}[data-auto-advance='0'][data-settings-saved='2']")
    assert operator.as_player(token, "GET", f"/settings?game={GAME_ID}")["settings"]["auto_advance"] is False


# -- Sube-Bonos ------------------------------------------------------------------------------------


def test_sube_bonos_collect_play_up_into_bonuses_and_the_seesaw(
    tab: Tab, operator: Operator, d: LowerData
) -> None:
    token = player(operator, "l3p-bonos", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded]")
    start = game_draws(d, CHERRIES)
    scale = d.ladders.scale

    # Three Cherries: Sube-Bonos at the bottom of the scale; COLLECT (Backspace).
    play(tab, start)
    decision(tab, "ladder", 1)
    assert attr(tab, "data-ladder") == "sube_bonos" and attr(tab, "data-ladder-level") == "0"
    assert "is-current" in (attr(tab, "class", "[data-testid=rung-0]") or "")
    assert money(tab.text("[data-testid=prize-display]")) == scale[0]
    assert "SUBE-BONOS" in tab.text("[data-testid=message]")
    assert page.locator("[data-testid=collect]").is_enabled()
    shot_png(tab, "08-sube-bonos")
    page.keyboard.press("Backspace")
    tab.idle()
    rec = last_round(operator, token, "l3p-bonos")
    assert events(rec)[-2] == {"type": "ladder_end", "how": "collect", "credits": scale[0]}
    assert rec["win"] == scale[0]
    check_displays(tab, operator, token, "l3p-bonos", prize=scale[0])

    # PLAY up, then PLAY again: the prize turns into Bonuses (60 cents: 1 Bonus, the rest drawn).
    deal(d, 20, start, ("play", None, [up(d, "sube_bonos", 0)]), ("play", None, [FAIL, 0]))
    play(tab, start)
    decision(tab, "ladder", 1)
    act(tab, "Space", [up(d, "sube_bonos", 0)])
    decision(tab, "ladder", 2)
    assert attr(tab, "data-ladder-level") == "1"
    assert "is-lit" in (attr(tab, "class", "[data-testid=rung-0]") or "")
    assert money(tab.text("[data-testid=prize-display]")) == scale[1]
    shot_png(tab, "09-sube-bonos-up")
    act(tab, "Space", [FAIL, 0])
    tab.idle()
    rec = last_round(operator, token, "l3p-bonos")
    step = next(e for e in events(rec) if e["type"] == "ladder_step" and e["result"] == "bonuses")
    assert step["bonuses"] == 1 and rec["win"] == 0
    assert "1 BONUS" in tab.text("[data-testid=message]").upper()
    assert tab.text("[data-testid=bonuses-display]") == "1"
    check_displays(tab, operator, token, "l3p-bonos", prize=0)
    shot_png(tab, "10-into-bonuses")

    # Up past 3 Bells: the seesaw (up, or one step down), reloaded in the middle.
    ups = [[up(d, "sube_bonos", level)] for level in range(5)]
    play(tab, start)
    for level, script in enumerate(ups):
        decision(tab, "ladder", level + 1)
        act(tab, "Space", script)
    decision(tab, "ladder", 6)
    assert attr(tab, "data-ladder-level") == "5" and scale[5] > d.ladders.seesaw_above
    assert "SEESAW" in tab.text("[data-testid=message-sub]")
    assert "is-down" in (attr(tab, "class", "[data-testid=rung-4]") or "")
    assert "is-next" in (attr(tab, "class", "[data-testid=rung-6]") or "")
    assert money(tab.text("[data-testid=prize-display]")) == scale[5]
    shot_png(tab, "11-seesaw")

    page.reload()
    page.wait_for_selector("#app[data-ready='1']")
    page.wait_for_selector(".game[data-restored]")
    decision(tab, "ladder", 6)
    assert attr(tab, "data-ladder-level") == "5"
    assert money(tab.text("[data-testid=prize-display]")) == scale[5]
    act(tab, "Space", [FAIL])  # above 3 Bells a failed PLAY goes one step down
    decision(tab, "ladder", 7)
    assert attr(tab, "data-ladder-level") == "4"
    assert money(tab.text("[data-testid=prize-display]")) == scale[4]
    act(tab, "Space", [up(d, "sube_bonos", 4)])
    decision(tab, "ladder", 8)
    assert attr(tab, "data-ladder-level") == "5"
    page.click("[data-testid=collect]")
    tab.idle()
    rec = last_round(operator, token, "l3p-bonos")
    results = [e["result"] for e in events(rec) if e["type"] == "ladder_step"]
    assert results == ["up"] * 5 + ["down", "up"]
    assert rec["win"] == scale[5]
    assert money(tab.text("[data-testid=win]")) == scale[5]
    check_displays(tab, operator, token, "l3p-bonos", prize=scale[5])
    assert operator.balance("l3p-bonos") == EUROS * 100 - 3 * 20 + scale[0] + scale[5]
    shot_png(tab, "12-seesaw-collected")


# -- Sube-Nada -------------------------------------------------------------------------------------


def test_sube_nada_lost_to_nothing_under_auto_risk(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-nada", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-settings-loaded]")
    start = game_draws(d, ORANGES)
    deal(d, 20, start, ("play", None, [FAIL]))
    play(tab, start)
    decision(tab, "ladder", 1)
    assert attr(tab, "data-ladder") == "sube_nada"
    assert attr(tab, "data-kind", "[data-testid=rung-2]") == "yellow"
    assert "NOTHING" in tab.text("[data-testid=message-sub]")
    assert money(tab.text("[data-testid=prize-display]")) == d.pays["OR"]
    shot_png(tab, "13-sube-nada")

    # AUTO-RISK (*) on: the machine plays the ladder by itself; this PLAY finds nothing.
    tab.script([FAIL])
    page.keyboard.press("*")
    tab.idle()
    rec = last_round(operator, token, "l3p-nada")
    assert [e for e in events(rec) if e["type"] == "ladder_step"] == [
        {"type": "ladder_step", "result": "nothing", "credits": 0}
    ]
    assert rec["win"] == 0
    assert "NOTHING" in tab.text("[data-testid=message]")
    assert attr(tab, "data-result") == "nothing"
    page.wait_for_selector(f"{MACHINE}[data-auto-risk='1'][data-settings-saved='1']")
    assert operator.as_player(token, "GET", f"/settings?game={GAME_ID}")["settings"]["auto_risk"] is True
    check_displays(tab, operator, token, "l3p-nada", prize=0)
    shot_png(tab, "14-sube-nada-nothing")
    page.keyboard.press("*")
    page.wait_for_selector(f"{MACHINE}[data-auto-risk='0'][data-settings-saved='2']")


# -- the Disco --------------------------------------------------------------------------------------


def test_disco_stopped_on_a_penguin_at_two_bets(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-disco", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-machine-loaded]")
    prizes = d.disco_table(1)  # the €0.20 bet's
    penguins = ["C1000", "B2", "C60", "C400", "B1"]
    start = game_draws(d, SPEAKERS) + [before(prizes, p) for p in penguins]
    deal(d, 20, start, ("stop", None, [3]))
    play(tab, start)
    decision(tab, "disco", 1)
    assert json.loads(attr(tab, "data-penguins", "[data-testid=disco]") or "[]") == penguins
    assert [tab.text(f"[data-testid=penguin-{i}] .l3p-peng__prize") for i in range(5)] == [
        "€10.00", "2 Bonuses", "€0.60", "€4.00", "1 Bonus",
    ]  # fmt: skip
    page.wait_for_selector("[data-testid=disco] .l3p-peng.is-lit")
    assert "is-hit" in (attr(tab, "class", "[data-testid=disco-row]") or "")
    shot_png(tab, "15-disco")
    act(tab, "Space", [3])  # PLAY stops the lights: the machine draws penguin 4
    tab.idle()
    assert attr(tab, "data-stopped", "[data-testid=disco]") == "3"
    assert "is-won" in (attr(tab, "class", "[data-testid=penguin-3]") or "")
    rec = last_round(operator, token, "l3p-disco")
    assert next(e for e in events(rec) if e["type"] == "disco_stop") == {
        "type": "disco_stop",
        "penguin": 3,
        "prize": "C400",
        "at_bet": True,
    }
    assert rec["win"] == 400  # above 3 Bells: paid at once
    assert money(tab.text("[data-testid=win]")) == 400
    check_displays(tab, operator, token, "l3p-disco", prize=400)
    shot_png(tab, "16-disco-stopped")

    # The bet (. or the lamps): every prize of the paytable is lit at the new bet.
    assert tab.text("[data-testid=rung-0] .l3p-rung__value") == "€0.40"
    page.keyboard.press(".")
    assert tab.text("[data-testid=bet-value]") == "€1.00"
    assert attr(tab, "data-bet") == "100"
    assert "is-on" in (attr(tab, "class", "[data-testid=bet-lamp-100]") or "")
    assert tab.text("[data-testid=rung-0] .l3p-rung__value") == "€2.00"
    assert tab.text("[data-testid=rung-9] .l3p-rung__value") == "€500.00"
    assert tab.text("[data-testid=bonus-row-3] .l3p-rung__value") == "25 Bonuses"
    assert "€1.00" in tab.text("[data-testid=paytable-bet]")
    shot_png(tab, "17-bet-1-euro")

    # At EUR 1 the Disco has its own table (the seed's €2-€1,000 and 5-30 Bonuses): a Disco
    # stopped on "10 Bonuses" gives 10 Bonuses; the paytable says the bet's own ranges.
    page.keyboard.press("i")
    dialog = page.locator("[data-testid=dialog-paytable]")
    dialog.wait_for()
    assert "€2.00 – €1,000.00" in dialog.inner_text() and "5 Bonuses – 30 Bonuses" in dialog.inner_text()
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    at_one = ["C100000", "B10", "C300", "C2000", "B30"]
    start = game_draws(d, SPEAKERS) + [before(d.disco_table(5), p) for p in at_one]
    deal(d, 100, start, ("stop", None, [1]))
    play(tab, start)
    decision(tab, "disco", 1)
    assert [tab.text(f"[data-testid=penguin-{i}] .l3p-peng__prize") for i in range(5)] == [
        "€1,000.00", "10 Bonuses", "€3.00", "€20.00", "30 Bonuses",
    ]  # fmt: skip
    shot_png(tab, "17b-disco-1-euro")
    act(tab, "Enter", [1])
    tab.idle()
    rec = last_round(operator, token, "l3p-disco")
    assert rec["stake"] == 100 and rec["win"] == 0
    assert next(e for e in events(rec) if e["type"] == "bonuses") == {
        "type": "bonuses",
        "won": 10,
        "balance": 10,
    }
    assert tab.text("[data-testid=bonuses-display]") == "10"
    check_displays(tab, operator, token, "l3p-disco", prize=0)
    assert operator.balance("l3p-disco") == EUROS * 100 - 20 + 400 - 100
    page.keyboard.press("ArrowUp")  # the bet key again: on to EUR 5
    assert tab.text("[data-testid=bet-value]") == "€5.00"


# -- AUTO-PLAY: the server's autoplay follows AUTO and AUTO-RISK ------------------------------------


def finish(tab: Tab, timeout: float = 60.0) -> None:
    """Play on (PLAY) until the machine is idle: a round an autoplay left for the player."""
    page = tab.page
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.evaluate(
            """() => ({
                idle: document.querySelector('.game')?.dataset.state === 'idle',
                decision: document.querySelector('.l3p')?.dataset.decision || null,
            })"""
        )
        if state["idle"] and not state["decision"]:
            return
        if state["decision"]:
            page.keyboard.press("Space")
        page.wait_for_timeout(80)
    raise AssertionError("the machine did not come to rest")


def test_auto_play_follows_auto_and_auto_risk(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-autoplay", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector(f"{MACHINE}[data-settings-loaded]")
    page.keyboard.press("Delete")
    page.keyboard.press("*")
    page.wait_for_selector(f"{MACHINE}[data-auto-advance='1'][data-auto-risk='1'][data-settings-saved='2']")
    settings = operator.as_player(token, "GET", f"/settings?game={GAME_ID}")["settings"]
    assert settings == {"auto_advance": True, "auto_risk": True}

    page.keyboard.press("-")  # AUTO-PLAY
    dialog = page.locator("[data-testid=dialog-autoplay]")
    dialog.wait_for()
    dialog.locator("[data-spins='10']").click()
    page.fill("#ap-loss", "1.00")
    dialog.locator("[data-testid=autoplay-start]").click()
    page.wait_for_selector(f"{MACHINE}[data-autoplay='1']")
    assert page.get_attribute("[data-testid=machine-autoplay]", "aria-pressed") == "true"
    live_png(tab, "26-auto-play")
    page.wait_for_selector(".game[data-autoplay-stop]", timeout=120_000)
    finish(tab)
    assert page.get_attribute("[data-testid=machine-autoplay]", "aria-pressed") == "false"
    status = operator.as_player(token, "GET", "/autoplay")["autoplay"]
    assert status["stop_reason"] in ("loss_limit", "spins_done"), status
    rounds = operator.history("l3p-autoplay")
    assert rounds and all(r["status"] == "complete" for r in rounds)
    for r in rounds:  # AUTO-RISK: no ladder prize was collected; AUTO: no nudge waited for a player
        rec = operator.as_player(token, "GET", f"/rounds/{r['id']}")
        names = [s["action"]["name"] for s in rec["steps"][1:]]
        assert "collect" not in names, names
    check_displays(tab, operator, token, "l3p-autoplay")


# -- the paytable, rules and recall ------------------------------------------------------------------


def test_paytable_rules_and_recall(tab: Tab, operator: Operator, d: LowerData) -> None:
    token = player(operator, "l3p-info", EUROS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.keyboard.press("i")
    dialog = page.locator("[data-testid=dialog-paytable]")
    dialog.wait_for()
    assert dialog.locator("tr[data-symbol=PE]").inner_text().count("€20.00") == 1
    assert "Sube-Bonos" in dialog.locator("tr[data-symbol=BE]").inner_text()
    assert "Sube-Nada" in dialog.locator("tr[data-symbol=OR]").inner_text()
    assert "5 Bonuses" in dialog.locator("tr[data-bonus='3']").inner_text()
    assert "€0.40 – €100.00" in dialog.inner_text() and "1 Bonus – 6 Bonuses" in dialog.inner_text()
    shot_png(tab, "18-paytable")
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    rules = page.locator("[data-testid=dialog-rules]")
    rules.wait_for()
    assert "Sube-Bonos" in rules.inner_text() and "Disco" in rules.inner_text()
    page.keyboard.press("Escape")

    start = game_draws(d, CHERRIES)
    play(tab, start)
    decision(tab, "ladder", 1)
    act(tab, "+", None)  # + collects too
    tab.idle()
    rnd = operator.history("l3p-info")[0]
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=history-row]")
    page.goto(f"{tab.base_url}/#/history/{rnd['id']}")
    page.wait_for_selector("[data-testid=recall]")
    page.wait_for_selector(".l3p-snapshot .l3p-reel")
    words = tab.text("[data-testid=recall-events]")
    assert "Cherries" in words and "Sube-Bonos starts at €0.40" in words
    page.keyboard.press("ArrowRight")
    assert "Collected €0.40" in tab.text("[data-testid=recall-events]")
    # The collect step has no game of its own: its picture keeps the Cherries of the step before.
    page.wait_for_selector(".l3p-snapshot[data-ready]")
    snap = [page.get_attribute(f".l3p-snapshot .l3p-reel[data-reel='{r}']", "data-line") for r in range(3)]
    assert snap == ["CH", "CH", "CH"]
    assert "WIN €0.40" in tab.text(".l3p-snapshot [data-testid=message]").upper()
    shot_png(tab, "19-recall")
    page.click("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-marker]")
    assert "Matches the record" in tab.text("[data-testid=replay-match]")
    page.wait_for_selector(".replay[data-done]", timeout=60_000)
    assert money(tab.text("[data-testid=replay-win]")) == rnd["win"] == d.ladders.scale[0]
    assert [page.get_attribute(f".replay .l3p-reel[data-reel='{r}']", "data-line") for r in range(3)] == [
        "CH"
    ] * 3
    shot_png(tab, "19b-replay")


# -- phones ------------------------------------------------------------------------------------------


def test_phone_portrait_and_landscape(
    browser: Any, server: ServerProcess, operator: Operator, d: LowerData
) -> None:
    token = player(operator, "l3p-phone", EUROS * 100)
    base = server.url.removesuffix("/api/v1")
    gen = new_tab(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    tab = next(gen)
    try:
        page = tab.page

        def inside(selector: str, width: int, height: int) -> None:
            box = page.locator(selector).bounding_box()
            assert box is not None, selector
            assert box["x"] >= -1 and box["y"] >= -1, (selector, box)
            assert box["x"] + box["width"] <= width + 1 and box["y"] + box["height"] <= height + 1, (
                selector,
                box,
            )

        parts = [
            "[data-testid=reels]",
            "[data-testid=reel-btn-0]",
            "[data-testid=reel-btn-2]",
            "[data-testid=collect]",
            "[data-testid=marquee]",
            "[data-testid=prize-display]",
            "[data-testid=bonuses-display]",
            "[data-testid=balance-display]",
            "[data-testid=nudge-lamps]",
            "[data-testid=vertical-lines]",
            "[data-testid=disco]",
            "[data-testid=rung-9]",
            "[data-testid=disco-row]",
            "[data-testid=spin]",
            "[data-testid=bet-value]",
        ]
        tab.open(token, GAME)
        tab.idle()
        page.wait_for_selector(f"{MACHINE}[data-machine-loaded]")

        # A hold on the phone: tap the reel buttons, tap PLAY.
        paid = game_draws(d, WILD_MELON_SPEAKER, hold=True)
        held_game = game_draws(d, MELONS_HELD, held=True, spinning=(2,))
        tab.script(paid)
        page.tap("[data-testid=spin]")
        decision(tab, "hold", 1)
        for sel in parts:
            inside(sel, 390, 844)
        page.tap("[data-testid=reel-btn-2]")
        page.tap("[data-testid=reel-btn-1]")
        assert attr(tab, "data-mask", "[data-testid=reels]") == "3"
        shot_png(tab, "20-phone-portrait-hold")
        tab.script(held_game)
        page.tap("[data-testid=spin]")
        tab.idle()
        assert money(tab.text("[data-testid=win]")) == 400
        check_displays(tab, operator, token, "l3p-phone", prize=400)
        shot_png(tab, "21-phone-portrait-won")

        # A ladder in portrait, then the phone turned to landscape.
        tab.script(game_draws(d, CHERRIES))
        page.tap("[data-testid=spin]")
        decision(tab, "ladder", 1)
        for sel in parts:
            inside(sel, 390, 844)
        shot_png(tab, "22-phone-portrait-ladder")
        page.set_viewport_size({"width": 844, "height": 390})
        page.wait_for_timeout(300)
        for sel in parts:
            inside(sel, 844, 390)
        shot_png(tab, "23-phone-landscape-ladder")
        page.tap("[data-testid=collect]")
        tab.idle()
        check_displays(tab, operator, token, "l3p-phone", prize=d.ladders.scale[0])

        # The Disco in landscape.
        start = game_draws(d, SPEAKERS) + [
            before(d.disco_table(1), p) for p in ["C40", "C60", "C100", "B1", "C200"]
        ]
        tab.script(start)
        page.tap("[data-testid=spin]")
        decision(tab, "disco", 1)
        for sel in parts:
            inside(sel, 844, 390)
        shot_png(tab, "24-phone-landscape-disco")
        tab.script([3])
        page.tap("[data-testid=spin]")
        tab.idle()
        check_displays(tab, operator, token, "l3p-phone", prize=0)
        assert tab.text("[data-testid=bonuses-display]") == "1"
        shot_png(tab, "25-phone-landscape-bonus")
    finally:
        next(gen, None)
