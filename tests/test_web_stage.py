"""The game stage: big reels and a themed scene behind them, for every registered game, on a
desktop (1366 x 768), a phone held sideways (844 x 390) and upright (390 x 844); and the
scene's weight.

- The reel area (the reel window with its frame, ``[data-testid=reel-frame]``) is at least 60%
  of the viewport's height on the desktop and the sideways phone; Los 3 Pinguinos' cabinet
  (its lit paytable, displays and reels: the machine) at least 45%.
- It lies wholly inside the viewport (upright phones too), above the control bar.
- The game's scene (``[data-testid=scene]``, SVG drawn in the repo) is there, fills the stage,
  and lies behind the reels (lower in the stacking order, never catching a click).
- The scene is light: one small module per game, asking for no image or font (the page's
  cold-cache load time is measured by ``bench/client_load.py --game ID``).

Screenshots: test-artifacts/screenshots/stage-<game>-<view>.png.  The games come from the
registry (test-only games aside) and are checked against the server's ``GET /games``, so a new
game is covered (and needs a scene).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from reelforge.games import registry
from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

GAMES = sorted(g for g in registry() if not g.startswith("test-"))
VIEWS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1366, "height": 768}},
    "phone-landscape": {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True},
    "phone-portrait": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
# The share of the viewport's height the reel area must take (upright phones: no figure, the
# reels are as wide as the phone).
MIN_FRACTION = {"desktop": 0.60, "phone-landscape": 0.60}
CABINET_FRACTION = 0.45
CABINET_GAMES = {"los-3-pinguinos"}
# The page load budget asked for.  Measured on the shared 2-core machine: see docs/web-client.md.

MEASURE = """() => {
    const box = (el) => { const r = el.getBoundingClientRect();
        return {top: r.top, left: r.left, bottom: r.bottom, right: r.right,
                width: r.width, height: r.height}; };
    // Los 3 Pinguinos' machine: its lit paytable, the Disco, reels and buttons, the displays.
    const parts = [...document.querySelectorAll(
        '.l3p[data-screen=lower] > :is(.l3p-pay, .l3p-center, .l3p-side)')];
    const union = (els) => {
        const rs = els.map((e) => e.getBoundingClientRect()).filter((r) => r.width && r.height);
        const top = Math.min(...rs.map((r) => r.top)), left = Math.min(...rs.map((r) => r.left));
        const bottom = Math.max(...rs.map((r) => r.bottom)), right = Math.max(...rs.map((r) => r.right));
        return {top, left, bottom, right, width: right - left, height: bottom - top}; };
    const frame = document.querySelector('[data-testid=reel-frame]');
    const area = parts.length ? parts[0].parentElement.querySelector('.l3p-center') : frame;
    const scene = document.querySelector('[data-testid=scene]');
    const stage = document.querySelector('.game__stage');
    const controls = document.querySelector('.controls');
    // What is drawn at the reel area's centre is the reels (or something over them), never the scene.
    const a = area && area.getBoundingClientRect();
    const hit = a && document.elementFromPoint(a.left + a.width / 2, a.top + a.height / 2);
    return {
        area: parts.length ? union(parts) : area && box(area), scene: scene && box(scene), stage: box(stage),
        controls: controls && getComputedStyle(controls).display !== 'none' ? box(controls) : null,
        sceneSvg: !!(scene && scene.querySelector('svg')),
        sceneEvents: scene && getComputedStyle(scene).pointerEvents,
        sceneFirst: !!(scene && scene.parentElement && scene.parentElement.firstElementChild === scene),
        sceneZ: scene && getComputedStyle(scene).zIndex,
        hitScene: !!(hit && scene && scene.contains(hit)),
        hitArea: !!(hit && area.contains(hit)),
        vw: innerWidth, vh: innerHeight,
        scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
    };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-stage"), "20261207")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("stage")


@pytest.fixture(scope="module")
def token(operator: Operator) -> str:
    return operator.player("web-stage", 1000_00)


def base(server: ServerProcess) -> str:
    return server.url.removesuffix("/api/v1")


def test_every_served_game_is_covered(operator: Operator, token: str) -> None:
    served = operator.as_player(token, "GET", "/games")
    ids = sorted(g["id"] for g in (served["games"] if isinstance(served, dict) else served))
    assert [g for g in ids if not g.startswith("test-")] == GAMES


def open_game(tab: Tab, token: str, game: str) -> None:
    tab.open(token, f"#/game/{game}")
    tab.page.wait_for_selector("[data-testid=reel-frame], .l3p-center")
    tab.idle()
    # the layout settled (web fonts are system fonts; container queries resolve on the next frame)
    tab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("game", GAMES)
def test_big_reels_and_a_scene(browser: Any, server: ServerProcess, token: str, game: str, view: str) -> None:
    for tab in new_tab(browser, base(server), **VIEWS[view]):
        open_game(tab, token, game)
        m = tab.page.evaluate(MEASURE)
        tab.shot(f"stage-{game}-{view}")
        area, vw, vh = m["area"], m["vw"], m["vh"]
        assert area, "no reel area"
        fraction = area["height"] / vh
        print(f"\n{game} {view}: reel area {area['width']:.0f}x{area['height']:.0f} = {fraction:.0%} of {vh}")
        need = CABINET_FRACTION if game in CABINET_GAMES else MIN_FRACTION.get(view, 0)
        assert fraction >= need, f"{game} {view}: {area['height']:.0f}px = {fraction:.1%} < {need:.0%}"
        # wholly in view, nothing scrolled off, not under the control bar
        assert area["top"] >= 0 and area["left"] >= 0, area
        assert area["bottom"] <= vh + 0.5 and area["right"] <= vw + 0.5, (area, vw, vh)
        assert m["scrollW"] <= vw and m["scrollH"] <= vh, m
        if m["controls"]:
            c = m["controls"]
            overlaps = not (
                area["bottom"] <= c["top"] + 0.5
                or area["right"] <= c["left"] + 0.5
                or area["left"] >= c["right"] - 0.5
                or area["top"] >= c["bottom"] - 0.5
            )
            assert not overlaps, f"the reel area {area} runs under the control bar {c}"
        # the scene: SVG, filling the stage, behind the reels, never in the way of a click
        scene, stage = m["scene"], m["stage"]
        assert scene and m["sceneSvg"], "no scene"
        assert scene["width"] >= stage["width"] - 1 and scene["height"] >= stage["height"] - 1, (scene, stage)
        assert m["sceneFirst"] and m["sceneEvents"] == "none", m
        assert m["hitArea"] and not m["hitScene"], m


SCENE_BUDGET = 8 * 1024  # decoded bytes of a game's scene module: a few KB of SVG drawn in code


def test_scene_is_light(browser: Any, server: ServerProcess, token: str) -> None:
    """A cold-cache load of a game's page: every scene is one small module (the page preloads
    every module, the games' scenes with them) and none asks for anything more (no image, font
    or style sheet of its own).  How long the page takes to load is measured by
    ``bench/client_load.py --game ID`` (figures in docs/web-client.md), not here: a timed test
    on this shared machine would measure the machine."""
    for tab in new_tab(browser, base(server), viewport={"width": 1366, "height": 768}):
        page = tab.page
        page.goto(f"{base(server)}/?token={token}#/game/{GAMES[0]}")
        page.wait_for_selector("#app[data-ready='1']", timeout=30_000)
        tab.idle()
        assert page.locator("[data-testid=scene]").count() == 1
        files = page.evaluate(
            "() => performance.getEntriesByType('resource')"
            ".map(e => ({name: e.name, size: e.decodedBodySize}))"
        )
        scenes = [f for f in files if re.search(r"scene\.js(\?|$)", f["name"])]
        assert scenes, [f["name"] for f in files]
        assert all(0 < f["size"] <= SCENE_BUDGET for f in scenes), scenes
        media = re.compile(r"\.(png|jpe?g|webp|gif|svg|woff2?)(\?|$)")
        assert [f["name"] for f in files if media.search(f["name"])] == []
