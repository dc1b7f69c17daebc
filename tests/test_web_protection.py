"""Player protection and screen changes in a real Chromium against ``reelforge serve``:

* the session clock and the net position in the default profile (desktop and phone);
* the reality check at a short interval set by the operator at session open: it shows time
  played and net position, survives a reload (server time), Continue acknowledges it and the
  next one comes one interval later, Leave ends the session;
* the operator's limits link, in the top bar and in the reality check;
* toasts and error dialogs measured clear of the spin button and the bet (desktop, phone
  upright, phone on its side);
* every screen change (lobby, game, history, recall, and back) opens at the top.

Screenshots: ``test-artifacts/screenshots/prot-*.png``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from helpers import trigger_script
from server_process import OP_HEADERS, ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, money, new_tab

GAME = "#/game/reign-of-gnomes"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-prot"), "20261201")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    # The server works out every game's exact RTP on its first game list (tens of seconds on
    # a busy machine): done here, so no page waits for it.
    _, token = session(op)
    r = op.http.get("/games", headers={"Authorization": f"Bearer {token}"}, timeout=600)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("prot")


def base_url(server: ServerProcess) -> str:
    return server.url.removesuffix("/api/v1")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, base_url(server))


def phone_tab(browser: Any, server: ServerProcess, viewport: dict[str, int] = PHONE) -> Iterator[Tab]:
    return new_tab(browser, base_url(server), viewport=viewport, is_mobile=True, has_touch=True)


def session(operator: Operator, credit: int = 100_000, **body: Any) -> tuple[str, str]:
    """A new player with ``credit`` pence and a session opened with ``body`` (default
    profile): (external id, token)."""
    player = f"prot-{next(_ids)}"
    r = operator.http.post("/operator/players", json={"external_id": player}, headers=OP_HEADERS)
    assert r.status_code == 201, r.text
    if credit:
        r = operator.http.post(
            f"/operator/players/{player}/credit", json={"amount": credit}, headers=operator.key()
        )
        assert r.status_code == 200, r.text
    r = operator.http.post(f"/operator/players/{player}/sessions", json=body, headers=operator.key())
    assert r.status_code == 201, r.text
    return player, str(r.json()["token"])


def player_call(operator: Operator, token: str, method: str, path: str, **kw: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}", **kw.pop("headers", {})}
    if method == "POST":
        headers["Idempotency-Key"] = f"prot-call-{next(_ids)}"
    return operator.http.request(method, path, headers=headers, **kw)


def box(page: Any, selector: str) -> dict[str, float]:
    b = page.locator(selector).first.bounding_box()
    assert b is not None, selector
    return dict(b)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def clock_seconds(text: str) -> int:
    parts = [int(p) for p in text.split(":")]
    return sum(p * 60**i for i, p in enumerate(reversed(parts)))


def play_one(tab: Tab) -> None:
    tab.page.keyboard.press("Space")
    tab.page.wait_for_selector(".game[data-state='busy']")
    tab.idle()


# -- the clock and the net position ------------------------------------------------------------


def test_the_default_profile_shows_the_session_clock_and_net_position(
    tab: Tab, browser: Any, server: ServerProcess, operator: Operator
) -> None:
    _, token = session(operator)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    assert page.get_attribute("#app", "data-profile") == "default"
    assert page.locator("#session-meter").is_visible() and page.locator("#net-meter").is_visible()
    assert tab.text("#net-position") == "£0.00"
    first = clock_seconds(tab.text("#session-time"))
    page.wait_for_timeout(2100)
    assert clock_seconds(tab.text("#session-time")) >= first + 2  # it runs
    for _ in range(3):
        play_one(tab)
    info = player_call(operator, token, "GET", "/session").json()
    assert info["staked"] == 120
    assert money(tab.text("#net-position")) == info["net_position"] == info["won"] - info["staked"]
    assert int(page.get_attribute("#net-position", "data-net") or "x") == info["net_position"]
    tab.shot("prot-01-desktop-clock-and-net")

    # A phone upright: the clock and the net position on a row of their own, all on screen.
    gen = phone_tab(browser, server)
    phone = next(gen)
    try:
        phone.open(token, GAME)
        phone.idle()
        p = phone.page
        bar = box(p, "#topbar")
        assert p.evaluate("() => document.getElementById('topbar').scrollWidth <= innerWidth")
        for sel in ("#session-meter", "#net-meter", "#balance", "#btn-history", "#btn-sound"):
            b = box(p, sel)
            assert (
                b["x"] >= 0
                and b["x"] + b["width"] <= PHONE["width"]
                and b["y"] + b["height"] <= bar["y"] + bar["height"]
            ), sel
        session_box, balance_box = box(p, "#session-meter"), box(p, "#balance")
        assert session_box["y"] > balance_box["y"] + balance_box["height"] - 1  # the second row
        assert money(phone.text("#net-position")) == info["net_position"]
        assert clock_seconds(phone.text("#session-time")) >= first + 2  # the session's clock, not the page's
        phone.shot("prot-02-phone-clock-and-net")
    finally:
        next(gen, None)


# -- the reality check -------------------------------------------------------------------------


def test_the_reality_check_comes_every_interval_survives_a_reload_and_continues(
    tab: Tab, operator: Operator
) -> None:
    _, token = session(operator, reality_check_seconds=5)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    play_one(tab)
    dialog = page.wait_for_selector("[data-testid=reality-check]", timeout=15_000)
    assert dialog is not None
    info = player_call(operator, token, "GET", "/session").json()
    assert info["reality_check"]["due"] is True and info["reality_check"]["interval_seconds"] == 5
    assert 5 <= clock_seconds(tab.text("[data-testid=reality-time]")) <= 20
    assert re.fullmatch(r"You have been playing for \d+ seconds\.", tab.text("[data-testid=reality-played]"))
    assert money(tab.text("[data-testid=reality-net]")) == info["net_position"]
    assert money(tab.text("[data-testid=reality-staked]")) == info["staked"] == 40
    assert page.locator("[data-testid=reality-limits]").count() == 0  # no limits page given
    # The dialog keeps off the control bar: the bet and the spin button stay in view.
    card = box(page, "[data-testid=reality-check]")
    for sel in ("[data-testid=spin]", "[data-testid=bet-value]"):
        assert not overlap(card, box(page, sel)), sel
    tab.shot("prot-03-reality-check")
    page.keyboard.press("Escape")  # not dismissable: only Continue or Leave
    assert page.locator("[data-testid=reality-check]").is_visible()

    tab.open(token, GAME)  # a reload: the check is still due, by the server's clock
    page.wait_for_selector("[data-testid=reality-check]", timeout=10_000)
    played = clock_seconds(tab.text("[data-testid=reality-time]"))
    assert played >= 5
    # Focus is on the text, not on Continue: a Space meant for the spin button answers nothing.
    page.keyboard.press("Space")
    page.wait_for_timeout(200)
    assert page.locator("[data-testid=reality-check]").is_visible()
    with page.expect_response(lambda r: r.url.endswith("/session/reality-check")) as answered:
        page.click("[data-testid=reality-continue]")
    ack = answered.value.json()
    page.wait_for_selector("[data-testid=reality-check]", state="detached")
    # Every interval passed so far is acknowledged; the next is a whole interval later.
    nxt = ack["reality_check"]["next_at_seconds"]
    assert ack["reality_check"]["due"] is False and nxt == 5 * (int(ack["elapsed_seconds"]) // 5 + 1)
    assert nxt > played
    play_one(tab)  # play goes on

    # The next one, an interval later, timed from the session's start.
    page.wait_for_selector("[data-testid=reality-check]", timeout=15_000)
    assert clock_seconds(tab.text("[data-testid=reality-time]")) >= nxt
    page.click("[data-testid=reality-continue]")
    page.wait_for_selector("[data-testid=reality-check]", state="detached")
    tab.idle()


def test_a_spin_waits_for_a_due_reality_check(tab: Tab, operator: Operator) -> None:
    _, token = session(operator, reality_check_seconds=4)
    page = tab.page
    starts: list[str] = []
    page.on(
        "request",
        lambda r: starts.append(r.url) if r.method == "POST" and r.url.endswith("/api/v1/rounds") else None,
    )
    tab.open(token, GAME)
    tab.idle()
    # The check's timer is held back, as if it fell due during a round: the spin asks first.
    page.evaluate(
        "() => { const p = window.reelforge.protection; clearTimeout(p.timer); p.schedule = () => {}; }"
    )
    page.wait_for_timeout(4500)
    assert page.locator("[data-testid=reality-check]").count() == 0
    page.keyboard.press("Space")
    page.wait_for_selector("[data-testid=reality-check]")
    page.wait_for_timeout(300)
    assert starts == []  # no stake taken while the check is open
    page.click("[data-testid=reality-continue]")
    tab.idle()
    assert len(starts) == 1
    assert player_call(operator, token, "GET", "/session").json()["staked"] == 40


def test_leave_ends_the_session(tab: Tab, operator: Operator) -> None:
    _, token = session(operator, reality_check_seconds=3)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    page.wait_for_selector("[data-testid=reality-check]", timeout=15_000)
    page.click("[data-testid=reality-leave]")
    page.wait_for_selector("[data-testid=error-session]")
    text = tab.text("[data-testid=session-message]")
    assert re.fullmatch(r"You left the game after \d+ seconds of play\. Net position: £0\.00\.", text), text
    assert page.get_attribute("#app", "data-ended") == "1"
    tab.shot("prot-04-left")
    r = player_call(operator, token, "GET", "/session")
    assert r.status_code == 403 and r.json()["error"]["code"] == "session_closed"


# -- the limits page ---------------------------------------------------------------------------


def test_the_operators_limits_page_is_linked_in_the_top_bar_and_the_reality_check(
    tab: Tab, browser: Any, server: ServerProcess, operator: Operator
) -> None:
    limits = base_url(server) + "/api/v1/health?page=limits"  # a page the test server serves
    _, token = session(operator, limits_url=limits, reality_check_seconds=6)
    page = tab.page
    tab.open(token, GAME)
    tab.idle()
    link = page.locator("[data-testid=limits-link]")
    assert link.is_visible() and link.get_attribute("href") == limits
    assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener noreferrer"
    assert "limits" in (link.get_attribute("aria-label") or "").lower()
    with page.context.expect_page() as opened:
        link.click()
    popup = opened.value
    popup.wait_for_load_state()
    assert popup.url == limits
    popup.close()
    tab.shot("prot-05-limits-link")
    page.wait_for_selector("[data-testid=reality-check]", timeout=15_000)
    assert page.get_attribute("[data-testid=reality-limits]", "href") == limits
    tab.shot("prot-06-reality-check-with-limits")
    page.click("[data-testid=reality-continue]")

    gen = phone_tab(browser, server)
    phone = next(gen)
    try:
        phone.open(token, GAME)
        phone.idle()
        b = box(phone.page, "[data-testid=limits-link]")
        assert b["width"] >= 44 and b["height"] >= 44 and b["x"] + b["width"] <= PHONE["width"]
        phone.shot("prot-07-phone-limits-link")
    finally:
        next(gen, None)

    # Without a limits page there is no link.
    _, plain = session(operator)
    tab.open(plain, GAME)
    tab.idle()
    assert page.locator("[data-testid=limits-link]").count() == 0


# -- toasts and errors keep clear of the controls ------------------------------------------------


@pytest.mark.parametrize("name,viewport", [("desktop", DESKTOP), ("phone", PHONE), ("landscape", LANDSCAPE)])
def test_toasts_and_error_dialogs_never_cover_the_spin_button_or_the_bet(
    browser: Any,
    server: ServerProcess,
    operator: Operator,
    gnomes_data: Any,
    name: str,
    viewport: dict[str, int],
) -> None:
    # A round left in play (free spins forced by scripted draws): opening the game restores
    # it and says so in a toast.
    _, restored = session(operator, credit=10_000)
    body = {"game": "reign-of-gnomes", "stake": 40, "script": trigger_script(gnomes_data)}
    r = player_call(operator, restored, "POST", "/rounds", json=body)
    assert r.status_code == 201 and r.json()["round"]["status"] == "pending", r.text
    _, poor = session(operator, credit=30)  # less than the smallest bet: a spin is refused
    phone = viewport is not DESKTOP
    gen = new_tab(browser, base_url(server), viewport=viewport, is_mobile=phone, has_touch=phone)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(restored, GAME)
        toast = page.wait_for_selector("[data-testid=toast]")
        assert toast is not None and "restored" in toast.inner_text()
        page.wait_for_timeout(300)
        t = box(page, "[data-testid=toast]")
        controls = [box(page, f"[data-testid={c}]") for c in ("spin", "bet-value", "bet-up", "bet-down")]
        bar = box(page, "#topbar")
        assert t["y"] >= bar["y"] + bar["height"] - 1  # under the top bar
        for c in controls:
            assert not overlap(t, c), (t, c)
        tab.shot(f"prot-08-toast-{name}")

        tab.allow(r"status of 402")  # the refused spin, on purpose
        tab.open(poor, GAME)
        tab.idle()
        controls = [box(page, f"[data-testid={c}]") for c in ("spin", "bet-value", "bet-up", "bet-down")]
        page.click("[data-testid=spin]")  # 30p does not cover 40p
        page.wait_for_selector("[data-testid=error-insufficient-funds]")
        page.wait_for_timeout(300)
        card = box(page, "[data-testid=error-insufficient-funds]")
        for c in controls:
            assert not overlap(card, c), (card, c)
        # The dimmed part of the backdrop ends where the control bar begins: the bet and the
        # spin button are in view, not greyed out.
        dim = page.evaluate(
            """() => {
                const b = document.querySelector('.modal-backdrop--clear');
                const s = getComputedStyle(b, '::before');
                return {
                    bottom: parseFloat(s.bottom), right: parseFloat(s.right), h: innerHeight, w: innerWidth,
                };
            }"""
        )
        assert dim["bottom"] > 0 or dim["right"] > 0, dim
        for c in controls:
            clear_below = dim["h"] - dim["bottom"] <= c["y"] + 0.5
            clear_right = dim["w"] - dim["right"] <= c["x"] + 0.5
            assert clear_below or clear_right, (dim, c)
        tab.shot(f"prot-09-error-{name}")
        page.click("[data-testid=error-insufficient-funds] .modal__actions .btn >> nth=0")
        page.wait_for_selector("[data-testid=error-insufficient-funds]", state="detached")
    finally:
        next(gen, None)


# -- every screen change opens at the top ------------------------------------------------------


def scrolled(page: Any) -> float:
    return float(page.evaluate("() => document.getElementById('view').scrollTop"))


def scroll_down(page: Any) -> None:
    page.evaluate("() => { const v = document.getElementById('view'); v.scrollTop = v.scrollHeight; }")
    assert scrolled(page) > 50, "the screen should be long enough to scroll here"


def test_every_screen_change_opens_at_the_top(
    browser: Any, server: ServerProcess, operator: Operator
) -> None:
    _, token = session(operator)
    for _ in range(25):  # a history longer than a phone screen
        body = {"game": "reign-of-gnomes", "stake": 40}
        r = player_call(operator, token, "POST", "/rounds", json=body)
        assert r.status_code == 201, r.text
        rnd = r.json()["round"]
        while rnd["status"] == "pending":  # a feature: the default actions to its end
            spec = rnd["actions"][0]
            r = player_call(
                operator, token, "POST", f"/rounds/{rnd['id']}/actions",
                json={"action": spec["name"], "choice": spec.get("default")},
            )  # fmt: skip
            assert r.status_code == 200, r.text
            rnd = r.json()["round"]
    gen = phone_tab(browser, server)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(token)
        page.wait_for_selector("[data-testid=lobby]")
        scroll_down(page)
        page.click("[data-game=reign-of-gnomes]")  # lobby -> game
        page.wait_for_selector("[data-testid=game-screen]")
        tab.idle()
        assert scrolled(page) == 0
        tab.shot("prot-10-phone-game-after-scrolled-lobby")

        page.click("#btn-history")  # game -> history
        page.wait_for_selector("[data-testid=history-row]")
        assert scrolled(page) == 0
        page.click("[data-testid=history-more]")  # 20 games: longer than the screen
        page.wait_for_function("() => document.querySelectorAll('[data-testid=history-row]').length >= 20")
        scroll_down(page)
        page.locator("[data-testid=history-row]").last.click()  # history -> recall
        page.wait_for_selector("[data-testid=recall]")
        assert scrolled(page) == 0
        tab.shot("prot-11-phone-recall-at-top")
        page.evaluate("() => { const v = document.getElementById('view'); v.scrollTop = v.scrollHeight; }")
        page.go_back()  # recall -> history
        page.wait_for_selector("[data-testid=history-row]")
        assert scrolled(page) == 0
        scroll_down(page)
        page.click("#nav-back")  # history -> game
        page.wait_for_selector("[data-testid=game-screen]")
        tab.idle()
        assert scrolled(page) == 0
        page.click("#nav-back")  # game -> lobby
        page.wait_for_selector("[data-testid=lobby]")
        assert scrolled(page) == 0
        scroll_down(page)
        page.evaluate("() => { location.hash = '#/history'; }")  # lobby -> history
        page.wait_for_selector("[data-testid=history-row]")
        assert scrolled(page) == 0
        tab.shot("prot-12-phone-history-at-top")
    finally:
        next(gen, None)
