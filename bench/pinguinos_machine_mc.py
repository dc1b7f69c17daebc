"""The whole Los 3 Pinguinos machine under the standard play, simulated, against its exact figure.

Usage: python bench/pinguinos_machine_mc.py [--variant V] [--rounds 100000000] [--seed 2028]
       [--chunks 100] [--warmup 10000] [--upper 0] [--c-spins 20000000] [--out JSON]

Per variant (all four without ``--variant``): ``--rounds`` games (lower rounds and upper games
together) of the standard play at the pairing of ``upper.bets[--upper]`` with the lower bet of
the same cash (default €0.20 with €0.20 + 1 Bonus): lower rounds under AUTO while the machine's
Bonuses do not cover the upper bet, upper games under COLLECT ALL while they do
(``machine_kernel``, checked game for game against the rules).  ``--chunks`` chunks, chunk ``j``
of variant ``i`` seeded by ``SeedSequence(seed, spawn_key=(i,)).spawn(chunks)[j]``, each a new
machine with ``--warmup`` uncounted games; the cash return's 99% interval is Student-t over
the chunks' returns (batch means: the games depend on each other through the machine).  The
exact figure is ``machine_best.play_figure(d, "auto")`` at that pairing, a bracket of its
5-line and 8-line values; *inside* means the interval overlaps it, and ``z`` is the distance
from the nearer end in standard errors.  The C reference (``shared/bench/lines_ref.py``) runs
in the same job; each case reports the machine's busy share while it ran.  Prints a markdown
table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.games import get_game
from reelforge.games.los_3_pinguinos import machine_best as MB
from reelforge.games.los_3_pinguinos import machine_kernel as M

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import c_rate, measured


def run_case(variant: str, index: int, args: argparse.Namespace) -> dict[str, Any]:
    game = get_game("los-3-pinguinos")
    d = game.data(variant)
    p = M.pairing(d, args.upper)
    exact = next(
        r for r in MB.play_figure(d, "auto")["by_pairing"] if r["upper_stake"] == d.upper_stakes[p.upper]
    )
    M.simulate_chunk(d, np.random.SeedSequence(0), 1000, p.upper, 100)  # tables and JIT, outside the timing
    seed = np.random.SeedSequence(args.seed, spawn_key=(index,))

    def work() -> dict[str, Any]:
        start = time.perf_counter()
        tallies = M.simulate(d, seed, args.rounds, args.chunks, p.upper, args.warmup)
        seconds = time.perf_counter() - start
        s = M.summarize(tallies, (exact["rtp_5_lines"], exact["rtp_8_lines"]))
        played = s["games"] + args.chunks * args.warmup
        s.update(seconds=seconds, games_per_second=played / seconds)
        return s

    s = measured(work)
    s["totals"] = vars(s["totals"])
    s.update(
        variant=variant, upper_bet=exact["upper_bet"], lower_bet=p.lower_bet, exact=exact, seed=args.seed
    )
    return s


def markdown(cases: list[dict[str, Any]], c_ref: dict[str, Any] | None) -> str:
    c = c_ref["spins_per_second"] if c_ref else None
    lines = [
        "| variant | pairing | games | lower / upper | exact (5 lines; 8 lines) | Monte Carlo | 99% interval "
        "| inside | z | wall | M games/s | vs C | busy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in cases:
        r, e = s["rtp"], s["exact"]
        vs_c = f"{s['games_per_second'] / c:.2f}" if c else "-"
        lines.append(
            f"| {s['variant']} | €{s['lower_bet'] / 100:.2f} with {s['upper_bet']} | {s['games']:,} | "
            f"{s['lower_games']:,} / {s['upper_games']:,} | {e['rtp_5_lines']:.4%}; {e['rtp_8_lines']:.4%} | "
            f"{r['value']:.4%} | [{r['low']:.4%}, {r['high']:.4%}] | {'yes' if s['inside'] else '**no**'} | "
            f"{s['z']:+.2f} | {s['seconds']:.1f} s | {s['games_per_second'] / 1e6:.1f} | "
            f"{vs_c} | {s.get('machine_busy')} |"
        )
    if c_ref:
        lines.append(f"\nC reference: {c / 1e6:.2f} M spins/s (busy {c_ref.get('machine_busy')})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", help="one variant (default: all)")
    parser.add_argument("--rounds", type=int, default=100_000_000, help="games per variant (counted)")
    parser.add_argument("--seed", type=int, default=2028)
    parser.add_argument("--chunks", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=M.WARMUP, help="uncounted games per chunk")
    parser.add_argument("--upper", type=int, default=0, help="upper bet index of the pairing")
    parser.add_argument("--c-spins", type=int, default=20_000_000, help="C reference spins (0: skip)")
    parser.add_argument("--out", default="bench/out/pinguinos_machine_mc.json")
    args = parser.parse_args()
    variants = list(get_game("los-3-pinguinos").variants)
    chosen = [args.variant] if args.variant else variants
    cases = []
    for v in chosen:
        s = run_case(v, variants.index(v), args)
        cases.append(s)
        r = s["rtp"]
        print(
            f"  {v}: {s['games']:,} games in {s['seconds']:.1f} s, cash return {r['value']:.6f} "
            f"± {r['half_width']:.6f}, exact {s['exact_bracket']}, {'inside' if s['inside'] else 'OUTSIDE'}, "
            f"z {s['z']:+.2f}, busy {s.get('machine_busy')}",
            file=sys.stderr,
            flush=True,
        )
    c_ref = c_rate(args.c_spins) if args.c_spins else None
    out = {
        "command": "python bench/pinguinos_machine_mc.py " + " ".join(sys.argv[1:]),
        "c_reference": c_ref,
        "cases": cases,
    }
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=float))
    print(markdown(cases, c_ref))


if __name__ == "__main__":
    main()
