"""The bundle: the section builders in order, then the index page and the sealed manifest.

Each builder is ``(game, out_dir) -> Section``; a new section is one more entry in
:func:`sections`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from reelforge.analysis.par.adapter import adapter_for
from reelforge.engine.game import Game

from . import digests, par_section, reach_section, rng_section
from .index import write_index
from .model import Options, Section, SectionBuilder


def data_files(game: Game, options: Options) -> list[str]:
    """The data files of the variants and modes certified (the manifest digests them all)."""
    names: list[str] = []
    for variant, mode in par_section.variants_modes(game, options):
        for path in adapter_for(game, variant, mode).data_files():
            name = path.resolve().relative_to(digests.SOURCE_ROOT).as_posix()
            if name not in names:
                names.append(name)
    return names


def _digests(game: Game, out_dir: Path, options: Options) -> Section:
    return digests.build(game, out_dir, data_files(game, options))


def sections(options: Options) -> list[SectionBuilder]:
    return [
        partial(_digests, options=options),
        partial(par_section.build, options=options),
        partial(reach_section.build, options=options),
        partial(rng_section.build, options=options),
    ]


def build_bundle(game: Game, out_dir: Path, options: Options) -> list[Section]:
    out_dir.mkdir(parents=True, exist_ok=True)
    done = [builder(game, out_dir) for builder in sections(options)]
    write_index(game, out_dir, done)
    digests.seal(out_dir)
    return done
