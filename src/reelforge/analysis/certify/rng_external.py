"""Debian's ``dieharder`` and ``ent`` on the production source's raw output.

dieharder reads raw 32-bit words from its stdin (``-g 200``), fed here from
``raw_source.raw_bytes`` in 1 MiB blocks until it has run its tests and closes the pipe
(the whole battery ``-a`` by default; it takes the data it needs, which is why it is fed a
stream, not a file it would rewind).  ent reads a file of ``ent_bytes`` bytes from the same
source, written to the bundle's folder and deleted after.  Their output is kept as is;
the summaries below are parsed from it.
"""

from __future__ import annotations

import contextlib
import re
import shutil

# bandit B404: a fixed argument list for Debian's dieharder/ent, no shell, no user input
import subprocess  # nosec B404
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .model import RawSource

BLOCK = 1 << 20
DIEHARDER_ROW = re.compile(
    r"^\s*(?P<test>\S+)\|\s*(?P<ntup>\d+)\|\s*(?P<tsamples>\d+)\|\s*(?P<psamples>\d+)\|"
    r"\s*(?P<p>[0-9.eE+-]+)\|\s*(?P<verdict>PASSED|WEAK|FAILED)\s*$"
)
ENT_CHI = re.compile(r"would exceed this value (?:(less than|greater than) )?(?P<pct>[0-9.]+) percent")


class MissingTool(RuntimeError):
    """A Debian package the bundle needs is not installed."""


def require(binary: str, package: str) -> str:
    path = shutil.which(binary)
    if path is None:
        raise MissingTool(
            f"{binary} is not installed: the RNG evidence needs Debian's {package} package "
            f"(as root: apt-get install -y {package})"
        )
    return path


@dataclass(frozen=True)
class DieharderRow:
    test: str
    ntup: int
    tsamples: int
    psamples: int
    p: float
    verdict: str  # PASSED | WEAK | FAILED


def parse_dieharder(text: str) -> list[DieharderRow]:
    rows = []
    for line in text.splitlines():
        m = DIEHARDER_ROW.match(line)
        if m:
            rows.append(
                DieharderRow(
                    m["test"],
                    int(m["ntup"]),
                    int(m["tsamples"]),
                    int(m["psamples"]),
                    float(m["p"]),
                    m["verdict"],
                )
            )
    return rows


def run_dieharder(source: RawSource, tests: list[int] | None, output: Path) -> tuple[list[DieharderRow], int]:
    """Run dieharder on the source's stream, its output to ``output``: the whole battery
    (``-a``) or each of ``tests`` in turn (dieharder takes one ``-d``).  Returns the rows and
    the bytes fed (dieharder reads ahead in buffers, so it may not have used them all)."""
    exe = require("dieharder", "dieharder")
    selections = [["-a"]] if tests is None else [["-d", str(t)] for t in tests]
    with output.open("wb") as out:
        fed = sum(_feed(source, [exe, "-g", "200", *sel], out) for sel in selections)
    return parse_dieharder(output.read_text(encoding="utf-8", errors="replace")), fed


def _feed(source: RawSource, argv: list[str], out: IO[bytes]) -> int:
    # bandit B603: a fixed argument list for Debian's dieharder/ent, no shell, no user input
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)  # nosec B603
    assert proc.stdin is not None
    fed = 0
    try:
        while proc.poll() is None:
            block = source.raw_bytes(BLOCK)
            proc.stdin.write(block)
            fed += len(block)
    except BrokenPipeError:  # dieharder is done and closed its end
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    rc = proc.wait()
    if rc != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with code {rc}")
    return fed


@dataclass(frozen=True)
class EntResult:
    entropy: float
    chi_square: float
    chi_percent: float  # how often a random file would exceed this chi-square, in percent
    mean: float
    pi_error_percent: float
    serial: float

    @property
    def verdict(self) -> str:
        """ent's own reading of its chi-square percentage: below 1 or above 99 the bytes are
        almost surely not random, 1-5 or 95-99 suspect (WEAK), else PASSED."""
        pct = self.chi_percent
        if pct < 1 or pct > 99:
            return "FAILED"
        if pct < 5 or pct > 95:
            return "WEAK"
        return "PASSED"


def parse_ent(text: str) -> EntResult:
    def grab(pattern: str) -> float:
        m = re.search(pattern, text)
        if m is None:
            raise ValueError(f"ent output without {pattern!r}:\n{text}")
        return float(m.group(1))

    chi = ENT_CHI.search(text)
    if chi is None:
        raise ValueError(f"ent output without its chi-square percentage:\n{text}")
    return EntResult(
        entropy=grab(r"Entropy = ([0-9.]+) bits per byte"),
        chi_square=grab(r"samples is ([0-9.]+)"),
        chi_percent=float(chi["pct"]),
        mean=grab(r"data bytes is ([0-9.]+)"),
        pi_error_percent=grab(r"\(error ([0-9.]+) percent\)"),
        serial=grab(r"coefficient is (-?[0-9.]+)"),
    )


def run_ent(source: RawSource, n_bytes: int, folder: Path, output: Path) -> EntResult:
    exe = require("ent", "ent")
    sample = folder / "ent-input.bin"
    try:
        with sample.open("wb") as f:
            left = n_bytes
            while left > 0:
                block = source.raw_bytes(min(BLOCK, left))
                f.write(block)
                left -= len(block)
        # bandit B603: a fixed argument list for Debian's dieharder/ent, no shell, no user input
        text = subprocess.run([exe, str(sample)], check=True, capture_output=True, text=True).stdout  # nosec B603
    finally:
        sample.unlink(missing_ok=True)
    output.write_text(text, encoding="utf-8")
    return parse_ent(text)
