"""Words the terminal game shares between its modules: counts with the right plural, reels as
the player counts them, and a bet named by what it takes (``€0.20 + 1 Bonus``), never by the
bare stake number the command line takes."""

from __future__ import annotations

from typing import Any

from reelforge.money import format_minor


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``, ``0 games``; ``many`` where adding an ``s`` is wrong."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def bonuses_text(n: int) -> str:
    return plural(n, "Bonus", "Bonuses")


def reels_text(reels: list[int]) -> str:
    """0-based reels as the player counts them: ``reels 1+3``."""
    if not reels:
        return "no reel"
    return ("reel " if len(reels) == 1 else "reels ") + "+".join(str(r + 1) for r in reels)


def mask_reels(mask: int) -> list[int]:
    return [r for r in range(mask.bit_length()) if mask >> r & 1]


def choice_label(action: str, choice: int) -> str | None:
    """What a choice means, for the kinds every game spells the same way: a ``hold`` is a
    bitmask of reels (bit i = reel i), a ``nudge`` names a reel.  None: shown as it is."""
    if action == "hold":
        return "none" if choice == 0 else reels_text(mask_reels(choice))
    if action == "nudge":
        return f"reel {choice + 1}"
    return None


def side_bets(info: dict[str, Any], mode: str) -> dict[int, dict[str, Any]]:
    """A mode's bets that take more than cash (Los 3 Pinguinos' upper bets), by stake, as the
    game's info describes them; empty for a mode of cash bets."""
    section = info.get(mode)
    bets = section.get("bets") if isinstance(section, dict) else None
    return {
        int(b["stake"]): b
        for b in (bets if isinstance(bets, list) else [])
        if isinstance(b, dict) and b.get("bonuses") and "cash" in b
    }


def side_bonuses(info: dict[str, Any], mode: str, stake: int) -> int:
    """The Bonuses a bet takes besides its cash (0 for a bet of cash alone)."""
    bet = side_bets(info, mode).get(stake)
    return int(bet["bonuses"]) if bet else 0


def bet_name(info: dict[str, Any], mode: str, stake: int, currency: str) -> str:
    """``€0.20 + 1 Bonus`` for an upper bet, ``€1.00`` for a bet of cash alone."""
    bet = side_bets(info, mode).get(stake)
    if bet is None:
        return format_minor(stake, currency)
    return f"{format_minor(int(bet['cash']), currency)} + {bonuses_text(int(bet['bonuses']))}"
