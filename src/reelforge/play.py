"""Play a game in the terminal: one round at a time, the player deciding at every choice.

Input is read line by line from a callable (``sys.stdin.readline`` by default) so the loop
works the same on a terminal, a pipe or a test's scripted input; end of input quits
between rounds and takes the default inside a round (a round once paid for must finish).

A round costs ``game.cost(stake, mode)``: the stake for a spin, the price for a bought
feature.  The player's persistent state (e.g. Ghost of Gambini's piggy banks) is kept for
the session per ``game.state_key`` and passed to each round, as the server does.
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

FEATURES = {"lock_spin": "Lock & Spin", "super_lock_spin": "Super Lock & Spin"}
WILDS = {"gambini": "Gambini", "ghost": "The ghost"}
FRAMES = [(".", "dim"), ("B", "dark_orange3"), ("S", "bold white"), ("G", "bold yellow")]  # by level


def ghosts_text(ghosts: list[dict[str, Any]]) -> str:
    """Lock & Spin ghosts: where each one landed and the frame it left."""
    if not ghosts:
        return "no ghost"
    return ", ".join(
        f"{g['colour']} ghost -> {g['frame']} at {g['landed'] if g['moved_to'] is None else g['moved_to']}"
        for g in ghosts
    )


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
        if cost == stake:
            offer, what = f"spin {self.money(stake)}", "stake"
        else:
            offer, what = f"play {self.mode} for {self.money(cost)} (bet {self.money(stake)})", "price"
        self.console.print(f"[bold]{escape(self.game.name)}[/bold]  balance {self.money(balance)}")
        while max_rounds is None or s.rounds < max_rounds:
            if s.balance < cost:
                self.console.print(
                    f"Balance {self.money(s.balance)} is below the {what} {self.money(cost)}: stopping."
                )
                break
            answer = self.ask(f"Balance {self.money(s.balance)}. Enter to {offer} / q to quit: ")
            if answer is None or answer.lower() in {"q", "quit", "exit"}:
                break
            s.balance -= cost
            s.staked += cost
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
        key = self.game.state_key(stake, self.mode)
        state = self.player_state.get(key) if key is not None else None
        rnd = self.game.start(stake, self.rng, variant=self.variant, mode=self.mode, player_state=state)
        shown = self.show_events(rnd, 0)
        while not rnd.complete:
            action = self.decide(rnd, rnd.actions[0])
            rnd = self.game.act(rnd, action, self.rng)
            shown = self.show_events(rnd, shown)
        if key is not None and rnd.player_state is not None:
            self.player_state[key] = rnd.player_state
            self.show_player_state(rnd.player_state)
        return rnd

    def show_player_state(self, state: dict[str, Any]) -> None:
        """What the player carries to the next round at this bet, e.g. ``piggies 2 / 0``."""
        parts = [
            f"{name} {' / '.join(str(v) for v in value) if isinstance(value, list) else value}"
            for name, value in state.items()
        ]
        self.console.print(f"[cyan]{escape(', '.join(parts))}[/]")

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
        elif kind == "buy":
            c.print(
                f"[bold magenta]Feature bought: {FEATURES.get(e['feature'], escape(str(e['feature'])))}[/]"
            )
        elif kind == "piggy_toss":
            self.show_toss(e)
        elif kind == "lock_spin_start":
            name = FEATURES["super_lock_spin" if e["super"] else "lock_spin"]
            c.print(f"\n[bold magenta]{name}![/] {e['spins']} spins; {ghosts_text(e['ghosts'])}")
            c.print(self.board_table(e["board"], "Frames"))
        elif kind == "lock_spin":
            feature = rnd.state.get("feature", {})
            name = FEATURES["super_lock_spin" if feature.get("super") else "lock_spin"]
            c.print(
                f"\n[bold]{name} spin {e['spin']}[/]: {ghosts_text(e['ghosts'])}; spins left {e['counter']}"
            )
            if e["ghosts"]:  # the board changed
                c.print(self.board_table(e["board"], f"Frames after spin {e['spin']}"))
        elif kind == "lock_spin_end":
            name = FEATURES["super_lock_spin" if e["super"] else "lock_spin"]
            if e["all_gold"]:
                c.print("[bold yellow]ALL GOLD![/]")
            for a in e["awards"]:
                c.print(
                    f"  {a['frame']} frame at {a['position']}: {escape(a['prize'])} "
                    f"{self.money(a['credits'] * rnd.coin)}"
                )
            c.print(f"{name} over: wins {self.money(e['credits'] * rnd.coin)}")
        elif kind == "max_win":
            c.print(f"[bold red]MAX WIN reached: {self.money(e['credits'] * rnd.coin)}[/]")
        elif kind == "round_end":
            style = "bold green" if rnd.win else "dim"
            c.print(f"[{style}]Round win: {self.money(rnd.win)}[/]")
        else:  # a future game's event: still show something rather than nothing
            c.print(escape(str(e)))

    def show_spin(self, rnd: Round, e: dict[str, Any]) -> None:
        reels = str(e.get("reels", "base"))
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
        for line in e.get("lines", []):
            self.console.print(
                f"  line {line['line'] + 1}: {escape(line['symbol'])} x{line['length']}: "
                f"{self.money(line['credits'] * rnd.coin)}"
            )
        if e.get("scatter_credits"):
            n = len(e.get("scatters", []))
            self.console.print(f"  {n} scatters: {self.money(e['scatter_credits'] * rnd.coin)}")
        self.show_magic(rnd, e)
        if e.get("credits"):
            self.console.print(f"  [green]spin wins {self.money(e['credits'] * rnd.coin)}[/]")

    def show_magic(self, rnd: Round, e: dict[str, Any]) -> None:
        """Ghost of Gambini's spin: the magic shot, the rewinds, the ghost's coins, the
        collection (all absent from other games' spins)."""
        c = self.console
        if e.get("shot"):
            c.print(f"  magic shot: {WILDS.get(e['shot'], e['shot'])} lands in the center")
        if e.get("center_rewind"):
            r = e["center_rewind"]
            c.print(f"  Magic Rewind: the center reel moves back {r['distance']} to a wild")
        if e.get("jackpot_rewind"):
            r = e["jackpot_rewind"]
            c.print(
                f"  jackpot rewind: position {r['position']} moves back {r['distance']} "
                f"to {escape(r['jackpot'])}"
            )
        for coin in e.get("ghost_coins", []):
            c.print(f"  the ghost drops {escape(coin['prize'])} on position {coin['position']}")
        for got in e.get("collected", []):
            c.print(
                f"  collected {escape(' + '.join(got['prizes']))} at {got['position']}: "
                f"{self.money(got['credits'] * rnd.coin)}"
            )

    def show_toss(self, e: dict[str, Any]) -> None:
        c = self.console
        who = WILDS.get(e["by"], e["by"])
        into = " and ".join(e["into"])
        grew = ", ".join(
            f"{side} {'grows' if g else 'stays'}" for side, g in zip(e["into"], e["grew"], strict=True)
        )
        plural = "s" if len(e["into"]) > 1 else ""
        c.print(f"{who} tosses into the {into} piggy bank{plural}: {grew}")
        for side in e["popped"]:
            c.print(f"[bold magenta]The {side} piggy bank pops![/]")

    @staticmethod
    def board_table(board: list[int], title: str) -> Table:
        """A Lock & Spin board (frame levels by position, reel by reel, top row first)."""
        table = Table(title=title, show_header=False, box=box.SQUARE, title_justify="left")
        rows = 3
        reels = [board[r * rows : (r + 1) * rows] for r in range(len(board) // rows)]
        for _ in reels:
            table.add_column(justify="center", min_width=3)
        for row in range(rows):
            table.add_row(*(Text(*FRAMES[reel[row]]) for reel in reels))
        return table

    @staticmethod
    def window_table(e: dict[str, Any], title: str) -> Table:
        window: list[list[str]] = e["window"]  # window[reel][row]
        winning = {tuple(p) for win in e.get("ways", []) + e.get("lines", []) for p in win["positions"]}
        n_rows = len(window[0]) if window else 1
        collected = {(got["position"] // n_rows, got["position"] % n_rows) for got in e.get("collected", [])}
        scatters = {tuple(p) for p in e.get("scatters", [])} | collected
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
