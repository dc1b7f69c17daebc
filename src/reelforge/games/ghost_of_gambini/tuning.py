"""Ghost of Gambini's tuning knobs: the frames' prize weights, then the coins of the base game.

Three stages, in this order, each moving one mode's RTP:

1. ``buy-lock-spin``: weight moved between two prizes of a Lock & Spin frame table
   (bronze, silver, gold), 1, 10 or 100 units, every prize keeping at least 1.
2. ``buy-super-lock-spin``: the same in the Super Lock & Spin gold table.
   The MAJOR and GRAND weights are never touched (their odds, and the maximum win's, are
   advertised), nor are the ghosts' counts and colours, so the chain over the board is the
   source's: a feature pays ``E[bronze] mean(bronze) + E[silver] mean(silver) + E[gold]
   mean(gold)`` with the source's expected frame counts, and only the means move (exact,
   from the frame tables).  These also move the base game's features, which stage 3 allows
   for: it starts from the data the buy stages leave.
3. ``base``: one coin turned into another on a position (not the center; every coin value
   stays somewhere on the reels), and weight moved between the ghost's coin prizes (not
   MINI).  A coin is a prize whatever its value, so no spin changes between winning and
   not: the hit frequency is the source's exactly; the center, the piggies and the triggers
   are untouched, so the feature frequency is too.  A position shows one symbol, so a swap
   at position ``p`` changes the collection by exactly ``(new - old) / len(strip)`` credits
   times P(a wild in the center); the ghost's coins pay ``E[count] E[prize]``.  After each
   move the real calculators (``feature_result``, ``outer_prize_credits``) run on the new
   data and must agree with the candidate's figure to the last digit.

Every stage can move the base round's volatility (the bought features are the base game's
features too; carried as the variance of a round's uncapped win in stakes squared): a
candidate's comes from :mod:`.volatility`, the sums over lines and blanks cached and the
move's values put back in, one model shared by the stages (none of them changes what it
caches).  It is computed only when kept.

Reel line symbols are not knobs: on reels 1-3 they move the hit frequency, whose exact
figure takes seconds (too slow to score every candidate), and on reels 4-5 the moves that
lower the RTP most pile premiums onto them.  The tuner checks every mode, the hit frequency,
the feature frequency and the volatility with the game's full exact calculator
(``round_moments`` for the volatility) on the file as written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from reelforge.engine.tuning import (
    Change,
    Exact,
    Figures,
    Move,
    VariantNamed,
    count_changes,
    parse_toml,
    replace_first,
    set_strings,
    weight_changes,
    write_back,
)

from .base_moments import uncapped_moments
from .data_model import N_ROWS, OUTER, GambiniData, load, parse
from .exact import base_result, exact_report
from .exact_common import F, dist
from .exact_feature import feature_result
from .exact_panel import outer_prize_credits
from .odds import hit_frequency
from .rules import DATA_DIR
from .volatility import BaseVolatility, SharedVolatility, Values

PROTECTED = frozenset({"MAJOR", "GRAND"})  # frame prizes whose weights the tuner leaves alone
PROTECTED_COINS = frozenset({"MINI"})  # the ghost's jackpot keeps its weight too
COIN_SIZES = (1, 5)  # of the ghost's 100 prize weight units
FRAME_SIZES = (1, 10, 100)  # frame weight units moved at once
LEVELS = ("bronze", "silver", "gold")


def _mean(d: GambiniData, table: dict[str, int]) -> Fraction:
    return sum((d.prize_credits(k) * q for k, q in dist(table).items()), F(0)) if table else F(0)


def _with_frames(d: GambiniData, feature: str, level: str, table: dict[str, int]) -> GambiniData:
    raw = getattr(d, feature).model_dump()
    raw["frames"][level] = table
    return d.model_copy(update={feature: raw})


class _Vol:
    """A candidates pass's volatility model and the current file's values."""

    def __init__(self, shared: SharedVolatility, d: GambiniData) -> None:
        self.model: BaseVolatility = shared.get(d)
        self.now: Values = self.model.values(d)

    def of(self, v: Values) -> Fraction:
        return self.model.variance(v)


class FrameWeights:
    """Stage: a bought feature's RTP, by moving weight between two prizes of a frame table."""

    def __init__(self, source: GambiniData, mode: str, feature: str, volatility: SharedVolatility) -> None:
        self.mode = mode
        self.feature = feature
        self.super_ = feature == "super_lock_spin"
        self.knobs = f"{feature}.frames: weight moved between prizes (not {', '.join(sorted(PROTECTED))})"
        self.changes = frozenset({"volatility"})  # of the base round, whose features these are
        self.volatility = volatility
        self.price = source.price_credits(mode)
        # The frames' conversion tables do not enter the chain over the board: the expected
        # frame counts of the source hold for every candidate.
        self.frames = feature_result(source, self.super_, source.buy.spins).mean_frames()

    def _rtp(self, d: GambiniData, means: tuple[Fraction, ...]) -> Fraction:
        return sum((e * m for e, m in zip(self.frames, means, strict=True)), F(0)) / self.price

    def _means(self, d: GambiniData) -> tuple[Fraction, ...]:
        frames = getattr(d, self.feature).frames
        return tuple(_mean(d, getattr(frames, lv)) for lv in LEVELS)

    def figures(self, d: GambiniData, kept: frozenset[str] = frozenset()) -> Figures:
        out = {"rtp": feature_result(d, self.super_, d.buy.spins).value / self.price}
        if "volatility" in kept:
            model = self.volatility.get(d)
            out["volatility"] = model.variance(model.values(d))
        return out

    def floor(self, d: GambiniData) -> Fraction | None:
        return None

    def candidates(self, d: GambiniData, kept: frozenset[str]) -> Iterator[tuple[Move, Figures]]:
        means = self._means(d)
        frames = getattr(d, self.feature).frames
        vol = _Vol(self.volatility, d) if "volatility" in kept else None
        for i, level in enumerate(LEVELS):
            table = getattr(frames, level)
            free = [k for k in table if k not in PROTECTED]
            for src in free:
                for dst in free:
                    if dst == src:
                        continue
                    for size in FRAME_SIZES:
                        if table[src] - size < 1:
                            continue
                        new = dict(table)
                        new[src] -= size
                        new[dst] += size
                        changed = (*means[:i], _mean(d, new), *means[i + 1 :])
                        move = Move(
                            f"{self.feature}.frames.{level}", f"{size} from {src} to {dst}", (level, new)
                        )
                        figures = {"rtp": self._rtp(d, changed)}
                        if vol is not None:
                            figures["volatility"] = vol.of(
                                vol.model.with_frames(d, vol.now, self.feature, level, new)
                            )
                        yield move, figures

    def apply(self, d: GambiniData, move: Move) -> GambiniData:
        level, table = move.key
        return _with_frames(d, self.feature, level, table)


