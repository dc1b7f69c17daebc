"""Los 3 Pinguinos' machine in the terminal, above all its upper game (mode ``upper``).

:class:`MachineView` tells the machine's state (Bonuses, the vertical-lines counter, the
accumulator of each upper bet, named by its bet), says before the first game whether the
Bonuses cover the bet and how to bring some, tells every event of an upper round in words, and
asks the minigames' and Double-or-Bonuses' decisions with the keys that act on them.

The upper game's amounts are the bet's own cents (no coin to multiply by): line prizes,
minigame results, the Double-or-Bonuses fractions.  Everything it knows of the game comes from
the game's info and the round's events, never from the game's modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from reelforge.engine.round import Action, Round
from reelforge.engine.terminal.text import bet_name, bonuses_text, plural, side_bets
from reelforge.engine.terminal.view import Ask

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
HOW_TO_PLAY = {
    "roulette": "the lit sections of the wheel add up",
    "fishing": "each penguin fishes until it catches a cross; the fish add up",
    "slides": "one prize slides behind each platform, unseen; the platform picked pays its prize",
}
PAID = {
    "maximum": "The bet's maximum prize, paid at once:",
    "bonus_cap": "Paid at once (the machine holds more Bonuses than the cap):",
    "double_end": "Paid:",
}


class MachineView:
    """Los 3 Pinguinos' machine and upper game in words, for one terminal session."""

    def __init__(self, console: Console, money: Callable[[int], str], info: dict[str, Any], game_id: str):
        self.c = console
        self.money = money
        self.info = info
        self.game_id = game_id
        self.currency = str(info.get("currency", "EUR"))
        self.bets = side_bets(info, "upper")
        upper = info.get("upper") if isinstance(info.get("upper"), dict) else {}
        self.pieces = int(upper.get("accumulator_pieces", 8))
        self.bonus_value = int(info.get("bonus_value", 80))
        self.stake = 0  # the bet of the round being told (its upper_start event's)
        self.started: dict[str, Any] = {}  # the minigame being played: its start event
        self.double_prize = 0  # the prize the Double-or-Bonuses in play started from

    @staticmethod
    def applies(info: dict[str, Any]) -> bool:
        """Whether the game has this machine: upper bets that take Bonuses."""
        return bool(side_bets(info, "upper"))

    def bet(self, stake: int) -> str:
        return bet_name(self.info, "upper", stake, self.currency)

    def pieces_text(self, stake: int, pieces: int) -> str:
        """An accumulator by its bet: ``€0.20 + 1 Bonus: 3 of 8 pieces``."""
        return f"{self.bet(stake)}: {pieces} of {plural(self.pieces, 'piece')}"

    # -- the machine ------------------------------------------------------------------------

    def machine_text(self, state: dict[str, Any]) -> str:
        """``Machine: 4 Bonuses, vertical lines counter 2; accumulators €0.20 + 1 Bonus: 3 of 8 pieces``
        (the accumulators holding pieces only)."""
        bonuses, counter = int(state.get("bonuses", 0)), state.get("vertical_lines", 0)
        text = f"Machine: {bonuses_text(bonuses)}, vertical lines counter {counter}"
        acc = state.get("accumulators") or {}
        held = [
            self.pieces_text(int(k), int(v)) for k, v in sorted(acc.items(), key=lambda kv: int(kv[0])) if v
        ]
        return text + (f"; accumulators {', '.join(held)}" if held else "")

    def intro(self, state: dict[str, Any], stake: int) -> None:
        """Before the first upper game: the Bonuses the machine holds against what the bet takes."""
        have, need = int(state.get("bonuses", 0)), int(self.bets[stake]["bonuses"])
        self.c.print(self.machine_text(state), markup=False, highlight=False)
        if have < need:
            return  # short_of_bonuses says so, and how to bring some
        self.c.print(
            f"The upper bet {self.bet(stake)} takes {bonuses_text(need)} a game besides its cash: "
            f"the machine's Bonuses cover {plural(have // need, 'game')}.",
            markup=False,
            highlight=False,
        )

    def short_of_bonuses(self, state: dict[str, Any], stake: int) -> bool:
        """Whether the Bonuses no longer cover the bet; if so, say so and how to bring some."""
        have, need = int(state.get("bonuses", 0)), int(self.bets[stake]["bonuses"])
        if have >= need:
            return False
        self.c.print(
            f"Not enough Bonuses for the upper game: {self.bet(stake)} takes {bonuses_text(need)} "
            f"and the machine holds {have}: stopping.",
            markup=False,
            highlight=False,
        )
        self.c.print(
            "Bring Bonuses with --bonuses N (e.g. --bonuses 10), or win them in the lower game first "
            f"(reelforge play {self.game_id}) and start here with --bonuses set to what it leaves.",
            markup=False,
            highlight=False,
        )
        return True

    # -- decisions --------------------------------------------------------------------------

    def decide(self, rnd: Round, ask: Ask) -> Action | None:
        """The minigames' actions, asked with the key that plays them; None where the generic
        menu asks (Double-or-Bonuses, after its legend here)."""
        phase = rnd.state.get("phase")
        spec = rnd.actions[0]
        if phase == "roulette":
            ask("Press Enter to spin the roulette: ")
            return Action(name=spec.name)
        if phase == "fishing":
            ask("Press Enter to set the penguins fishing: ")
            return Action(name=spec.name)
        if phase == "slides" and spec.choices:
            return self.pick_platform(spec.choices, spec.default or 0, ask)
        if phase == "double":
            self.double_legend(rnd)
        return None

    def pick_platform(self, choices: list[int], default: int, ask: Ask) -> Action:
        """Platforms as the player counts them, 1 to n (the rules number them from 0)."""
        n = len(choices)
        while True:
            answer = ask(f"Pick a platform 1-{n} (Enter = {default + 1}): ")
            if not answer:
                return Action(name="pick", choice=default)
            if answer.isdigit() and 1 <= int(answer) <= n:
                return Action(name="pick", choice=choices[int(answer) - 1])
            self.c.print(f"{answer!r} is not a platform: type a number from 1 to {n}.", markup=False)

    def double_legend(self, rnd: Round) -> None:
        """What each action of Double-or-Bonuses does with the fraction in play."""
        db = rnd.state.get("double") or {}
        bet = self.bets.get(int(rnd.state.get("bet_value", 0)))
        remaining = int(db.get("remaining", 0))
        if bet is None or remaining <= 0:
            return
        frac = min(int(bet["fraction"]), remaining)
        whole, rest = divmod(frac, self.bonus_value)
        worth = (
            bonuses_text(whole) if not rest else f"{whole} or {bonuses_text(whole + 1)} (rounded at random)"
        )
        lines = [f"  collect_all (Enter): take the {self.money(remaining)} left"]
        if remaining > frac:
            lines.append(f"  collect: take {self.money(frac)} now and decide on the rest")
        lines.append(f"  play: risk {self.money(frac)}: doubled to {self.money(2 * frac)}, or {worth}")
        self.c.print("\n".join(lines), markup=False, highlight=False)

    # -- events ------------------------------------------------------------------------------

    def show(self, e: dict[str, Any]) -> None:
        """One event of an upper round, in words."""
        c, money = self.c, self.money
        kind = e["type"]
        if kind == "upper_start":
            self.stake = int(e["bet_value"])
            c.print(
                f"[bold]Upper game[/], bet {escape(self.bet(int(e['bet_value'])))}: "
                f"{bonuses_text(e['bonuses_left'])} left; {e['lines']} paylines, "
                f"vertical lines counter {e['counter']}"
            )
        elif kind == "upper_spin":
            title = "WINNING SPIN" if e["game"] == "winning" else f"Upper reels, {e['lines']} lines"
            if e.get("tries", 1) > 1:
                title += f" (spun {plural(e['tries'], 'time')} until it paid)"
            c.print(title, markup=False, highlight=False)  # on its own line: wider than the grid
            c.print(window_table(e))
            for w in e["wins"]:
                what = "mixed sevens (a prize is drawn)" if w["symbol"] == "mixed" else f"3x {w['symbol']}"
                prize = "" if w["symbol"] == "mixed" else f": {money(w['cents'])}"
                c.print(f"  line {w['line']}: {escape(what)}{prize}")
        elif kind == "vertical_lines":
            gained = e.get("gained", e.get("hits"))
            c.print(f"  vertical lines +{gained}: counter {e['before']} -> {e['counter']}")
        elif kind == "accumulator":
            c.print(
                f"  accumulator +{plural(e['gained'], 'piece')}: "
                f"{escape(self.pieces_text(int(e['bet_value']), e['pieces']))}"
            )
            if e["full"]:
                c.print("[bold magenta]  The accumulator is complete: a WINNING SPIN follows this game![/]")
        elif kind == "mixed":
            c.print(f"  mixed sevens pay {money(e['cents'])}")
        elif kind == "minigame_not_offered":
            name = MINIGAMES.get(e["minigame"], e["minigame"]).title()
            c.print(f"  ({name} not offered this time: the line prize stands)")
        elif kind == "minigame_start":
            self.minigame_start(e)
        elif kind == "minigame_end":
            self.minigame_end(e)
        elif kind == "double_start":
            self.double_prize = int(e["prize"])
            c.print(
                f"[bold]DOUBLE OR BONUSES[/] on {money(e['prize'])}, in fractions of {money(e['fraction'])}: "
                "collect it, or play each fraction for double or its value in Bonuses."
            )
        elif kind == "double_collect":
            c.print(f"Collected {money(e['cents'])} ({money(e['remaining'])} left)")
        elif kind == "double_collect_all":
            why = " (the machine holds more Bonuses than the cap)" if e.get("reason") == "bonus_cap" else ""
            what = "" if e["cents"] == self.double_prize else "the rest, "  # nothing played yet: all of it
            c.print(f"Collected {what}{money(e['cents'])}{why}")
        elif kind == "double_play":
            left = f" ({money(e['remaining'])} left)"
            if e["result"] == "double":
                top = ": the bet's maximum prize" if e.get("maximum") else ""
                c.print(f"PLAY: [green]doubled to {money(e['cents'])}[/]{top}{left}")
            else:
                c.print(
                    f"PLAY: {money(e['from_cents'])} turns into [cyan]{bonuses_text(e['bonuses'])}[/] "
                    f"(the machine holds {bonuses_text(e['balance'])}){left}"
                )
        elif kind == "paid":
            c.print(f"[green]{PAID.get(e['how'], 'Paid:')} {money(e['cents'])}[/]")
        elif kind == "winning_spin":
            bet = escape(self.bet(int(e["bet_value"])))
            c.print(
                f"\n[bold magenta]WINNING SPIN[/] of the {bet} accumulator! The reels spin until they pay."
            )
        elif kind == "no_prize":
            c.print("[dim]No prize[/]")

    def floor(self, replaces: int) -> tuple[int, str]:
        """The least a minigame pays (the bet's floor, or the line prize it replaced if more),
        and which of the two it is."""
        floor = int((self.bets.get(self.stake) or {}).get("minigame_floor", 0))
        if floor >= replaces:
            return floor, "the bet's minigame floor"
        return replaces, "the line prize it replaced"

    def minigame_start(self, e: dict[str, Any]) -> None:
        kind = e["minigame"]
        self.started = dict(e)
        least, what = self.floor(int(e["replaces"]))
        name = MINIGAMES.get(kind, kind)
        self.c.print(
            f"[bold magenta]{name}![/] It replaces the line prize {self.money(e['replaces'])} "
            f"and pays at least {self.money(least)} ({what}); {HOW_TO_PLAY.get(kind, '')}."
        )
        if "platforms" in e:
            shown = ", ".join(f"{i}: {self.money(p)}" for i, p in enumerate(e["platforms"], start=1))
            self.c.print(f"  the platforms showed {shown}; the prizes slide away, shuffled")

    def minigame_end(self, e: dict[str, Any]) -> None:
        c, money = self.c, self.money
        kind = e["minigame"]
        if kind == "roulette":
            lit = ", ".join(str(s + 1) for s in e["sections"])
            which = "section" if len(e["sections"]) == 1 else "sections"
            c.print(f"The roulette lights {which} {lit}: {money(e['result'])}")
        elif kind == "fishing":
            for i, fish in enumerate(e["catches"], start=1):
                caught = ", ".join(money(f) for f in fish) if fish else "nothing"
                c.print(f"  penguin {i} catches {caught}, then a cross")
            c.print(f"The fish add up to {money(e['result'])}")
        else:
            c.print(f"Platform {e['platform'] + 1}: a penguin slides down with {money(e['result'])}")
            shown, order = self.started.get("platforms"), e.get("order")
            if shown and order:
                others = ", ".join(
                    f"{j}: {money(shown[order[j - 1]])}"
                    for j in range(1, len(order) + 1)
                    if j - 1 != e["platform"]
                )
                c.print(f"  the other platforms hid {others}")
        name = MINIGAMES.get(kind, kind)
        if e["prize"] > e["result"]:
            least, what = self.floor(int(self.started.get("replaces", 0)))
            pays = f"the {name.title()} pays {money(least)}"
            c.print(f"{money(e['result'])} is below {what} ({money(least)}): {pays}.")
        elif e["prize"] < e["result"]:
            c.print(f"Capped at the bet's maximum prize, {money(e['prize'])}.")
        c.print(f"[bold green]{name} prize: {money(e['prize'])}[/]")
        self.started = {}


def window_table(e: dict[str, Any]) -> Table:
    """The 3x3 window (``window[reel][row]``), the symbols of winning lines in bold."""
    window: list[list[str]] = e["window"]
    table = Table(show_header=False, box=box.SQUARE)
    for _ in window:
        table.add_column(justify="center", min_width=3)
    won = {w["symbol"] for w in e.get("wins", [])}
    for row in range(len(window[0]) if window else 0):
        table.add_row(*(Text(col[row], style="bold yellow" if col[row] in won else "") for col in window))
    return table
