"""Ghost of Gambini's max win: fifteen GRAND pots in one Lock & Spin, constructed by hand.

In a feature every ghost is steered onto the first position not yet gold (a gold ghost; in
Lock & Spin the colour draw picks gold), each spin draws the most ghosts the table allows,
so the board fills with gold frames; at the end each gold frame draws its GRAND.  Fifteen
GRANDs are ``15 × jackpots.GRAND`` times the bet, past the cap for the shipped data (the
construction checks it).

A bought feature is that alone.  In the base game the feature starts when a piggy bank
grows at its largest size: from new piggies (size 0) the ghost's magic shot (drawn by hand)
tosses into both piggies; rounds whose remaining draws (searched from seeds 0, 1, ...) make
both piggies grow are kept, until both pop together and start Super Lock & Spin with four
spins; its start ghosts are as searched, its spins are constructed as above.
"""

from __future__ import annotations

from reelforge.engine.report.script import Planned, Recorder, Script, index_offset, offset
from reelforge.engine.round import Action, Round
from reelforge.rng import ScriptedRandom, SeededRandom

from . import lock_spin as ls
from .data_model import N_POS, Feature, GambiniData

METHOD = (
    "constructed by hand from the feature tables (construct_gambini): every ghost gold and on the "
    "next open position, the most ghosts each spin, fifteen GRAND pots; in the base game the rounds "
    "that grow the piggy banks to a double pop are searched from fixed seeds behind a hand-drawn "
    "magic shot of the ghost"
)


def _ghost_draws(f: Feature, board: list[int], count: int) -> list[int]:
    """Draws steering ``count`` ghosts, gold, each onto the first position not gold; ``board``
    (a copy) follows them."""
    out: list[int] = []
    for _ in range(count):
        if ls.all_gold(board):
            break  # ghosts past an all-gold board draw nothing
        if not f.gold_only:
            out.append(index_offset(f.colour_weights, 1))
        target = next(p for p in range(N_POS) if board[p] != ls.GOLD)
        out.append(target)
        board[target] = ls.GOLD
    return out


def _grand_draws(d: GambiniData, f: Feature, board: list[int]) -> list[int]:
    return [offset(getattr(f.frames, ls.LEVELS[level]), "GRAND") for level in board if level]


def spin_step(d: GambiniData):  # type: ignore[no-untyped-def]
    def step(rnd: Round) -> tuple[Action, Script]:
        feat = rnd.state["feature"]
        f = ls.feature_of(d, feat["super"])
        board = list(feat["board"])
        most = max(f.ghosts_per_spin)
        draws = [offset(f.ghosts_per_spin, most), *_ghost_draws(f, board, most)]
        if ls.all_gold(board):
            draws += _grand_draws(d, f, board)
        return Action(name="spin"), Script(draws)

    return step


def construct_buy(d: GambiniData, super_: bool) -> tuple[list[Planned], str]:
    f = ls.feature_of(d, super_)
    if 15 * d.jackpots["GRAND"] < d.game.max_win:
        raise ValueError("fifteen GRAND pots fall short of the cap: this construction does not reach it")
    most = max(f.start_ghosts)
    board = [0] * N_POS
    start = [offset(f.start_ghosts, most), *_ghost_draws(f, board, most)]
    if ls.all_gold(board):
        start += _grand_draws(d, f, board)
    note = f"{most} start ghosts and {max(f.ghosts_per_spin)} a spin, all gold, fifteen GRAND pots"
    return [Planned(lambda _: Script(list(start)), None, spin_step(d))], note


def construct_base(d: GambiniData) -> tuple[list[Planned], str]:
    shot = offset(d.magic_shot.model_dump(), "ghost")
    sizes = len(d.piggies.sizes)

    def source(seed: int) -> Recorder:
        return Recorder(ScriptedRandom([shot], SeededRandom(seed)))

    def grew_both(rnd: Round) -> bool:
        toss = next((e for e in rnd.events if e["type"] == "piggy_toss"), None)
        return toss is not None and toss["grew"] == [True, True] and rnd.complete

    def popped_both(rnd: Round) -> bool:
        toss = next((e for e in rnd.events if e["type"] == "piggy_toss"), None)
        return toss is not None and len(toss["popped"]) == 2 and not rnd.complete

    rounds = [Planned(source, grew_both) for _ in range(sizes - 1)]
    rounds.append(Planned(source, popped_both, spin_step(d)))
    note = (
        f"{sizes - 1} rounds of the ghost's magic shot growing both piggy banks, then one popping both: "
        "Super Lock & Spin with 4 spins, steered to fifteen GRAND pots"
    )
    return rounds, note


BUY_SUPER = {"buy-lock-spin": False, "buy-super-lock-spin": True}