class BaseSwaps:
    """Stage: the base game's RTP, by the coins on the reels and the ghost's coin prizes."""

    mode = "base"
    knobs = (
        "one coin swapped for another on a position (not the center) and weight moved between "
        "the ghost's coin prizes (not MINI)"
    )
    # hit and feature frequency stay the source's exactly; the volatility moves
    changes = frozenset({"volatility"})

    def __init__(self, start: GambiniData, volatility: SharedVolatility) -> None:
        self.volatility = volatility
        r = base_result(start)
        self.p_wild = r.p_gambini + r.p_ghost
        self.p_ghost = r.p_ghost
        # What the moves cannot touch: the RTP less the collected coins and the ghost's coins.
        self.rest = r.rtp - self._moved(start)
        self.coins = list(start.coin_values)

    def _ghost(self, d: GambiniData, prizes: dict[str, int]) -> Fraction:
        """The ghost's coins, as a share of the stake."""
        count = sum((k * q for k, q in dist(d.ghost_coins.count).items()), F(0))
        return self.p_ghost * count * _mean(d, prizes) / d.game.base_credits

    def _moved(self, d: GambiniData) -> Fraction:
        return self.p_wild * outer_prize_credits(d) / d.game.base_credits + self._ghost(
            d, d.ghost_coins.prizes
        )

    def figures(self, d: GambiniData, kept: frozenset[str] = frozenset()) -> Figures:
        out = {"rtp": self.rest + self._moved(d)}
        if "volatility" in kept:
            model = self.volatility.get(d)
            out["volatility"] = model.variance(model.values(d))
        return out

    def floor(self, d: GambiniData) -> Fraction:
        return self.rest

    def candidates(self, d: GambiniData, kept: frozenset[str]) -> Iterator[tuple[Move, Figures]]:
        rtp = self.figures(d)["rtp"]
        vol = _Vol(self.volatility, d) if "volatility" in kept else None
        yield from self._reel_coin_moves(d, rtp, vol)
        yield from self._ghost_coin_moves(d, rtp, vol)

    def _reel_coin_moves(
        self, d: GambiniData, rtp: Fraction, vol: _Vol | None
    ) -> Iterator[tuple[Move, Figures]]:
        bet = d.game.base_credits
        total = Counter(s for p in OUTER for s in d.strips[p] if s in d.coin_values)
        for p in OUTER:
            strip = d.strips[p]
            here = Counter(s for s in strip if s in d.coin_values)
            where = f"position {p + 1} (reel {p // N_ROWS + 1} row {p % N_ROWS + 1})"
            for old in self.coins:
                if not here[old] or total[old] < 2:  # every coin value stays on the reels
                    continue
                for new in self.coins:
                    if new == old:
                        continue
                    delta = F(d.coin_values[new] - d.coin_values[old], len(strip))
                    stop = strip.index(old)
                    move = Move(where, f"{old} -> {new} at stop {stop}", ("reel", p, stop, new))
                    figures = {"rtp": rtp + self.p_wild * delta / bet}
                    if vol is not None:
                        changed = replace_first(strip, stop, new)
                        figures["volatility"] = vol.of(vol.model.with_strip(d, vol.now, p, changed))
                    yield move, figures

    def _ghost_coin_moves(
        self, d: GambiniData, rtp: Fraction, vol: _Vol | None
    ) -> Iterator[tuple[Move, Figures]]:
        table = d.ghost_coins.prizes
        now = self._ghost(d, table)
        free = [k for k in table if k not in PROTECTED_COINS]
        for src in free:
            for dst in free:
                for size in COIN_SIZES:
                    if dst == src or table[src] - size < 1:
                        continue
                    new = {**table, src: table[src] - size, dst: table[dst] + size}
                    move = Move("ghost_coins.prizes", f"{size} from {src} to {dst}", ("ghost", new))
                    figures = {"rtp": rtp - now + self._ghost(d, new)}
                    if vol is not None:
                        figures["volatility"] = vol.of(vol.model.with_ghost(d, vol.now, new))
                    yield move, figures

    def apply(self, d: GambiniData, move: Move) -> GambiniData:
        if move.key[0] == "ghost":
            return d.model_copy(update={"ghost_coins": {**d.ghost_coins.model_dump(), "prizes": move.key[1]}})
        _, p, stop, new = move.key
        strips = list(d.strips)
        strips[p] = replace_first(strips[p], stop, new)
        return d.model_copy(update={"strips": strips})


