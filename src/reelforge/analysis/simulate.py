"""The Monte Carlo driver: fixed chunks, one spawned seed each, in-process or on Dask.

A run of ``rounds`` rounds is cut into chunks of ``chunk_rounds`` (the last one smaller);
chunk ``i`` draws from ``SeedSequence(seed).spawn(n_chunks)[i]``.  The chunking and the
seeds depend on ``seed``, ``rounds`` and ``chunk_rounds`` alone, and :class:`SimStats`
merge by exact integer sums, so the result is the same whether the chunks run in this
process, on a local Dask cluster of any size or on a remote one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from reelforge.engine.game import Game
from reelforge.engine.stats import SimStats

DEFAULT_CHUNK_ROUNDS = 2**20

Progress = Callable[[int, int], None]


def chunk_sizes(rounds: int, chunk_rounds: int) -> list[int]:
    """``rounds`` cut into full chunks of ``chunk_rounds`` and one smaller remainder."""
    full, rest = divmod(rounds, chunk_rounds)
    return [chunk_rounds] * full + ([rest] if rest else [])


def chunk_seeds(seed: int, n_chunks: int) -> list[np.random.SeedSequence]:
    # A fresh SeedSequence every time: spawn() is stateful, a reused one would hand out
    # different children on a second call.
    return np.random.SeedSequence(seed).spawn(n_chunks)


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


def validate(game: Game, rounds: int, seed: int, variant: str | None, mode: str) -> str:
    """Check the request before any work starts; returns the resolved variant."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds <= 0:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
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
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Simulate ``rounds`` default-play rounds; :meth:`SimStats.summary` plus run details.

    ``workers == 1`` without ``scheduler`` runs in this process; ``workers > 1`` starts a
    local Dask cluster of that many single-threaded processes; ``scheduler`` (an address
    such as ``tcp://host:8786``) uses a running Dask cluster whose workers have reelforge
    installed.  ``progress(done, total)`` is called after every chunk.
    """
    resolved = validate(game, rounds, seed, variant, mode)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(chunk_rounds, bool) or not isinstance(chunk_rounds, int) or chunk_rounds < 1:
        raise ValueError(f"chunk_rounds must be a positive integer, got {chunk_rounds!r}")

    sizes = chunk_sizes(rounds, chunk_rounds)
    seeds = chunk_seeds(seed, len(sizes))
    # One chunk (or one worker) on a local cluster would only add its start-up time.
    if scheduler is None and min(workers, len(sizes)) == 1:
        results, elapsed, used = _run_local(game, resolved, mode, seeds, sizes, progress)
    else:
        results, elapsed, used = _run_dask(game, resolved, mode, seeds, sizes, progress, workers, scheduler)

    total = results[0]
    for part in results[1:]:  # chunk order; the merge is exact sums so order is moot anyway
        total = total.merge(part)
    out = total.summary()
    out.update(
        game=game.id,
        variant=resolved,
        mode=mode,
        seed=seed,
        chunk_rounds=chunk_rounds,
        chunks=len(sizes),
        workers=used,
        seconds=elapsed,
        rounds_per_second=rounds / elapsed if elapsed > 0 else float("inf"),
    )
    return out


def _run_local(
    game: Game,
    variant: str,
    mode: str,
    seeds: list[np.random.SeedSequence],
    sizes: list[int],
    progress: Progress | None,
) -> tuple[list[SimStats], float, int]:
    total = sum(sizes)
    done = 0
    results: list[SimStats] = []
    start = time.perf_counter()
    for ss, size in zip(seeds, sizes, strict=True):
        results.append(game.simulate_chunk(size, ss, variant=variant, mode=mode))
        done += size
        if progress is not None:
            progress(done, total)
    return results, time.perf_counter() - start, 1


def _run_dask(
    game: Game,
    variant: str,
    mode: str,
    seeds: list[np.random.SeedSequence],
    sizes: list[int],
    progress: Progress | None,
    workers: int,
    scheduler: str | None,
) -> tuple[list[SimStats], float, int]:
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        # More workers than chunks would only idle; the result does not depend on the count.
        cluster = LocalCluster(
            n_workers=min(workers, len(sizes)),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    else:
        client = Client(scheduler, timeout="10s")
        client.wait_for_workers(1, timeout=30)  # an empty cluster would hang forever
    try:
        used = len(client.nthreads())
        ref = _game_ref(game)
        total = sum(sizes)
        done = 0
        # Throughput excludes cluster start-up, which says nothing about the simulation.
        start = time.perf_counter()
        futures = [
            client.submit(run_chunk, ref, variant, mode, ss, size, pure=False)
            for ss, size in zip(seeds, sizes, strict=True)
        ]
        size_of = {f.key: size for f, size in zip(futures, sizes, strict=True)}
        for fut in as_completed(futures):
            fut.result()  # re-raises a worker's exception here, with its traceback
            done += size_of[fut.key]
            if progress is not None:
                progress(done, total)
        results: list[SimStats] = client.gather(futures)  # gathered in chunk order
        elapsed = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return results, elapsed, used
