"""A private PostgreSQL cluster for the soak: ``initdb`` into a temporary folder, ``pg_ctl`` on a
free loopback port, crash-restarted on demand (``pg_ctl stop -m immediate``, then start: the
server processes lose every connection and PostgreSQL recovers from its WAL).

The machine's shared PostgreSQL (127.0.0.1:5432) is never touched.  PostgreSQL refuses to run
as root, so as root the binaries run as the ``postgres`` OS user (``runuser``) in a folder it
owns.  The binaries are found in ``REELFORGE_PG_BIN``, else the newest
``/usr/lib/postgresql/*/bin``, else on the PATH; :func:`find_bin` returns None when there are
none (the caller decides whether that is a failure).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from server_process import free_port


def find_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    env = os.environ.get("REELFORGE_PG_BIN")
    candidates = [Path(env)] if env else []

    def version(path: str) -> tuple[int, ...]:
        part = Path(path).parent.name
        return tuple(int(x) for x in part.split(".") if x.isdigit())

    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)]
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).parent)
    for c in candidates:
        if (c / "initdb").exists() and (c / "pg_ctl").exists():
            return c
    return None


class PrivatePostgres:
    """One throwaway cluster; :meth:`close` stops it and removes its folder."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="rf_soak_pg_"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.restarts = 0
        self._as: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def url(self, db: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def _run(self, *args: str, timeout: float = 120) -> None:
        done = subprocess.run(
            [*self._as, *args], capture_output=True, text=True, timeout=timeout, cwd=self.root
        )
        if done.returncode:
            raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def init(self) -> None:
        # --no-sync: only initdb's own files skip the fsync; the running cluster keeps fsync on.
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "--no-sync", "-E", "UTF8")  # fmt: skip
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
                  "-w", "-t", "60", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def crash_restart(self, down_seconds: float) -> None:
        """Stop at once (no checkpoint, backends killed: a crash), stay down, start again."""
        self.stop("immediate")
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1

    def create_database(self, name: str) -> str:
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:  # fmt: skip
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("fast")
        shutil.rmtree(self.root, ignore_errors=True)
