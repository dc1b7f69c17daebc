"""Helpers that force features through the real rules with scripted draws (test-only)."""

from __future__ import annotations

from reelforge.games.reign_of_gnomes.data_model import GnomesData


def stops_showing(strip: tuple[str, ...], symbol: str) -> int:
    """A stop of ``strip`` whose 3-row window shows ``symbol``."""
    n = len(strip)
    for stop in range(n):
        if symbol in (strip[stop], strip[(stop + 1) % n], strip[(stop + 2) % n]):
            return stop
    raise AssertionError(f"{symbol} never shows on this strip")


def stops_without(strip: tuple[str, ...], symbols: set[str]) -> int:
    n = len(strip)
    for stop in range(n):
        if not symbols & {strip[stop], strip[(stop + 1) % n], strip[(stop + 2) % n]}:
            return stop
    raise AssertionError("every window shows one of the symbols")


def trigger_script(d: GnomesData) -> list[int]:
    """Base stops showing exactly three scatters (reels 1-3): Dragon Spins start."""
    strips = d.base_reels.strips
    return [stops_showing(strips[r], d.scatter) for r in range(3)] + [
        stops_without(strips[r], {d.scatter}) for r in (3, 4)
    ]


def wheel_draw(d: GnomesData, label: str) -> int:
    """The wheel draw value that lands on the segment labelled ``label``."""
    acc = 0
    for seg in d.wheel:
        if seg.label == label:
            return acc
        acc += seg.weight
    raise AssertionError(f"no wheel segment {label}")


def losing_spin_to_win_stops(d: GnomesData) -> list[int]:
    """Spin To Win stops with no way win: reels 1 and 2 share no symbol and reel 2 has no wild."""
    stw = d.spin_to_win_reels.strips
    for a in range(len(stw[0])):
        w1 = {stw[0][(a + r) % len(stw[0])] for r in range(3)}
        for b in range(len(stw[1])):
            w2 = {stw[1][(b + r) % len(stw[1])] for r in range(3)}
            if not w1 & w2 and d.wild not in w2:
                return [a, b, 0, 0, 0]
    raise AssertionError("every Spin To Win spin wins")
