"""How a game's rounds read in the terminal: :class:`TerminalView`.

The view shows what every game of reels has (a spin's window with its line, way and scatter
wins, free spins awarded and over, the max win, the round's end) and offers hooks a game's own
view (``games/<id>/terminal.py``) fills: its own events, more under a spin, a pick board, what a
choice means, a decision asked its own way, and a machine holding side balances (Bonuses) the
session must show and check.  A data-only game is told by this view alone.

Amounts in events are credits at the round's coin (``credits * rnd.coin`` minor units) unless
a game's view says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.money import format_minor

from .text import bonuses_text, choice_label, plural

Ask = Callable[[str], "str | None"]  # a prompt in, the answer out (None: end of input)


class TerminalView:
    """One game's rounds in words and tables, for one terminal session in one mode."""

    def __init__(self, console: Console, info: dict[str, Any], mode: str = "base") -> None:
        self.c = console
        self.info = info
        self.mode = mode
        self.currency = str(info.get("currency", "GBP"))

    def money(self, minor: int) -> str:
        return format_minor(minor, self.currency)

    # -- the machine: side balances a bet takes besides cash (none for most games) ----------

    @property
    def keeps_side_balance(self) -> bool:
        """Whether this game's machine holds a side balance (Bonuses) the session counts."""
        return False

    def intro(self, state: dict[str, Any], stake: int, side: int) -> None:
        """Before the first round: the machine's state (and whether it covers the bet)."""

    def short_of_side(self, state: dict[str, Any], stake: int) -> bool:
        """Whether the machine no longer covers the bet's side part; if so, say so."""
        return False

    def state_text(self, state: dict[str, Any]) -> str:
        """What the player carries to the next round at this bet, e.g. ``piggies 2 / 0`` (empty
        fields left out)."""
        parts = [
            f"{name.replace('_', ' ')} {self.state_value(value)}"
            for name, value in state.items()
            if not (isinstance(value, dict | list) and not value)
        ]
        return ", ".join(parts)

    @staticmethod
    def state_value(value: Any) -> str:
        """A list as ``2 / 0``, a mapping as ``100: 3, 500: 1``."""
        if isinstance(value, list):
            return " / ".join(str(v) for v in value)
        if isinstance(value, dict):
            return ", ".join(f"{k}: {v}" for k, v in value.items())
        return str(value)

    # -- decisions -----------------------------------------------------------------------

    def decide(self, rnd: Round, ask: Ask) -> Action | None:
        """A decision the game asks its own way; None where the session's menu asks it."""
        return None

    def choice_label(self, action: str, choice: int) -> str | None:
        """What a choice means (a hold's bitmask as reels, a nudge's reel); None: its number."""
        return choice_label(action, choice)

    def pick_label(self, rnd: Round, spec: ActionSpec) -> str:
        """The words before a one-action choice's prompt."""
        return spec.name

    def show_pick_board(self, rnd: Round) -> None:
        """What a pick chooses among, shown before each pick (nothing by default)."""

    # -- events ----------------------------------------------------------------------------

    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        """One event in words; a game's view handles its own kinds and passes the rest here."""
        kind = e.get("type")
        c = self.c
        if kind == "spin":
            self.show_spin(rnd, e)
        elif kind == "free_spins_awarded":
            again = " more" if e.get("retrigger") else ""
            mult = f" Every win x{e['multiplier']}." if int(e.get("multiplier", 1)) > 1 else ""
            c.print(f"[bold magenta]{e['scatters']} scatters: {e['count']}{again} free spins![/]{mult}")
        elif kind == "free_spins_end":
            spins = plural(int(e["spins"]), "free spin")
            c.print(f"[bold magenta]Free spins over:[/] {spins} won {self.money(e['credits'] * rnd.coin)}")
        elif kind == "max_win":
            c.print(f"[bold red]MAX WIN reached: {self.money(e['credits'] * rnd.coin)}[/]")
        elif kind == "round_end":
            style = "bold green" if rnd.win else "dim"
            bonuses = e.get("bonuses_won")
            won = f", {bonuses_text(bonuses)} won" if bonuses else ""
            c.print(f"[{style}]Round win: {self.money(rnd.win)}{won}[/]")
        else:  # a kind no view knows: still show something rather than nothing
            c.print(escape(str(e)))

    def reels_title(self, e: dict[str, Any]) -> str:
        """A spin's heading by the reels it spun (``Spin``, ``Free spin reels``)."""
        reels = str(e.get("reels", "base"))
        return {"base": "Spin", "free": "Free spin reels"}.get(reels, reels)

    def spin_title(self, rnd: Round, e: dict[str, Any]) -> str:
        """``Spin``, ``Free spin 3 (7 left) x2``: what a spin's table is headed with."""
        title = self.reels_title(e)
        if "free_spin" in e:  # a feature resolved in one step numbers its spins itself
            title = f"Free spin {e['free_spin']} ({e.get('free_spins_left', 0)} left)"
        mult = int(e.get("multiplier", 1))
        return title + (f" x{mult}" if mult > 1 else "")

    def show_spin(self, rnd: Round, e: dict[str, Any]) -> None:
        """The window, then each win: ways, lines, scatters, what the game adds, the total."""
        title = self.spin_title(rnd, e)
        mult = int(e.get("multiplier", 1))
        if len(title) > 6 * len(e["window"]):  # a title wider than the grid: a line of its own
            self.c.print(title, markup=False, highlight=False)
            title = ""
        self.c.print(self.window_table(e, title))
        self.show_payline(e)
        for way in e.get("ways", []):
            pays = way["credits"] * mult * rnd.coin
            self.c.print(
                f"  {escape(way['symbol'])} x{way['length']} on {way['ways']} way(s)"
                + (f" x{mult}" if mult > 1 else "")
                + f": {self.money(pays)}"
            )
        for line in e.get("lines", []):
            self.c.print(
                f"  line {line['line'] + 1}: {escape(self.symbol_name(line['symbol']))} x{line['length']}: "
                f"{self.money(line['credits'] * rnd.coin)}"
            )
        if e.get("scatter_credits"):
            n = len(e.get("scatters", []))
            self.c.print(f"  {n} scatters: {self.money(e['scatter_credits'] * rnd.coin)}")
        self.show_spin_extras(rnd, e)
        if e.get("credits"):
            self.c.print(f"  [green]spin wins {self.money(e['credits'] * rnd.coin)}[/]")

    def show_spin_extras(self, rnd: Round, e: dict[str, Any]) -> None:
        """What a game's spin brings besides line, way and scatter wins (nothing by default)."""

    def symbol_name(self, code: str) -> str:
        """``FA Falcon of Horus`` where the game names its symbols in its info, else the code."""
        names = self.info.get("symbols")
        name = names.get(code) if isinstance(names, dict) else None
        return f"{code} {name}" if isinstance(name, str) and name != code else code

    def show_payline(self, e: dict[str, Any]) -> None:
        """A game paying on one center line names what stands on it."""
        if isinstance(e.get("line"), list):
            self.c.print(f"  payline: {' '.join(e['line'])}", markup=False, highlight=False)

    @staticmethod
    def window_table(e: dict[str, Any], title: str) -> Table:
        """The window (``window[reel][row]``): winning symbols bold yellow, scatters and
        collected positions magenta, a center payline reversed."""
        window: list[list[str]] = e["window"]
        winning = {tuple(p) for win in e.get("ways", []) + e.get("lines", []) for p in win["positions"]}
        n_rows = len(window[0]) if window else 1
        collected = {(got["position"] // n_rows, got["position"] % n_rows) for got in e.get("collected", [])}
        scatters = {tuple(p) for p in e.get("scatters", [])} | collected
        payline = n_rows // 2 if "line" in e else None
        table = Table(title=title or None, show_header=False, box=box.SQUARE, title_justify="left")
        for _ in window:
            table.add_column(justify="center", min_width=3)
        for row in range(len(window[0]) if window else 0):
            cells = []
            for reel, column in enumerate(window):
                style = (
                    "bold yellow"
                    if (reel, row) in winning
                    else "magenta"
                    if (reel, row) in scatters
                    else "bold reverse"
                    if row == payline
                    else ""
                )
                cells.append(Text(column[row], style=style))
            table.add_row(*cells)
        return table
