"""Reign of Gnomes in the terminal: the free-spin wheel, random wilds, Spin To Win and Ice
Diamonds' stones (the spin's ways, the free spins and the round's end are the engine view's)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from reelforge.engine.round import ActionSpec, Round
from reelforge.engine.terminal import TerminalView


class GnomesView(TerminalView):
    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        kind, c = e.get("type"), self.c
        if kind == "wheel":
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
        else:
            super().show_event(rnd, e)

    def reels_title(self, e: dict[str, Any]) -> str:
        reels = str(e.get("reels", "base"))
        tail = reels.rsplit("_", 1)[-1]
        if reels.startswith("random_wilds_") and tail.isdigit():  # the event counts sets from 0
            return f"Random wilds reels (set {int(tail) + 1})"
        if reels == "spin_to_win":
            return "Spin To Win"
        return super().reels_title(e)

    def pick_label(self, rnd: Round, spec: ActionSpec) -> str:
        return "pick a stone" if spec.name == "pick" else spec.name

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
        self.c.print(
            f"Stones: {' '.join(cells)}   diamonds {ice.get('diamonds', 0)}, empties {ice.get('empties', 0)}",
            markup=False,
        )
