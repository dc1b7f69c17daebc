"""``reelforge export stake --verify DIR``: the platform's published checks, then reelforge's.

The platform's (Stake Engine's math upload, as its documentation and the math SDK's
``rgs_verification`` describe them): ``index.json`` of the strict form; every lookup-table row
``id,weight,payout`` of unsigned 64-bit integers, payouts in steps of 10 and at least 10 when
not 0, the weights' sum within uint64; every book a JSON line with ``payoutMultiplier``, ``id``
and ``events``, the books' payouts equal to the table's row for row; the statistics it reports
(:mod:`.table_stats`), and the RTPs of the modes within 5 points of each other (a warning there).

reelforge's: the installed game is the one exported (its data files' digest); every book replays
through the rules from its draws to its win, payout and events; and each table against the
exact law: RTP within :data:`RTP_TOLERANCE`, hit rate, P(win < bet) and every band within
:data:`RATE_TOLERANCE` (plus an enclosure's own width), the max win the law's top payout at its
odds (to one weight, or 1e-6 of them); and the SD within :data:`SD_TOLERANCE`, a warning only:
a payout without a book gives its mass to its neighbours, which spreads the law a little.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import zstandard

from reelforge.analysis.stake import books as bk
from reelforge.analysis.stake.export import exact_figures, law_of
from reelforge.analysis.stake.files import INDEX, NOTE, data_digest
from reelforge.analysis.stake.law import GridLaw, grid_law, payout_of
from reelforge.analysis.stake.modes import cost_in_bets
from reelforge.analysis.stake.table_stats import band_probabilities, table_stats
from reelforge.engine.game import levels_for
from reelforge.games import get_game

UINT64_MAX = (1 << 64) - 1
MODE_RTP_SPREAD = 0.05  # the platform warns past it
RTP_TOLERANCE = 1e-6
RATE_TOLERANCE = 1e-9
SD_TOLERANCE = 0.01  # relative


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""
    warning: bool = False  # the platform warns; the upload goes on


@dataclass
class ModeReport:
    name: str
    cost: float
    stats: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)


@dataclass
class Report:
    folder: Path
    checks: list[Check] = field(default_factory=list)
    modes: list[ModeReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok or c.warning for c in self.checks + [c for m in self.modes for c in m.checks])


def _check(out: list[Check], name: str, ok: bool, detail: str = "", *, warning: bool = False) -> bool:
    out.append(Check(name, bool(ok), detail, warning))
    return bool(ok)


def _index(folder: Path, rep: Report) -> list[dict[str, Any]]:
    path = folder / INDEX
    if not _check(rep.checks, "index.json exists", path.exists(), str(path)):
        return []
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        _check(rep.checks, "index.json is JSON", False, str(exc))
        return []
    form = (
        isinstance(data, dict)
        and set(data) == {"modes"}
        and isinstance(data["modes"], list)
        and data["modes"]
    )
    if not _check(
        rep.checks, 'index.json is {"modes": [...]}', bool(form), "exactly one key, a non-empty list"
    ):
        return []
    modes = []
    for entry in data["modes"]:
        good = (
            isinstance(entry, dict)
            and set(entry) == {"name", "cost", "events", "weights"}
            and isinstance(entry["name"], str)
            and entry["name"]
            and isinstance(entry["cost"], int | float)
            and not isinstance(entry["cost"], bool)
            and entry["cost"] > 0
            and isinstance(entry["events"], str)
            and entry["events"].endswith(".jsonl.zst")
            and isinstance(entry["weights"], str)
            and entry["weights"].endswith(".csv")
        )
        if _check(
            rep.checks,
            f"index entry {entry.get('name') if isinstance(entry, dict) else entry!r}",
            good,
            "name, cost > 0, events *.jsonl.zst, weights *.csv",
        ):
            modes.append(entry)
    names = [m["name"] for m in modes]
    _check(rep.checks, "mode names are unique", len(names) == len(set(names)), ", ".join(names))
    return modes


def _table(path: Path, mr: ModeReport) -> tuple[list[int], list[int], list[int]] | None:
    if not _check(mr.checks, "lookup table exists", path.exists(), path.name):
        return None
    ids, weights, payouts = [], [], []
    bad = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.strip().split(",")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            bad.append(f"line {n}: {line!r} is not three unsigned integers")
            continue
        i, w, p = (int(x) for x in parts)
        if w > UINT64_MAX or p > UINT64_MAX:
            bad.append(f"line {n}: beyond uint64")
        if p % 10:
            bad.append(f"line {n}: payout {p} is not in steps of 10")
        if 0 < p < 10:
            bad.append(f"line {n}: a payout of {p} is below the least win, 10")
        ids.append(i)
        weights.append(w)
        payouts.append(p)
    _check(
        mr.checks,
        "table rows: uint64 id, weight, payout in steps of 10 (>= 10 when a win)",
        not bad,
        "; ".join(bad[:5]) or f"{len(ids):,} rows",
    )
    _check(mr.checks, "the weights' sum fits uint64", 0 < sum(weights) <= UINT64_MAX, f"{sum(weights):,}")
    _check(mr.checks, "table ids are unique", len(ids) == len(set(ids)))
    return (ids, weights, payouts) if not bad else None


class _Replayer:
    """Replays each book as it is read (a mode's books do not all fit in memory at once: Reign
    of Gnomes' 10,000 are 170 MB of JSON) and keeps what did not replay."""

    def __init__(self, game: Any, variant: str, mode: str, law: GridLaw) -> None:
        self.game, self.variant, self.mode, self.law = game, variant, mode, law
        self.stakes = {level.stake for level in levels_for(game, variant, mode)}
        self.bad: list[str] = []
        self.count = 0

    def __call__(self, blob: dict[str, Any]) -> None:
        self.count += 1
        try:
            rf = blob["reelforge"]
            bet = int(rf["bet"])
            if bet not in self.stakes:
                raise ValueError(f"a bet of {bet} is not offered")
            draws = tuple((n, v) for n, v in rf["draws"])
            rnd = bk.replay(self.game, self.variant, self.mode, bet, draws)
            events = [{k: v for k, v in e.items() if k != "index"} for e in blob["events"][:-1]]
            if rnd.win != rf["win"] or payout_of(rnd.win, bet, self.law) != blob["payoutMultiplier"]:
                self.bad.append(f"book {blob['id']}: replays to a win of {rnd.win}")
            elif json.loads(json.dumps(rnd.events)) != events:
                self.bad.append(f"book {blob['id']}: its events are not the round's")
        except Exception as exc:  # a finding, not a crash
            self.bad.append(f"book {blob.get('id')}: {type(exc).__name__}: {exc}")

    def finish(self, mr: ModeReport) -> None:
        _check(
            mr.checks,
            "every book replays through the rules to its win, payout and events",
            not self.bad,
            "; ".join(self.bad[:3]) or f"{self.count:,} books",
        )


def _books(
    path: Path, mr: ModeReport, each: Callable[[dict[str, Any]], None] | None
) -> tuple[list[int], list[int], int] | None:
    """The books' ids, payouts and count of events, read as a stream; ``each`` sees every book."""
    if not _check(mr.checks, "books file exists", path.exists(), path.name):
        return None
    ids: list[int] = []
    payouts: list[int] = []
    events = 0
    try:
        with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
            for n, line in enumerate(io.TextIOWrapper(reader, encoding="utf-8"), start=1):
                if not line.strip():
                    continue
                blob = json.loads(line)
                lacking = [k for k in ("payoutMultiplier", "id", "events") if k not in blob]
                if lacking:
                    _check(
                        mr.checks,
                        "every book has payoutMultiplier, id, events",
                        False,
                        f"line {n}: {lacking}",
                    )
                    return None
                ids.append(blob["id"])
                payouts.append(blob["payoutMultiplier"])
                events += len(blob["events"])
                if each is not None:
                    each(blob)
    except (zstandard.ZstdError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        _check(mr.checks, "books are zstd JSON lines", False, f"{type(exc).__name__}: {exc}")
        return None
    _check(mr.checks, "every book has payoutMultiplier, id, events", True, f"{len(ids):,} books")
    return ids, payouts, events


def _installed(folder: Path, rep: Report) -> tuple[Any, str] | None:
    """The game the note names, when installed with the data files exported."""
    path = folder / NOTE
    if not _check(rep.checks, f"{NOTE} names the game exported", path.exists()):
        return None
    note = json.loads(path.read_text())
    try:
        game = get_game(note["game"])
    except KeyError as exc:
        _check(rep.checks, "the game is installed", False, str(exc))
        return None
    variant = note["variant"]
    _check(
        rep.checks,
        "the installed game's data files are the ones exported",
        data_digest(game, variant) == note["data_sha256"],
        f"{game.id} {variant}",
    )
    return game, variant


def verify(folder: Path, *, replay: bool = True) -> Report:
    """Every check on an export folder; ``replay=False`` skips replaying each book."""
    rep = Report(folder)
    entries = _index(folder, rep)
    installed = _installed(folder, rep) if entries else None
    for entry in entries:
        mr = ModeReport(entry["name"], float(entry["cost"]))
        rep.modes.append(mr)
        table = _table(folder / entry["weights"], mr)
        law = exact = None
        if installed is not None:
            game, variant = installed
            dist, exact_raw = law_of(game, variant, mr.name)
            cost = cost_in_bets(game, variant, mr.name)
            _check(mr.checks, "the index's cost is the game's price", cost == mr.cost, f"{cost} bets")
            law = grid_law(dist, exact_raw, cost)
            exact = exact_figures(dist, law)
        replayer = _Replayer(*installed, mr.name, law) if replay and installed and law else None
        seen = _books(folder / entry["events"], mr, replayer)
        if replayer is not None and seen is not None:
            replayer.finish(mr)
        if table is None or seen is None:
            continue
        ids, weights, payouts = table
        book_ids, book_payouts, events = seen
        _check(
            mr.checks,
            "books' payouts equal the table's, row for row",
            book_payouts == payouts,
            f"{len(book_payouts):,} books, {len(payouts):,} rows",
        )
        _check(mr.checks, "books' ids equal the table's, row for row", book_ids == ids)
        mr.stats = table_stats(payouts, weights, mr.cost)
        mr.stats["events"] = events
        if law is not None and exact is not None:
            _against_law(mr, law, exact, weights, payouts)
    rtps = [float(m.stats["rtp"]) for m in rep.modes if m.stats]
    if len(rtps) > 1:
        spread = max(rtps) - min(rtps)
        _check(
            rep.checks,
            f"modes' RTPs within {MODE_RTP_SPREAD:.0%} of each other",
            spread <= MODE_RTP_SPREAD,
            f"spread {spread:.6f}",
            warning=True,
        )
    return rep


def _against_law(
    mr: ModeReport, law: GridLaw, ex: dict[str, Any], weights: list[int], payouts: list[int]
) -> None:
    """reelforge's comparison of a table with the exact figures."""
    st = mr.stats
    total = st["weight_sum"]
    d_rtp = abs(st["rtp"] - law.exact_rtp)
    _check(
        mr.checks,
        f"RTP = exact within {RTP_TOLERANCE:g}",
        d_rtp <= RTP_TOLERANCE,
        f"table {float(st['rtp']):.12f}, exact {float(law.exact_rtp):.12f}, diff {float(d_rtp):.2e}",
    )
    _rate(mr, "hit rate", st["hit_rate"], ex["hit_rate"], ex["hit_rate_bound"])
    _rate(mr, "P(win < bet)", st["p_win_below_bet"], ex["p_win_below_bet"], ex["p_win_below_bet_bound"])
    _check(
        mr.checks,
        "the max win is the law's",
        st["max_payout"] == law.top,
        f"table {st['max_payout'] / 100:g}x, law {law.top / 100:g}x",
    )
    low, high = ex["max_win_rate_bounds"]
    got = float(st["max_win_rate"])
    slack = max(1 / total, 1e-6 * high)
    _check(
        mr.checks,
        "max-win odds = exact (to one weight, or 1e-6 of them)",
        low - slack <= got <= high + slack,
        f"table 1 in {1 / got:.4g}, exact 1 in {1 / ex['max_win_rate']:.4g}"
        if got and ex["max_win_rate"]
        else f"table {got:g}, exact {ex['max_win_rate']:g}",
    )
    table_bands = band_probabilities(payouts, weights, [(b.low, b.high) for b in law.bands])
    worst = max(
        (abs(float(q) - p) - bound for (_label, p, bound), q in zip(ex["bands"], table_bands, strict=True)),
        default=0.0,
    )
    _check(
        mr.checks,
        f"every band = exact within {RATE_TOLERANCE:g}",
        worst <= RATE_TOLERANCE,
        f"{len(table_bands)} bands, largest difference {max(worst, 0):.2e}",
    )
    sd_diff = abs(st["sd"] - ex["sd"]) / ex["sd"] if ex["sd"] else 0.0
    # A statement, not a rule: a payout without a book gives its mass to its neighbours, which
    # keeps the mean but spreads the law, so the SD comes within 1% as the books get dense.
    _check(
        mr.checks,
        f"SD = exact within {SD_TOLERANCE:.0%}",
        sd_diff <= SD_TOLERANCE,
        f"table {st['sd']:.4f}, exact {ex['sd']:.4f}",
        warning=True,
    )
    mr.stats["exact"] = ex


def _rate(mr: ModeReport, name: str, table: Fraction, exact: float, bound: float) -> None:
    diff = abs(float(table) - exact)
    _check(
        mr.checks,
        f"{name} = exact within {RATE_TOLERANCE:g}",
        diff <= RATE_TOLERANCE + bound,
        f"table {float(table):.12f}, exact {exact:.12f}",
    )
