"""Kept exact figures (engine/exact_store.py): read back instead of computed while the data and
the code are what they were, computed afresh when either changes or the file is damaged.  The
kit's ``test_the_game_keeps_its_word`` checks, for every game, variant and mode, that a kept
report reads back equal to a fresh computation."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from reelforge.engine import exact_store
from reelforge.engine.exact_store import ExactStore, figures_key
from reelforge.games import get_game

GAME = "golden-scarab"  # the quickest calculator; the store treats every game alike


class Counting:
    """A game whose ``exact`` calls are counted; ``data`` may be replaced (an edited file)."""

    def __init__(self, game: Any, folder: Path | None = None) -> None:
        self.game, self.calls, self.edits = game, 0, {}
        self.id, self.default_variant = game.id, game.default_variant
        self.folder = folder or game.folder

    def data(self, variant: str | None = None) -> Any:
        return self.edits.get(variant, self.game.data(variant))

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        self.calls += 1
        return self.game.exact(variant=variant, mode=mode)


@pytest.fixture
def game() -> Counting:
    return Counting(get_game(GAME))


def test_a_kept_report_is_read_by_a_new_store_without_computing(tmp_path: Path, game: Counting) -> None:
    first = ExactStore(tmp_path).exact(game)
    assert game.calls == 1
    again = ExactStore(tmp_path / ".." / tmp_path.name).exact(game)  # another process's store
    assert game.calls == 1 and again == first == game.game.exact(game.default_variant)
    assert stat.S_IMODE(tmp_path.stat().st_mode) & 0o077 == 0  # owner only
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_a_changed_data_file_is_recomputed(tmp_path: Path, game: Counting) -> None:
    store = ExactStore(tmp_path)
    v = game.default_variant
    store.exact(game, v)
    old_key = figures_key(game, v, "base")
    d = game.game.data(v)
    edited = d.game.model_copy(update={"version": d.game.version + "-edited"})
    game.edits[v] = d.model_copy(update={"game": edited})
    assert figures_key(game, v, "base") != old_key
    store.exact(game, v)
    assert game.calls == 2
    store.exact(game, v)  # and kept under the new key
    assert game.calls == 2
    game.edits.clear()  # the file as it was: its key again, whose report was overwritten
    store.exact(game, v)
    assert game.calls == 3


def test_changed_code_is_recomputed(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "rules.py").write_text("PAYS = 1\n")
    game = Counting(get_game(GAME), folder)
    store = ExactStore(tmp_path / "figures")
    store.exact(game)
    (folder / "rules.py").write_text("PAYS = 2\n")
    exact_store._source_digest.cache_clear()  # a new process reads the sources afresh
    try:
        store.exact(game)
    finally:
        exact_store._source_digest.cache_clear()
    assert game.calls == 2


@pytest.mark.parametrize("damage", ["not json", '{"key": "other", "exact": {}}', '{"key": 1}', "[]"])
def test_a_damaged_or_foreign_file_is_recomputed(tmp_path: Path, game: Counting, damage: str) -> None:
    store = ExactStore(tmp_path)
    good = store.exact(game)
    path = store.path(game, game.default_variant, "base")
    doc = json.loads(path.read_text())
    if damage.startswith('{"key": "other"'):
        damage = json.dumps({"key": "0" * 64, "exact": {**good, "rtp": 0.5}})
    path.write_text(damage)
    assert store.exact(game) == good and game.calls == 2
    assert json.loads(path.read_text()) == doc  # rewritten whole


def test_a_store_that_cannot_write_still_answers(tmp_path: Path, game: Counting) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the directory would be")
    store = ExactStore(blocked / "figures")
    assert store.exact(game)["rtp"] == game.game.exact(game.default_variant)["rtp"]


def test_the_default_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REELFORGE_FIGURES_DIR", str(tmp_path / "kept"))
    assert exact_store.default_dir() == tmp_path / "kept"
    monkeypatch.delenv("REELFORGE_FIGURES_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert exact_store.default_dir() == tmp_path / "reelforge" / "figures"
    assert os.fspath(ExactStore().directory) == os.fspath(tmp_path / "reelforge" / "figures")
