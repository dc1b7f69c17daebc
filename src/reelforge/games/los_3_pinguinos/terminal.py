"""Los 3 Pinguinos in the terminal: the lower game's nudges, holds, prize, Disco and ladders, and
the machine (Bonuses, counter, accumulators) with its upper game, told by
:class:`~.terminal_upper.MachineView`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.engine.terminal import TerminalView
from reelforge.engine.terminal.text import bonuses_text, mask_reels, reels_text

from .terminal_upper import UPPER_EVENTS, Ask, MachineView

LADDERS = {"sube_bonos": "Sube-Bonos", "sube_nada": "Sube-Nada"}


class PinguinosView(TerminalView):
    def __init__(self, console: Console, info: dict[str, Any], mode: str = "base") -> None:
        super().__init__(console, info, mode)
        gid = str(info.get("id", "los-3-pinguinos"))
        self.machine = MachineView(console, self.money, info, gid) if MachineView.applies(info) else None

    # -- the machine -------------------------------------------------------------------------

    @property
    def keeps_side_balance(self) -> bool:
        return self.machine is not None

    def intro(self, state: dict[str, Any], stake: int, side: int) -> None:
        """The Bonuses before the first game, and, for an upper bet, what it takes of them."""
        if self.machine is None:
            return
        if side:
            self.machine.intro(state, stake)
        else:
            self.c.print(self.machine.machine_text(state), markup=False)

    def short_of_side(self, state: dict[str, Any], stake: int) -> bool:
        return self.machine is not None and self.machine.short_of_bonuses(state, stake)

    def state_text(self, state: dict[str, Any]) -> str:
        return self.machine.machine_text(state) if self.machine is not None else super().state_text(state)

    # -- decisions -------------------------------------------------------------------------

    def decide(self, rnd: Round, ask: Ask) -> Action | None:
        """The upper game's minigames (and a legend for Double-or-Bonuses); the lower game's
        nudges and holds are the session's menu."""
        if self.machine is not None and rnd.mode == "upper":
            return self.machine.decide(rnd, ask)
        return None

    def pick_label(self, rnd: Round, spec: ActionSpec) -> str:
        return "pick a platform" if spec.name == "pick" else spec.name

    # -- events ----------------------------------------------------------------------------

    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if rnd.mode == "upper" and kind in UPPER_EVENTS and self.machine is not None:
            self.machine.show(e)
        elif not self.show_lower_event(rnd, e):
            super().show_event(rnd, e)

    def reels_title(self, e: dict[str, Any]) -> str:
        if e.get("game") == "held":  # a held game: only the reels not held spin
            return f"Held game: {reels_text(e['spinning'])} spin"
        return super().reels_title(e)

    def prize_text(self, rnd: Round, code: str, at_bet: bool = True) -> str:
        """A Disco prize: ``C<cents>`` cash or ``B<n>`` Bonuses at the bet (``at_bet``), or at
        the unit bet in rounds recorded before the per-bet tables."""
        amount = int(code[1:]) * (1 if at_bet else rnd.coin)
        return bonuses_text(amount) if code[0] == "B" else self.money(amount)

    def show_lower_event(self, rnd: Round, e: dict[str, Any]) -> bool:
        """Nudges, holds, the prize, the Disco, the ladders, Bonuses and the vertical-lines
        counter; False for an event that is none of these."""
        c = self.c
        kind = e["type"]
        if kind == "nudge_offer":
            c.print(
                f"[bold magenta]{e['nudges']} nudge(s)![/] Nudge a reel (the symbol above drops onto "
                "the line), or done."
            )
        elif kind == "nudge":
            c.print(f"Nudge {reels_text([e['reel']])} ({e['left']} left)")
            c.print(self.window_table(e, ""))
            self.show_payline(e)
        elif kind == "nudges_done":
            c.print(f"Nudges done ({e['left']} unused)")
        elif kind == "vertical_lines":
            c.print(f"  vertical lines +{e['hits']}: counter {e['before']} -> {e['counter']}")
        elif kind == "hold_offer":
            c.print(
                f"[bold magenta]HOLD![/] Hold up to two reels for a free game; the game suggests "
                f"{reels_text(mask_reels(e['suggested']))}."
            )
        elif kind == "hold":
            mine = f"Holding {reels_text(e['held'])}" if e["held"] else "Holding nothing"
            suggested = e.get("suggested")
            if suggested is not None and suggested != e["mask"]:
                mine += f" (suggested {reels_text(mask_reels(suggested))})"
            c.print(mine)
        elif kind == "no_prize":
            c.print("[dim]No prize[/]")
        elif kind == "prize":
            self.show_prize(rnd, e)
        elif kind == "bonuses":
            c.print(f"[bold green]+{bonuses_text(e['won'])}[/] (Bonuses {e['balance']})")
        elif kind == "disco_start":
            shown = ", ".join(self.prize_text(rnd, p, e.get("at_bet", False)) for p in e["penguins"])
            c.print(f"Five penguins light in turn: {shown}. STOP lights one.")
        elif kind == "disco_stop":
            prize = self.prize_text(rnd, e["prize"], e.get("at_bet", False))
            c.print(f"The Disco stops on penguin {e['penguin'] + 1}: {prize}")
        elif kind in ("ladder_start", "ladder_step", "ladder_end"):
            self.show_ladder(rnd, e)
        else:
            return False
        return True

    def show_prize(self, rnd: Round, e: dict[str, Any]) -> None:
        if e["kind"] == "bonus":
            self.c.print(f"[bold green]Bonus line: {bonuses_text(e['bonuses'])}[/]")
        elif e["kind"] == "disco":
            self.c.print("[bold magenta]DISCO![/]")
        else:
            ladder = f", into {LADDERS.get(e['ladder'], e['ladder'])}" if e["ladder"] else ""
            prize = self.money(e["credits"] * rnd.coin)
            self.c.print(f"[bold green]Prize {escape(str(e['symbol']))}: {prize}{ladder}[/]")

    def show_ladder(self, rnd: Round, e: dict[str, Any]) -> None:
        """Sube-Bonos and Sube-Nada: COLLECT or PLAY, step by step."""
        c, kind = self.c, e["type"]
        if kind == "ladder_start":
            name = LADDERS.get(e["kind"], e["kind"])
            c.print(f"[bold]{name}[/] at {self.money(e['credits'] * rnd.coin)}: COLLECT it or PLAY for more")
        elif kind == "ladder_step":
            result = e["result"]
            if result == "up":
                c.print(f"PLAY: [green]up to {self.money(e['credits'] * rnd.coin)}[/]")
            elif result == "down":
                c.print(f"PLAY: [yellow]down to {self.money(e['credits'] * rnd.coin)}[/]")
            elif result == "nothing":
                c.print("PLAY: [red]lost: nothing[/]")
            else:
                c.print(
                    f"PLAY: the {self.money(e['from_credits'] * rnd.coin)} turns into "
                    f"{bonuses_text(e['bonuses'])}"
                )
        else:
            how = {"collect": "Collected", "maximum": "Top of the ladder:"}.get(e["how"], e["how"])
            c.print(f"[green]{how} {self.money(e['credits'] * rnd.coin)}[/]")
