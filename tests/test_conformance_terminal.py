"""The conformance kit, terminal part: every registered game and mode plays in the terminal
(``reelforge play``'s session, the player taking every default), through the protocol and the
registry alone.

- Every event a round brings is told in words: a view (the game's ``terminal`` capability, or
  the engine's) knows every kind, so none falls through to the raw event the view prints for
  a kind it does not know.
- The session's money adds up: each round costs the bet's price, the balance moves by exactly
  the stakes and the wins, and the wins are those the rules deal from the same seed.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from reelforge.analysis.reachability.sequences import load_sequences, play_round
from reelforge.engine.capabilities import has
from reelforge.engine.game import levels_for
from reelforge.engine.terminal import TerminalView
from reelforge.games import get_game, registry
from reelforge.play import TerminalPlay
from reelforge.rng import SeededRandom

ROUNDS = 120
SEED = 21
CASES = [(g, m) for g in sorted(registry()) for m in get_game(g).modes]


@pytest.mark.parametrize(("game_id", "mode"), CASES, ids=[f"{g}-{m}" for g, m in CASES])
def test_every_game_plays_in_the_terminal(game_id: str, mode: str) -> None:
    game = get_game(game_id)
    variant = game.default_variant
    stake = min(b.stake for b in levels_for(game, variant, mode))
    out = io.StringIO()
    player = TerminalPlay(
        game,
        SeededRandom(SEED),
        console=Console(file=out, width=120, color_system=None),
        read_line=lambda: "\n",  # Enter at every prompt: play on, take the default
        variant=variant,
        mode=mode,
    )
    key = game.state_key(stake, mode)
    if key is not None and has(game, "machine_state"):  # Bonuses enough for every upper game
        player.player_state[key] = game.fresh_player_state(variant, {"bonuses": 10 * ROUNDS})
    cost = game.cost(stake, mode)
    balance = cost * ROUNDS
    session = player.run(stake=stake, balance=balance, max_rounds=ROUNDS)
    text = out.getvalue()

    assert session.rounds == ROUNDS, text[-2000:]
    raw = [line for line in text.splitlines() if "{'type':" in line]
    assert raw == [], f"events no view tells: {raw[:5]}"
    assert session.staked == cost * ROUNDS
    assert session.balance == balance - session.staked + session.won
    assert f"Played {ROUNDS} games" in text

    # The same seed through the rules, taking each default: the same wins, round by round.
    rng, won = SeededRandom(SEED), 0
    state = None
    if key is not None and has(game, "machine_state"):
        state = game.fresh_player_state(variant, {"bonuses": 10 * ROUNDS})
    for _ in range(ROUNDS):
        rnd = game.start(stake, rng, variant=variant, mode=mode, player_state=state)
        while not rnd.complete:
            rnd = game.act(rnd, rnd.default_action(), rng)
        state = rnd.player_state if key is not None else None
        won += rnd.win
    assert session.won == won


REACH = [(g, m) for g, m in CASES if has(get_game(g), "reachability")]


@pytest.mark.parametrize(("game_id", "mode"), REACH, ids=[f"{g}-{m}" for g, m in REACH])
def test_the_stored_max_win_reads_in_the_terminal(game_id: str, mode: str) -> None:
    """The rounds of the stored max-win sequence (through the features the random session may
    not reach: free spins, the wheel, Lock & Spin, the Disco, the minigames) told event by
    event: every kind in words, and the round's win said as it is."""
    game = get_game(game_id)
    seq = next(
        s
        for s in load_sequences(game_id)["sequences"]
        if s["variant"] == game.default_variant and s["mode"] == mode
    )
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    info = game.info()
    view = (
        game.terminal_view(console, info, mode)
        if has(game, "terminal")
        else TerminalView(console, info, mode)
    )
    state = seq["player_state"]
    for rnd_data in seq["rounds"]:
        rnd = play_round(game, seq, rnd_data, state)
        state = rnd.player_state
        for event in rnd.events:
            view.show_event(rnd, event)
    text = out.getvalue()
    raw = [line for line in text.splitlines() if "{'type':" in line]
    assert raw == [], f"events no view tells: {raw[:5]}"
    assert f"Round win: {view.money(seq['expected_win'])}" in text
