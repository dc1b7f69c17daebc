"""Play a game in the terminal: one round at a time, the player deciding at every choice.

Input is read line by line from a callable (``sys.stdin.readline`` by default) so the loop
works the same on a terminal, a pipe or a test's scripted input; end of input quits
between rounds and takes the default inside a round (a round once paid for must finish).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from reelforge.engine.game import Game
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.money import format_minor
from reelforge.rng import RandomSource

ReadLine = Callable[[], str]


@dataclass
class Session:
    rounds: int = 0
    staked: int = 0  # minor units
    won: int = 0  # minor units
    balance: int = 0  # minor units


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
        self.currency = str(game.info().get("currency", "GBP"))

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
        self.console.print(f"[bold]{escape(self.game.name)}[/bold]  balance {self.money(balance)}")
        while max_rounds is None or s.rounds < max_rounds:
            if s.balance < stake:
                self.console.print(
                    f"Balance {self.money(s.balance)} is below the stake {self.money(stake)}: stopping."
                )
                break
            answer = self.ask(
                f"Balance {self.money(s.balance)}. Enter to spin {self.money(stake)} / q to quit: "
            )
            if answer is None or answer.lower() in {"q", "quit", "exit"}:
                break
            s.balance -= stake
            s.staked += stake
            s.rounds += 1
            rnd = self.play_round(stake)
            s.balance += rnd.win
            s.won += rnd.win
        self.console.print(
            f"Played {s.rounds} round(s): staked {self.money(s.staked)}, won {self.money(s.won)}. "
            f"Final balance {self.money(s.balance)}."
        )
        return s

    def play_round(self, stake: int) -> Round:
        rnd = self.game.start(stake, self.rng, variant=self.variant, mode=self.mode)
        shown = self.show_events(rnd, 0)
        while not rnd.complete:
            action = self.decide(rnd, rnd.actions[0])
            rnd = self.game.act(rnd, action, self.rng)
            shown = self.show_events(rnd, shown)
        return rnd

    def decide(self, rnd: Round, spec: ActionSpec) -> Action:
        """Ask when there is a real choice; a plain action (a free spin) just goes on."""
        if spec.choices is None and not spec.needs_player:
            return Action(name=spec.name)
        if spec.choices is None:
            self.ask(f"Enter to {spec.name}: ")
            return Action(name=spec.name)
        label = "pick a stone" if spec.name == "pick" else spec.name
        while True:
            self.show_pick_board(rnd)
            answer = self.ask(f"{label} {spec.choices} (Enter = {spec.default}): ")
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
            self.show_event(rnd, event)
        return len(rnd.events)

    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        kind = e.get("type")
        c = self.console
        if kind == "spin":
            self.show_spin(rnd, e)
        elif kind == "free_spins_awarded":
            again = " more" if e.get("retrigger") else ""
            c.print(f"[bold magenta]{e['scatters']} scatters: {e['count']}{again} free spins![/]")
        elif kind == "wheel":
            c.print(
                f"\n[bold]Free spin {e.get('free_spin', '')}[/]  wheel: [cyan]{escape(str(e['award']))}[/]"
            )
        elif kind == "random_wilds":
            c.print(f"Random wilds: set {e['set'] + 1}")
        elif kind == "ice_diamonds_start":
            c.print(f"[bold cyan]Ice Diamonds![/] {e['stones']} stones; find the diamonds.")
        elif kind == "pick":
            found = "[bold cyan]a diamond![/]" if e["diamond"] else "empty"
            c.print(f"Stone {e['stone']}: {found}")
        elif kind == "ice_diamonds_award":
            c.print(
                f"Ice Diamonds over: {e['diamonds']} diamond(s), level {e['level']}, "
                f"wins {self.money(e['credits'] * rnd.coin)}"
            )
        elif kind == "max_win":
            c.print(f"[bold red]MAX WIN reached: {self.money(e['credits'] * rnd.coin)}[/]")
        elif kind == "round_end":
            style = "bold green" if rnd.win else "dim"
            c.print(f"[{style}]Round win: {self.money(rnd.win)}[/]")
        else:  # a future game's event: still show something rather than nothing
            c.print(escape(str(e)))

    def show_spin(self, rnd: Round, e: dict[str, Any]) -> None:
        reels = str(e.get("reels", ""))
        mult = int(e.get("multiplier", 1))
        title = {"base": "Spin", "free": "Free spin reels", "spin_to_win": "Spin To Win"}.get(reels, reels)
        tail = reels.rsplit("_", 1)[-1]
        if reels.startswith("random_wilds_") and tail.isdigit():  # the event counts sets from 0
            title = f"Random wilds reels (set {int(tail) + 1})"
        if mult > 1:
            title += f" x{mult}"
        self.console.print(self.window_table(e, title))
        for way in e.get("ways", []):
            pays = way["credits"] * mult * rnd.coin
            self.console.print(
                f"  {escape(way['symbol'])} x{way['length']} on {way['ways']} way(s)"
                + (f" x{mult}" if mult > 1 else "")
                + f": {self.money(pays)}"
            )
        if e.get("scatter_credits"):
            n = len(e.get("scatters", []))
            self.console.print(f"  {n} scatters: {self.money(e['scatter_credits'] * rnd.coin)}")
        if e.get("credits"):
            self.console.print(f"  [green]spin wins {self.money(e['credits'] * rnd.coin)}[/]")

    @staticmethod
    def window_table(e: dict[str, Any], title: str) -> Table:
        window: list[list[str]] = e["window"]  # window[reel][row]
        winning = {tuple(p) for way in e.get("ways", []) for p in way["positions"]}
        scatters = {tuple(p) for p in e.get("scatters", [])}
        table = Table(title=title, show_header=False, box=box.SQUARE, title_justify="left")
        for _ in window:
            table.add_column(justify="center", min_width=3)
        for row in range(len(window[0]) if window else 0):
            cells = []
            for reel, column in enumerate(window):
                style = (
                    "bold yellow" if (reel, row) in winning else "magenta" if (reel, row) in scatters else ""
                )
                cells.append(Text(column[row], style=style))
            table.add_row(*cells)
        return table

    def show_pick_board(self, rnd: Round) -> None:
        """The stones: numbers still hidden, 'D' a diamond found, '.' an empty one."""
        ice = rnd.state.get("ice")
        if not isinstance(ice, dict):
            return
        revealed = {e["stone"]: e["diamond"] for e in rnd.events if e.get("type") == "pick"}
        stones = next(
            (e["stones"] for e in reversed(rnd.events) if e.get("type") == "ice_diamonds_start"), None
        )
        if stones is None:
            return
        cells = []
        for i in range(stones):
            if i in ice.get("picked", []):
                cells.append(" D" if revealed.get(i) else " .")
            else:
                cells.append(f"{i:2d}")
        self.console.print(
            f"Stones: {' '.join(cells)}   diamonds {ice.get('diamonds', 0)}, empties {ice.get('empties', 0)}",
            markup=False,
        )
