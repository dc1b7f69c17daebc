"""Games written only as data: a folder of ``games/`` with ``data/*.toml`` and no Python,
whose data files' ``[game] kind`` names the engine building block that plays them
(``kind = "lines"``: :class:`reelforge.engine.lines.LinesGame`).

For ``reelforge tune``, which finds a game's tuning by a module path, each such game's
``GameTuning`` (``game.tuning()``) is also reachable as the module
``reelforge.games.data_only.<id with underscores>`` (attribute ``TUNING``), registered here
when this module is imported.
"""

from __future__ import annotations

import sys
import tomllib
import types
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


def module_name(game_id: str) -> str:
    return f"{__name__}.{game_id.replace('-', '_')}"


def _register_tunings() -> None:
    """A module per game whose ``TUNING`` is built when first asked for (PEP 562), so that
    the registry does not load the tuner's code."""
    for game in discover():
        if not hasattr(game, "tuning"):
            continue
        module = types.ModuleType(module_name(game.id), f"The GameTuning of {game.name} (data only).")

        def tuning_attr(name: str, game: Game = game) -> object:
            if name == "TUNING":
                return game.tuning()  # type: ignore[attr-defined]
            raise AttributeError(name)

        module.__getattr__ = tuning_attr  # type: ignore[method-assign]
        sys.modules[module.__name__] = module


_register_tunings()
