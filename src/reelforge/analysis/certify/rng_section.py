"""The RNG evidence: dieharder and ent on the production source's raw output
(:mod:`.rng_external`), and our own tests on the game's scaled outcomes (:mod:`.rng_own`).

The section passes when dieharder reports no FAILED test (WEAK is its p < 0.005 or > 0.995,
which a perfect source shows about once in a hundred tests), ent's chi-square is not in its
"not random" zone, and our own tests' failures at 99% are within their binomial allowance.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import Any

from reelforge.engine.game import Game

from .html import page, table, verdict
from .model import Options, Section
from .rng_external import parse_dieharder, run_dieharder, run_ent
from .rng_own import check_table, family_verdict, fmt_p
from .rng_tables import draw_tables

PAGE = "rng.html"
SUMMARY = "rng/summary.json"
DIEHARDER = "rng/dieharder.txt"
ENT = "rng/ent.txt"


def _dieharder(options: Options, out_dir: Path) -> dict[str, Any] | None:
    if options.skip_dieharder:
        return None
    options.say(
        "dieharder "
        + (
            "-a (the whole battery)"
            if options.dieharder_tests is None
            else " ".join(f"-d {t}" for t in options.dieharder_tests)
        )
    )
    started = time.time()
    rows, fed = run_dieharder(options.raw_source(), options.dieharder_tests, out_dir / DIEHARDER)
    counts = Counter(r.verdict for r in rows)
    return {
        "selection": "-a" if options.dieharder_tests is None else options.dieharder_tests,
        "bytes_fed": fed,
        "seconds": round(time.time() - started, 1),
        "counts": {k: counts.get(k, 0) for k in ("PASSED", "WEAK", "FAILED")},
        "weak": [f"{r.test} (ntup {r.ntup}, p {r.p})" for r in rows if r.verdict == "WEAK"],
        "failed": [f"{r.test} (ntup {r.ntup}, p {r.p})" for r in rows if r.verdict == "FAILED"],
        "rows": [asdict(r) for r in rows],
        "passed": bool(rows) and counts.get("FAILED", 0) == 0,
    }


def build(game: Game, out_dir: Path, options: Options) -> Section:
    (out_dir / "rng").mkdir(exist_ok=True)
    summary: dict[str, Any] = {}
    options.say(f"ent on {options.ent_bytes:,} bytes")
    ent = run_ent(options.raw_source(), options.ent_bytes, out_dir / "rng", out_dir / ENT)
    summary["ent"] = asdict(ent) | {"bytes": options.ent_bytes, "verdict": ent.verdict}
    tables = draw_tables(game, options.variants)
    options.say(f"chi-square, runs and serial tests: {len(tables)} tables x {options.rng_draws:,} draws")
    source = options.source()
    results = [check_table(source, t, options.rng_draws) for t in tables]
    tests, failures, allowed, own_ok = family_verdict(results)
    summary["own"] = {
        "draws_per_table": options.rng_draws,
        "level": 0.99,
        "tests": tests,
        "failures": failures,
        "allowed_failures": allowed,
        "passed": own_ok,
        "tables": [
            {
                "kind": r.table.kind,
                "outcomes": len(r.table.weights),
                "weights": list(r.table.weights) if r.table.kind == "weights" else None,
                "places": r.table.places,
                "p": r.p,
                "serial_r": r.serial_r,
                "failures": r.failures,
            }
            for r in results
        ],
    }
    # dieharder last, the rest written first: the whole battery takes hours, and a run stopped
    # in it keeps the other results (and dieharder's output so far).
    summary["dieharder"] = "running" if not options.skip_dieharder else None
    (out_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    dh = summary["dieharder"] = _dieharder(options, out_dir)
    passed = own_ok and ent.verdict != "FAILED" and (dh is None or dh["passed"])
    summary["passed"] = passed
    (out_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out_dir / PAGE).write_text(page(f"{game.name}: RNG evidence", _body(summary)), encoding="utf-8")
    lines = []
    if dh is None:
        lines.append("dieharder: skipped (--skip-dieharder)")
    else:
        c = dh["counts"]
        lines.append(
            f"dieharder {dh['selection']}: {c['PASSED']} PASSED, {c['WEAK']} WEAK, {c['FAILED']} FAILED"
        )
    lines.append(
        f"ent ({options.ent_bytes:,} bytes): random bytes exceed its chi-square {ent.chi_percent}% "
        f"of the time: {ent.verdict}"
    )
    lines.append(
        f"own tests: {len(tables)} tables x {options.rng_draws:,} draws, {tests} tests, "
        f"{failures} failed at 99% (allowed {allowed})"
    )
    files = [PAGE, SUMMARY, ENT] + ([DIEHARDER] if dh is not None else [])
    return Section("rng", "RNG evidence", files, passed, lines)


def _body(summary: dict[str, Any]) -> str:
    parts = []
    dh = summary["dieharder"]
    if dh is None:
        parts.append("<h2>dieharder</h2><p>Skipped (--skip-dieharder).</p>")
    else:
        c = dh["counts"]
        parts.append(
            f"<h2>dieharder {verdict(dh['passed'])}</h2><p>Selection {escape(str(dh['selection']))}, "
            f"{dh['bytes_fed']:,} bytes of the production source fed on stdin (-g 200), "
            f"{dh['seconds']:,} s. {c['PASSED']} PASSED, {c['WEAK']} WEAK, {c['FAILED']} FAILED. "
            f'Full output: <a href="{DIEHARDER}">{DIEHARDER}</a>.</p>'
            + table(
                ["test", "ntup", "tsamples", "psamples", "p-value", "assessment"],
                [
                    [
                        r["test"],
                        str(r["ntup"]),
                        str(r["tsamples"]),
                        str(r["psamples"]),
                        f"{r['p']:.8f}",
                        r["verdict"],
                    ]
                    for r in dh["rows"]
                ],
            )
        )
    e = summary["ent"]
    parts.append(
        f"<h2>ent {verdict(e['verdict'] != 'FAILED')}</h2><p>{e['bytes']:,} bytes. "
        f"Entropy {e['entropy']} bits per byte; chi-square {e['chi_square']}, "
        f"exceeded {e['chi_percent']}% of the time by random bytes "
        f"({e['verdict']}); mean {e['mean']}; Monte Carlo pi error {e['pi_error_percent']}%; serial "
        f'correlation {e["serial"]}. Full output: <a href="{ENT}">{ENT}</a>.</p>'
    )
    own = summary["own"]
    rows = [
        [
            escape(t["kind"]),
            str(t["outcomes"]),
            escape(", ".join(map(str, t["weights"])) if t["weights"] else "uniform"),
            escape(
                "; ".join(t["places"][:4])
                + (f" (+{len(t['places']) - 4} more)" if len(t["places"]) > 4 else "")
            ),
            *(fmt_p(t["p"][k]) for k in ("chi_square", "runs", "serial_lag1")),
            verdict(not t["failures"]),
        ]
        for t in own["tables"]
    ]
    parts.append(
        f"<h2>Chi-square, runs and serial correlation on scaled outcomes {verdict(own['passed'])}</h2>"
        f"<p>{own['draws_per_table']:,} draws per table through the production source and scaling "
        f"(randbelow for a reel stop, weighted_index for a weight table). {own['tests']} tests at 99%, "
        f"{own['failures']} failed; a perfect source exceeds {own['allowed_failures']} failures one time "
        "in a hundred (binomial), so the family passes at up to that many.</p>"
        + table(
            ["kind", "outcomes", "weights", "where", "chi-square p", "runs p", "serial p", "99%"],
            rows,
            raw=True,
        )
    )
    return "\n".join(parts)


__all__ = ["build", "parse_dieharder"]
