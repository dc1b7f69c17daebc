"""Ghost of Gambini in the terminal: the magic of a spin, the piggy banks' tosses and pops, a
bought feature, and Lock & Spin's boards of frames (the spin's lines and the round's end are the
engine view's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from reelforge.engine.round import Round
from reelforge.engine.terminal import TerminalView

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


def show_magic(c: Console, money: Callable[[int], str], rnd: Round, e: dict[str, Any]) -> None:
    """A spin's magic: the magic shot, the rewinds, the ghost's coins, the collection."""
    if e.get("shot"):
        c.print(f"  magic shot: {WILDS.get(e['shot'], e['shot'])} lands in the center")
    if e.get("center_rewind"):
        r = e["center_rewind"]
        c.print(f"  Magic Rewind: the center reel moves back {r['distance']} to a wild")
    if e.get("jackpot_rewind"):
        r = e["jackpot_rewind"]
        c.print(
            f"  jackpot rewind: position {r['position']} moves back {r['distance']} to {escape(r['jackpot'])}"
        )
    for coin in e.get("ghost_coins", []):
        c.print(f"  the ghost drops {escape(coin['prize'])} on position {coin['position']}")
    for got in e.get("collected", []):
        c.print(
            f"  collected {escape(' + '.join(got['prizes']))} at {got['position']}: "
            f"{money(got['credits'] * rnd.coin)}"
        )


def show_toss(c: Console, e: dict[str, Any]) -> None:
    """Gambini or the ghost tossing coins into the piggy banks, and the ones that pop."""
    who = WILDS.get(e["by"], e["by"])
    into = " and ".join(e["into"])
    grew = ", ".join(
        f"{side} {'grows' if g else 'stays'}" for side, g in zip(e["into"], e["grew"], strict=True)
    )
    many = "s" if len(e["into"]) > 1 else ""
    c.print(f"{who} tosses into the {into} piggy bank{many}: {grew}")
    for side in e["popped"]:
        c.print(f"[bold magenta]The {side} piggy bank pops![/]")


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


class GambiniView(TerminalView):
    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        kind, c = e.get("type"), self.c
        if kind == "buy":
            c.print(
                f"[bold magenta]Feature bought: {FEATURES.get(e['feature'], escape(str(e['feature'])))}[/]"
            )
        elif kind == "piggy_toss":
            show_toss(c, e)
        elif kind == "lock_spin_start":
            name = FEATURES["super_lock_spin" if e["super"] else "lock_spin"]
            c.print(f"\n[bold magenta]{name}![/] {e['spins']} spins; {ghosts_text(e['ghosts'])}")
            c.print(board_table(e["board"], "Frames"))
        elif kind == "lock_spin":
            feature = rnd.state.get("feature", {})
            name = FEATURES["super_lock_spin" if feature.get("super") else "lock_spin"]
            c.print(
                f"\n[bold]{name} spin {e['spin']}[/]: {ghosts_text(e['ghosts'])}; spins left {e['counter']}"
            )
            if e["ghosts"]:  # the board changed
                c.print(board_table(e["board"], f"Frames after spin {e['spin']}"))
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
        else:
            super().show_event(rnd, e)

    def show_spin_extras(self, rnd: Round, e: dict[str, Any]) -> None:
        show_magic(self.c, self.money, rnd, e)
