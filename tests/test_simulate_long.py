"""Long runs: the seed contract over workers and lengths, ``--precision`` and Ctrl-C.

What the driver promises (see :mod:`reelforge.analysis.simulate`): for a seed and a chunk
size, the result and every progress report are the same in this process and on Dask with
any number of workers, whatever order the chunks finish in; and a run stopped after ``k``
chunks (by the precision or Ctrl-C) is exactly the run of ``k`` chunks.  The chunk size is
part of the seed, so another chunk size is checked to give another (recorded) result.

One local Dask cluster serves the module, grown from one worker to three.
"""

from __future__ import annotations

import json
import logging
import math
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
from typer.testing import CliRunner

from reelforge.analysis.simulate import Interrupted, Report, chunk_seed, simulate
from reelforge.cli import app
from reelforge.engine.stats import SimStats
from reelforge.games import get_game
from test_simulate import ToyGame

Z99 = 2.5758293035489004  # the two-sided 99% normal quantile, written out here on purpose
GNOMES = "reign-of-gnomes"
_CLI = "import sys; from reelforge.cli import app; sys.argv[0] = 'reelforge'; app()"
_TIMING = {"rounds_per_second", "seconds", "workers"}


def _core(result: dict[str, Any]) -> dict[str, Any]:
    """Everything a seed decides: the timings and the worker count aside."""
    return {k: v for k, v in result.items() if k not in _TIMING}


def _stats_part(result: dict[str, Any]) -> dict[str, Any]:
    """The figures of the rounds themselves (no run details such as the maximum or the stop)."""
    return {k: result[k] for k in SimStats(stake=1, rounds=1).summary()}


def _half(stats: SimStats) -> float:
    """Half-width of the 99% interval of the RTP, from the integer sums: the textbook formula,
    not the driver's code."""
    n, stake = stats.rounds, stats.stake
    mean = stats.win / n
    var = stats.win_sq / n - mean * mean
    return Z99 * math.sqrt(var) / stake / math.sqrt(n)


def _merged(game: ToyGame, seed: int, chunk: int, k: int) -> SimStats:
    parts = [game.simulate_chunk(chunk, chunk_seed(seed, i)) for i in range(k)]
    total = parts[0]
    for p in parts[1:]:
        total = total.merge(p)
    return total


class SlowFirst(ToyGame):
    """The toy with a slow chunk 0, so chunks 1.. finish first on two or more workers;
    each chunk notes its index in ``log`` as it finishes."""

    def __init__(self, log: Path) -> None:
        super().__init__()
        self.log = str(log)

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        if seed.spawn_key == (0,):
            time.sleep(0.5)
        stats = super().simulate_chunk(rounds, seed, variant=variant, mode=mode)
        with open(self.log, "a") as f:
            f.write(f"{seed.spawn_key[0]}\n")
        return stats


class CtrlC(ToyGame):
    """The toy that sends this process ``presses`` SIGINTs while it plays chunk ``at``
    (in this process: the Ctrl-C of a user, at a known place)."""

    def __init__(self, at: int, presses: int = 1) -> None:
        super().__init__()
        self.at, self.presses = at, presses

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        stats = super().simulate_chunk(rounds, seed, variant=variant, mode=mode)
        if seed.spawn_key == (self.at,):
            for _ in range(self.presses):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.01)  # the handler runs between the two presses
        return stats


class CtrlCParent(ToyGame):
    """On a Dask worker: sends SIGINT to the worker's parent (the test process, whose
    local cluster spawned it) while playing chunk ``at``."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        if seed.spawn_key == (self.at,):
            os.kill(os.getppid(), signal.SIGINT)
        return super().simulate_chunk(rounds, seed, variant=variant, mode=mode)


class NoWin(ToyGame):
    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        return SimStats(stake=10, rounds=rounds)


# -- one local cluster for the module ------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import LocalCluster

    c = LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # 8787 may be taken
        silence_logs=logging.CRITICAL,
    )
    yield c
    c.close()


def on_workers(cluster: Any, n: int) -> str:
    """The shared cluster scaled to exactly ``n`` workers; its scheduler's address."""
    cluster.scale(n)
    deadline = time.monotonic() + 60
    while len(cluster.scheduler_info["workers"]) != n:
        assert time.monotonic() < deadline, f"cluster did not reach {n} workers"
        time.sleep(0.05)
    return str(cluster.scheduler_address)


