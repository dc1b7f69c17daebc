"""The pace of the feature presentations in a real browser: Debian's Chromium driven by
Playwright against a real ``reelforge serve`` process (SQLite, scripted draws).

The client keeps its own presentation time (ui.js's pace clock: every wait, count-up and
animation at the player's speed, side by side counted once; no network, no player's time) and
records each round's in ``window.__reelforgePace``.  The page runs faster than that (the tests'
speed factor), so what is measured is the presentation's nominal length at normal speed and
under Quick, the same on a busy machine as on an idle one.

Typical features, chosen in-process: features are dealt from seeds 0-399 through the real rules
(the trigger scripted, the rest drawn by ``random.Random(seed)``, Ice Diamonds picked from the
lowest stone as the test picks), and every draw is recorded per request, to be replayed in the
browser as that request's script.  Ten Dragon Spins: the features of exactly ten spins (no
retrigger, no max win) whose run is average: Spin To Win games within one of their mean (4.8
a feature; median 3, longest 28), one Ice Diamonds (mean 1.1), one or two Random Wilds (mean
1.6), a win between 15x and 60x the bet (median 39x); the first three.  A bought Lock & Spin:
those with the median number of respins (11; mean 13) and 8-10 prizes (median 9); the first
three.  The median of each three is asserted: under 60 s for ten Dragon Spins and under 45 s for
a Lock & Spin at normal speed; the median one is played again under Quick and takes at most half
of its normal time (2% over for timer jitter: the clock is exact but for timers running side by
side whose ends fall within a few ms of each other at the page's speed; runs at 0.1 and 0.05 of
normal speed agree within 1%).  A feature skipped (Space, a click on the stage) ends at once
with its win shown.  Screenshots: test-artifacts/screenshots/pace-*.png.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from helpers import trigger_script
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, money, new_tab

GNOMES = "reign-of-gnomes"
GAMBINI = "ghost-of-gambini"
STAKE = 40  # both games' first bet level: 40 credits at 1p
SEEDS = range(400)
# The page's own speed here: the pace clock does not depend on it.
PAGE_SPEED = 0.05
# Quick may take this much over half of normal: timer jitter (see above).
JITTER = 1.02


# -- dealing features in-process ----------------------------------------------------------------


class Recorder:
    """A random source that deals ``prefix`` first, then ``random.Random(seed)``, and keeps
    every value it dealt (taken per request as that request's script)."""

    def __init__(self, prefix: list[int], seed: int) -> None:
        self.prefix = list(prefix)
        self.rng = random.Random(seed)
        self.log: list[int] = []

    def randbelow(self, n: int) -> int:
        value = self.prefix.pop(0) if self.prefix else self.rng.randrange(n)
        self.log.append(value)
        return value

    def take(self) -> list[int]:
        out, self.log = self.log, []
        return out


def deal(game_id: str, seed: int, prefix: list[int], mode: str = "base") -> tuple[Round, list[list[int]]]:
    """A round played out in-process (picks: the lowest stone) and its scripts, one a request."""
    game = get_game(game_id)
    rec = Recorder(prefix, seed)
    rnd = game.start(STAKE, rec, mode=mode)
    scripts = [rec.take()]
    while not rnd.complete:
        spec = rnd.actions[0]
        choice = spec.choices[0] if spec.choices else None
        rnd = game.act(rnd, Action(name=spec.name, choice=choice), rec)
        scripts.append(rec.take())
    return rnd, scripts


def count(rnd: Round, kind: str, **match: Any) -> int:
    return sum(1 for e in rnd.events if e["type"] == kind and all(e.get(k) == v for k, v in match.items()))


@pytest.fixture(scope="module")
def dragon_spins() -> list[tuple[Round, list[list[int]]]]:
    d = get_game(GNOMES).data()  # type: ignore[attr-defined]
    trigger = trigger_script(d)
    found = []
    for seed in SEEDS:
        rnd, scripts = deal(GNOMES, seed, trigger)
        spins = sum(e["count"] for e in rnd.events if e["type"] == "free_spins_awarded")
        if (
            spins == 10
            and not count(rnd, "max_win")
            and 4 <= count(rnd, "spin", reels="spin_to_win") <= 6
            and count(rnd, "ice_diamonds_start") == 1
            and 1 <= count(rnd, "random_wilds") <= 2
            and 15 * STAKE <= rnd.win <= 60 * STAKE
        ):
            found.append((rnd, scripts))
        if len(found) == 3:
            return found
    raise AssertionError("too few typical Dragon Spins features")


@pytest.fixture(scope="module")
def lock_spins() -> list[tuple[Round, list[list[int]]]]:
    found = []
    for seed in SEEDS:
        rnd, scripts = deal(GAMBINI, seed, [], mode="buy-lock-spin")
        end = next(e for e in rnd.events if e["type"] == "lock_spin_end")
        if count(rnd, "lock_spin") == 11 and 8 <= len(end["awards"]) <= 10:
            found.append((rnd, scripts))
        if len(found) == 3:
            return found
    raise AssertionError("too few typical Lock & Spin features")


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-pace"), "20261207")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("pace")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


# -- playing ---------------------------------------------------------------------------------------

STATE = """() => {
    const g = document.querySelector('.game');
    const panel = document.querySelector('[data-testid=decision-panel]');
    return {
        state: g && g.dataset.state,
        presenting: Boolean(g && g.dataset.presenting),
        decision: panel && !panel.hidden && !panel.classList.contains('decision--auto')
            ? panel.dataset.actions : null,
        ice: Boolean(document.querySelector('.ice--live')),
    };
}"""

# Records the free-spins counter's text each time the page changes while a skip runs through
# spins by themselves (not at an Ice Diamonds pick, which waits for the player).
CARRIED = """() => {
    window.__carried = [];
    const note = () => {
        const stage = document.querySelector('.game__stage');
        const counter = document.querySelector('[data-testid=free-spins-counter]');
        if (stage && counter && stage.dataset.skipping === '1' && !document.querySelector('.ice--live')) {
            window.__carried.push(counter.innerText);
        }
    };
    note();
    new MutationObserver(note).observe(document.body,
        { subtree: true, childList: true, characterData: true, attributes: true });
}"""


def play_out(tab: Tab, timeout: float = 120.0, shots: dict[str, str] | None = None) -> None:
    """Take the round's decisions until it is over: Space where a spin waits for the player,
    the lowest stone at an Ice Diamonds pick.  ``shots``: a selector -> screenshot name, taken
    once when it first shows."""
    page = tab.page
    shots = dict(shots or {})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for selector, name in list(shots.items()):
            if page.locator(selector).count():
                tab.shot(name)
                del shots[selector]
        s = page.evaluate(STATE)
        if s["state"] == "idle":
            return
        if not s["presenting"]:
            if s["ice"]:
                page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
            elif s["decision"] == "spin":
                page.keyboard.press("Space")
        page.wait_for_timeout(25)
    raise AssertionError("the round did not finish")


def last_pace(tab: Tab) -> dict[str, Any]:
    got = tab.page.evaluate("() => (window.__reelforgePace || []).slice(-1)[0] || null")
    assert got, "no pace recorded"
    return dict(got)


def set_quick(tab: Tab, on: bool) -> None:
    button = tab.page.locator("[data-testid=quick-spin]")
    if (button.get_attribute("aria-pressed") == "true") != on:
        button.click()
    assert button.get_attribute("aria-pressed") == str(on).lower()


def feature(
    tab: Tab,
    operator: Operator,
    player: str,
    rnd: Round,
    scripts: list[list[int]],
    buy: str | None = None,
    shots: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Play one forced feature in the open game; its pace record (checked against the server)."""
    tab.idle()
    tab.page.evaluate("() => performance.clearResourceTimings()")
    tab.script(*scripts)
    if buy:
        tab.page.click("[data-testid=buy]")
        tab.page.locator(f"[data-mode={buy}] [data-testid=buy-option]").click()
        tab.page.locator("[data-testid=buy-confirm]").click()
    else:
        tab.page.keyboard.press("Space")
    tab.page.wait_for_selector(".game[data-state='busy']")
    play_out(tab, shots=shots)
    tab.idle()
    served = operator.history(player)[0]
    assert served["status"] == "complete" and served["win"] == rnd.win, (served, rnd.win)
    assert money(tab.text("[data-testid=win]")) == rnd.win
    pace = last_pace(tab)
    assert pace["round"] == served["id"] and pace["game"] == rnd.game
    assert not pace["skipped"]
    # Not on the clock: the round's requests (printed, to say what the clock leaves out).
    pace["requests"] = tab.page.evaluate(
        """() => performance.getEntriesByType('resource')
            .filter((e) => /\\/rounds(\\/|$)/.test(new URL(e.name).pathname))
            .map((e) => Math.round(e.duration))"""
    )
    return pace


def measure(
    tab: Tab,
    operator: Operator,
    player: str,
    deals: list[tuple[Round, list[list[int]]]],
    buy: str | None = None,
    shots: dict[str, str] | None = None,
) -> tuple[list[float], float, float]:
    """Each feature at normal speed (nominal seconds), then the median one again under Quick:
    the normal seconds, and that feature's normal and Quick seconds."""
    tab.speed(PAGE_SPEED)
    normal = []
    for i, (rnd, scripts) in enumerate(deals):
        pace = feature(tab, operator, player, rnd, scripts, buy, shots if i == 0 else None)
        assert pace["quick"] is False
        normal.append(pace["ms"] / 1000)
        print(f"\n{player}: {len(pace['requests'])} requests, {sum(pace['requests'])} ms in all")
    middle = normal.index(statistics.median_low(normal))
    set_quick(tab, True)
    pace = feature(tab, operator, player, *deals[middle], buy)
    set_quick(tab, False)
    assert pace["quick"] is True
    return normal, normal[middle], pace["ms"] / 1000


# -- the tests -------------------------------------------------------------------------------------


def test_ten_dragon_spins_take_under_a_minute_and_half_that_under_quick(
    tab: Tab, operator: Operator, dragon_spins: list[tuple[Round, list[list[int]]]]
) -> None:
    token = operator.player("pace-gnomes", 1000 * 100)
    tab.open(token, f"#/game/{GNOMES}")
    shots = {
        ".wheel": "pace-01-gnomes-wheel",
        "[data-reels=spin_to_win] .reels[data-state=spinning]": "pace-02-gnomes-spin-to-win",
        "[data-testid=banner-total]": "pace-03-gnomes-total",
    }
    normal, middle, quick = measure(tab, operator, "pace-gnomes", dragon_spins, shots=shots)
    print(f"\nten Dragon Spins, nominal s: normal {normal}, the median one under Quick {quick}")
    assert statistics.median(normal) < 60, normal
    assert quick <= middle / 2 * JITTER, (middle, quick)


def test_a_bought_lock_and_spin_takes_under_45_seconds_and_half_that_under_quick(
    tab: Tab, operator: Operator, lock_spins: list[tuple[Round, list[list[int]]]]
) -> None:
    token = operator.player("pace-gambini", 1000 * 100)
    tab.open(token, f"#/game/{GAMBINI}")
    shots = {
        ".gog__ghost": "pace-04-lock-spin-ghost",
        "[data-testid=banner-lock-total]": "pace-05-lock-spin-total",
    }
    normal, middle, quick = measure(
        tab, operator, "pace-gambini", lock_spins, buy="buy-lock-spin", shots=shots
    )
    print(f"\na bought Lock & Spin, nominal s: normal {normal}, the median one under Quick {quick}")
    assert statistics.median(normal) < 45, normal
    assert quick <= middle / 2 * JITTER, (middle, quick)


def test_a_skipped_feature_ends_at_once_with_its_total(
    tab: Tab,
    operator: Operator,
    dragon_spins: list[tuple[Round, list[list[int]]]],
    lock_spins: list[tuple[Round, list[list[int]]]],
) -> None:
    page = tab.page
    # Dragon Spins, skipped by Space at the second spin: the rest runs to the end at once
    # (the Ice Diamonds pick still waits for the player, and is then skipped again).
    token = operator.player("pace-skip", 1000 * 100)
    tab.open(token, f"#/game/{GNOMES}")
    tab.idle()
    tab.speed(PAGE_SPEED)
    rnd, scripts = dragon_spins[0]
    tab.script(*scripts)
    page.keyboard.press("Space")
    page.wait_for_selector("[data-testid=decision-panel][data-actions='spin']:not([hidden])")
    page.keyboard.press("Space")  # Start Dragon Spins
    page.wait_for_selector("[data-testid=free-spins-counter]:has-text('1 / 10')")
    tab.speed(1)  # normal speed from here: the rest could not end by itself in the time allowed
    page.wait_for_selector("[data-testid=free-spins-counter]:has-text('2 / 10')")
    tab.shot("pace-06-gnomes-before-skip")
    started = time.monotonic()
    # The Dragon Spins one Space skipped, until the player's next decision: noted by the page
    # the moment the counter moves while skipping (a loaded machine's polls can miss them all).
    page.evaluate(CARRIED)
    while page.evaluate(STATE)["state"] != "idle":
        s = page.evaluate(STATE)
        skipping = page.get_attribute(".game__stage", "data-skipping") == "1"
        if s["ice"] and not s["presenting"]:
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        elif s["presenting"] and not skipping:
            page.keyboard.press("Space")  # the first time, and after each pick (a decision)
        page.wait_for_timeout(30)
        assert time.monotonic() - started < 30, "the skipped feature did not end"
    carried = set(page.evaluate("() => window.__carried"))
    assert len(carried) >= 2, carried  # one skip ran on through the spins that follow by themselves
    served = operator.history("pace-skip")[0]
    assert served["status"] == "complete" and served["win"] == rnd.win
    assert money(tab.text("[data-testid=win]")) == rnd.win
    assert money(tab.text("[data-testid=balance]")) == operator.balance("pace-skip")
    assert page.get_attribute("#balance", "data-held") is None
    pace = last_pace(tab)
    # What was shown: the trigger, the intro, a spin and a half, the picks (unskipped: 50 s).
    assert pace["skipped"] and pace["ms"] < 20_000, pace
    tab.shot("pace-07-gnomes-skipped")

    # A bought Lock & Spin, skipped by a click on the stage during its first respin.
    tab.open(token, f"#/game/{GAMBINI}")
    tab.idle()
    tab.speed(PAGE_SPEED)
    rnd, scripts = lock_spins[0]
    tab.script(*scripts)
    page.click("[data-testid=buy]")
    page.locator("[data-mode=buy-lock-spin] [data-testid=buy-option]").click()
    page.locator("[data-testid=buy-confirm]").click()
    page.wait_for_selector("[data-testid=decision-panel][data-actions='spin']:not([hidden])", timeout=60_000)
    tab.speed(1)
    page.keyboard.press("Space")  # Start Lock & Spin
    page.wait_for_selector(".game[data-presenting]")
    page.click(".game__stage")
    started = time.monotonic()
    tab.idle(timeout=20_000)
    assert time.monotonic() - started < 20
    served = operator.history("pace-skip")[0]
    assert served["status"] == "complete" and served["win"] == rnd.win
    assert money(tab.text("[data-testid=win]")) == rnd.win
    assert money(tab.text("[data-testid=balance]")) == operator.balance("pace-skip")
    assert last_pace(tab)["skipped"]
