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

from reelforge.engine.game import Game, InsufficientSideBalance
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.money import format_minor
from reelforge.play_gambini import FEATURES, board_table, ghosts_text, show_magic, show_toss
from reelforge.play_text import (
    bet_name,
    bonuses_text,
    choice_label,
    mask_reels,
    plural,
    reels_text,
    side_bonuses,
)
from reelforge.play_upper import UPPER_EVENTS, MachineView
from reelforge.rng import RandomSource

ReadLine = Callable[[], str]

LADDERS = {"sube_bonos": "Sube-Bonos", "sube_nada": "Sube-Nada"}


PINGUINOS_EVENTS = {
    "nudge_offer",
    "nudge",
    "nudges_done",
    "vertical_lines",
    "hold_offer",
    "hold",
    "no_prize",
    "prize",
    "bonuses",
    "disco_start",
    "disco_stop",
    "ladder_start",
    "ladder_step",
    "ladder_end",
}


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
        # Los 3 Pinguinos' machine (Bonuses, counter, accumulators by bet) told in words.
        self.machine = (
            MachineView(console, self.money, self.info, game.id) if MachineView.applies(self.info) else None
        )
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
        if self.machine is not None:  # the Bonuses before the first game, and what the bet takes
            if side:
                self.machine.intro(self.machine_state(key), stake)
            else:
                self.console.print(self.machine.machine_text(self.machine_state(key)), markup=False)
        upper = self.machine if side else None  # an upper bet: the Bonuses must cover it
        while max_rounds is None or s.rounds < max_rounds:
            if upper is not None and upper.short_of_bonuses(self.machine_state(key), stake):
                break
            if s.balance < cost:
                self.console.print(
                    f"Balance {self.money(s.balance)} is below the {what} {self.money(cost)}: stopping."
                )
                break
            held = f", {bonuses_text(self.bonuses(key))}" if self.machine is not None else ""
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
            if self.machine is not None:  # Bonuses won: what the machine gained, the stake given back
                s.bonuses_staked += side
                s.bonuses_won += self.bonuses(key) - before + side
        self.console.print(self.summary(s, key), markup=False, highlight=False)
        return s

    def summary(self, s: Session, key: str | None) -> str:
        """``Played 2 games: staked €0.40 + 2 Bonuses, won €3.00 + 5 Bonuses. Final balance ...``"""
        staked, won, final = self.money(s.staked), self.money(s.won), f"Final balance {self.money(s.balance)}"
        if self.machine is not None:
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
        ``Machine: 3 Bonuses, vertical lines 2`` (empty fields left out)."""
        if self.machine is not None:
            self.console.print(f"[cyan]{escape(self.machine.machine_text(state))}[/]")
            return
        parts = [
            f"{name.replace('_', ' ')} {self.state_value(value)}"
            for name, value in state.items()
            if not (isinstance(value, dict | list) and not value)
        ]
        self.console.print(f"[cyan]{escape(', '.join(parts))}[/]")

    @staticmethod
    def state_value(value: Any) -> str:
        """A list as ``2 / 0``, a mapping (Los 3 Pinguinos' accumulators by upper bet) as
        ``100: 3, 500: 1``."""
        if isinstance(value, list):
            return " / ".join(str(v) for v in value)
        if isinstance(value, dict):
            return ", ".join(f"{k}: {v}" for k, v in value.items())
        return str(value)

    def decide(self, rnd: Round) -> Action:
        """The player's action at this step: a menu when several actions are offered."""
        if self.machine is not None and rnd.mode == "upper":
            action = self.machine.decide(rnd, self.ask)  # minigames; a legend for Double-or-Bonuses
            if action is not None:
                return action
        if len(rnd.actions) > 1:
            return self.choose_action(rnd)
        return self.decide_one(rnd, rnd.actions[0])

    def show_choices(self, spec: ActionSpec) -> None:
        """A legend for choices that mean something else than their number."""
        labels = [(c, choice_label(spec.name, c)) for c in spec.choices or []]
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
            label = choice_label(default.name, default.choice)
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
        label = spec.name
        if spec.name == "pick":  # Ice Diamonds' stones, or the Slides' platforms
            label = "pick a platform" if rnd.state.get("phase") == "slides" else "pick a stone"
        default = f"{spec.default}"
        if spec.default is not None and (meaning := choice_label(spec.name, spec.default)):
            default += f", {meaning}"
        while True:
            self.show_pick_board(rnd)
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
            self.show_event(rnd, event)
        return len(rnd.events)

    def show_event(self, rnd: Round, e: dict[str, Any]) -> None:
        kind = e.get("type")
        c = self.console
        if kind == "spin":
            self.show_spin(rnd, e)
        elif kind == "free_spins_awarded":
            again = " more" if e.get("retrigger") else ""
            mult = f" Every win x{e['multiplier']}." if int(e.get("multiplier", 1)) > 1 else ""
            c.print(f"[bold magenta]{e['scatters']} scatters: {e['count']}{again} free spins![/]{mult}")
        elif kind == "free_spins_end":
            spins = plural(int(e["spins"]), "free spin")
            c.print(f"[bold magenta]Free spins over:[/] {spins} won {self.money(e['credits'] * rnd.coin)}")
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
            show_toss(self.console, e)
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
        elif kind == "max_win":
            c.print(f"[bold red]MAX WIN reached: {self.money(e['credits'] * rnd.coin)}[/]")
        elif rnd.mode == "upper" and kind in UPPER_EVENTS and self.machine is not None:
            self.machine.show(e)
        elif kind in PINGUINOS_EVENTS:
            self.show_machine_event(rnd, e)
        elif kind == "round_end":
            style = "bold green" if rnd.win else "dim"
            bonuses = e.get("bonuses_won")
            won = f", {bonuses_text(bonuses)} won" if bonuses else ""
            c.print(f"[{style}]Round win: {self.money(rnd.win)}{won}[/]")
        else:  # a future game's event: still show something rather than nothing
            c.print(escape(str(e)))

    def prize_text(self, rnd: Round, code: str, at_bet: bool = True) -> str:
        """A Disco prize: ``C<cents>`` cash or ``B<n>`` Bonuses at the bet (``at_bet``), or at
        the unit bet in rounds recorded before the per-bet tables."""
        amount = int(code[1:]) * (1 if at_bet else rnd.coin)
        return bonuses_text(amount) if code[0] == "B" else self.money(amount)

    def show_machine_event(self, rnd: Round, e: dict[str, Any]) -> None:
        """Los 3 Pinguinos: nudges, holds, the prize, the Disco, the ladders, Bonuses and the
        vertical-lines counter."""
        c = self.console
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
            if e["kind"] == "bonus":
                c.print(f"[bold green]Bonus line: {bonuses_text(e['bonuses'])}[/]")
            elif e["kind"] == "disco":
                c.print("[bold magenta]DISCO![/]")
            else:
                ladder = f", into {LADDERS.get(e['ladder'], e['ladder'])}" if e["ladder"] else ""
                c.print(
                    f"[bold green]Prize {escape(str(e['symbol']))}: "
                    f"{self.money(e['credits'] * rnd.coin)}{ladder}[/]"
                )
        elif kind == "bonuses":
            c.print(f"[bold green]+{bonuses_text(e['won'])}[/] (Bonuses {e['balance']})")
        elif kind == "disco_start":
            shown = ", ".join(self.prize_text(rnd, p, e.get("at_bet", False)) for p in e["penguins"])
            c.print(f"Five penguins light in turn: {shown}. STOP lights one.")
        elif kind == "disco_stop":
            prize = self.prize_text(rnd, e["prize"], e.get("at_bet", False))
            c.print(f"The Disco stops on penguin {e['penguin'] + 1}: {prize}")
        elif kind == "ladder_start":
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
        elif kind == "ladder_end":
            how = {"collect": "Collected", "maximum": "Top of the ladder:"}.get(e["how"], e["how"])
            c.print(f"[green]{how} {self.money(e['credits'] * rnd.coin)}[/]")

    def show_spin(self, rnd: Round, e: dict[str, Any]) -> None:
        reels = str(e.get("reels", "base"))
        mult = int(e.get("multiplier", 1))
        title = {"base": "Spin", "free": "Free spin reels", "spin_to_win": "Spin To Win"}.get(reels, reels)
        if e.get("game") == "held":  # a held game: only the reels not held spin
            title = f"Held game: {reels_text(e['spinning'])} spin"
        tail = reels.rsplit("_", 1)[-1]
        if reels.startswith("random_wilds_") and tail.isdigit():  # the event counts sets from 0
            title = f"Random wilds reels (set {int(tail) + 1})"
        if "free_spin" in e:  # a feature resolved in one step numbers its spins itself
            title = f"Free spin {e['free_spin']} ({e.get('free_spins_left', 0)} left)"
        if mult > 1:
            title += f" x{mult}"
        if len(title) > 6 * len(e["window"]):  # a title wider than the grid: a line of its own
            self.console.print(title, markup=False, highlight=False)
            title = ""
        self.console.print(self.window_table(e, title))
        self.show_payline(e)
        for way in e.get("ways", []):
            pays = way["credits"] * mult * rnd.coin
            self.console.print(
                f"  {escape(way['symbol'])} x{way['length']} on {way['ways']} way(s)"
                + (f" x{mult}" if mult > 1 else "")
                + f": {self.money(pays)}"
            )
        for line in e.get("lines", []):
            self.console.print(
                f"  line {line['line'] + 1}: {escape(self.symbol_name(line['symbol']))} x{line['length']}: "
                f"{self.money(line['credits'] * rnd.coin)}"
            )
        if e.get("scatter_credits"):
            n = len(e.get("scatters", []))
            self.console.print(f"  {n} scatters: {self.money(e['scatter_credits'] * rnd.coin)}")
        show_magic(self.console, self.money, rnd, e)
        if e.get("credits"):
            self.console.print(f"  [green]spin wins {self.money(e['credits'] * rnd.coin)}[/]")

    def symbol_name(self, code: str) -> str:
        """``FA Falcon of Horus`` where the game names its symbols in its info, else the code."""
        names = self.info.get("symbols")
        name = names.get(code) if isinstance(names, dict) else None
        return f"{code} {name}" if isinstance(name, str) and name != code else code

    def show_payline(self, e: dict[str, Any]) -> None:
        """A game paying on one center line (Los 3 Pinguinos) names what stands on it."""
        if isinstance(e.get("line"), list):
            self.console.print(f"  payline: {' '.join(e['line'])}", markup=False, highlight=False)

    @staticmethod
    def window_table(e: dict[str, Any], title: str) -> Table:
        window: list[list[str]] = e["window"]  # window[reel][row]
        winning = {tuple(p) for win in e.get("ways", []) + e.get("lines", []) for p in win["positions"]}
        n_rows = len(window[0]) if window else 1
        collected = {(got["position"] // n_rows, got["position"] % n_rows) for got in e.get("collected", [])}
        scatters = {tuple(p) for p in e.get("scatters", [])} | collected
        payline = n_rows // 2 if "line" in e else None  # a center payline (Los 3 Pinguinos)
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