# -- the seed contract -----------------------------------------------------------------------


def test_real_game_identical_on_1_2_3_workers(cluster: Any) -> None:
    game = get_game(GNOMES)
    args: dict[str, Any] = {"chunk_rounds": 50_000}
    local: list[Report] = []
    ref = simulate(game, 530_000, 31, progress=local.append, **args)
    assert ref["chunks"] == 11 and ref["workers"] == 1
    for n in (1, 2, 3):
        seen: list[Report] = []
        out = simulate(game, 530_000, 31, scheduler=on_workers(cluster, n), progress=seen.append, **args)
        assert out["workers"] == n
        assert _core(out) == _core(ref)
        assert seen[-1].stats == local[-1].stats  # every SimStats field, the counters included
        assert [r.stats for r in seen] == [r.stats for r in local]  # and every report on the way


def test_chunks_finishing_out_of_order_are_counted_in_order(cluster: Any, tmp_path: Path) -> None:
    log = tmp_path / "finished.txt"
    local: list[Report] = []
    seen: list[Report] = []
    ref = simulate(ToyGame(), 7_500, 12, chunk_rounds=1000, progress=local.append)
    out = simulate(
        SlowFirst(log), 7_500, 12, chunk_rounds=1000, scheduler=on_workers(cluster, 3), progress=seen.append
    )
    finished = [int(x) for x in log.read_text().split()]
    assert sorted(finished) == list(range(8))
    assert finished[0] != 0  # the slow chunk 0 did finish after others
    assert _core(out) == _core(ref)
    assert [r.stats for r in seen] == [r.stats for r in local]  # reports in chunk order
    assert [r.chunks for r in seen] == list(range(1, 9))


def test_a_run_is_the_start_of_any_longer_run() -> None:
    long: list[Report] = []
    simulate(ToyGame(), 8_300, 4, chunk_rounds=1000, progress=long.append)
    for k in (1, 5, 8):
        short: list[Report] = []
        out = simulate(ToyGame(), k * 1000, 4, chunk_rounds=1000, progress=short.append)
        assert short[-1].stats == long[k - 1].stats
        assert _stats_part(out) == long[k - 1].stats.summary()


def test_the_chunk_size_is_part_of_the_seed() -> None:
    a = simulate(ToyGame(), 4000, 4, chunk_rounds=1000)
    b = simulate(ToyGame(), 4000, 4, chunk_rounds=500)
    assert (a["chunk_rounds"], b["chunk_rounds"]) == (1000, 500)
    assert a["rounds"] == b["rounds"] == 4000
    assert a["rtp"] != b["rtp"]  # other rounds: the same law, not the same draws


# -- precision ---------------------------------------------------------------------------------


def test_precision_stops_at_the_first_chunk_within_it() -> None:
    precision = 0.05  # of the stake: RTP +- 5 points
    seen: list[Report] = []
    out = simulate(ToyGame(), 40_000, 8, chunk_rounds=1000, precision=precision, progress=seen.append)
    # Brute force: the first prefix of chunks whose interval is narrow enough.
    k = next(k for k in range(1, 41) if _half(_merged(ToyGame(), 8, 1000, k)) <= precision)
    assert 3 < k < 40  # it stops early, and not at once
    assert (out["stop"], out["chunks"], out["rounds"], out["rounds_max"]) == (
        "precision",
        k,
        k * 1000,
        40_000,
    )
    assert out["precision"] == precision
    assert out["ci99_half_width"] == pytest.approx(_half(_merged(ToyGame(), 8, 1000, k)), rel=1e-12)
    assert out["ci99_half_width"] <= precision
    assert all(r.half_width > precision for r in seen[:-1]) and len(seen) == k
    # It is the run of k chunks, and it is the same again.
    assert _stats_part(out) == _stats_part(simulate(ToyGame(), k * 1000, 8, chunk_rounds=1000))
    assert _core(out) == _core(simulate(ToyGame(), 40_000, 8, chunk_rounds=1000, precision=precision))


