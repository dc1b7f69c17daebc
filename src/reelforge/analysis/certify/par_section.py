"""PAR sheets (:mod:`reelforge.analysis.par`, one per RTP variant and mode) and the
exact-versus-simulated RTP table drawn from the very simulation each sheet ran."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from html import escape
from pathlib import Path

from reelforge.analysis.par.gather import build_sheet
from reelforge.analysis.par.model import Z99
from reelforge.analysis.par.render import render
from reelforge.engine.game import Game

from .html import page, table, verdict
from .model import Options, Section

TABLE_JSON = "exact_vs_simulated.json"
TABLE_HTML = "exact_vs_simulated.html"


@dataclass(frozen=True)
class RtpCheck:
    """One variant and mode: the exact RTP, the simulated one and its standard error
    (``std / sqrt(rounds)``, read off the sheet's 99% interval), ``z = (sim - exact) / se``;
    it passes when ``|z| <= 2.576`` (the exact figure inside the 99% interval)."""

    variant: str
    mode: str
    label: str
    exact: float
    simulated: float
    se: float
    z: float
    rounds: int
    seed: int
    sheet: str

    @property
    def passed(self) -> bool:
        return abs(self.z) <= Z99


def variants_modes(game: Game, options: Options) -> list[tuple[str, str]]:
    variants = options.variants or list(game.variants)
    modes = options.modes or list(game.modes)
    return [(v, m) for v in variants for m in modes]


def build(game: Game, out_dir: Path, options: Options) -> Section:
    (out_dir / "par").mkdir(exist_ok=True)
    checks = []
    files = []
    for index, (variant, mode) in enumerate(variants_modes(game, options)):
        # A seed per pair, so that the rows are independent evidence (one seed for all would
        # draw the variants' rounds from the same streams and move their z-scores together).
        seed = options.seed + index
        options.say(f"PAR sheet {variant} {mode} (seed {seed})")
        sheet = build_sheet(game, variant, mode, options.rounds, seed)
        name = f"par/{variant}-{mode}.html"
        (out_dir / name).write_text(render(sheet), encoding="utf-8")
        files.append(name)
        rtp = next(c for c in sheet.comparisons if c.key == "rtp")
        assert rtp.exact is not None and rtp.sim is not None and rtp.low is not None and rtp.high is not None
        se = (rtp.high - rtp.low) / (2 * Z99)
        z = (rtp.sim - rtp.exact.value) / se if se > 0 else 0.0
        checks.append(
            RtpCheck(variant, mode, rtp.label, rtp.exact.value, rtp.sim, se, z, options.rounds, seed, name)
        )
    rows = [
        [
            escape(c.variant),
            escape(c.mode),
            escape(c.label),
            f"{c.exact:.6%}",
            f"{c.simulated:.6%}",
            f"{c.se:.6%}",
            f"{c.z:+.3f}",
            str(c.seed),
            verdict(c.passed),
            f'<a href="{escape(c.sheet)}">{escape(c.sheet)}</a>',
        ]
        for c in checks
    ]
    body = (
        f"<p>{options.rounds:,} simulated rounds per variant and mode (seeds from {options.seed} up, one "
        "per row; the PAR sheet's own simulation). Standard error: the simulated per-round standard "
        "deviation / sqrt(rounds). A row passes at 99% when |z| &le; 2.576.</p>"
        + table(
            [
                "variant",
                "mode",
                "figure",
                "exact RTP",
                "simulated RTP",
                "std. error",
                "z",
                "seed",
                "99%",
                "PAR sheet",
            ],
            rows,
            raw=True,
        )
    )
    (out_dir / TABLE_HTML).write_text(
        page(f"{game.name}: exact versus simulated RTP", body), encoding="utf-8"
    )
    data = [asdict(c) | {"passed": c.passed} for c in checks]
    (out_dir / TABLE_JSON).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    passed = all(c.passed for c in checks)
    worst = max(checks, key=lambda c: abs(c.z))
    return Section(
        "par",
        "PAR sheets and exact versus simulated RTP",
        [TABLE_HTML, TABLE_JSON, *files],
        passed,
        [
            f"{len(checks)} variant/mode pairs, {options.rounds:,} rounds each; "
            f"{sum(c.passed for c in checks)} inside the 99% interval",
            f"largest |z|: {abs(worst.z):.3f} ({worst.variant} {worst.mode})",
        ],
    )
