"""Terminal play of Los 3 Pinguinos' upper game (mode ``upper``): its events in words.

The upper game's amounts are the bet's own cents (no coin to multiply by): line prizes,
minigame results, the Double-or-Bonuses fractions.  :class:`reelforge.play.TerminalPlay` hands
every event of an upper round here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

UPPER_EVENTS = {
    "upper_start",
    "upper_spin",
    "vertical_lines",
    "accumulator",
    "mixed",
    "minigame_not_offered",
    "minigame_start",
    "minigame_end",
    "double_start",
    "double_collect",
    "double_collect_all",
    "double_play",
    "paid",
    "winning_spin",
    "no_prize",
}
MINIGAMES = {"roulette": "ROULETTE", "fishing": "FISHING", "slides": "SLIDES"}
STARTS = {
    "roulette": "PLAY spins the wheel",
    "fishing": "PLAY sets the three penguins fishing",
    "slides": "the prizes slide away: pick a platform",
}
PAID = {
    "maximum": "The bet's maximum prize, paid at once:",
    "bonus_cap": "Paid at once (the machine holds more Bonuses than the cap):",
    "double_end": "Paid:",
}


def bonuses_text(n: int) -> str:
    return f"{n} Bonus" + ("" if n == 1 else "es")


def side_part(info: dict[str, Any], mode: str, stake: int) -> str | None:
    """What a bet takes besides cash, as the game's info describes its mode's bets (an upper
    bet: ``1 Bonus``); None for a bet of cash alone."""
    section = info.get(mode)
    bets = section.get("bets") if isinstance(section, dict) else None
    for bet in bets if isinstance(bets, list) else []:
        if isinstance(bet, dict) and bet.get("stake") == stake and bet.get("bonuses"):
            return bonuses_text(int(bet["bonuses"]))
    return None


def window_table(e: dict[str, Any], title: str) -> Table:
    """The 3x3 window (``window[reel][row]``), the symbols of winning lines in bold."""
    window: list[list[str]] = e["window"]
    table = Table(title=title or None, show_header=False, box=box.SQUARE, title_justify="left")
    for _ in window:
        table.add_column(justify="center", min_width=3)
    won = {w["symbol"] for w in e.get("wins", [])}
    for row in range(len(window[0]) if window else 0):
        table.add_row(*(Text(col[row], style="bold yellow" if col[row] in won else "") for col in window))
    return table


def show_upper_event(console: Console, money: Callable[[int], str], e: dict[str, Any]) -> None:
    """One event of an upper round, in words."""
    c = console
    kind = e["type"]
    if kind == "upper_start":
        c.print(
            f"[bold]Upper game[/]: bet {money(e['cash'])} + {bonuses_text(e['bonuses'])} "
            f"(Bonuses left {e['bonuses_left']}); {e['lines']} paylines, "
            f"vertical lines counter {e['counter']}"
        )
    elif kind == "upper_spin":
        title = "WINNING SPIN" if e["game"] == "winning" else f"Upper reels, {e['lines']} lines"
        if e.get("tries", 1) > 1:
            title += f" (spun {e['tries']} times until it paid)"
        c.print(title, markup=False, highlight=False)  # on its own line: wider than the grid
        c.print(window_table(e, ""))
        for w in e["wins"]:
            what = "mixed sevens (a prize is drawn)" if w["symbol"] == "mixed" else f"3x {w['symbol']}"
            prize = "" if w["symbol"] == "mixed" else f": {money(w['cents'])}"
            c.print(f"  line {w['line']}: {escape(what)}{prize}")
    elif kind == "vertical_lines":
        gained = e.get("gained", e.get("hits"))
        c.print(f"  vertical lines +{gained}: counter {e['before']} -> {e['counter']}")
    elif kind == "accumulator":
        c.print(f"  accumulator +{e['gained']}: {e['pieces']} pieces of 8")
        if e["full"]:
            c.print("[bold magenta]  The accumulator is complete: a WINNING SPIN follows this game![/]")
    elif kind == "mixed":
        c.print(f"  mixed sevens pay {money(e['cents'])}")
    elif kind == "minigame_not_offered":
        c.print(f"  ({e['minigame']} not offered this time: the line prize stands)")
    elif kind == "minigame_start":
        name = MINIGAMES.get(e["minigame"], e["minigame"])
        c.print(
            f"[bold magenta]{name}![/] It replaces the line prize {money(e['replaces'])}; "
            f"{STARTS.get(e['minigame'], 'PLAY')}."
        )
        if "platforms" in e:
            shown = ", ".join(f"{i}: {money(p)}" for i, p in enumerate(e["platforms"]))
            c.print(f"  platforms showed {shown}")
    elif kind == "minigame_end":
        _minigame_end(c, money, e)
    elif kind == "double_start":
        c.print(
            f"[bold]DOUBLE OR BONUSES[/] on {money(e['prize'])}, in fractions of {money(e['fraction'])}: "
            "collect a fraction, play it (doubled, or its value in Bonuses), or collect_all."
        )
    elif kind == "double_collect":
        c.print(f"Collected {money(e['cents'])} ({money(e['remaining'])} left)")
    elif kind == "double_collect_all":
        why = " (the machine holds more Bonuses than the cap)" if e.get("reason") == "bonus_cap" else ""
        c.print(f"Collected the rest, {money(e['cents'])}{why}")
    elif kind == "double_play":
        left = f" ({money(e['remaining'])} left)"
        if e["result"] == "double":
            top = ": the bet's maximum prize" if e.get("maximum") else ""
            c.print(f"PLAY: [green]doubled to {money(e['cents'])}[/]{top}{left}")
        else:
            c.print(
                f"PLAY: {money(e['from_cents'])} turns into [cyan]{bonuses_text(e['bonuses'])}[/] "
                f"(Bonuses {e['balance']}){left}"
            )
    elif kind == "paid":
        c.print(f"[green]{PAID.get(e['how'], 'Paid:')} {money(e['cents'])}[/]")
    elif kind == "winning_spin":
        c.print("\n[bold magenta]WINNING SPIN![/] The reels spin until they pay.")
    elif kind == "no_prize":
        c.print("[dim]No prize[/]")


def _minigame_end(c: Console, money: Callable[[int], str], e: dict[str, Any]) -> None:
    kind = e["minigame"]
    if kind == "roulette":
        lit = ", ".join(str(s + 1) for s in e["sections"])
        c.print(f"The wheel lights section(s) {lit}: {money(e['result'])}")
    elif kind == "fishing":
        for i, fish in enumerate(e["catches"], start=1):
            caught = ", ".join(money(f) for f in fish) if fish else "nothing"
            c.print(f"  penguin {i} catches {caught}")
        c.print(f"The fish add up to {money(e['result'])}")
    else:
        c.print(f"Platform {e['platform']}: a penguin slides down with {money(e['result'])}")
    c.print(f"[bold green]{MINIGAMES.get(kind, kind)} prize: {money(e['prize'])}[/]")
