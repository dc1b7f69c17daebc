"""Ghost of Gambini in a real browser: Debian's Chromium driven by Playwright against a real
``reelforge serve`` process (SQLite, scripted draws, a seeded stream).

Covered: a base round with Gambini in the center collecting coins and a rewound jackpot (the
draws scripted through the real rules), the paytable and rules, the piggies growing with each
toss until one pops into Lock & Spin, the feature played to its end (board, counter and win as
the server dealt them), a bought Super Lock & Spin from the Buy menu (the balance debited by
200x the bet), the piggies restored after a reload and kept per bet level, and phone layouts
in portrait and landscape.  No console errors.  Screenshots: test-artifacts/screenshots/gambini-*.png.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from reelforge.games import get_game
from reelforge.games.ghost_of_gambini.data_model import CENTER, OUTER, GambiniData
from server_process import ServerProcess
from web_support import (
    SHOTS,
    TEST_SPEED,
    Operator,
    Tab,
    browser_server,
    chromium_browser,
    money,
    new_tab,
)

GAME = "#/game/ghost-of-gambini"
POUNDS = 100


# -- scripts: draws that force an outcome through the real rules (see panel.py, piggies.py) --------


@pytest.fixture(scope="module")
def d() -> GambiniData:
    game = get_game("ghost-of-gambini")
    return game.data()  # type: ignore[no-any-return, attr-defined]


def shot(d: GambiniData, kind: str | None) -> int:
    """The magic-shot draw: none, 'gambini' or 'ghost' (weights none, gambini, ghost)."""
    w = d.magic_shot
    return {None: 0, "gambini": w.none, "ghost": w.none + w.gambini}[kind]


def stops(d: GambiniData, symbols: dict[int, str]) -> list[int]:
    """One stop per outer position (position order, the center skipped), showing ``symbols``."""
    out = []
    for p in range(15):
        if p == CENTER:
            continue
        strip = d.strips[p]
        assert symbols[p] in strip, (p, symbols[p])
        out.append(strip.index(symbols[p]))
    return out


def toss(d: GambiniData, into: str) -> int:
    """Gambini's toss: 'left', 'right' or 'both'."""
    keys = list(d.piggies.gambini_toss)
    return sum(d.piggies.gambini_toss[k] for k in keys[: keys.index(into)])


def grow(d: GambiniData, size: int, grows: bool = True) -> int:
    """The size's draw, in file order (grow, stay): below ``grow`` grows."""
    return 0 if grows else d.piggies.sizes[size].grow


def plain(reel1: str = "T", reel2: str = "J") -> dict[int, str]:
    """An outer panel with no line win and nothing to collect: reels 1 and 2 differ."""
    syms = {p: ("K" if p >= 6 else reel2 if p >= 3 else reel1) for p in range(15)}
    return syms


def gambini_round(d: GambiniData, into: str, grows: list[bool], sizes: list[int]) -> list[int]:
    """Gambini in the center by the magic shot, nothing to collect, a toss into ``into``."""
    script = [shot(d, "gambini"), *stops(d, plain()), toss(d, into)]
    sides = [0, 1] if into == "both" else [0] if into == "left" else [1]
    script += [grow(d, sizes[s], g) for s, g in zip(sides, grows, strict=True)]
    return script


# By position (reel by reel, top row first; 7 is the center).
COLLECTION = dict(
    enumerate(["C2", "P2", "A", "BL", "P2", "C1", "C1", "GB", "T", "J", "K", "Q", "C1", "T", "C05"])
)


def collection_round(d: GambiniData) -> list[int]:
    """Gambini by the magic shot; coins in view; the cobweb at position 4 rewinds to a jackpot;
    three lines of Crystal Balls through the wild; Gambini tosses into the left piggy, which grows."""
    return [
        shot(d, "gambini"),
        *stops(d, COLLECTION),
        0,  # the jackpot rewind fires (a draw below its `fire` weight, file order)...
        0,  # ...on the only cobweb in view
        toss(d, "left"),
        grow(d, 0),
    ]


