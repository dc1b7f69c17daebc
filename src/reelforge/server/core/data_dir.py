"""Owner-only files: the data directory (``.reelforge/``: the operator key and the SQLite
database) is 0700, the key file and the database files 0600.

Made so from the start (never created looser, then narrowed), and tightened when found
looser, with a warning naming the path and both modes.  A path this process cannot change
(another user's) is refused: the server does not start on a key or a database others can
read.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("reelforge.server")

DIR_MODE = 0o700
FILE_MODE = 0o600


class InsecurePath(RuntimeError):
    """A data path others can read or write that this process cannot tighten."""


def tighten(path: Path, mode: int) -> None:
    """Take away every permission of ``path`` beyond ``mode`` (group and others)."""
    st = path.stat()
    current = stat.S_IMODE(st.st_mode)
    if not current & ~mode:
        return
    try:
        path.chmod(current & mode)
    except PermissionError:
        raise InsecurePath(
            f"{path} has mode {current:o}: others can reach it and this user (uid {os.getuid()}) "
            f"cannot change it (owner uid {st.st_uid}); make it {mode:o} or choose another data dir"
        ) from None
    log.warning("tightened %s from mode %o to %o (owner only)", path, current, current & mode)


def secure_dir(path: Path) -> Path:
    """The directory, made (0700) if missing, tightened to owner-only otherwise."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    tighten(path, DIR_MODE)
    return path


def secure_file(path: Path) -> Path:
    """The file, created empty (0600) if missing, tightened to owner-only otherwise.

    An existing file is never opened here: closing any descriptor of a file drops every POSIX
    lock this process holds on it, and SQLite's locks on a database (and its -shm) held by this
    process's open connections would be lost with it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        tighten(path, FILE_MODE)
    return path


def write_secret(path: Path, text: str) -> None:
    """Write a new secret file, 0600 from its creation (it must not exist yet)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "w") as f:
        f.write(text)
