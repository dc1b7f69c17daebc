"""The soak's books, read straight from the database once every server is down.

``check_books`` (tests/server_process.py) runs the server's own audit (``GameServer.audit()``:
balances = ledger, ledger = rounds, side balances = side ledger, player states follow their
rounds) and the same checks on the raw tables.  On top of it, here: every player's rounds are
the rounds the player saw (same ids, stakes, wins, all complete), the balance is opening +
Σ(win − stake) of them and is the balance the player last saw; every Los 3 Pinguinos round's
Bonus movements add up to the change of the Bonus counter it made (from the state it started
from, recorded in its first step, to the state it left), and the player's counter is the one the
player last saw.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, select

from reelforge.server.storage import schema as t
from server_process import check_books
from soak_client import PINGUINOS, Player


def check(db_url: str, data_dir: Path, players: list[Player]) -> dict[str, Any]:
    """The figures and a list of problems (empty when the books hold)."""
    problems: list[str] = []
    try:
        audit = check_books(db_url, data_dir, {p.name: p.opening for p in players})
        audit_green = True
    except AssertionError as exc:
        audit, audit_green = {}, False
        problems.append(f"audit / check_books: {str(exc)[:1500]}")
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            ids = {r.external_id: r.id for r in conn.execute(select(t.players.c.id, t.players.c.external_id))}
            balances = dict(conn.execute(select(t.players.c.id, t.players.c.balance)).all())
            ledger = dict(
                conn.execute(
                    select(t.ledger.c.player_id, func.sum(t.ledger.c.amount)).group_by(t.ledger.c.player_id)
                ).all()
            )
            r = t.rounds.c
            rounds = list(
                conn.execute(select(r.id, r.player_id, r.game, r.mode, r.status, r.stake, r.win, r.state))
            )
            first = {
                s.round_id: json.loads(s.action) if s.action else {}
                for s in conn.execute(
                    select(t.round_steps.c.round_id, t.round_steps.c.action).where(t.round_steps.c.step == 1)
                )
            }
            side = list(
                conn.execute(
                    select(t.side_ledger.c.round_id, t.side_ledger.c.currency, t.side_ledger.c.amount)
                )
            )
            states = {
                (s.player_id, s.game): json.loads(s.state)
                for s in conn.execute(select(t.player_state).where(t.player_state.c.game == PINGUINOS))
            }
    finally:
        engine.dispose()

    by_player: dict[int, list[Any]] = {}
    for row in rounds:
        by_player.setdefault(row.player_id, []).append(row)
    money = 0
    for p in players:
        pid = ids.get(p.name)
        if pid is None:
            problems.append(f"{p.name}: not in the database")
            continue
        mine = {row.id: row for row in by_player.get(pid, [])}
        db_view = {i: (x.game, x.mode, x.stake, x.win, x.status) for i, x in mine.items()}
        client_view = {i: (s.game, s.mode, s.stake, s.win, s.status) for i, s in p.rounds.items()}
        if db_view != client_view:
            diff = sorted(set(db_view.items()) ^ set(client_view.items()))[:6]
            problems.append(f"{p.name}: rounds differ from what the player saw: {diff}")
        net = sum(x.win - x.stake for x in mine.values() if x.status == "complete")  # a void refunds
        money += sum(x.win + x.stake for x in mine.values())
        if not balances[pid] == p.opening + net == int(ledger.get(pid) or 0) == p.balance:
            problems.append(f"{p.name}: balance {balances[pid]}, opening + Σ(win − stake) {p.opening + net}, "
                            f"ledger {ledger.get(pid)}, last seen {p.balance}")  # fmt: skip
        stored = (states.get((pid, PINGUINOS)) or {}).get("bonuses", 0)
        if stored != p.bonuses:
            problems.append(f"{p.name}: Bonuses {stored} stored, {p.bonuses} last seen")

    moved: dict[int, int] = Counter()
    bonus_rows = bonus_units = 0
    for s in side:
        if s.currency == "bonuses":
            moved[s.round_id] += s.amount
            bonus_rows += 1
            bonus_units += abs(s.amount)
    bonus_rounds = 0
    for row in rounds:
        if row.game != PINGUINOS:
            continue
        before = (first.get(row.id, {}).get("player_state") or {}).get("bonuses", 0)
        after = (json.loads(row.state).get("player_state") or {}).get("bonuses", 0)
        if row.status == "complete" and after - before != moved.get(row.id, 0):
            problems.append(
                f"round {row.id}: Bonuses {before} -> {after}, side ledger moved {moved.get(row.id, 0)}"
            )
        if row.status == "voided" and moved.get(row.id, 0):
            problems.append(f"round {row.id} voided: side ledger moved {moved[row.id]} Bonuses in all")
        bonus_rounds += 1
    per_game = Counter((row.game, row.mode) for row in rounds)
    return {
        "audit_green": audit_green,
        "audit": {k: v for k, v in audit.items() if isinstance(v, bool | int) and not isinstance(v, list)},
        "rounds": len(rounds),
        "rounds_per_game": {f"{g} {m}": n for (g, m), n in sorted(per_game.items())},
        "pending_left": sum(1 for row in rounds if row.status == "pending"),
        "voided": sum(1 for row in rounds if row.status == "voided"),
        "money_checked_cents": money,
        "bonus_movements_checked": bonus_rows,
        "bonus_units_checked": bonus_units,
        "bonus_rounds_checked": bonus_rounds,
        "problems": problems,
    }
