"""Accessibility and touch in a real browser: Debian's Chromium driven by Playwright against a
real ``reelforge serve`` process (SQLite, scripted draws).

Every screen (the lobby; Reign of Gnomes with its paytable, rules and autoplay dialogs; Ghost
of Gambini and its Buy menu; Los 3 Pinguinos' lower and upper games; the history list; a
recall page) is audited with axe-core (``axe-playwright-python``) at 1366x768 and on a
390x844 touch phone: no serious or critical violation.  On the phone every visible control
is measured (at least 44x44 px) and no keyboard hint is shown; on the desktop the hints are
there.  ``prefers-reduced-motion: reduce`` stops the CSS animations and is exposed to the
client's modules.  Screenshots: test-artifacts/screenshots/a11y-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe

from pinguinos_helpers import D as L3P
from pinguinos_helpers import find, game, judge
from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
TOUCH = {"is_mobile": True, "has_touch": True}
MIN_TAP = 44  # px, each side
L3P_MACHINE = "[data-testid=renderer-los-3-pinguinos]"
# Controls a player can press: their boxes are measured on the phone.
CONTROLS = (
    "button, a[href], input, select, textarea, [role=button], [role=link], [role=radio], [tabindex='0']"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-a11y"), "20261210")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    # The first game list computes every game's exact RTP (seconds): not inside a page load.
    token = op.player("a11y-warmup", 0)
    r = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("a11y")


def euro_player(op: Operator, external_id: str, credit: int) -> str:
    """Los 3 Pinguinos plays in euros."""
    return op.player(external_id, credit, currency="EUR")


def bonus_round() -> list[int]:
    """A Los 3 Pinguinos lower game with three Bonus symbols on the line (Bonuses for the upper game)."""
    return game(find(lambda sym: judge(sym) == ("bonus", L3P.bonus_pays[3]), near=None))


def go(tab: Tab, route: str, ready: str) -> None:
    tab.page.evaluate("r => { location.hash = r; }", route)
    tab.page.wait_for_selector(ready)


def walk(tab: Tab, operator: Operator, name: str, lang: str | None = None) -> Iterator[str]:
    """Visit every screen and dialog (in ``lang``, the browser's language otherwise); yields
    each one's name once it is on show."""
    page = tab.page
    tab.open(operator.player(f"{name}-gbp", 100_00), lang=lang)
    page.wait_for_selector("[data-testid=game-tile]")
    yield "lobby"

    go(tab, "#/game/reign-of-gnomes", "[data-testid=game-screen]")
    tab.idle()
    page.click("[data-testid=spin]")
    page.wait_for_selector(".game[data-state='busy']")
    tab.idle()
    yield "gnomes"
    for opener, dialog in [("open-paytable", "paytable"), ("open-rules", "rules"), ("autoplay", "autoplay")]:
        page.click(f"[data-testid={opener}]")
        page.wait_for_selector(f"[data-testid=dialog-{dialog}]")
        yield f"gnomes-{dialog}"
        page.click(f"[data-testid=dialog-{dialog}] .modal__close")
        page.wait_for_selector(f"[data-testid=dialog-{dialog}]", state="detached")

    go(tab, "#/game/ghost-of-gambini", "[data-testid=game-screen][data-game=ghost-of-gambini]")
    tab.idle()
    yield "gambini"
    page.click("[data-testid=buy]")
    page.wait_for_selector("[data-testid=dialog-buy]")
    yield "gambini-buy"
    page.click("[data-testid=dialog-buy] .modal__close")

    go(tab, "#/history", "[data-testid=history] [data-round]")
    yield "history"
    round_id = page.get_attribute("[data-testid=history] [data-round]", "data-round")
    go(tab, f"#/history/{round_id}", "[data-testid=recall]")
    yield "recall"

    tab.open(euro_player(operator, f"{name}-eur", 100_00), "#/game/los-3-pinguinos", lang=lang)
    tab.idle()
    page.wait_for_selector(f"{L3P_MACHINE}[data-machine-loaded]")
    yield "pinguinos-lower"
    page.click("[data-testid=bet-up]")
    tab.script(bonus_round())
    page.click("[data-testid=spin]")
    page.wait_for_selector(".game[data-state='busy']")
    tab.idle()
    page.click("[data-testid=change-game]")
    page.wait_for_selector(f"{L3P_MACHINE}[data-screen='upper'][data-switched='1']")
    tab.idle()
    yield "pinguinos-upper"


def serious(results: Any) -> list[str]:
    """axe's serious and critical violations, one line each: rule, impact, where."""
    out = []
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            where = "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:6])
            out.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}x): {v['help']} at {where}")
    return out


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_axe_finds_no_serious_violation_on_any_screen(
    browser: Any, server: ServerProcess, operator: Operator, device: str, lang: str
) -> None:
    """Every screen in both languages on both devices (the screenshots of the whole client):
    no serious axe violation, and in Spanish no string left without its translation."""
    context = {"viewport": DESKTOP} if device == "desktop" else {"viewport": PHONE, **TOUCH}
    gen = new_tab(browser, server.url.removesuffix("/api/v1"), **context)
    tab = next(gen)
    try:
        axe = Axe()
        found: dict[str, list[str]] = {}
        untranslated: dict[str, list[str]] = {}
        screens = []
        for screen in walk(tab, operator, f"a11y-axe-{device}-{lang}", lang):
            screens.append(screen)
            assert tab.page.evaluate("document.documentElement.lang") == lang
            tab.shot(f"a11y-{device}-{lang}-{screen}")
            bad = serious(axe.run(tab.page))
            if bad:
                found[screen] = bad
            if missing := tab.page.evaluate("[...window.__i18nMissing]"):
                untranslated[screen] = missing
        assert len(screens) == 11, screens
        assert not found, "\n".join(f"{s}: {line}" for s, lines in found.items() for line in lines)
        assert not untranslated, untranslated
    finally:
        next(gen, None)


