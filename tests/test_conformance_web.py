"""The conformance kit, browser part: every registered game is opened in the browser client
(Debian's Chromium, a real ``reelforge serve``) and played for a few rounds with the
keyboard alone (Space to spin and to take the primary choice of any decision), on a desktop
and a phone viewport.  The rounds must all end, be the server's (its history), and leave no
console error; each game's screen is saved under test-artifacts/screenshots/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from reelforge.games import registry
from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

GAMES = sorted(registry())
ROUNDS = 3
PHONE = {"width": 390, "height": 844}  # a phone in portrait


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-kit"), "20261205")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("kit")


def play_rounds(tab: Tab, rounds: int) -> None:
    page = tab.page
    for _ in range(rounds):
        tab.idle()
        page.keyboard.press("Space")
        deadline = time.monotonic() + 60
        page.wait_for_timeout(150)
        while not page.locator(".game[data-state='idle']").count():
            assert time.monotonic() < deadline, "the round did not end"
            if page.locator("[data-testid=decision-panel]:not([hidden]):not(.decision--auto)").count():
                page.keyboard.press("Space")  # the primary choice
            page.wait_for_timeout(100)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_plays_rounds_in_the_browser_without_a_console_error(
    game_id: str, viewport: str, browser: Any, server: ServerProcess, operator: Operator
) -> None:
    name = f"kit-{game_id}-{viewport}"
    token = operator.player(name, 1_000_000)
    extra = {"viewport": PHONE, "is_mobile": True, "has_touch": True} if viewport == "phone" else {}
    tabs = new_tab(browser, server.url.removesuffix("/api/v1"), **extra)
    tab = next(tabs)
    try:
        tab.open(token, f"#/game/{game_id}")
        tab.idle()
        play_rounds(tab, ROUNDS)
        tab.shot(name)
        history = operator.history(name)
        assert len(history) >= ROUNDS and all(r["status"] == "complete" for r in history), history
    finally:
        next(tabs, None)  # closes the tab and fails on a console error
