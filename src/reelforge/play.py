"""Play a game in the terminal: one round at a time, the player deciding at every choice.

Input is read line by line from a callable (``sys.stdin.readline`` by default) so the loop
works the same on a terminal, a pipe or a test's scripted input; end of input quits
between rounds and takes the default inside a round (a round once paid for must finish).

A round costs ``game.cost(stake, mode)``: the stake for a spin, the price for a bought
feature.  The player's persistent state (e.g. Ghost of Gambini's piggy banks, Los 3 Pinguinos'
Bonuses) is kept for the session per ``game.state_key`` and passed to each round, as the server
does.

A decision offering several actions (COLLECT or PLAY on a ladder, a nudge or done) is a menu:
the player types an action's name (or its first letters), with a choice where it takes one
(``nudge 2``), or just a choice when one action takes them; Enter plays the default.  Choices
of the usual kinds are spelt out: a hold's bitmask as the reels it holds, a nudge's reel.

What the rounds look like is the game's view (its ``terminal`` capability, in its folder), or the
engine's :class:`~reelforge.engine.terminal.TerminalView` for a game without one: this module
only runs the session and asks the decisions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape

from reelforge.engine.capabilities import has
from reelforge.engine.game import Game, InsufficientSideBalance
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.engine.terminal import TerminalView
from reelforge.engine.terminal.text import bet_name, bonuses_text, plural, side_bonuses
from reelforge.money import format_minor
from reelforge.rng import RandomSource

ReadLine = Callable[[], str]


@dataclass
class Session:
    rounds: int = 0
    staked: int = 0  # minor units
    won: int = 0  # minor units
    balance: int = 0  # minor units
    bonuses_staked: int = 0  # Los 3 Pinguinos: Bonuses the upper bets took
    bonuses_won: int = 0  # Bonuses the rounds brought (lower game prizes, Double-or-Bonuses)


class TerminalPlay:
    """Shows a game's events as they happen and asks the player at each decision."""

    def __init__(
        self,
        game: Game,
        rng: RandomSource,
        *,
        console: Console,
        read_line: ReadLine | None = None,
        variant: str | None = None,
        mode: str = "base",
        echo: bool = False,
    ) -> None:
        self.game = game
        self.echo = echo  # piped input is not echoed by a terminal: print it so the log reads right
        self.rng = rng
        self.console = console
        self.read_line = read_line or sys.stdin.readline
        self.variant = variant
        self.mode = mode
        self.info = game.info()
        self.currency = str(self.info.get("currency", "GBP"))
        # How the game's rounds read: its own view where it has one, else the engine's.
        view = game.terminal_view if has(game, "terminal") else TerminalView
        self.view: TerminalView = view(console, self.info, mode)
        self.player_state: dict[str, dict[str, Any]] = {}  # by the game's state key

    def money(self, minor: int) -> str:
        return format_minor(minor, self.currency)

    def ask(self, prompt: str) -> str | None:
        """One line of input, stripped; ``None`` at end of input."""
        self.console.print(prompt, end="", markup=False, highlight=False)
        self.console.file.flush()
        line = self.read_line()
        if not line:
            self.console.print()  # keep the next output off the prompt's line
            return None
        if self.echo:
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    # -- the session -------------------------------------------------------------------

    def run(self, *, stake: int, balance: int, max_rounds: int | None = None) -> Session:
        s = Session(balance=balance)
        cost = self.game.cost(stake, self.mode)  # a bought feature costs its price
        side = side_bonuses(self.info, self.mode, stake)  # Bonuses an upper bet takes besides cash
        if side:
            offer, what = f"play {bet_name(self.info, self.mode, stake, self.currency)}", "cash part"
        elif cost == stake:
            offer, what = f"spin {self.money(stake)}", "stake"
        else:
            offer, what = f"play {self.mode} for {self.money(cost)} (bet {self.money(stake)})", "price"
        self.console.print(f"[bold]{escape(self.game.name)}[/bold]  balance {self.money(balance)}")
        self.show_symbols()
        key = self.game.state_key(stake, self.mode)
        keeps_side = self.view.keeps_side_balance  # a machine holding Bonuses (Los 3 Pinguinos)
        if keeps_side:  # the Bonuses before the first game, and what the bet takes
            self.view.intro(self.machine_state(key), stake, side)
        while max_rounds is None or s.rounds < max_rounds:
            if side and self.view.short_of_side(self.machine_state(key), stake):  # must cover the bet
                break
            if s.balance < cost:
                self.console.print(
                    f"Balance {self.money(s.balance)} is below the {what} {self.money(cost)}: stopping."
                )
                break
            held = f", {bonuses_text(self.bonuses(key))}" if keeps_side else ""
            answer = self.ask(f"Balance {self.money(s.balance)}{held}. Enter to {offer} / q to quit: ")
            if answer is None or answer.lower() in {"q", "quit", "exit"}:
                break
            before = self.bonuses(key)
            try:
                rnd = self.play_round(stake)
            except InsufficientSideBalance as exc:  # refused before anything was drawn or paid
                self.console.print(f"{escape(str(exc))}: stopping.")
                break
            s.balance -= cost
            s.staked += cost
            s.rounds += 1
            s.balance += rnd.win
            s.won += rnd.win
            if keeps_side:  # Bonuses won: what the machine gained, the stake given back
                s.bonuses_staked += side
                s.bonuses_won += self.bonuses(key) - before + side
        self.console.print(self.summary(s, key), markup=False, highlight=False)
        return s

    def summary(self, s: Session, key: str | None) -> str:
        """``Played 2 games: staked €0.40 + 2 Bonuses, won €3.00 + 5 Bonuses. Final balance ...``"""
        staked, won, final = self.money(s.staked), self.money(s.won), f"Final balance {self.money(s.balance)}"
        if self.view.keeps_side_balance:
            staked += f" + {bonuses_text(s.bonuses_staked)}"
            won += f" + {bonuses_text(s.bonuses_won)}"
            final += f"; the machine holds {bonuses_text(self.bonuses(key))}"
        return f"Played {plural(s.rounds, 'game')}: staked {staked}, won {won}. {final}."

    def machine_state(self, key: str | None) -> dict[str, Any]:
        """The persistent state the next round at this bet starts from (a new machine: none yet,
        nothing held)."""
        return (self.player_state.get(key) if key is not None else None) or {}

    def bonuses(self, key: str | None) -> int:
        return int(self.machine_state(key).get("bonuses", 0))

    def show_symbols(self) -> None:
        """A mode with reels of its own (the upper game) names its own symbols."""
        section = self.info.get(self.mode)
        symbols = (
            section.get("symbols")
            if isinstance(section, dict) and "symbols" in section
            else self.info.get("symbols")
        )
        if isinstance(symbols, dict) and all(isinstance(v, str) for v in symbols.values()):
            legend = ", ".join(f"{code} {name}" for code, name in symbols.items())
            self.console.print(f"Symbols: {legend}", markup=False, highlight=False)

    def play_round(self, stake: int) -> Round:
        key = self.game.state_key(stake, self.mode)
        state = self.player_state.get(key) if key is not None else None
        rnd = self.game.start(stake, self.rng, variant=self.variant, mode=self.mode, player_state=state)
        shown = self.show_events(rnd, 0)
        while not rnd.complete:
            action = self.decide(rnd)
            rnd = self.game.act(rnd, action, self.rng)
            shown = self.show_events(rnd, shown)
        if key is not None and rnd.player_state is not None:
            self.player_state[key] = rnd.player_state
            self.show_player_state(rnd.player_state)
        return rnd

    def show_player_state(self, state: dict[str, Any]) -> None:
        """What the player carries to the next round at this bet, e.g. ``piggies 2 / 0`` or
        ``Machine: 3 Bonuses, vertical lines 2``."""
        self.console.print(f"[cyan]{escape(self.view.state_text(state))}[/]")

    def decide(self, rnd: Round) -> Action:
        """The player's action at this step: a menu when several actions are offered."""
        action = self.view.decide(rnd, self.ask)  # a decision the game asks its own way
        if action is not None:
            return action
        if len(rnd.actions) > 1:
            return self.choose_action(rnd)
        return self.decide_one(rnd, rnd.actions[0])

    def show_choices(self, spec: ActionSpec) -> None:
        """A legend for choices that mean something else than their number."""
        labels = [(c, self.view.choice_label(spec.name, c)) for c in spec.choices or []]
        if all(label is not None for _, label in labels) and labels:
            self.console.print(
                "  " + "  ".join(f"{c} {label}" for c, label in labels), markup=False, highlight=False
            )

    def choose_action(self, rnd: Round) -> Action:
        """Several actions: ``name [choice]`` (a unique prefix will do), a bare choice for the
        one action taking choices, Enter for the default."""
        specs = rnd.actions
        default = rnd.default_action()
        options = " / ".join(f"{s.name} {s.choices}" if s.choices is not None else s.name for s in specs)
        shown = default.name
        if default.choice is not None:
            shown += f" {default.choice}"
            label = self.view.choice_label(default.name, default.choice)
            if label:
                shown += f" ({label})"
        for spec in specs:
            if spec.choices is not None:
                self.show_choices(spec)
        with_choices = [s for s in specs if s.choices is not None]
        while True:
            answer = self.ask(f"{options} (Enter = {shown}): ")
            if answer is None or answer == "":
                return default
            words = answer.lower().split()
            spec: ActionSpec | None = None
            choice_word: str | None = None
            if len(words) == 1 and words[0].lstrip("-").isdigit() and len(with_choices) == 1:
                spec, choice_word = with_choices[0], words[0]
            elif 1 <= len(words) <= 2:
                exact = [s for s in specs if s.name == words[0]]
                prefixed = [s for s in specs if s.name.startswith(words[0])]
                found = exact or prefixed
                if len(found) == 1:
                    spec = found[0]
                    choice_word = words[1] if len(words) == 2 else None
            if spec is not None:
                action = self.parse_choice(spec, choice_word)
                if action is not None:
                    return action
            self.console.print(f"{answer!r} is not one of the choices.", markup=False)

    @staticmethod
    def parse_choice(spec: ActionSpec, word: str | None) -> Action | None:
        """``spec`` with the choice ``word`` names (its default when none is given); None when
        the word is no allowed choice, or the action takes none."""
        if spec.choices is None:
            return Action(name=spec.name) if word is None else None
        if word is None:
            return Action(name=spec.name, choice=spec.default)
        try:
            choice = int(word)
        except ValueError:
            return None
        return Action(name=spec.name, choice=choice) if choice in spec.choices else None

    def decide_one(self, rnd: Round, spec: ActionSpec) -> Action:
        """Ask when there is a real choice; a plain action (a free spin) just goes on."""
        if spec.choices is None and not spec.needs_player:
            return Action(name=spec.name)
        if spec.choices is None:
            self.ask(f"Enter to {spec.name}: ")
            return Action(name=spec.name)
        label = self.view.pick_label(rnd, spec)
        default = f"{spec.default}"
        if spec.default is not None and (meaning := self.view.choice_label(spec.name, spec.default)):
            default += f", {meaning}"
        while True:
            self.view.show_pick_board(rnd)
            self.show_choices(spec)
            answer = self.ask(f"{label} {spec.choices} (Enter = {default}): ")
            if answer is None or answer == "":
                return Action(name=spec.name, choice=spec.default)
            try:
                choice = int(answer)
            except ValueError:
                choice = None
            if choice in spec.choices:
                return Action(name=spec.name, choice=choice)
            self.console.print(f"{answer!r} is not one of the choices.", markup=False)

    # -- showing events ----------------------------------------------------------------

    def show_events(self, rnd: Round, start: int) -> int:
        for event in rnd.events[start:]:
            self.view.show_event(rnd, event)
        return len(rnd.events)