# -- the phone: finger-sized controls, no keyboard hints -------------------------------------------


def small_controls(page: Any) -> list[str]:
    """Every visible control smaller than MIN_TAP on a side, described."""
    found: list[str] = page.evaluate(
        """async ([selector, min]) => {
            // Measured at rest: a dialog that pops in is scaled down until its animation ends.
            const finite = document.getAnimations()
                .filter((a) => a.effect.getComputedTiming().endTime < Infinity);
            await Promise.all(finite.map((a) => a.finished.catch(() => null)));
            const out = [];
            for (const el of document.querySelectorAll(selector)) {
                if (el.closest('[aria-hidden=true], [inert]') || el.disabled && el.hidden) continue;
                const r = el.getBoundingClientRect();
                const cs = getComputedStyle(el);
                if (!r.width || !r.height || cs.visibility === 'hidden' || cs.display === 'none') continue;
                if (r.width + 0.5 < min || r.height + 0.5 < min) {
                    const id = el.dataset.testid || el.getAttribute('aria-label') || el.className;
                    const size = `${r.width.toFixed(0)}x${r.height.toFixed(0)}`;
                    out.push(`${el.tagName.toLowerCase()} "${id}" ${size}`);
                }
            }
            return out;
        }""",
        [CONTROLS, MIN_TAP],
    )
    return found