def test_precision_stops_at_the_same_chunk_on_1_and_2_workers(cluster: Any) -> None:
    args: dict[str, Any] = {"chunk_rounds": 1000, "precision": 0.05}
    ref = simulate(ToyGame(), 60_000, 21, **args)
    assert ref["stop"] == "precision" and ref["rounds"] < 60_000
    for n in (1, 2):
        out = simulate(ToyGame(), 60_000, 21, scheduler=on_workers(cluster, n), **args)
        assert out["workers"] == n
        assert _core(out) == _core(ref)


def test_precision_not_reached_runs_to_the_maximum() -> None:
    out = simulate(ToyGame(), 5000, 8, chunk_rounds=1000, precision=0.001)
    assert (out["stop"], out["rounds"], out["precision"]) == ("rounds", 5000, 0.001)
    assert out["ci99_half_width"] > 0.001


def test_precision_never_stops_on_a_prefix_without_spread() -> None:
    out = simulate(NoWin(), 3000, 1, chunk_rounds=1000, precision=0.5)  # a zero-width interval
    assert (out["stop"], out["rounds"], out["ci99_half_width"]) == ("rounds", 3000, 0.0)


@pytest.mark.parametrize("precision", [0, -0.01, math.nan, math.inf, True, "0.1"])
def test_bad_precision_is_refused_before_any_work(precision: Any) -> None:
    game = ToyGame()
    with pytest.raises(ValueError, match="precision"):
        simulate(game, 1000, 1, precision=precision)
    assert game.calls == []


# -- Ctrl-C in the driver --------------------------------------------------------------------------


def test_ctrl_c_in_process_counts_the_chunk_it_came_in() -> None:
    with pytest.raises(Interrupted) as caught:
        simulate(CtrlC(at=3), 50_000, 6, chunk_rounds=1000)
    result = caught.value.result
    assert result is not None
    assert (result["stop"], result["chunks"], result["rounds"], result["rounds_max"]) == (
        "interrupted",
        4,
        4000,
        50_000,
    )
    assert _stats_part(result) == _stats_part(simulate(ToyGame(), 4000, 6, chunk_rounds=1000))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handed back


def test_a_second_ctrl_c_gives_up_the_chunk_in_play() -> None:
    with pytest.raises(Interrupted) as caught:
        simulate(CtrlC(at=3, presses=2), 50_000, 6, chunk_rounds=1000)
    result = caught.value.result
    assert result is not None and (result["stop"], result["rounds"]) == ("interrupted", 3000)
    assert _stats_part(result) == _stats_part(simulate(ToyGame(), 3000, 6, chunk_rounds=1000))


def test_ctrl_c_before_any_chunk_counted_has_no_result() -> None:
    with pytest.raises(Interrupted) as caught:
        simulate(CtrlC(at=0, presses=2), 5000, 6, chunk_rounds=1000)
    assert caught.value.result is None


def test_ctrl_c_on_dask_cancels_and_keeps_the_counted_start(cluster: Any) -> None:
    from distributed import Client

    address = on_workers(cluster, 2)
    with pytest.raises(Interrupted) as caught:
        simulate(CtrlCParent(at=40), 400_000, 6, chunk_rounds=1000, scheduler=address)
    result = caught.value.result
    assert result is not None and result["stop"] == "interrupted"
    assert 0 < result["rounds"] < 400_000 and result["rounds"] % 1000 == 0
    # Whatever had finished, the count is the run of that many chunks.
    again = simulate(ToyGame(), result["rounds"], 6, chunk_rounds=1000)
    assert _stats_part(result) == _stats_part(again)
    # Nothing of the run is left on the cluster.
    with Client(address) as client:
        deadline = time.monotonic() + 10
        while any(client.processing().values()):
            assert time.monotonic() < deadline, "chunks still running after the interrupt"
            time.sleep(0.05)


# -- the command -----------------------------------------------------------------------------------

runner = CliRunner()


