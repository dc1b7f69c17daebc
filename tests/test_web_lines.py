"""The browser client draws a ``lines`` game (Golden Scarab, written only as data) with the
lines renderer: symbols from the data file's names and colours, the winning paylines traced
over the reels, the free-spin intro, counter, multiplier and total, the paytable with its
paylines, and the rules, on a desktop and a phone viewport, against a real ``reelforge
serve`` (scripted draws force a line win and a feature with a retrigger).  No console error.
Screenshots: test-artifacts/screenshots/lines-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from reelforge.engine.lines import LinesData
from reelforge.engine.lines.evaluate import evaluate_window
from reelforge.games import get_game
from server_process import ServerProcess
from test_web_a11y import serious
from web_support import Operator, Tab, browser_server, chromium_browser, money, new_tab

GAME_ID = "golden-scarab"
GAME = f"#/game/{GAME_ID}"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def data() -> LinesData:
    game = get_game(GAME_ID)
    return game.data()  # type: ignore[attr-defined,no-any-return]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-lines"), "20261205")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("lines")


def view(strip: tuple[str, ...], stop: int) -> list[str]:
    return [strip[(stop + r) % len(strip)] for r in range(3)]


def scatter_stops(strips: tuple[tuple[str, ...], ...], scatter: str, count: int) -> list[int]:
    """Stops showing a scatter on the first ``count`` reels and none on the others."""
    return [
        next(s for s in range(len(strip)) if (scatter in view(strip, s)) == (r < count))
        for r, strip in enumerate(strips)
    ]


def line_win_stops(d: LinesData) -> list[int]:
    """Base stops whose window pays on several lines (a premium symbol across reels 1-3)."""
    strips = d.base_reels.strips
    best: tuple[int, list[int]] = (0, [])
    top = max(d.line_pays, key=lambda c: d.line_pays[c][5])
    for s0 in range(len(strips[0])):
        if view(strips[0], s0)[1] != top:
            continue
        for s1 in range(len(strips[1])):
            for s2 in range(len(strips[2])):
                stops = [s0, s1, s2, 0, 0]
                window = [view(strip, s) for strip, s in zip(strips, stops, strict=True)]
                lines, scatters, _ = evaluate_window(d, window)
                if len(lines) > best[0] and not scatters:
                    best = (len(lines), stops)
    assert best[0] >= 2
    return best[1]


def wait_idle(tab: Tab) -> None:
    tab.idle(timeout=120_000)


def play_feature(tab: Tab, d: LinesData, prefix: str) -> None:
    """Three scatters in the base game, a retrigger on the first free spin."""
    assert d.free_reels is not None and d.scatter is not None
    page = tab.page
    tab.speed(0.6)  # slow enough to see the intro, a free spin and the total
    tab.script(
        scatter_stops(d.base_reels.strips, d.scatter, 3) + scatter_stops(d.free_reels.strips, d.scatter, 3)
    )
    page.keyboard.press("Space")
    # The intro's text read the moment it shows (it is gone after a moment).
    intro = page.wait_for_function(
        "() => document.querySelector('[data-testid=banner-free-spins]')?.innerText || null", timeout=30_000
    ).json_value()
    assert "10 free spins" in intro.lower()
    tab.shot(f"{prefix}-free-spins-intro")
    page.wait_for_selector("[data-testid=free-spins-counter]")
    # The first free spin landed (its three scatters pay and retrigger), the intro gone.
    page.wait_for_function(
        """() => {
            const frame = document.querySelector('[data-testid=reel-frame]');
            const reels = document.querySelector('[data-testid=reels]');
            return frame.dataset.reels === 'free' && !reels.dataset.state
                && !document.querySelector('.pres-screen')
                && document.querySelector('[data-testid=lines-caption] [data-testid=win-caption]');
        }""",
        timeout=60_000,
    )
    tab.shot(f"{prefix}-free-spin")
    assert "×3" in tab.text("[data-testid=feature-status]")
    # The free spins between run faster, the last one (and the total after it) at 0.12 again.
    tab.speed(0.05)
    page.wait_for_function(
        """() => {
            const counter = document.querySelector('[data-testid=free-spins-counter]');
            const [played, total] = counter.innerText.split('\\n').pop().split(' / ');
            return played === total;
        }""",
        timeout=120_000,
    )
    tab.speed(0.12)
    # The feature's total screen, or, for a round win of a Big Win or more, the tier screen
    # that stands in for it (named after the feature).
    page.wait_for_selector("[data-testid=banner-total], [data-testid=win-tier]", timeout=120_000)
    tab.shot(f"{prefix}-free-spins-total")
    wait_idle(tab)
    # every spin awarded was played: 20 at least (the retrigger), more if a free spin retriggered
    played, total = tab.text("[data-testid=free-spins-counter]").split("\n")[-1].split(" / ")
    assert played == total and int(total) >= 20 and int(total) % 10 == 0


def test_desktop_lobby_line_wins_feature_paytable_and_rules(
    browser: Any, server: ServerProcess, operator: Operator, data: LinesData
) -> None:
    for tab in new_tab(browser, server.url.removesuffix("/api/v1")):
        token = operator.player("web-lines", 100_00)
        page = tab.page
        tab.open(token)
        page.wait_for_selector(f"[data-testid=game-tile][data-game={GAME_ID}]")
        assert "Golden Scarab" in tab.text(f"[data-game={GAME_ID}]")
        assert "RTP 96.00%" in tab.text(f"[data-game={GAME_ID}]")
        assert page.locator(f"[data-game={GAME_ID}] .tile-art--lines svg.lsym").count() == 3
        tab.shot("lines-01-lobby")

        page.click(f"[data-game={GAME_ID}]")
        page.wait_for_selector("[data-testid=renderer-lines]")
        wait_idle(tab)
        assert tab.text("[data-testid=bet-value]") == "£0.20"
        # every cell drawn from the data file: the symbol's name as the art's label
        labels = page.eval_on_selector_all(
            "[data-testid=reels] svg.lsym", "els => els.map(e => e.getAttribute('aria-label'))"
        )
        names = {s.name for s in data.symbols.values()}
        assert len(labels) == 15 and set(labels) <= names
        tab.shot("lines-02-game")
        axe = Axe()
        assert not serious(axe.run(page)), serious(axe.run(page))

        # A scripted line win: the paylines traced, the caption, the win meter.
        stops = line_win_stops(data)
        window = [view(strip, s) for strip, s in zip(data.base_reels.strips, stops, strict=True)]
        lines, _, _ = evaluate_window(data, window)
        tab.script(stops)
        page.keyboard.press("Space")
        wait_idle(tab)
        shown = page.get_attribute(".lines__paylines", "data-lines") or ""
        assert sorted(int(x) for x in shown.split(",")) == sorted(w["line"] + 1 for w in lines)
        assert page.locator(".lines__payline").count() == len(lines)
        assert json.loads(page.get_attribute("[data-testid=reels]", "data-window") or "[]") == window
        win = sum(w["credits"] for w in lines)
        assert money(tab.text("[data-testid=win]")) == win
        assert f"{len(lines)} winning lines" in tab.text("[data-testid=lines-caption]")
        tab.shot("lines-03-line-win")

        # A few plain spins.
        for _ in range(3):
            page.keyboard.press("Space")
            page.wait_for_selector(".game[data-state='busy']")
            wait_idle(tab)

        play_feature(tab, data, "lines-04")
        rounds = operator.history("web-lines")
        assert len(rounds) == 5 and all(r["status"] == "complete" for r in rounds)
        assert money(tab.text("[data-testid=balance]")) == operator.balance("web-lines")
        assert money(tab.text("[data-testid=win]")) == rounds[0]["win"]

        page.keyboard.press("i")
        page.wait_for_selector("[data-testid=dialog-paytable] [data-testid=paylines]")
        assert page.locator("[data-testid=paylines] .linecard").count() == 20
        assert page.locator("[data-testid=dialog-paytable] .paycard").count() == len(data.line_pays)
        tab.shot("lines-05-paytable")
        assert not serious(axe.run(page)), serious(axe.run(page))
        page.keyboard.press("Escape")
        page.keyboard.press("r")
        page.wait_for_selector("[data-testid=dialog-rules]")
        assert "96.00%" in tab.text("[data-testid=rtp]")
        assert "multiplied by 3" in tab.text("[data-testid=rules]")
        tab.shot("lines-06-rules")
        page.keyboard.press("Escape")

        # History: the feature round recalled step by step.
        page.keyboard.press("h")
        page.wait_for_selector("[data-testid=history-row]")
        page.locator("[data-testid=history-row]").first.click()
        page.wait_for_selector("[data-testid=recall]")
        tab.shot("lines-07-recall")


def test_phone_plays_a_feature(
    browser: Any, server: ServerProcess, operator: Operator, data: LinesData
) -> None:
    for tab in new_tab(
        browser, server.url.removesuffix("/api/v1"), viewport=PHONE, is_mobile=True, has_touch=True
    ):
        token = operator.player("web-lines-phone", 100_00)
        page = tab.page
        tab.open(token, GAME)
        page.wait_for_selector("[data-testid=renderer-lines]")
        wait_idle(tab)
        frame = page.locator("[data-testid=reel-frame]").bounding_box()
        assert frame is not None and frame["width"] <= PHONE["width"] and frame["width"] > 300
        tab.shot("lines-phone-01-game")
        tab.script(line_win_stops(data))
        page.keyboard.press("Space")
        wait_idle(tab)
        assert page.locator(".lines__payline").count() >= 2
        tab.shot("lines-phone-02-line-win")
        play_feature(tab, data, "lines-phone-03")
        assert money(tab.text("[data-testid=balance]")) == operator.balance("web-lines-phone")
