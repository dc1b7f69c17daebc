"""Games written only as data: a folder of ``games/`` with ``data/*.toml`` and no Python,
whose data files' ``[game] kind`` names the engine building block that plays them
(``kind = "lines"``: :class:`reelforge.engine.lines.LinesGame`).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from reelforge.engine.game import Game

GAMES_DIR = Path(__file__).parent
KINDS = ("lines",)


def kind_of(folder: Path) -> str | None:
    """The engine kind a data-only game folder names, None for any other folder."""
    if (folder / "__init__.py").exists():
        return None  # a game with rules of its own
    files = sorted((folder / "data").glob("*.toml"))
    if not files:
        return None
    try:
        kind = tomllib.loads(files[0].read_text()).get("game", {}).get("kind")
    except tomllib.TOMLDecodeError:
        return None
    return kind if isinstance(kind, str) else None


@cache
def discover() -> tuple[Game, ...]:
    """Every data-only game under ``games/``, in folder order."""
    from reelforge.engine.lines import LinesGame

    games: list[Game] = []
    for folder in sorted(p for p in GAMES_DIR.iterdir() if p.is_dir()):
        kind = kind_of(folder)
        if kind is None:
            continue
        if kind not in KINDS:
            raise ValueError(f"{folder.name}: unknown game kind {kind!r}; the engine plays {KINDS}")
        games.append(LinesGame(folder))
    return tuple(games)