def ghost_round(d: GambiniData) -> list[int]:
    """The ghost by the magic shot throws three ghost coins (on a coin, a jackpot-free royal,
    a cobweb-free symbol), then tosses into both piggies (neither grows)."""
    syms = {**plain("P3", "A"), 0: "C1", 5: "C05", 12: "MINI"}
    prizes = list(d.ghost_coins.prizes)
    weights = list(d.ghost_coins.prizes.values())

    def prize(name: str) -> int:
        return sum(weights[: prizes.index(name)])

    counts = list(d.ghost_coins.count)
    count3 = sum(list(d.ghost_coins.count.values())[: counts.index(3)])
    coins = [
        (prize("C2"), OUTER.index(0)),  # onto the coin at position 1: its value rises
        (prize("C1"), OUTER.index(10)),  # onto a symbol: a ghost coin lies on top
        (prize("C3"), OUTER.index(12)),  # onto the MINI
    ]
    return [
        shot(d, "ghost"),
        *stops(d, syms),
        count3,
        *[x for c in coins for x in c],
        grow(d, 0, False),
        grow(d, 0, False),
    ]


def rewind_round(d: GambiniData) -> tuple[list[int], int]:
    """No magic shot; the center stops 3 below Gambini and Magic Rewind moves it back to him;
    Gambini tosses into the left piggy, which does not grow.  Returns (script, center stop)."""
    center = d.strips[CENTER].index(d.wilds.gambini) + 3
    outer = stops(d, plain())
    all_stops = [*outer[:CENTER], center, *outer[CENTER:]]
    return [shot(d, None), *all_stops, 0, toss(d, "left"), grow(d, 1, False)], center  # 0: the rewind fires


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-gambini"), "20261201")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("gambini")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


def shot_png(tab: Tab, name: str) -> None:
    tab.shot(f"gambini-{name}")


