"""The Monte Carlo driver: fixed chunks, one spawned seed each, in-process or on Dask.

A run of (at most) ``rounds`` rounds is cut into chunks of ``chunk_rounds`` (the last one
smaller); chunk ``i`` draws from ``SeedSequence(seed).spawn(n)[i]``, which is
``SeedSequence(seed, spawn_key=(i,))`` whatever ``n``.  Chunks are *counted* strictly in
chunk order: chunk ``i`` joins the result only once chunks ``0 .. i-1`` have, however the
workers finish them.  Everything a run reports is a function of that ordered prefix: the
progress reports, the stop on ``precision`` (checked after each chunk counted), the result of
a run interrupted by Ctrl-C, and :class:`SimStats` merge by exact integer sums.

What is invariant, precisely:

- the worker count and the place: in this process, a local Dask cluster of any size or a
  remote one, whatever order the chunks complete in, give the identical result (every field
  but the timings and ``workers``);
- the length: the first ``k`` chunks of a run are the first ``k`` chunks of any longer run
  with the same seed and chunk size, so a run stopped after ``k`` full chunks (by
  ``precision`` or Ctrl-C) is exactly the run of ``k * chunk_rounds`` rounds.

``chunk_rounds`` itself is part of the seed contract, not an invariance: another chunk size
draws other rounds (statistically equivalent, not identical), so every result records it.
"""

from __future__ import annotations

import logging
import math
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal

import numpy as np

from reelforge.engine.game import Game
from reelforge.engine.stats import Z99, SimStats

DEFAULT_CHUNK_ROUNDS = 2**20

Stop = Literal["rounds", "precision", "interrupted"]


@dataclass(frozen=True)
class Report:
    """The run as counted so far (chunks ``0 .. chunks-1``): what progress callbacks get."""

    chunks: int
    stats: SimStats
    rounds_max: int
    seconds: float  # since the first chunk was handed out (cluster start-up excluded)

    @property
    def rounds(self) -> int:
        return self.stats.rounds

    @property
    def rtp(self) -> float:
        return self.stats.win / (self.stats.rounds * self.stats.stake)

    @property
    def half_width(self) -> float:
        """Half-width of the 99% interval of the (capped) RTP, as a fraction of the stake:
        the interval is ``rtp +- half_width``, computed as :meth:`SimStats.summary` does."""
        return half_width(self.stats.summary())

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else float("inf")


Progress = Callable[[Report], None]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`simulate`.  ``result`` is what was counted, the chunks in
    order up to the first one not finished (so it is the result of a shorter run with
    the same seed), with ``stop == "interrupted"``; ``None`` when no chunk was counted."""

    def __init__(self, result: dict[str, Any] | None) -> None:
        super().__init__("simulation interrupted")
        self.result = result


def half_width(summary: dict[str, Any]) -> float:
    """The 99% interval's half-width of a :meth:`SimStats.summary` (same float operations)."""
    return Z99 * summary["std"] / math.sqrt(summary["rounds"])


def chunk_sizes(rounds: int, chunk_rounds: int) -> list[int]:
    """``rounds`` cut into full chunks of ``chunk_rounds`` and one smaller remainder."""
    full, rest = divmod(rounds, chunk_rounds)
    return [chunk_rounds] * full + ([rest] if rest else [])


def chunk_seeds(seed: int, n_chunks: int) -> list[np.random.SeedSequence]:
    # A fresh SeedSequence every time: spawn() is stateful, a reused one would hand out
    # different children on a second call.
    return np.random.SeedSequence(seed).spawn(n_chunks)