def test_cli_precision_stops_early_and_reports_it() -> None:
    args = ["simulate", GNOMES, "--rounds", "20000000", "--seed", "9", "--precision", "0.7", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)  # stdout is the JSON alone
    assert out["stop"] == "precision" and out["precision"] == pytest.approx(0.007)
    assert out["ci99_half_width"] <= 0.007 and out["rounds"] < 20_000_000
    assert out["rounds"] == out["chunks"] * 2**20
    # stderr is not a terminal here: a plain progress line, no bar, no escape codes.
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "\x1b" not in result.stderr
    assert re.fullmatch(
        rf"simulating {GNOMES}: 1,048,576/20,000,000 rounds, 1 chunk, [\d,]+ rounds/s, "
        r"RTP \d+\.\d{4}% ± \d+\.\d{4} pts \(99%\)",
        lines[0],
    )
    table = runner.invoke(app, args[:-1])
    assert table.exit_code == 0 and "precision reached" in table.stdout and "±0.7000 points" in table.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--precision", "0"], "--precision must be a positive number of RTP points"),
        (["--precision", "-0.1"], "--precision must be a positive number of RTP points"),
        (["--precision", "nan"], "--precision must be a positive number of RTP points"),
        (["--chunk-rounds", "0"], "--chunk-rounds must be positive"),
    ],
)
def test_cli_bad_long_run_options(extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", GNOMES, "--rounds", "10", "--seed", "1", *extra])
    assert result.exit_code == 2
    assert f"error: {message}" in result.stderr


def _read_until(fd: int, pattern: bytes, timeout: float) -> bytes:
    buf = b""
    deadline = time.monotonic() + timeout
    while pattern not in buf:
        assert time.monotonic() < deadline, buf[-2000:]
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            buf += os.read(fd, 65536)
    return buf


def _read_to_end(fd: int, timeout: float) -> bytes:
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the child is gone and the terminal closed
                return buf
            if not data:
                return buf
            buf += data
    raise AssertionError("the command did not end")


def test_ctrl_c_at_a_terminal_prints_the_count_and_exits_130() -> None:
    """The command on a real terminal: the bar shows the running RTP, a Ctrl-C typed at the
    keyboard stops it, the table shows what was counted and the exit code is 130."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, with the terminal as its stdin, stdout and stderr
        os.environ["COLUMNS"] = "160"
        os.execv(
            sys.executable,
            [sys.executable, "-c", _CLI, "simulate", GNOMES, "--rounds", "1000000000", "--seed", "3"],
        )
    try:
        before = _read_until(fd, b"pts (99%)", timeout=60)  # a bar drawn after a chunk
        assert b"rounds/s" in before and b"RTP " in before
        os.write(fd, b"\x03")  # Ctrl-C, as typed
        after = _read_to_end(fd, timeout=60)
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 130
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", after).decode()
    counted = re.search(
        r"interrupted: counted ([\d,]+) rounds, the same as `--rounds (\d+) --seed (\d+)`", text
    )
    assert counted is not None, text
    rounds = int(counted.group(2))
    assert counted.group(1).replace(",", "") == counted.group(2) and rounds % 2**20 == 0 and rounds > 0
    assert re.search(rf"rounds\s*│\s*{counted.group(1)}\s*│", text)
    assert f"(Ctrl-C) after {counted.group(1)} of 1,000,000,000 rounds" in text


def test_ctrl_c_on_local_dask_workers_exits_130_with_the_counted_json() -> None:
    """SIGINT to the whole process group, as a terminal sends it (workers included): the
    command prints the JSON of the chunks counted, closes its cluster and exits 130; the
    figures are those of a run of that many rounds."""
    args = ["simulate", GNOMES, "--rounds", "1000000000", "--seed", "5", "--workers", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLI, *args, "--chunk-rounds", "100000", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        first = proc.stderr.readline() if proc.stderr else ""
        assert first.startswith(f"simulating {GNOMES}: 100,000/"), first
        workers = psutil.Process(proc.pid).children(recursive=True)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["stop"] == "interrupted" and result["workers"] == 2 and result["rounds"] % 100_000 == 0
    assert f"interrupted: counted {result['rounds']:,} rounds" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err  # the workers did not take it
    again = simulate(get_game(GNOMES), result["rounds"], 5, chunk_rounds=100_000)
    assert _stats_part(result) == _stats_part(again)
    time.sleep(0.5)
    assert [p.pid for p in workers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