def live_png(tab: Tab, name: str) -> None:
    """A screenshot with the animations caught where they are (a reel moving back, a pop)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"gambini-{name}.png"), animations="allow")


def spin(tab: Tab, script: list[int] | None = None) -> None:
    if script is not None:
        tab.script(script)
    tab.page.keyboard.press("Space")
    tab.page.wait_for_selector(".game[data-state='busy']")
    tab.idle()


def piggies(tab: Tab) -> list[int]:
    page = tab.page
    return [
        int(page.get_attribute(f"[data-testid=piggy-{s}]", "data-size") or "-1") for s in ("left", "right")
    ]


def play_feature(tab: Tab, timeout: float = 120.0) -> None:
    """Start Lock & Spin (the first spin waits for the player) and let the spins run."""
    page = tab.page
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.evaluate(
            """() => {
                const panel = document.querySelector('[data-testid=decision-panel]');
                return {
                    state: document.querySelector('.game')?.dataset.state,
                    waiting: Boolean(panel && !panel.hidden && !panel.classList.contains('decision--auto')),
                };
            }"""
        )
        if state["state"] == "idle":
            return
        if state["waiting"]:
            page.keyboard.press("Space")
        page.wait_for_timeout(60)
    raise AssertionError("the feature did not finish")


def recall(operator: Operator, token: str, round_id: int) -> dict[str, Any]:
    return dict(operator.as_player(token, "GET", f"/rounds/{round_id}"))


def feature_events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for s in rec["steps"] for e in s["events"]]


# -- a base round: Gambini collects ---------------------------------------------------------------


def test_base_round_gambini_collects_coins_and_a_rewound_jackpot(
    tab: Tab, operator: Operator, d: GambiniData
) -> None:
    token = operator.player("gog-base", POUNDS * 100)
    page = tab.page
    tab.open(token)
    tile = page.locator("[data-testid=game-tile][data-game=ghost-of-gambini]")
    tile.wait_for()
    assert "Ghost of Gambini" in tile.inner_text()
    page.wait_for_timeout(300)  # the tile's stylesheet
    shot_png(tab, "01-lobby")
    tile.click()
    page.wait_for_selector("[data-testid=renderer-ghost-of-gambini]")
    tab.idle()
    assert tab.text("[data-testid=bet-value]") == "£0.40"
    assert tab.text("[data-testid=jackpot-MINI]").replace("\n", " ") == "MINI £4.00"
    assert tab.text("[data-testid=jackpot-GRAND]").replace("\n", " ") == "GRAND £400.00"
    assert page.locator(".gcell").count() == 15
    shot_png(tab, "02-game")

    tab.script(collection_round(d))
    tab.watch(".gcell--collect")
    page.keyboard.press("Space")
    tab.seen(".gcell--collect")  # Gambini collecting
    shot_png(tab, "03-collecting")
    tab.idle()
    rounds = operator.history("gog-base")
    assert len(rounds) == 1 and rounds[0]["status"] == "complete"
    rec = recall(operator, token, rounds[0]["id"])
    spin_ev = rec["steps"][0]["events"][0]
    assert spin_ev["center_wild"] == "gambini" and spin_ev["jackpot_rewind"]["position"] == 3
    jackpot = spin_ev["jackpot_rewind"]["jackpot"]
    symbols = json.loads(page.get_attribute("[data-testid=panel]", "data-symbols") or "[]")
    assert symbols == spin_ev["symbols"]
    assert symbols[3] == jackpot and symbols[CENTER] == "GB"
    # Coins show their value as money; the win is the lines plus the collection.
    assert page.locator(".gcell[data-pos='0'] .gsym__value").inner_text() == "£0.80"
    assert page.locator(".gcell[data-pos='14'] .gsym__value").inner_text() == "£0.20"
    assert spin_ev["collect_credits"] == 80 + 40 + 40 + 40 + 20 + d.prize_credits(jackpot)
    assert spin_ev["line_credits"] == 3 * d.pays["P2"][3]
    win = money(tab.text("[data-testid=win]"))
    assert win == rounds[0]["win"] == spin_ev["credits"]
    assert money(tab.text("[data-testid=balance]")) == operator.balance("gog-base") == POUNDS * 100 - 40 + win
    assert page.locator(".gcell--win").count() == 3  # three lines through the same three positions
    assert piggies(tab) == [1, 0]  # Gambini tossed into the left piggy, which grew
    shot_png(tab, "04-collected")

    # The ghost: ghost coins land (a coin's value rises), then it collects.
    tab.script(ghost_round(d))
    tab.watch(".gcell--boosted")
    page.keyboard.press("Space")
    tab.seen(".gcell--boosted")
    tab.idle()
    rec = recall(operator, token, operator.history("gog-base")[0]["id"])
    ev = rec["steps"][0]["events"][0]
    assert ev["center_wild"] == "ghost" and len(ev["ghost_coins"]) == 3
    assert page.locator(".gcell[data-pos='0'] .gsym__value").inner_text() == "£1.20"  # 40 + 80 credits
    assert page.locator(".gcell[data-pos='10'] .gghost-coin").count() == 1
    assert money(tab.text("[data-testid=win]")) == ev["credits"] == rec["win"]
    assert piggies(tab) == [1, 0]  # tossed into both, neither grew
    shot_png(tab, "05-ghost-coins")

    # Magic Rewind: the center reel moves back to Gambini.
    script, center = rewind_round(d)
    tab.script(script)
    tab.speed(1)  # slow enough to catch the reel moving back
    tab.watch(".gcell[data-pos='7'].gcell--rewind")
    page.keyboard.press("Space")
    tab.seen(".gcell[data-pos='7'].gcell--rewind")
    page.wait_for_timeout(250)
    live_png(tab, "05b-magic-rewind")
    tab.speed(TEST_SPEED)
    tab.idle()
    ev = recall(operator, token, operator.history("gog-base")[0]["id"])["steps"][0]["events"][0]
    assert ev["center_rewind"] == {"from": center, "to": center - 3, "distance": 3}
    assert page.get_attribute(".gcell[data-pos='7']", "data-symbol") == "GB"
    assert page.get_attribute(".gog", "data-last-tag") == "Gambini tosses into the left piggy"
    assert piggies(tab) == [1, 0]

    # The paytable and the rules, in the game's own figures.
    page.keyboard.press("i")
    dialog = page.locator("[data-testid=dialog-paytable]")
    dialog.wait_for()
    text = dialog.inner_text()
    top_hat = dialog.locator(".paycard[data-symbol=P1]").inner_text()
    assert "£20.00" in top_hat  # 5 Top Hats: 2000 credits x 1p
    assert "10× bet" in text and "1,000× bet" in text  # MINI, GRAND
    assert "100× bet = £40.00" in text and "200× bet = £80.00" in text  # the buy prices
    assert dialog.locator(".linegrid__item").count() == 40
    shot_png(tab, "06-paytable")
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    rules = page.locator("[data-testid=dialog-rules]")
    rules.wait_for()
    assert "10,000× the bet" in rules.inner_text()
    assert "Super Lock & Spin" in rules.inner_text()
    shot_png(tab, "07-rules")
    page.keyboard.press("Escape")

    # Recall draws the step with the game's words.
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=history-row]").last.click()
    page.wait_for_selector("[data-testid=recall]")
    words = tab.text("[data-testid=recall-events]")
    assert "jackpot rewind" in words and "Gambini tossed into the left piggy" in words
    page.wait_for_selector(".gog-snapshot .gcell")
    shot_png(tab, "08-recall")
    first = operator.history("gog-base")[-1]
    page.click("[data-testid=open-replay]")
    page.wait_for_selector("[data-testid=replay-marker]")
    assert "Matches the record" in tab.text("[data-testid=replay-match]")
    page.wait_for_selector(".replay[data-done]", timeout=60_000)
    assert money(tab.text("[data-testid=replay-win]")) == first["win"]
    shot_png(tab, "08b-replay")


# -- the piggies pop: Lock & Spin ---------------------------------------------------------------


def test_piggies_grow_and_pop_into_lock_and_spin(tab: Tab, operator: Operator, d: GambiniData) -> None:
    token = operator.player("gog-lock", POUNDS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    assert piggies(tab) == [0, 0]
    for n in range(4):  # Gambini tosses into both piggies; both grow, four times
        spin(tab, gambini_round(d, "both", [True, True], [n, n]))
        assert piggies(tab) == [n + 1, n + 1]
    assert page.locator(".piggy--full").count() == 2
    shot_png(tab, "09-piggies-full")

    # The next toss pops the left piggy: Lock & Spin with 3 spins.
    tab.script(gambini_round(d, "left", [True], [4, 4]))
    tab.watch(".piggy--pop")
    page.keyboard.press("Space")
    tab.seen(".piggy--pop")
    live_png(tab, "09b-piggy-pops")
    page.wait_for_selector("[data-testid=decision-panel][data-actions='spin']:not([hidden])", timeout=30_000)
    assert piggies(tab) == [0, 4]
    assert page.get_attribute("[data-testid=renderer-ghost-of-gambini]", "data-mode") == "lock"
    assert page.get_attribute("[data-testid=lock-counter]", "data-counter") == "3"
    assert "Start Lock & Spin" in tab.text("[data-testid=decision-panel]")
    rnd = operator.history("gog-lock")[0]
    assert rnd["status"] == "pending"
    rec = recall(operator, token, rnd["id"])
    start = next(e for e in feature_events(rec) if e["type"] == "lock_spin_start")
    assert json.loads(page.get_attribute("[data-testid=panel]", "data-board") or "[]") == start["board"]
    frames = page.locator(".gcell .gframe").count()
    assert frames == sum(1 for level in start["board"] if level)
    shot_png(tab, "10-lock-spin-start")

    # Reloaded mid-feature, the board is drawn as it stands and the feature goes on.
    page.reload()
    page.wait_for_selector("#app[data-ready='1']")
    page.wait_for_selector(".game[data-restored]")
    page.wait_for_selector("[data-testid=decision-panel][data-actions='spin']:not([hidden])")
    assert json.loads(page.get_attribute("[data-testid=panel]", "data-board") or "[]") == start["board"]
    assert page.get_attribute("[data-testid=lock-counter]", "data-counter") == "3"
    assert page.get_attribute(".gog", "data-mode") == "lock"
    assert piggies(tab) == [0, 4]

    page.keyboard.press("Space")  # start it; the spins run on by themselves
    page.wait_for_selector(".gog[data-lock-win]", timeout=120_000)
    shot_png(tab, "11-lock-spin-prizes")
    play_feature(tab)
    tab.idle()
    rnd = operator.history("gog-lock")[0]
    assert rnd["status"] == "complete"
    events = feature_events(recall(operator, token, rnd["id"]))
    spins = [e for e in events if e["type"] in ("lock_spin_start", "lock_spin")]
    end = next(e for e in events if e["type"] == "lock_spin_end")
    assert json.loads(page.get_attribute("[data-testid=panel]", "data-board") or "[]") == spins[-1]["board"]
    last_counter = spins[-1]["counter"] if spins[-1]["type"] == "lock_spin" else spins[-1]["spins"]
    assert page.get_attribute("[data-testid=lock-counter]", "data-counter") == str(last_counter)
    assert page.get_attribute(".gog", "data-lock-win") == str(end["credits"])
    assert page.locator(".gcell[data-prize]").count() == len(end["awards"])
    for a in end["awards"]:
        assert page.get_attribute(f".gcell[data-pos='{a['position']}']", "data-prize") == a["prize"]
    assert money(tab.text("[data-testid=lock-total]")) == end["credits"]
    assert money(tab.text("[data-testid=win]")) == rnd["win"]
    assert money(tab.text("[data-testid=balance]")) == operator.balance("gog-lock")
    assert operator.balance("gog-lock") == POUNDS * 100 - 5 * 40 + sum(
        r["win"] for r in operator.history("gog-lock")
    )
    shot_png(tab, "12-lock-spin-won")

    # Reloaded, the piggies are as the server keeps them.
    page.reload()
    page.wait_for_selector("#app[data-ready='1']")
    page.wait_for_selector(".gog[data-piggies-loaded]")
    assert piggies(tab) == [0, 4]

    # Recall shows the feature's board step by step, and its prizes.
    page.goto(f"{tab.base_url}/#/history/{rnd['id']}")
    page.wait_for_selector("[data-testid=recall]")
    page.keyboard.press("End")
    for _ in range(rnd["steps"] - 1):
        page.keyboard.press("ArrowRight")
    assert "Lock & Spin ends" in tab.text("[data-testid=recall-events]")
    page.wait_for_selector(".gog-snapshot .gcell[data-prize]")
    assert page.locator(".gog-snapshot .gcell[data-prize]").count() == len(end["awards"])
    shot_png(tab, "12b-lock-spin-recall")


# -- a bought Super Lock & Spin ------------------------------------------------------------------


def test_buy_menu_super_lock_and_spin(tab: Tab, operator: Operator) -> None:
    token = operator.player("gog-buy", POUNDS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.click("[data-testid=buy]")
    menu = page.locator("[data-testid=dialog-buy]")
    menu.wait_for()
    options = menu.locator("[data-testid=buy-option]")
    assert options.count() == 2
    assert menu.locator("[data-mode=buy-lock-spin] [data-testid=buy-option]").inner_text() == "Buy for £40.00"
    assert (
        menu.locator("[data-mode=buy-super-lock-spin] [data-testid=buy-option]").inner_text()
        == "Buy for £80.00"
    )
    shot_png(tab, "13-buy-menu")
    menu.locator("[data-mode=buy-super-lock-spin] [data-testid=buy-option]").click()
    confirm = page.locator("[data-testid=dialog-buy-confirm]")
    confirm.wait_for()
    assert "£80.00" in confirm.inner_text()
    shot_png(tab, "14-buy-confirm")
    confirm.locator("[data-testid=buy-confirm]").click()
    page.wait_for_selector("[data-testid=decision-panel][data-actions='spin']:not([hidden])", timeout=30_000)
    assert money(tab.text("[data-testid=balance]")) == POUNDS * 100 - 200 * 40  # debited once, now
    assert page.get_attribute(".gog", "data-mode") == "super"
    assert "Start Super Lock & Spin" in tab.text("[data-testid=decision-panel]")
    assert piggies(tab) == [0, 0]  # a bought feature leaves the piggies alone
    shot_png(tab, "15-super-start")
    play_feature(tab)
    tab.idle()
    rnd = operator.history("gog-buy")[0]
    assert rnd["status"] == "complete" and rnd["stake"] == 200 * 40
    end = next(e for e in feature_events(recall(operator, token, rnd["id"])) if e["type"] == "lock_spin_end")
    assert end["super"] and all(a["prize"] in ("MINI", "MINOR", "MAJOR", "GRAND") for a in end["awards"])
    assert money(tab.text("[data-testid=win]")) == rnd["win"] == end["credits"]
    assert operator.balance("gog-buy") == POUNDS * 100 - 200 * 40 + rnd["win"]
    assert money(tab.text("[data-testid=balance]")) == operator.balance("gog-buy")
    shot_png(tab, "16-super-won")


# -- the piggies after a reload, per bet level -------------------------------------------------


def test_piggies_are_restored_after_a_reload_and_kept_per_bet(
    tab: Tab, operator: Operator, d: GambiniData
) -> None:
    token = operator.player("gog-piggies", POUNDS * 100)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    spin(tab, gambini_round(d, "both", [True, True], [0, 0]))
    spin(tab, gambini_round(d, "right", [True], [1, 1]))
    assert piggies(tab) == [1, 2]
    page.keyboard.press("ArrowUp")  # 80p: piggies of their own
    assert tab.text("[data-testid=bet-value]") == "£0.80"
    assert piggies(tab) == [0, 0]
    spin(tab, gambini_round(d, "left", [True], [0, 0]))
    assert piggies(tab) == [1, 0]

    page.reload()
    page.wait_for_selector("#app[data-ready='1']")
    page.wait_for_selector(".gog[data-piggies-loaded]")
    tab.idle()
    assert tab.text("[data-testid=bet-value]") == "£0.80"
    assert piggies(tab) == [1, 0]
    shot_png(tab, "17-piggies-restored")
    page.keyboard.press("ArrowDown")
    assert piggies(tab) == [1, 2]
    states = operator.as_player(token, "GET", "/state?game=ghost-of-gambini")["states"]
    assert {s["state_key"]: s["state"]["piggies"] for s in states} == {"stake:40": [1, 2], "stake:80": [1, 0]}


# -- phones --------------------------------------------------------------------------------------


def test_phone_portrait_and_landscape(
    browser: Any, server: ServerProcess, operator: Operator, d: GambiniData
) -> None:
    token = operator.player("gog-phone", POUNDS * 100)
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
            "[data-testid=reel-frame]",
            "[data-testid=piggy-left]",
            "[data-testid=piggy-right]",
            "[data-testid=jackpot-GRAND]",
            "[data-testid=spin]",
            "[data-testid=bet-value]",
            "[data-testid=win]",
        ]
        tab.open(token, GAME)
        tab.idle()
        tab.script(collection_round(d))
        page.tap("[data-testid=spin]")
        page.wait_for_selector(".game[data-state='busy']")
        tab.idle()
        for sel in parts:
            inside(sel, 390, 844)
        shot_png(tab, "18-phone-portrait")

        # A bought Lock & Spin on the phone.
        page.tap("[data-testid=buy]")
        page.locator("[data-mode=buy-lock-spin] [data-testid=buy-option]").tap()
        page.locator("[data-testid=buy-confirm]").tap()
        page.wait_for_selector(
            "[data-testid=decision-panel][data-actions='spin']:not([hidden])", timeout=30_000
        )
        for sel in parts:
            inside(sel, 390, 844)
        inside("[data-testid=lock-counter]", 390, 844)
        shot_png(tab, "19-phone-lock-spin")

        page.set_viewport_size({"width": 844, "height": 390})
        page.wait_for_timeout(300)
        for sel in [*parts, "[data-testid=lock-counter]"]:
            inside(sel, 844, 390)
        shot_png(tab, "20-phone-landscape-lock-spin")
        play_feature(tab)
        tab.idle()
        shot_png(tab, "21-phone-landscape-won")
        tab.script(ghost_round(d))
        page.tap("[data-testid=spin]")
        page.wait_for_selector(".game[data-state='busy']")
        tab.idle()
        for sel in parts:
            inside(sel, 844, 390)
        shot_png(tab, "22-phone-landscape")
    finally:
        next(gen, None)
