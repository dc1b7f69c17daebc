"""History, recall and replay in a real browser (Debian's Chromium through Playwright), with
rounds played through the player API from scripted draws.

Covered: each round labelled by what it is (a return above the stake is a win, one at or
below it is not; nothing is "no win") under every profile, with Los 3 Pinguinos' Bonuses
beside the cash; history as cards on a phone with nothing wider than the screen; the recall and
the replay fitting a 1366x768 screen and a 390x844 phone with every control in view and nothing
to scroll; the replay at 4x finishing faster than at 1x, and skip to end showing the final
state; the Ice Diamonds board on Reign of Gnomes' pick steps and the Slides platforms on Los 3
Pinguinos', numbered from 1 as on the game screens.  Screenshots: ``hist-*.png``.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from helpers import trigger_script, wheel_draw
from pinguinos_helpers import pick
from reelforge.games import get_game
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.reign_of_gnomes.data_model import GnomesData
from reelforge.rng import ScriptedRandom
from server_process import ServerProcess
from test_web_pinguinos_upper import SLIDES, Unscripted, bonus_round, deal_upper, doubled, upper_start
from test_web_pinguinos_upper import player as euro_player
from web_support import Operator, Tab, browser_server, chromium_browser, money, new_tab

GNOMES = "reign-of-gnomes"
PINGUINOS = "los-3-pinguinos"
STAKE = 40  # Reign of Gnomes' smallest bet: 40 credits of 1p
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
_keys = itertools.count(1)


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-history"), "20261211")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    token = op.player("hist-warmup", 0)  # the first game list computes the exact RTPs (seconds)
    r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def d() -> LowerData:
    return get_game(PINGUINOS).data()  # type: ignore[no-any-return, attr-defined]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("hist")


def open_tab(browser: Any, server: ServerProcess, phone: bool = False) -> Iterator[Tab]:
    if phone:
        return new_tab(
            browser, server.url.removesuffix("/api/v1"), viewport=PHONE, is_mobile=True, has_touch=True
        )
    return new_tab(browser, server.url.removesuffix("/api/v1"), viewport=DESKTOP)


@pytest.fixture
def desk(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from open_tab(browser, server)


@pytest.fixture
def phone(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from open_tab(browser, server, phone=True)


# -- rounds through the player API ---------------------------------------------------------------


class Player:
    def __init__(self, server: ServerProcess, token: str) -> None:
        self.token = token
        self.http = httpx.Client(
            base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {token}"}
        )

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        for _ in range(50):
            r = self.http.post(path, json=body, headers={"Idempotency-Key": f"hist-{next(_keys)}"})
            if r.status_code == 429:  # the GB profile's 2.5 s between rounds
                time.sleep(float(r.headers.get("Retry-After") or 0.5))
                continue
            assert r.status_code in (200, 201), r.text
            return dict(r.json()["round"])
        raise AssertionError(f"{path} refused too often")

    def start(self, game: str, stake: int, script: list[int], mode: str = "base") -> dict[str, Any]:
        return self.post("/rounds", {"game": game, "stake": stake, "mode": mode, "script": script})

    def act(
        self, rnd: dict[str, Any], name: str, choice: int | None = None, script: list[int] | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"action": name, "choice": choice, "expected_step": rnd["step"]}
        if script is not None:
            body["script"] = script
        return self.post(f"/rounds/{rnd['id']}/actions", body)

    def recall(self, round_id: int) -> dict[str, Any]:
        r = self.http.get(f"/rounds/{round_id}")
        assert r.status_code == 200, r.text
        return dict(r.json())


def base_stops(gnomes_data: GnomesData) -> dict[str, list[int]]:
    """Base-game stops (no feature) for a win above the stake, a return below it, one equal to
    it and nothing, found by dealing through the rules."""
    game = get_game(GNOMES)
    strips = gnomes_data.base_reels.strips
    rng = random.Random(10)
    found: dict[str, list[int]] = {}
    while len(found) < 4:
        stops = [rng.randrange(len(s)) for s in strips]
        try:
            rnd = game.start(STAKE, ScriptedRandom(stops, Unscripted()))
        except AssertionError:
            continue  # a feature wants more draws
        if not rnd.complete:
            continue
        kind = "won" if rnd.win > STAKE else "even" if rnd.win == STAKE else "returned" if rnd.win else "none"
        found.setdefault(kind, stops)
    return found


def ice_round(p: Player, d: GnomesData, first_pick: int) -> dict[str, Any]:
    """Dragon Spins whose first spin's wheel lands on Ice Diamonds; the first stone picked is
    ``first_pick`` (0-based, as the API numbers it), the rest in the default order."""
    rnd = p.start(GNOMES, STAKE, trigger_script(d))
    wheel: list[int] | None = [wheel_draw(d, "ice_diamonds")]
    picked = False
    while rnd["status"] == "pending":
        spec = rnd["actions"][0]
        if spec["name"] == "pick":
            choice = first_pick if not picked else spec["default"]
            picked = True
            rnd = p.act(rnd, "pick", choice)
        else:
            rnd = p.act(rnd, spec["name"], script=wheel)
            wheel = None
    assert picked
    return rnd


# -- page checks ---------------------------------------------------------------------------------


def fits(tab: Tab, selectors: list[str]) -> None:
    """Each control lies inside the viewport, and the screen has nothing to scroll."""
    page = tab.page
    size = page.viewport_size
    for sel in selectors:
        box = page.locator(sel).bounding_box()
        assert box is not None, sel
        assert box["x"] >= -0.5 and box["y"] >= -0.5, (sel, box)
        assert box["x"] + box["width"] <= size["width"] + 0.5, (sel, box, size)
        assert box["y"] + box["height"] <= size["height"] + 0.5, (sel, box, size)
    over = page.evaluate(
        """() => { const v = document.getElementById('view'); const d = document.documentElement;
            return [v.scrollHeight - v.clientHeight, v.scrollWidth - v.clientWidth,
                    d.scrollHeight - d.clientHeight, d.scrollWidth - d.clientWidth]; }"""
    )
    assert max(over) <= 1, over


def no_sideways_overflow(tab: Tab) -> None:
    over = tab.page.evaluate(
        """() => { const v = document.getElementById('view'); const d = document.documentElement;
            return [v.scrollWidth - v.clientWidth, d.scrollWidth - d.clientWidth]; }"""
    )
    assert max(over) <= 0, over


RECALL_CONTROLS = [
    "[data-testid=recall-prev]",
    "[data-testid=recall-next]",
    "[data-testid=open-replay]",
    "[data-testid=recall-close]",
    "[data-testid=back-history]",
]
REPLAY_CONTROLS = [
    "[data-testid=replay-speed-1]",
    "[data-testid=replay-speed-2]",
    "[data-testid=replay-speed-4]",
    "[data-testid=replay-skip]",
    "[data-testid=replay-again]",
    "[data-testid=replay-close]",
    "[data-testid=replay-record]",
]


def row(tab: Tab, round_id: int) -> Any:
    return tab.page.locator(f"[data-testid=history-row][data-round='{round_id}']")


def steps_to(tab: Tab, index: int) -> None:
    """From step 1, on to the step at ``index`` (0-based) with the arrow key."""
    for _ in range(index):
        tab.page.keyboard.press("ArrowRight")
    assert tab.text("[data-testid=recall-step]").startswith(f"Step {index + 1} of ")


# -- labels ----------------------------------------------------------------------------------------


def profiled_player(op: Operator, external_id: str, profile: str) -> str:
    """A player with £100 and a session under ``profile`` (ES sessions need their limits)."""
    if profile != "es":
        return op.player(external_id, 100 * 100, profile=profile)
    op.player(external_id, 100 * 100)  # (this first session is replaced by the next)
    op.set_profile(profile)
    try:
        limits = {"time_limit_seconds": 3600, "spend_limit": 5000}
        r = op.http.post(f"/operator/players/{external_id}/sessions", json=limits, headers=op.key())
        assert r.status_code == 201, r.text
    finally:
        op.set_profile("default")
    return str(r.json()["token"])


@pytest.mark.parametrize("profile", ["default", "gb", "es"])
def test_rounds_are_labelled_by_what_they_are_in_every_profile(
    desk: Tab, operator: Operator, server: ServerProcess, gnomes_data: GnomesData, profile: str
) -> None:
    token = profiled_player(operator, f"hist-labels-{profile}", profile)
    p = Player(server, token)
    stops = base_stops(gnomes_data)
    ids = {kind: p.start(GNOMES, STAKE, s)["id"] for kind, s in stops.items()}
    rounds = {r["id"]: r for r in operator.history(f"hist-labels-{profile}")}
    wins = {kind: rounds[i]["win"] for kind, i in ids.items()}
    assert (
        wins["won"] > STAKE and wins["even"] == STAKE and 0 < wins["returned"] < STAKE and wins["none"] == 0
    )

    page = desk.page
    desk.open(token, "#/history")
    page.wait_for_selector("[data-testid=history-row]")
    pounds = lambda v: f"£{v // 100}.{v % 100:02d}"  # noqa: E731
    expected = {
        "won": f"Won {pounds(wins['won'])} on £0.40",
        "returned": f"Returned {pounds(wins['returned'])} of £0.40",
        "even": "Returned £0.40 of £0.40",
        "none": "No win",
    }
    for kind, text in expected.items():
        chip = row(desk, ids[kind]).locator("[data-testid=round-result]")
        assert chip.inner_text() == text
        assert chip.get_attribute("data-kind") == (
            "won" if kind == "won" else "none" if kind == "none" else "returned"
        )
    # "Won" only where the return is above the stake, and nowhere else on the page.
    assert desk.text("[data-testid=history]").count("Won") == 1
    # The win colour only on the win.
    colours = {
        kind: row(desk, i).locator("[data-testid=round-result]").evaluate("e => getComputedStyle(e).color")
        for kind, i in ids.items()
    }
    assert colours["won"] != colours["returned"] and colours["won"] != colours["none"]
    if profile == "default":
        desk.shot("hist-desktop-history")

    # Recall says the same, and so does the round's end among the step's events.
    page.goto(f"{desk.base_url}/#/history/{ids['returned']}")
    page.wait_for_selector("[data-testid=recall] [data-testid=round-result]")
    assert desk.text("[data-testid=recall-result]") == expected["returned"]
    assert f"Round over: returned {pounds(wins['returned'])} of £0.40" in desk.text(
        "[data-testid=recall-events]"
    )
    assert "won" not in desk.text("[data-testid=recall-events]").lower()
    page.goto(f"{desk.base_url}/#/history/{ids['won']}")
    page.wait_for_selector("[data-testid=recall] [data-kind=won]")
    assert desk.text("[data-testid=recall-result]") == expected["won"]


def test_bonuses_beside_the_cash_and_the_slides_in_recall(
    desk: Tab, operator: Operator, server: ServerProcess, d: LowerData
) -> None:
    token = euro_player(operator, "hist-l3p", 100 * 100)
    p = Player(server, token)
    # A lower game paying Bonuses only, then an upper game (€0.20 + 1 Bonus) with the Slides:
    # platform 3 picked, the first fraction turned into Bonuses, the rest collected.
    script = bonus_round(d)
    first = get_game(PINGUINOS).start(20, ScriptedRandom(list(script), Unscripted()))
    assert first.complete and first.win == 0
    lower = p.start(PINGUINOS, 20, script)
    states = p.http.get("/state", params={"game": PINGUINOS}).json()["states"]
    state = next(s["state"] for s in states if s["state_key"] == "machine")
    won = state["bonuses"]
    assert won > 0
    shown = [500, 800, 1000, 500, 1500]
    start = (
        upper_start(d, state, 100, SLIDES)
        + [pick(d.upper.slides.prizes, f"C{c}") for c in shown]
        + [0, 0, 0, 0]
    )
    dealt = deal_upper(
        d, state, 100, start, ("pick", 2, []), ("play", None, [doubled(d, False)]), ("collect", None, [])
    )
    upper = p.start(PINGUINOS, 100, start, mode="upper")
    upper = p.act(upper, "pick", 2)
    upper = p.act(upper, "play", script=[doubled(d, False)])
    upper = p.act(upper, "collect")
    assert upper["status"] == "complete" and upper["win"] == dealt.win
    after = operator.as_player(token, "GET", "/balance")["side"][PINGUINOS]["bonuses"]

    page = desk.page
    desk.open(token, "#/history")
    page.wait_for_selector("[data-testid=history-row]")
    lower_row = row(desk, lower["id"])
    assert lower_row.locator("[data-testid=round-result]").inner_text() == "No cash win"
    assert lower_row.locator("[data-testid=round-side]").inner_text() == f"+{won} Bonuses"
    upper_row = row(desk, upper["id"])
    assert upper_row.locator(".h-bet").inner_text() == "€0.20 + 1 Bonus"
    cash = upper["win"]
    label = (
        f"Won €{cash // 100}.{cash % 100:02d} on €0.20"
        if cash > 20
        else f"Returned €{cash // 100}.{cash % 100:02d} of €0.20"
    )
    assert upper_row.locator("[data-testid=round-result]").inner_text() == label
    moved = after - won
    assert (
        upper_row.locator("[data-testid=round-side]").inner_text()
        == f"{'+' if moved > 0 else '−'}{abs(moved)} Bonuses"
    )
    desk.shot("hist-desktop-history-pinguinos")

    # Recall of the upper round: the pick step shows the Slides, numbered 1 to 5 as on the
    # machine; the pick is "3" in every word.
    upper_row.click()
    page.wait_for_selector(".l3p-snapshot[data-ready] .l3p[data-screen='upper']")
    assert "Slides starts" in desk.text("[data-testid=recall-events]")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(".l3p-snapshot[data-ready] [data-testid=minigame-slides][data-revealed]")
    snap = page.locator(".recall__stage [data-testid=minigame-slides]")
    assert snap.locator(".l3pm-plat__n").all_inner_texts() == ["1", "2", "3", "4", "5"]
    assert snap.locator(".l3pm-plat.is-picked .l3pm-plat__n").inner_text() == "3"
    assert "Pick 3" in desk.text("[data-testid=recall-step]")
    assert "Slides: platform 3" in desk.text("[data-testid=recall-events]")
    fits(desk, RECALL_CONTROLS)
    desk.shot("hist-desktop-recall-slides")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    fits(desk, RECALL_CONTROLS)
    desk.shot("hist-phone-recall-slides")


# -- phones: history cards, recall and replay in view --------------------------------------------


def test_history_cards_recall_and_replay_fit_a_phone(
    phone: Tab, operator: Operator, server: ServerProcess, gnomes_data: GnomesData
) -> None:
    token = operator.player("hist-phone", 100 * 100)
    p = Player(server, token)
    stops = base_stops(gnomes_data)
    for kind in ("none", "returned", "won"):
        p.start(GNOMES, STAKE, stops[kind])
    rnd = ice_round(p, gnomes_data, first_pick=2)
    page = phone.page
    phone.open(token, "#/history")
    page.wait_for_selector("[data-testid=history-row]")
    cards = page.locator("[data-testid=history-row]")
    assert cards.count() == 4
    no_sideways_overflow(phone)
    for i in range(cards.count()):
        card = cards.nth(i)
        assert card.evaluate("e => getComputedStyle(e).display") == "grid"  # a card, not a table row
        box = card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert box["height"] >= 44
        for cell in (".h-game", ".h-bet", ".h-win", ".h-result", ".h-id"):
            c = card.locator(cell).bounding_box()
            assert (
                c is not None and c["x"] >= box["x"] and c["x"] + c["width"] <= box["x"] + box["width"] + 0.5
            ), (cell, c)
    # Each amount is labelled on the card (the table's headings are out of sight).
    labels = card.locator("td[data-label]").evaluate_all(
        "els => els.map(e => [e.dataset.label, getComputedStyle(e, '::before').content])"
    )
    assert [label for label, _ in labels] == ["Bet", "Return"] and all(c != "none" for _, c in labels), labels
    phone.shot("hist-phone-history")

    # The recall of the feature round: every control in view, nothing to scroll, on each step.
    row(phone, rnd["id"]).tap()
    page.wait_for_selector("[data-testid=recall] .recall__stage .snapshot")
    fits(phone, RECALL_CONTROLS)
    phone.shot("hist-phone-recall")
    rec = p.recall(rnd["id"])
    first_pick = next(i for i, s in enumerate(rec["steps"]) if (s["action"] or {}).get("name") == "pick")
    for _ in range(first_pick):
        page.tap("[data-testid=recall-next]")
    page.wait_for_selector("[data-testid=recall-board]")
    fits(phone, RECALL_CONTROLS)
    phone.shot("hist-phone-recall-board")

    # The replay: speed, skip, play again and close in view.
    page.tap("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-marker]")
    fits(phone, REPLAY_CONTROLS)
    page.tap("[data-testid=replay-skip]")
    page.wait_for_selector(".replay[data-done]", timeout=30_000)
    fits(phone, REPLAY_CONTROLS)
    phone.shot("hist-phone-replay")


# -- the pick board in recall -----------------------------------------------------------------------


def test_recall_shows_the_ice_diamonds_board_numbered_from_one(
    desk: Tab, operator: Operator, server: ServerProcess, gnomes_data: GnomesData
) -> None:
    token = operator.player("hist-ice", 100 * 100)
    p = Player(server, token)
    rnd = ice_round(p, gnomes_data, first_pick=2)
    rec = p.recall(rnd["id"])
    steps = rec["steps"]
    start = next(
        i for i, s in enumerate(steps) if any(e["type"] == "ice_diamonds_start" for e in s["events"])
    )
    end = next(i for i, s in enumerate(steps) if any(e["type"] == "ice_diamonds_award" for e in s["events"]))
    # The first Ice Diamonds game's picks (the wheel may land on it again later).
    picks = [i for i, s in enumerate(steps) if (s["action"] or {}).get("name") == "pick" and i <= end]
    assert picks[0] == start + 1 and picks[-1] == end and steps[picks[0]]["action"]["choice"] == 2

    page = desk.page
    desk.open(token, f"#/history/{rnd['id']}")
    page.wait_for_selector("[data-testid=recall] .recall__stage .snapshot")
    fits(desk, RECALL_CONTROLS)
    desk.shot("hist-desktop-recall")

    # The wheel's step: the board, nothing picked yet.
    steps_to(desk, start)
    board = page.locator("[data-testid=recall-board]")
    board.wait_for()
    assert json.loads(board.get_attribute("data-picked") or "") == []
    assert board.locator(".stone").count() == 15

    # The first pick: stone 3 (index 2), in the step's words, the board and its number.
    page.keyboard.press("ArrowRight")
    board.wait_for()
    assert "Pick 3" in desk.text("[data-testid=recall-step]")
    assert "Picked stone 3" in desk.text("[data-testid=recall-events]")
    assert json.loads(board.get_attribute("data-picked") or "") == [3]
    stone = board.locator(".stone[data-stone='2']")
    assert "stone--this-step" in (stone.get_attribute("class") or "")
    assert (stone.get_attribute("aria-label") or "").startswith("Stone 3: ")
    # The number drawn on each stone is its place from 1 (a CSS counter): the third one is 3.
    numbers = board.locator(".stone").evaluate_all(
        """els => els.map(e => { const g = e.closest('.ice__grid');
            return getComputedStyle(g).counterReset + '|' + getComputedStyle(e).counterIncrement; })"""
    )
    assert set(numbers) == {"stone 0|stone 1"}
    fits(desk, RECALL_CONTROLS)
    desk.shot("hist-desktop-recall-board")

    # The last pick's step: the picks so far and the hidden layout shown.
    steps_to_last = picks[-1] - picks[0]
    for _ in range(steps_to_last):
        page.keyboard.press("ArrowRight")
    board.wait_for()
    assert len(json.loads(board.get_attribute("data-picked") or "")) == len(picks)
    assert board.locator(".stone--unpicked").count() == 15 - len(picks)
    desk.shot("hist-desktop-recall-board-end")


# -- replay: speed and skip -------------------------------------------------------------------------


def test_replay_at_4x_is_faster_than_at_1x_and_skip_shows_the_end(
    desk: Tab, operator: Operator, server: ServerProcess, gnomes_data: GnomesData
) -> None:
    token = operator.player("hist-replay", 100 * 100)
    p = Player(server, token)
    won = p.start(GNOMES, STAKE, base_stops(gnomes_data)["won"])
    page = desk.page
    desk.open(token, f"#/replay/{won['id']}")
    desk.speed(1)  # the replay's own length, so the tempo dominates the fixed costs
    page.wait_for_selector(".replay[data-done]", timeout=30_000)
    assert page.get_attribute("[data-testid=replay-speed-1]", "aria-pressed") == "true"
    fits(desk, REPLAY_CONTROLS)
    # Time it at 1x and 4x, from a fresh start each, three times interleaved: a stall on a loaded
    # machine only ever adds time, so the shortest of each is the one to compare.
    times: dict[int, list[int]] = {1: [], 4: []}
    for s in (1, 4) * 3:
        page.click(f"[data-testid=replay-speed-{s}]")
        assert page.get_attribute(f"[data-testid=replay-speed-{s}]", "aria-pressed") == "true"
        page.click("[data-testid=replay-again]")
        page.wait_for_selector(".replay:not([data-done])")
        page.wait_for_selector(".replay[data-done]", timeout=30_000)
        times[s].append(int(page.get_attribute(".replay", "data-ms") or "0"))
        assert money(desk.text("[data-testid=replay-win]")) == won["win"]
    # Ideally a quarter, plus the fixed costs of drawing; a 4x that did not apply would take as
    # long as 1x.
    assert min(times[4]) < 0.6 * min(times[1]), times
    desk.speed(0.5)  # and the client's own speed is what leaving the replay must put back
    assert page.evaluate("() => localStorage.getItem('reelforge.replaySpeed')") == "4"

    # Skip to end: a whole Dragon Spins round at 1x, skipped at once, ends in its final state.
    rnd = ice_round(p, gnomes_data, first_pick=0)
    rec = p.recall(rnd["id"])
    last_spin = [e for s in rec["steps"] for e in s["events"] if e["type"] == "spin"][-1]
    page.goto(f"{desk.base_url}/#/replay/{rnd['id']}")
    page.wait_for_selector("[data-testid=replay-marker]")
    page.click("[data-testid=replay-speed-1]")
    page.wait_for_selector("[data-testid=replay-skip]:not([disabled])")
    t0 = time.monotonic()
    page.click("[data-testid=replay-skip]")
    page.wait_for_selector(".replay[data-done]", timeout=15_000)
    assert time.monotonic() - t0 < 8
    assert page.get_attribute(".replay", "data-skipped") == "1"
    assert (
        json.loads(page.get_attribute(".replay [data-testid=reels]", "data-window") or "[]")
        == last_spin["window"]
    )
    assert money(desk.text("[data-testid=replay-win]")) == rnd["win"]
    assert "Replay finished" in desk.text("[data-testid=replay-status]")
    assert page.get_attribute("[data-testid=replay-skip]", "disabled") is not None
    fits(desk, REPLAY_CONTROLS)
    desk.shot("hist-desktop-replay")
    # Leaving the replay puts the client's tempo back: every screen plays at its own speed.
    page.click("[data-testid=replay-close]")
    page.wait_for_function("() => !document.querySelector('.replay')")
    assert page.evaluate("async () => (await import('./js/ui.js')).speed()") == pytest.approx(0.5)
