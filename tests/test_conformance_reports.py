"""The conformance kit, evidence part: every registered game's certification bundle (its PAR
sheet for every mode, the reachability section, the RNG section, the digests) is built with
short samples and verified, through the registry alone.  A game without a PAR adapter or
without reachability gets the cautious fallbacks, which say what is missing: the kit checks
that a game declaring them gives them whole.

Short samples keep it quick (20,000 simulated rounds per mode, dieharder's birthdays test
alone, 200 kB for ent); the long runs are the bundle's defaults, ``reelforge certify``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reelforge.analysis.certify.bundle import build_bundle
from reelforge.analysis.certify.digests import verify
from reelforge.analysis.certify.model import Options
from reelforge.engine.capabilities import has
from reelforge.games import get_game, registry

GAMES = sorted(registry())


@pytest.mark.parametrize("game_id", GAMES)
def test_the_certification_bundle_is_built_whole_and_verifies(game_id: str, tmp_path: Path) -> None:
    game = get_game(game_id)
    out = tmp_path / "bundle"
    options = Options(
        variants=[game.default_variant],
        modes=list(game.modes),
        rounds=20_000,
        seed=11,
        rng_draws=20_000,
        ent_bytes=200_000,
        dieharder_tests=[0],
    )
    build_bundle(game, out, options)
    assert verify(out) == []
    html = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    for mode in game.modes:  # a PAR sheet per mode, naming the game and its exact RTP
        sheet = [p for p in html if "par" in p and mode in p]
        assert sheet, (mode, html)
        text = (out / sheet[0]).read_text()
        assert game.name in text
        exact = game.exact(variant=game.default_variant, mode=mode)
        assert f"{100 * exact['rtp']:.2f}" in text, (mode, exact["rtp"])
    if has(game, "reachability"):
        reach = json.loads(next(out.rglob("reachability.json")).read_text())
        assert reach["passed"], [s for s in reach["sections"] if not s["passed"]]
    # Altering a file of the bundle is caught.
    victim = out / html[0]
    victim.write_text(victim.read_text() + " ")
    assert any(html[0] in line for line in verify(out)), verify(out)
