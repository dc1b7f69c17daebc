"""Kept exact figures: a game's exact RTP report, computed once per data file and code, kept
on disk and read back by every later process.

Ghost of Gambini's and Los 3 Pinguinos' calculators take seconds per variant, so a server that
computed them on its first ``GET /games`` kept its first player waiting.  A kept report is keyed
by a digest of everything it is computed from: the variant's validated data (its canonical
JSON, so a changed data file or an edited copy in memory gets a key of its own), the game's id,
variant and mode, and the source of the code that computes it (every ``.py`` file of the game's
folder and of the engine).  A changed data file or calculator therefore finds no kept report
and is computed afresh; an entry is never trusted past its key.

Files are JSON, written to a temporary name and renamed into place (two processes computing
the same report at once both write whole files), in an owner-only directory.  A file that does
not parse, or was written under another key, is recomputed.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

log = logging.getLogger("reelforge.figures")

ENGINE_DIR = Path(__file__).resolve().parent
PACKAGE_DIR = ENGINE_DIR.parent
# Bumped when the kept file's layout changes.
FORMAT = 1


def default_dir() -> Path:
    """``$REELFORGE_FIGURES_DIR``, else the user's cache (``$XDG_CACHE_HOME/reelforge/figures``,
    ``~/.cache/reelforge/figures``)."""
    if env := os.environ.get("REELFORGE_FIGURES_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reelforge" / "figures"


@cache
def _source_digest(folder: Path) -> str:
    """sha256 over the ``.py`` files (path and bytes) of ``folder`` and the engine, and the
    money module: the code an exact report can depend on."""
    h = hashlib.sha256()
    roots = sorted({folder.resolve(), ENGINE_DIR})
    files = [p for root in roots for p in sorted(root.rglob("*.py"))]
    for p in [*files, PACKAGE_DIR / "money.py"]:
        h.update(str(p.relative_to(PACKAGE_DIR)).encode())
        h.update(b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def _data_digest(data: Any) -> str:
    dump = data.model_dump_json() if hasattr(data, "model_dump_json") else json.dumps(data, sort_keys=True)
    return hashlib.sha256(dump.encode()).hexdigest()


def figures_key(game: Any, variant: str, mode: str) -> str:
    """The digest a kept report of ``game``'s ``variant`` and ``mode`` is filed under."""
    data, code = _data_digest(game.data(variant)), _source_digest(game.folder)
    parts = [str(FORMAT), game.id, variant, mode, data, code]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class ExactStore:
    """Exact reports kept in ``directory`` (None: :func:`default_dir`)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else default_dir()

    def path(self, game: Any, variant: str, mode: str) -> Path:
        return self.directory / f"{game.id}--{variant}--{mode}.json"

    def kept(self, game: Any, variant: str, mode: str = "base") -> dict[str, Any] | None:
        """The kept report for the game's data and code as they are now, or None."""
        try:
            doc = json.loads(self.path(game, variant, mode).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("key") != figures_key(game, variant, mode):
            return None
        report = doc.get("exact")
        return report if isinstance(report, dict) else None

    def exact(self, game: Any, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """``game.exact(variant, mode)``, from the kept file when its key matches, else computed
        and kept."""
        variant = variant or game.default_variant
        try:
            figures_key(game, variant, mode)
        except (AttributeError, TypeError, ValueError, OSError):  # no data to digest: never kept
            return game.exact(variant=variant, mode=mode)
        found = self.kept(game, variant, mode)
        if found is not None:
            return found
        with self._computing(game, variant, mode):
            # Another process (a second worker) may have kept it while this one waited.
            found = self.kept(game, variant, mode)
            if found is not None:
                return found
            report = game.exact(variant=variant, mode=mode)
            self.keep(game, variant, mode, report)
        return report

    @contextmanager
    def _computing(self, game: Any, variant: str, mode: str) -> Iterator[None]:
        """One computer of a report at a time across processes (an advisory ``flock`` on a
        lock file beside it): the workers of a new server wait for the first's figures instead
        of each computing them.  Where no lock file can be made, each computes."""
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            lock = self.directory / f".{game.id}--{variant}--{mode}.lock"
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def keep(self, game: Any, variant: str, mode: str, report: dict[str, Any]) -> None:
        """Write the report under its key; a directory that cannot be written only logs."""
        key = figures_key(game, variant, mode)
        doc = {"key": key, "game": game.id, "variant": variant, "mode": mode, "exact": report}
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w") as out:
                    json.dump(doc, out)
                os.replace(tmp, self.path(game, variant, mode))
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("exact figures of %s %s %s not kept in %s: %s", game.id, variant, mode,
                        self.directory, exc)


__all__ = ["ExactStore", "default_dir", "figures_key"]