def chunk_seed(seed: int, index: int) -> np.random.SeedSequence:
    """Chunk ``index``'s seed, ``chunk_seeds(seed, n)[index]`` for any ``n > index``, built
    alone so a long run (or a precision run's large maximum) never holds a list of them."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def _game_ref(game: Game) -> str | Game:
    """What a task carries to name its game: the registry id when the game is registered
    (workers rebuild it cheaply and it need not pickle), else the object itself (tests,
    games not in the registry), which Dask pickles."""
    from reelforge.games import registry

    return game.id if registry().get(game.id) is game else game


def _resolve(ref: str | Game) -> Game:
    if isinstance(ref, str):
        from reelforge.games import get_game

        return get_game(ref)
    return ref


def run_chunk(
    ref: str | Game, variant: str, mode: str, seed: np.random.SeedSequence, rounds: int
) -> SimStats:
    """One chunk; module-level so Dask workers import it by name."""
    return _resolve(ref).simulate_chunk(rounds, seed, variant=variant, mode=mode)


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def validate(game: Game, rounds: int, seed: int, variant: str | None, mode: str) -> str:
    """Check the request before any work starts; returns the resolved variant."""
    _positive_int("rounds", rounds)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    resolved = variant or game.default_variant
    if resolved not in game.variants:
        raise ValueError(
            f"unknown RTP variant {resolved!r} for {game.id}; offered: {', '.join(game.variants)}"
        )
    if mode not in game.modes:
        raise ValueError(f"unknown mode {mode!r} for {game.id}; offered: {', '.join(game.modes)}")
    return resolved


def validate_precision(precision: float | None) -> None:
    if precision is None:
        return
    if isinstance(precision, bool) or not isinstance(precision, int | float) or not precision > 0:
        raise ValueError(f"precision must be a positive number, got {precision!r}")
    if not math.isfinite(precision):
        raise ValueError(f"precision must be finite, got {precision!r}")


class _Tally:
    """Chunk results in, the ordered prefix out: counts chunk ``i`` once ``0 .. i-1`` are
    counted, reports each, and decides the stop from the prefix alone."""

    def __init__(self, rounds_max: int, precision: float | None, progress: Progress | None) -> None:
        self.rounds_max = rounds_max
        self.precision = precision
        self.progress = progress
        self.report: Report | None = None  # one attribute, assigned at once: see add()
        self.stop: Stop | None = None
        self.workers = 1
        self.interrupt_requested = False  # set by the SIGINT handler of _on_ctrl_c
        self._waiting: dict[int, SimStats] = {}
        self._start = time.perf_counter()

    def start_clock(self) -> None:
        self._start = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self._start

    def add(self, index: int, part: SimStats) -> bool:
        """Chunk ``index`` is in; True once the run is over (no chunk is needed any more)."""
        self._waiting[index] = part
        while self.stop is None:
            counted = self.report.chunks if self.report is not None else 0
            if counted not in self._waiting:
                break
            part = self._waiting.pop(counted)
            merged = part if self.report is None else self.report.stats.merge(part)
            # The prefix is one immutable object set by one assignment, so a Ctrl-C landing
            # anywhere in here leaves a consistent count (at worst a chunk short).
            self.report = Report(counted + 1, merged, self.rounds_max, self.seconds())
            if self.progress is not None:
                self.progress(self.report)
            if self.precision is not None and _precise(self.report, self.precision):
                self.stop = "precision"
            elif self.report.rounds == self.rounds_max:
                self.stop = "rounds"
        if self.stop is None and self.interrupt_requested:
            self.stop = "interrupted"
        return self.stop is not None


def _precise(report: Report, precision: float) -> bool:
    s = report.stats
    # A prefix without any spread (e.g. no win yet) has a zero-width interval that says
    # nothing about the precision: never stop on it.
    if s.rounds * s.win_sq - s.win * s.win <= 0:
        return False
    return report.half_width <= precision


def simulate(
    game: Game,
    rounds: int,
    seed: int,
    *,
    variant: str | None = None,
    mode: str = "base",
    workers: int = 1,
    scheduler: str | None = None,
    chunk_rounds: int = DEFAULT_CHUNK_ROUNDS,
    precision: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Simulate up to ``rounds`` default-play rounds; :meth:`SimStats.summary` plus run details.

    ``workers == 1`` without ``scheduler`` runs in this process; ``workers > 1`` starts a
    local Dask cluster of that many single-threaded processes; ``scheduler`` (an address
    such as ``tcp://host:8786``) uses a running Dask cluster whose workers have reelforge
    installed.  ``progress(report)`` is called after every chunk counted, in chunk order.

    ``precision`` (a fraction of the stake, e.g. ``0.0005`` for 0.05 RTP points) stops the
    run after the first chunk whose prefix has a 99% interval ``rtp +- h`` with
    ``h <= precision``; ``rounds`` is then the maximum.  ``stop`` in the result says which
    ended the run (``"rounds"`` or ``"precision"``).  Ctrl-C raises :class:`Interrupted`
    carrying the partial result, after the chunks still running are cancelled and a local
    cluster is closed.
    """
    resolved = validate(game, rounds, seed, variant, mode)
    _positive_int("workers", workers)
    _positive_int("chunk_rounds", chunk_rounds)
    validate_precision(precision)

    n_chunks = -(-rounds // chunk_rounds)
    tally = _Tally(rounds, precision, progress)
    try:
        with _on_ctrl_c(tally):
            # One chunk (or one worker) on a local cluster would only add its start-up time.
            if scheduler is None and min(workers, n_chunks) == 1:
                _run_local(game, resolved, mode, seed, rounds, chunk_rounds, tally)
            else:
                _run_dask(game, resolved, mode, seed, rounds, chunk_rounds, tally, workers, scheduler)
    except BaseException as exc:
        if not _is_interrupt(exc):
            raise
        tally.stop = "interrupted"
    if tally.stop == "interrupted":
        raise Interrupted(
            None if tally.report is None else _result(game, resolved, mode, seed, chunk_rounds, tally)
        )
    return _result(game, resolved, mode, seed, chunk_rounds, tally)


@contextmanager
def _on_ctrl_c(tally: _Tally) -> Iterator[None]:
    """The first Ctrl-C asks the run to stop where it stands (``tally.interrupt_requested``);
    a second one raises KeyboardInterrupt at once.

    A KeyboardInterrupt raised wherever Python happens to be would land inside the numba
    kernels' callbacks (a SystemError, the chunk lost) or in Dask's client; asked this way,
    the run ends at a chunk boundary in this process, and within a poll on Dask.  Only the
    main thread can take signals; elsewhere, and where SIGINT is ignored (a background job),
    nothing is changed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if tally.interrupt_requested:
            raise KeyboardInterrupt
        tally.interrupt_requested = True

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        # None: a handler not installed from Python; Python's own is the sane fallback.
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


def _is_interrupt(exc: BaseException) -> bool:
    """A KeyboardInterrupt, or an error it caused (numba turns one raised in its callbacks
    into a SystemError whose cause chain holds it)."""
    seen: BaseException | None = exc
    for _ in range(16):  # a chain can loop; an interrupt is near the top anyway
        if seen is None:
            return False
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _result(
    game: Game, variant: str, mode: str, seed: int, chunk_rounds: int, tally: _Tally
) -> dict[str, Any]:
    report = tally.report
    assert report is not None and tally.stop is not None  # a run counts a chunk before it ends
    out = report.stats.summary()
    out.update(
        game=game.id,
        variant=variant,
        mode=mode,
        seed=seed,
        chunk_rounds=chunk_rounds,
        chunks=report.chunks,
        rounds_max=tally.rounds_max,
        precision=tally.precision,
        ci99_half_width=half_width(out),
        stop=tally.stop,
        workers=tally.workers,
        seconds=report.seconds,
        rounds_per_second=report.rounds_per_second,
    )
    return out


def _size(rounds: int, chunk_rounds: int, index: int) -> int:
    return min(chunk_rounds, rounds - index * chunk_rounds)


def _run_local(
    game: Game, variant: str, mode: str, seed: int, rounds: int, chunk_rounds: int, tally: _Tally
) -> None:
    index = 0
    while True:
        part = game.simulate_chunk(
            _size(rounds, chunk_rounds, index), chunk_seed(seed, index), variant=variant, mode=mode
        )
        if tally.add(index, part):
            return
        index += 1


def _run_dask(
    game: Game,
    variant: str,
    mode: str,
    seed: int,
    rounds: int,
    chunk_rounds: int,
    tally: _Tally,
    workers: int,
    scheduler: str | None,
) -> None:
    """Chunks on Dask, a bounded window of them in flight, the futures cancelled and a local
    cluster closed however the run ends."""
    from distributed import Client, Future

    n_chunks = -(-rounds // chunk_rounds)
    cluster = client = None
    in_flight: dict[str, Future] = {}  # key -> future: what the way out cancels
    try:
        if scheduler is None:
            cluster = _local_cluster(min(workers, n_chunks))  # more workers than chunks would idle
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout="10s")
            client.wait_for_workers(1, timeout=30)  # an empty cluster would hang forever
        threads = client.nthreads()
        tally.workers = len(threads)
        # Two chunks per worker thread: none idles between chunks, and a stop (precision,
        # Ctrl-C) wastes at most that many; a fixed window also keeps a run of any length
        # from submitting (and holding) millions of futures.
        window = 2 * max(1, sum(threads.values()))
        ref = _game_ref(game)
        index_of: dict[str, int] = {}
        finished: queue.SimpleQueue[Future] = queue.SimpleQueue()
        submitted = 0

        def submit() -> None:
            nonlocal submitted
            size = _size(rounds, chunk_rounds, submitted)
            fut = client.submit(run_chunk, ref, variant, mode, chunk_seed(seed, submitted), size, pure=False)
            index_of[fut.key] = submitted
            in_flight[fut.key] = fut
            fut.add_done_callback(finished.put)  # called from Dask's thread
            submitted += 1

        tally.start_clock()  # throughput excludes cluster start-up, which says nothing of the game
        while submitted < min(window, n_chunks):
            submit()
        while not tally.interrupt_requested:
            try:
                # A short wait, so a Ctrl-C is seen within it, not a chunk later.
                fut = finished.get(timeout=0.1)
            except queue.Empty:
                continue
            part = fut.result()  # re-raises a worker's exception here, with its traceback
            del in_flight[fut.key]
            if tally.add(index_of.pop(fut.key), part):
                return
            if submitted < n_chunks:
                submit()
        tally.stop = "interrupted"
    finally:
        if client is not None:
            if in_flight:  # chunks past a stop, or running at a Ctrl-C: nobody will count them
                client.cancel(list(in_flight.values()))
            client.close()
        if cluster is not None:
            cluster.close()


def _local_cluster(n_workers: int) -> Any:
    """A local cluster of single-threaded worker processes that a Ctrl-C does not reach.

    A terminal sends Ctrl-C's SIGINT to the whole foreground process group, workers included;
    each would die with a KeyboardInterrupt traceback in the middle of a chunk (and the run
    could hang on the dead workers).  SIGINT is ignored while the cluster starts: an ignored
    signal stays ignored in the processes spawned meanwhile (Python then installs no handler
    of its own), so only this process takes Ctrl-C and winds the cluster up with ``close()``.
    (A mask would not do: Dask spawns from threads that do not inherit this one's.)  The
    price: a key press during the start-up, a few seconds, is lost.
    """
    from distributed import LocalCluster

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        return LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # The scheduler serves HTTP (metrics) even without a dashboard, on 8787 unless
            # told otherwise: any free loopback port, so a second cluster does not warn.
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            # A stop with chunks still running (precision, Ctrl-C) closes the scheduler under
            # busy workers, whose missed heartbeats log errors that mean nothing then; a
            # chunk's own failure still reaches the caller through its future.
            silence_logs=logging.CRITICAL,
        )
    finally:
        if in_main:
            signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
