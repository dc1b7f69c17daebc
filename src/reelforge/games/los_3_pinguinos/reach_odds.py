"""Los 3 Pinguinos' prizes with their exact odds: the lower game's line as it lands (counted
over all 4,096 stop combinations with ``payline.evaluate``, as the PAR sheet does) and each
bet's Disco table; the upper game's advertised prizes per bet (``upper_exact.prize_odds``)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from reelforge.engine.report.odds import MaxWinOdds, Odds
from reelforge.money import format_minor

from .data_model import LowerData
from .payline import evaluate, line_symbols
from .strategy import ALL_STOPS
from .upper_exact import prize_odds

LINE = "games/los_3_pinguinos/payline.evaluate over strategy.ALL_STOPS"


def _eur(d: LowerData, cents: int) -> str:
    return format_minor(int(cents), d.game.currency)


def _lower(d: LowerData) -> list[Odds]:
    seen: Counter[str] = Counter()
    for stops in ALL_STOPS:
        o = evaluate(d, line_symbols(d, stops))
        if o.kind == "cash":
            seen[f"line:{o.symbol}"] += 1
        elif o.kind == "bonus":
            seen[f"bonus:{o.bonuses}"] += 1
        elif o.kind == "disco":
            seen["disco"] += 1
    n = len(ALL_STOPS)
    group = "Prizes on the line as it lands (before holds, nudges and ladders)"
    per = "paid game"
    out = [
        Odds(
            group,
            f"line:{s}",
            f"3 × {s} ({d.symbols[s]})",
            _eur(d, c),
            Fraction(seen[f"line:{s}"], n),
            per,
            LINE,
        )
        for s, c in d.pays.items()
    ]
    out += [
        Odds(
            group,
            f"bonus:{b}",
            f"{k} × {d.bonus} with wilds ({b} Bonuses)",
            f"{b} Bonuses",
            Fraction(seen[f"bonus:{b}"], n),
            per,
            LINE,
        )
        for k, b in sorted(d.bonus_pays.items())
    ]
    p_disco = Fraction(seen["disco"], n)
    out.append(Odds(group, "disco", f"3 × {d.disco}: the Disco game", "Disco", p_disco, per, LINE))
    for bet in d.game.bets:  # each bet has its own Disco table (the seed's ranges per bet)
        table = d.disco_table(bet // d.game.unit)
        total = sum(table.values())
        for prize, w in table.items():
            pays = f"{prize[1:]} Bonuses" if prize[0] == "B" else _eur(d, int(prize[1:]))
            out.append(
                Odds(
                    f"Disco prizes at the {_eur(d, bet)} bet (the lit penguin's)",
                    f"disco@{bet}:{prize}",
                    f"Disco {pays}",
                    pays,
                    p_disco * Fraction(w, total),
                    per,
                    "Disco on the line × the prize's weight / total",
                    note="in the Disco the lit penguin is uniform and each penguin's prize independent",
                )
            )
    return out


def _upper(d: LowerData) -> list[Odds]:
    out = []
    for i, (bet, stake) in enumerate(zip(d.upper.bets, d.upper_stakes, strict=True)):
        group = f"Upper bet {_eur(d, bet.cash)} + {bet.bonuses} Bonuses (value {_eur(d, stake)})"
        for o in prize_odds(d, i):
            out.append(
                Odds(
                    group,
                    f"bet{i}:{o.name}",
                    o.name,
                    _eur(d, o.cents),
                    o.chance,
                    "paid 5-line game",
                    "games/los_3_pinguinos/upper_exact.prize_odds",
                )
            )
    return out


def odds(d: LowerData, mode: str) -> tuple[list[Odds], MaxWinOdds]:
    if mode == "upper":
        top = next(o for o in prize_odds(d, 0) if o.name == "maximum")
        return _upper(d), MaxWinOdds(
            None,
            top.chance,
            "upper_exact.prize_odds 'maximum' (one maximum prize; two in a round: not computed)",
        )
    rows = _lower(d)
    unit = d.game.unit
    top = max((k for k in d.disco_table(1) if k[0] == "C"), key=lambda k: int(k[1:]))
    at_least = next(o.probability for o in rows if o.prize == f"disco@{unit}:{top}")
    return rows, MaxWinOdds(
        at_least,
        None,
        f"at the {_eur(d, unit)} bet, at least the Disco as it lands with the lit penguin on {top} (no "
        "decision changes that round); holds, nudges and ladders add chances not computed here; the "
        "other bets' top Disco prizes are in their rows",
    )