def shown_key_hints(page: Any) -> list[str]:
    """Keyboard legends a player can see: <kbd> keys, the lobby's key line, Los 3 Pinguinos' key panel."""
    hints: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('kbd, .lobby__foot, .l3p-keys, .key-hint')]
            .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
            .map((el) => `${el.className || el.tagName}: ${el.textContent.trim().slice(0, 40)}`)"""
    )
    return hints


def controls_overflow(page: Any) -> int:
    """How many pixels of the game's control panel (win, bet, spin…) lie beyond its box, to be
    scrolled to; 0 where no game screen is shown."""
    over: int = page.evaluate(
        """() => { const c = document.querySelector('.controls');
                   return c && c.getClientRects().length ? c.scrollHeight - c.clientHeight : 0; }"""
    )
    return over


@pytest.mark.parametrize("turned", [False, True], ids=["portrait", "landscape"])
def test_phone_controls_are_finger_sized_and_show_no_keyboard_hints(
    browser: Any, server: ServerProcess, operator: Operator, turned: bool
) -> None:
    viewport = {"width": PHONE["height"], "height": PHONE["width"]} if turned else PHONE
    gen = new_tab(browser, server.url.removesuffix("/api/v1"), viewport=viewport, **TOUCH)
    tab = next(gen)
    try:
        page = tab.page
        assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
        small: dict[str, list[str]] = {}
        hints: dict[str, list[str]] = {}
        overflow: dict[str, int] = {}
        measured = 0
        for screen in walk(tab, operator, f"a11y-tap-{'landscape' if turned else 'portrait'}"):
            measured += page.locator(CONTROLS).count()
            if turned:  # (the axe test saves the portrait ones)
                tab.shot(f"a11y-phone-landscape-{screen}")
            if s := small_controls(page):
                small[screen] = s
            if k := shown_key_hints(page):
                hints[screen] = k
            if (over := controls_overflow(page)) > 1:
                overflow[screen] = over
        assert measured > 100
        assert not small, "\n".join(f"{s}: {c}" for s, cs in small.items() for c in cs)
        assert not hints, hints
        assert not overflow, f"the control panel must fit the phone without scrolling (px over): {overflow}"
    finally:
        next(gen, None)


def test_desktop_keeps_its_keyboard_hints(browser: Any, server: ServerProcess, operator: Operator) -> None:
    """The hints hidden on touch screens are there with a mouse and a keyboard."""
    gen = new_tab(browser, server.url.removesuffix("/api/v1"), viewport=DESKTOP)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(euro_player(operator, "a11y-keys", 100_00), "#/game/los-3-pinguinos")
        tab.idle()
        page.wait_for_selector(f"{L3P_MACHINE}[data-machine-loaded]")
        assert not page.evaluate("document.documentElement.classList.contains('touch')")
        assert any("l3p-keys" in h for h in shown_key_hints(page))
        go(tab, "#/", "[data-testid=game-tile]")
        assert page.locator(".lobby__foot").is_visible()
    finally:
        next(gen, None)


# -- reduced motion ----------------------------------------------------------------------------


def animation_state(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """async () => {
                const env = await import('./js/env.js');
                const egg = document.querySelector('.tile-art__egg');
                const cs = egg && getComputedStyle(egg);
                return {
                    module: env.reducedMotion(),
                    cls: document.documentElement.classList.contains('reduce-motion'),
                    duration: cs ? parseFloat(cs.animationDuration) : null,
                    running: document.getAnimations().filter((a) => a.playState === 'running').length,
                };
            }"""
        )
    )


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stops_animations(
    browser: Any, server: ServerProcess, operator: Operator, motion: str
) -> None:
    gen = new_tab(browser, server.url.removesuffix("/api/v1"), viewport=DESKTOP, reduced_motion=motion)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(operator.player(f"a11y-motion-{motion}", 100_00))
        page.wait_for_selector("[data-testid=game-tile]")
        page.wait_for_timeout(200)
        state = animation_state(page)
        if motion == "reduce":
            # The lobby's bobbing egg, and every other CSS animation, has stopped.
            assert state["module"] is True and state["cls"] is True
            assert state["duration"] == pytest.approx(0.001, abs=0.002) and state["running"] == 0
            tab.shot("a11y-reduced-motion-lobby")
        else:
            assert state["module"] is False and state["cls"] is False
            assert state["duration"] >= 1 and state["running"] >= 1
    finally:
        next(gen, None)
