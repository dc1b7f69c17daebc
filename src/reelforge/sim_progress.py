"""The progress of a simulation, on stderr: a Rich bar on a terminal, plain lines elsewhere.

stdout is left alone: it carries the result table or the ``--json`` document.  Every figure
is the run as counted, chunk by chunk in chunk order (see :mod:`reelforge.analysis.simulate`):
rounds, rounds/s, the running RTP and the half-width of its 99% interval.

On a terminal the bar is redrawn after every chunk and erased when the run ends.  When stderr
is not a terminal (a log file, a pipe, a test harness) a bar would only write escape codes,
so a plain line is written instead after the first chunk and then at most one every
:data:`PLAIN_EVERY_S` seconds: a long run's log shows it is alive and where it stands.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from reelforge.analysis.simulate import Progress as OnReport
from reelforge.analysis.simulate import Report

PLAIN_EVERY_S = 10.0


def rtp_text(report: Report) -> str:
    """``RTP 95.9706% ± 0.0123 pts (99%)``: the interval is RTP ± that many points."""
    return f"RTP {report.rtp * 100:.4f}% ± {report.half_width * 100:.4f} pts (99%)"


def plain_line(description: str, report: Report) -> str:
    return (
        f"{description}: {report.rounds:,}/{report.rounds_max:,} rounds, "
        f"{report.chunks:,} chunk{'' if report.chunks == 1 else 's'}, "
        f"{report.rounds_per_second:,.0f} rounds/s, {rtp_text(report)}"
    )


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[OnReport]:
    """A callback for :func:`reelforge.analysis.simulate.simulate`'s ``progress``."""
    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        last = -math.inf

        def line(report: Report) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PLAIN_EVERY_S:
                last = now
                console.print(plain_line(description, report), markup=False, soft_wrap=True)

        yield line
        return

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} rounds"),
        TextColumn("{task.fields[speed]}"),
        TextColumn("{task.fields[rtp]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task(description, total=total, speed="", rtp="")

    def update(report: Report) -> None:
        bar.update(
            task,
            completed=report.rounds,
            speed=f"{report.rounds_per_second:,.0f} rounds/s",
            rtp=rtp_text(report),
        )

    with bar:
        yield update
