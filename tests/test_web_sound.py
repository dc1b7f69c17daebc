"""Sound in the browser client (js/sound.js and each game's ``<game>-sounds.js``), in Debian's
Chromium against a real ``reelforge serve``:

* off by default: no AudioContext is created, every cue is logged as not played;
* the sound button creates the AudioContext on its click; the volume control beside it (shown
  while sound is on, keyboard-operable) drives the master gain; both are remembered, and a
  remembered "on" waits for the visit's first gesture before creating the context;
* each registered game asks for its own set's cues during a round (spin, reel stop, a win
  tier); data-only games use the default set;
* with sound on, or with audio failing outright, rounds complete with no console error.

The page's test hook: ``window.__reelforgeAudio.state()`` ({enabled, volume, context, gain,
target, set, game, cues}) and ``.log`` ([{name, cue, set, own, played}]).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from reelforge.games import registry
from server_process import ServerProcess
from test_web_a11y import serious
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

# Counts the AudioContexts the page creates (the client makes one at most, on a gesture).
COUNT_CONTEXTS = """
(() => {
  const AC = window.AudioContext;
  window.__contexts = 0;
  if (!AC) return;
  window.AudioContext = class extends AC {
    constructor(...a) { super(...a); window.__contexts += 1; }
  };
})();
"""

# Audio that fails outright: creating a context throws.
BROKEN_AUDIO = """
window.AudioContext = function () { throw new Error("no audio device"); };
window.webkitAudioContext = undefined;
"""

WIN_CUES = {"win-small", "win-medium", "win-big", "win-mega"}


def sound_set(game_id: str) -> str:
    """The set a game should play: its own (a ``*-sounds.js`` beside its renderer) or the default."""
    game = registry()[game_id]
    web = Path(game.folder) / "web"  # type: ignore[attr-defined]
    return game_id if any(web.glob("*-sounds.js")) else "default"


GAMES = sorted(registry())


class Recorder:
    """A seeded stream that records its draws: replayed as a script, the server deals the same."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.draws: list[int] = []

    def randbelow(self, n: int) -> int:
        value = self.rng.randrange(n)
        self.draws.append(value)
        return value


def winning_script(game_id: str) -> list[int]:
    """Draws for a base round at the game's first bet (the client's default) that ends at once
    with a win above the stake, found by dealing in-process (so it follows the rules' data)."""
    game = registry()[game_id]
    stake = game.bet_levels()[0].stake
    for seed in range(50_000):
        rec = Recorder(seed)
        rnd = game.start(stake, rec)
        if rnd.complete and rnd.win > stake:
            return rec.draws
    raise AssertionError(f"no winning round found for {game_id}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-sound"), "20261207")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("sound")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


def state(tab: Tab) -> dict[str, Any]:
    return dict(tab.page.evaluate("() => window.__reelforgeAudio.state()"))


def take_log(tab: Tab) -> list[dict[str, Any]]:
    return list(tab.page.evaluate("() => window.__reelforgeAudio.log.splice(0)"))


def contexts(tab: Tab) -> int:
    return int(tab.page.evaluate("() => window.__contexts"))


def play_round(tab: Tab, op: Operator, token: str, game: str) -> None:
    """One round from the idle screen to its end, each decision taken with Space (the primary)."""
    page = tab.page
    tab.idle()
    page.keyboard.press("Space")
    page.wait_for_selector(".game:not([data-state='idle'])", timeout=10_000)
    for _ in range(40):
        tab.idle()
        if not op.as_player(token, "GET", f"/rounds/pending?game={game}")["rounds"]:
            return
        page.keyboard.press("Space")
        page.wait_for_selector(".game:not([data-state='idle'])", timeout=10_000)
    raise AssertionError("the round did not end")


def test_sound_is_off_by_default(tab: Tab, operator: Operator) -> None:
    page = tab.page
    page.add_init_script(COUNT_CONTEXTS)
    token = operator.player("sound-off", 100_000)
    tab.open(token, "#/game/reign-of-gnomes")
    tab.idle()
    assert page.get_attribute("#btn-sound", "aria-pressed") == "false"
    assert page.locator("#sound-volume").is_hidden()  # the volume shows while sound is on
    take_log(tab)
    play_round(tab, operator, token, "reign-of-gnomes")
    log = take_log(tab)
    assert {e["cue"] for e in log} >= {"spin", "stop"}, log
    assert not any(e["played"] for e in log), log  # asked for, never played
    st = state(tab)
    assert st["enabled"] is False and st["context"] is None and contexts(tab) == 0
    assert page.evaluate("() => localStorage.getItem('reelforge.sound')") is None


