"""The reachability section: every prize's exact odds and the stored max-win draw sequences
replayed (reelforge.analysis.reachability, docs/reachability.md)."""

from __future__ import annotations

import json
from pathlib import Path

from reelforge.analysis.reachability import write_reachability
from reelforge.engine.game import Game

from .model import Options, Section


def build(game: Game, out_dir: Path, options: Options) -> Section:
    paths = write_reachability(game.id, out_dir, variants=options.variants)
    data = json.loads((out_dir / "reachability.json").read_text())
    return Section(
        key="reachability",
        title="Reachability: prize odds and the maximum win replayed",
        files=[p.relative_to(out_dir).as_posix() for p in paths],
        passed=bool(data["passed"]),
        summary=["every max-win sequence replays to the declared maximum"
                 if data["passed"] else "a max-win sequence or a prize's odds did not check out"],
    )  # fmt: skip
