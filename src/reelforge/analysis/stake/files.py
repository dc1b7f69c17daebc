"""The files Stake Engine's math upload takes, and reelforge's own note beside them.

Per mode ``books_<mode>.jsonl.zst`` (zstd-compressed JSON lines: ``id``, ``payoutMultiplier``,
``events``) and ``lookUpTable_<mode>_0.csv`` (``id,weight,payout`` a line, no header, the rows
in the books' order); one ``index.json`` naming every mode with its cost and both files.  A book
also carries ``reelforge``: the round's draws, its bet and its win (minor units), so anyone can
replay it through the rules (``--verify`` does).  ``reelforge_stake.json`` records the game,
variant, data digest and each mode's exact and table figures; the platform does not read it.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import zstandard

from reelforge.analysis.stake.export import ModeExport
from reelforge.analysis.stake.table_stats import as_json

INDEX = "index.json"
NOTE = "reelforge_stake.json"
ZSTD_LEVEL = 19


def books_name(mode: str) -> str:
    return f"books_{mode}.jsonl.zst"


def table_name(mode: str) -> str:
    return f"lookUpTable_{mode}_0.csv"


def book_line(book: Any, round_events: list[dict[str, Any]]) -> dict[str, Any]:
    """One book: reelforge's events, numbered, and a closing ``finalWin`` with the payout."""
    events = [{"index": i, **e} for i, e in enumerate(round_events)]
    events.append({"index": len(events), "type": "finalWin", "amount": book.payout})
    return {
        "id": book.id,
        "payoutMultiplier": book.payout,
        "events": events,
        "reelforge": {"bet": book.bet, "win": book.win, "draws": [list(d) for d in book.draws]},
    }


def _jsonable(x: Any) -> Any:
    if isinstance(x, Fraction):
        return float(x)
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def write_mode(folder: Path, m: ModeExport) -> dict[str, Any]:
    """The mode's two files; returns its index entry and its note."""
    books = folder / books_name(m.mode)
    raw = 0
    with books.open("wb") as f, zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(f) as z:
        for b in m.books:  # a stream: one book's round replayed and written at a time
            line = (json.dumps(book_line(b, m.events(b)), separators=(",", ":")) + "\n").encode()
            raw += len(line)
            z.write(line)
    table = folder / table_name(m.mode)
    rows = (f"{b.id},{w},{b.payout}\n" for b, w in zip(m.books, m.weighted.weights, strict=True))
    table.write_text("".join(rows))
    w = m.weighted
    note = {
        "mode": m.mode,
        "cost": m.cost,
        "bet_credits": m.law.bet_credits,
        "method": m.law.method,
        "exact_law": m.law.exact_law,
        "books": len(m.books),
        "distinct_payouts": {"law": w.distinct, "with_a_book": w.covered},
        "rounding": {
            "rule": "nearest 0.1 bet, half to even, never across 0, the bet, a band edge or the cap",
            "rtp_cost": float(m.law.rounding_cost),
        },
        "weights": {
            "moved_from_payouts_without_a_book": float(w.moved_uncovered),
            "moved_inside_bands_to_absorb": float(w.moved_to_absorb),
            "rtp_shift_before_absorbing": float(w.shift_before_absorb),
        },
        "exact": _jsonable(
            {**m.exact, "rtp_fraction": f"{m.law.exact_rtp.numerator}/{m.law.exact_rtp.denominator}"}
        ),
        "table": _jsonable(as_json({k: v for k, v in m.table.items() if k != "bands"}))
        | {"bands": [float(p) for p in m.table["bands"]]},
        "search": m.search,
        "files": {
            "books": {"name": books.name, "bytes": books.stat().st_size, "sha256": _sha256(books)},
            "weights": {"name": table.name, "bytes": table.stat().st_size, "sha256": _sha256(table)},
            "books_uncompressed_bytes": raw,
        },
    }
    entry = {"name": m.mode, "cost": float(m.cost), "events": books.name, "weights": table.name}
    return {"entry": entry, "note": note}


def write_export(
    folder: Path, game: Any, variant: str, modes: list[ModeExport], refused: dict[str, str]
) -> Path:
    """Every mode's files, ``index.json`` and the note; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [write_mode(folder, m) for m in modes]
    (folder / INDEX).write_text(json.dumps({"modes": [w["entry"] for w in written]}, indent=2) + "\n")
    note = {
        "game": game.id,
        "name": game.name,
        "version": game.version,
        "variant": variant,
        "data_sha256": data_digest(game, variant),
        "modes": {w["entry"]["name"]: w["note"] for w in written},
        "refused": refused,
    }
    (folder / NOTE).write_text(json.dumps(note, indent=2) + "\n")
    return folder


def data_digest(game: Any, variant: str) -> str:
    """The digest of the game's data files (every file of its ``data/`` folder), so a verify
    knows whether the installed game is the one exported."""
    h = hashlib.sha256()
    for path in sorted((game.folder / "data").rglob("*")):
        if path.is_file():
            h.update(path.relative_to(game.folder).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