def test_the_click_creates_the_context_and_the_volume_drives_the_master_gain(
    tab: Tab, operator: Operator
) -> None:
    page = tab.page
    page.add_init_script(COUNT_CONTEXTS)
    tab.open(operator.player("sound-on", 100_000), "#/game/reign-of-gnomes")
    tab.idle()
    page.mouse.click(5, 300)  # a gesture elsewhere creates nothing while sound is off
    assert contexts(tab) == 0
    page.click("#btn-sound")
    assert page.get_attribute("#btn-sound", "aria-pressed") == "true"
    assert contexts(tab) == 1
    st = state(tab)
    assert st["enabled"] and st["context"] in ("running", "suspended")
    assert st["target"] == pytest.approx(0.7**2)  # the default volume, on a perceptual curve
    page.wait_for_function("() => Math.abs(window.__reelforgeAudio.state().gain - 0.49) < 0.01")
    # The volume: a labelled range input beside the button, by keyboard (and by touch: it is
    # a native slider, 44 px tall on touch screens).
    vol = page.locator("#sound-volume")
    assert vol.is_visible()
    assert vol.get_attribute("aria-label") == "Sound volume"
    vol.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert vol.input_value() == "50" and vol.get_attribute("aria-valuetext") == "50%"
    assert state(tab)["volume"] == pytest.approx(0.5)
    page.wait_for_function("() => Math.abs(window.__reelforgeAudio.state().gain - 0.25) < 0.01")
    page.keyboard.press("Home")
    page.wait_for_function("() => window.__reelforgeAudio.state().gain < 0.001")
    vol.fill("80")  # as a drag or a tap sets it
    page.wait_for_function("() => Math.abs(window.__reelforgeAudio.state().gain - 0.64) < 0.01")
    # Off again (M, once the slider has no focus: it keeps its keys): the master gain goes to
    # silence, the context stays (no second one).
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("m")
    page.wait_for_function("() => window.__reelforgeAudio.state().gain < 0.001")
    assert vol.is_hidden() and contexts(tab) == 1
    page.keyboard.press("m")
    # Remembered: after a reload sound is on at 80 %, but the context waits for a gesture.
    page.reload()
    page.wait_for_selector("#app[data-ready='1']")
    assert page.get_attribute("#btn-sound", "aria-pressed") == "true"
    assert page.locator("#sound-volume").input_value() == "80"
    assert contexts(tab) == 0 and state(tab)["context"] is None
    page.keyboard.press("ArrowUp")  # any key or press: here a bet change
    assert contexts(tab) == 1
    page.wait_for_function("() => Math.abs(window.__reelforgeAudio.state().gain - 0.64) < 0.01")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_volume_is_translated_and_accessible(
    browser: Any, server: ServerProcess, operator: Operator, device: str
) -> None:
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    for tab in new_tab(browser, server.url.removesuffix("/api/v1"), **(phone if device == "phone" else {})):
        page = tab.page
        tab.open(operator.player(f"sound-es-{device}", 100_000), "#/game/reign-of-gnomes", lang="es")
        tab.idle()
        page.click("#btn-sound")
        vol = page.locator("#sound-volume")
        assert vol.get_attribute("aria-label") == "Volumen del sonido"
        assert page.get_attribute("#btn-sound", "aria-label") == "Sonido activado"
        assert not page.evaluate("() => [...(window.__i18nMissing || [])]")
        box = vol.bounding_box()
        assert box and box["height"] >= (44 if device == "phone" else 24), box
        assert vol.is_visible() and page.locator("#btn-sound").is_visible()
        assert not serious(Axe().run(page)), serious(Axe().run(page))
        tab.shot(f"sound-volume-{device}")


@pytest.mark.parametrize("game_id", GAMES)
def test_each_game_plays_its_own_set(tab: Tab, operator: Operator, game_id: str) -> None:
    page = tab.page
    expected = sound_set(game_id)
    token = operator.player(f"sound-{game_id}", 1_000_000)
    tab.open(token, f"#/game/{game_id}")
    tab.idle()
    page.click("#btn-sound")
    # The set loads in the background: the page is playable before it is there.
    page.wait_for_function("name => window.__reelforgeAudio.state().set === name", arg=expected)
    st = state(tab)
    assert st["game"] == game_id and {"spin", "stop"} <= set(st["cues"])
    take_log(tab)
    tab.script(winning_script(game_id))
    play_round(tab, operator, token, game_id)
    heard = take_log(tab)
    played = [e for e in heard if e["played"]]
    cues = {e["cue"] for e in played}
    assert {"spin", "stop"} <= cues, heard
    assert WIN_CUES & cues, heard
    assert all(e["set"] == expected for e in played), played
    if expected != "default":
        own = {e["cue"] for e in played if e["own"]}
        assert {"spin", "stop"} <= own and WIN_CUES & own, played
    # Every cue of the set plays (a synthesis error would be swallowed: logged as not played).
    # No wall-clock bound on a cue: on a loaded machine that measures the machine, not the code.
    page.evaluate(
        """async () => {
            const { sound } = await import("./js/sound.js");
            for (const cue of window.__reelforgeAudio.state().cues) sound.play(cue, { ms: 300 });
        }"""
    )
    log = take_log(tab)
    assert [e["cue"] for e in log if not e["played"]] == [], log
    assert not tab.unexpected_errors()


def test_failing_audio_never_stops_play(browser: Any, server: ServerProcess, operator: Operator) -> None:
    for tab in new_tab(browser, server.url.removesuffix("/api/v1")):
        page = tab.page
        page.add_init_script(BROKEN_AUDIO)
        token = operator.player("sound-broken", 100_000)
        tab.open(token, "#/game/ghost-of-gambini")
        tab.idle()
        page.click("#btn-sound")  # on, but no context can be made: silent, no error
        assert page.get_attribute("#btn-sound", "aria-pressed") == "true"
        assert state(tab)["context"] is None
        take_log(tab)
        play_round(tab, operator, token, "ghost-of-gambini")
        log = take_log(tab)
        assert log and not any(e["played"] for e in log)
        assert page.get_attribute(".game", "data-state") == "idle"