class GambiniTuning(VariantNamed):
    game_id = "ghost-of-gambini"
    data_dir: Path = DATA_DIR
    keepable = ("hit-frequency", "feature-frequency", "volatility")
    figure_names: ClassVar[dict[str, str]] = {
        "hit-frequency": "a base round pays anything",
        "feature-frequency": "Lock & Spin or Super per base round",
        "volatility": "SD of a base round's win, in stakes (uncapped, piggies stationary)",
    }

    def load(self, path: Path) -> GambiniData:
        return load(path)

    def parse(self, text: str, source: str) -> GambiniData:
        return parse(parse_toml(text).unwrap(), source)

    def stages(self) -> list[Callable[[GambiniData], Any]]:
        volatility = SharedVolatility()
        return [
            lambda d: FrameWeights(d, "buy-lock-spin", "lock_spin", volatility),
            lambda d: FrameWeights(d, "buy-super-lock-spin", "super_lock_spin", volatility),
            # from the data the buy stages leave (their features are in its RTP)
            lambda d: BaseSwaps(d, volatility),
        ]

    def exact(self, d: GambiniData, keep: Collection[str] = ()) -> Exact:
        rtp = {}
        for mode in ("base", "buy-lock-spin", "buy-super-lock-spin"):
            rtp[mode] = Fraction(exact_report(self.game_id, d, mode)["rtp_fraction"])
        chain = base_result(d).chain
        features = sum(
            (chain.stationary[s] * sum(chain.trigger[s].values(), F(0)) for s in chain.states), F(0)
        )
        figures = {"hit-frequency": hit_frequency(d), "feature-frequency": features}
        if "volatility" in keep:  # the base round's moments in full: seconds
            mean, second = uncapped_moments(d)
            figures["volatility"] = (second - mean * mean) / d.game.base_credits**2
        return Exact(rtp, figures)

    def dump(self, source_text: str, d: GambiniData) -> str:
        def edit(doc: Any) -> None:
            set_strings(doc["strips"], d.strips)
            for table, written in self._tables(d, doc):
                for prize, weight in table.items():
                    if written[prize] != weight:
                        written[prize] = weight

        return write_back(source_text, d.game.variant, edit, "frame and ghost-coin weights, reel coins")

    @staticmethod
    def _weights(d: GambiniData) -> dict[str, dict[str, int]]:
        """The weight tables the tuner moves, by their place in the file."""
        out = {}
        for feature in ("lock_spin", "super_lock_spin"):
            for level in LEVELS:
                table = getattr(getattr(d, feature).frames, level)
                if table:
                    out[f"{feature}.frames.{level}"] = table
        out["ghost_coins.prizes"] = d.ghost_coins.prizes
        return out

    def _tables(self, d: GambiniData, doc: Any) -> Iterator[tuple[dict[str, int], Any]]:
        for place, table in self._weights(d).items():
            written = doc
            for key in place.split("."):
                written = written[key]
            yield table, written

    def changes(self, before: GambiniData, after: GambiniData) -> list[Change]:
        new_tables = self._weights(after)
        out = [weight_changes(place, old, new_tables[place]) for place, old in self._weights(before).items()]
        for p, (old_strip, new_strip) in enumerate(zip(before.strips, after.strips, strict=True)):
            where = f"position {p + 1} (reel {p // N_ROWS + 1} row {p % N_ROWS + 1})"
            out.append(count_changes(where, old_strip, new_strip))
        return [c for c in out if c is not None]


TUNING = GambiniTuning()
