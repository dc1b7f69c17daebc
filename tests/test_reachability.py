"""The reachability section: the stored max-win draw sequences replay through the readable
rules to each game's declared maximum win; prize odds agree with independent counts from the
strips; write_reachability writes both files with every prize listed.

The replay and the declared maxima here are the test's own (ReplayRandom through Game.start /
Game.act, the caps read from the data files), not the reachability code's.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from reelforge.engine.round import Action
from reelforge.games import get_game
from reelforge.rng import ReplayRandom

GAMES = {
    "reign-of-gnomes": "reign_of_gnomes",
    "ghost-of-gambini": "ghost_of_gambini",
    "los-3-pinguinos": "los_3_pinguinos",
}
GAMES_DIR = Path(__file__).resolve().parents[1] / "src" / "reelforge" / "games"


def stored(game_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GAMES_DIR / GAMES[game_id] / "max_win_draws.json").read_text())
    return data


def declared_max(game_id: str, seq: dict[str, Any]) -> int:
    """The cap or top prize as each game's data declares it, in minor units at the stake."""
    game = get_game(game_id)
    d: Any = game.data(seq["variant"])  # type: ignore[attr-defined]
    stake = seq["stake"]
    if game_id in ("reign-of-gnomes", "ghost-of-gambini"):
        return int(d.game.max_win * stake)  # times the (total) bet; a bought feature's too
    if seq["mode"] == "upper":
        bet = d.upper.bets[list(d.upper_stakes).index(stake)]
        return 2 * int(bet.max_prize)  # the paid game and the WINNING SPIN
    coin = stake // d.game.unit
    disco_cash = [int(p[1:]) for p in d.disco_table(coin) if p[0] == "C"]  # the bet's own, at the bet
    return int(max(max(d.pays.values()) * coin, max(disco_cash), d.ladders.scale[-1] * coin))


def replay(game_id: str, seq: dict[str, Any]) -> list[int]:
    game = get_game(game_id)
    state = seq["player_state"]
    wins = []
    for r in seq["rounds"]:  # a round building the player state may name its own mode and stake
        rng = ReplayRandom(r["draws"])
        stake, mode = r.get("stake", seq["stake"]), r.get("mode", seq["mode"])
        rnd = game.start(stake, rng, variant=seq["variant"], mode=mode, player_state=state)
        for a in r["actions"]:
            rnd = game.act(rnd, Action(name=a["name"], choice=a.get("choice")), rng)
        assert rnd.complete, "the stored actions leave the round pending"
        assert rng.exhausted, "stored draws are left over"
        assert rnd.win == r["win"]
        wins.append(rnd.win)
        state = rnd.player_state
    return wins


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_stored_max_win_replays_to_the_declared_max(game_id: str) -> None:
    game = get_game(game_id)
    data = stored(game_id)
    covered = {(s["variant"], s["mode"]) for s in data["sequences"]}
    assert covered == {(v, m) for v in game.variants for m in game.modes}
    if game_id == "los-3-pinguinos":  # every bet has its own top prize (the Disco's, the upper bet's)
        stakes = {(s["variant"], s["mode"], s["stake"]) for s in data["sequences"]}
        for v in game.variants:
            d: Any = game.data(v)  # type: ignore[attr-defined]
            assert {(v, "base", b) for b in d.game.bets} | {(v, "upper", b) for b in d.upper_stakes} <= stakes
    for seq in data["sequences"]:
        assert seq["player_state"] is None  # every sequence starts from a new player
        wins = replay(game_id, seq)
        assert wins[-1] == seq["expected_win"] == declared_max(game_id, seq), (seq["variant"], seq["mode"])


def test_a_changed_sequence_does_not_replay() -> None:
    """The check can fail: every GRAND of a stored feature turned into a MINI falls short."""
    seq = stored("ghost-of-gambini")["sequences"][1]
    assert seq["mode"] == "buy-lock-spin"
    d: Any = get_game("ghost-of-gambini").data(seq["variant"])  # type: ignore[attr-defined]
    gold = d.lock_spin.frames.gold
    grand = sum(
        w for k, w in gold.items() if k != "GRAND" and list(gold).index(k) < list(gold).index("GRAND")
    )
    total = sum(gold.values())
    draws = seq["rounds"][-1]["draws"]
    changed = [[n, 0 if (n == total and v == grand) else v] for n, v in draws]
    assert changed != draws
    with pytest.raises(AssertionError):
        replay("ghost-of-gambini", {**seq, "rounds": [{**seq["rounds"][-1], "draws": changed}]})


# -- odds against independent counts --------------------------------------------------------


def _window(strip: tuple[str, ...], stop: int) -> list[str]:
    return [strip[(stop + k) % len(strip)] for k in range(3)]


def test_gnomes_odds_match_a_count_from_the_strips() -> None:
    from reelforge.games.reign_of_gnomes.reach_odds import odds

    d = get_game("reign-of-gnomes").data("95.97")  # type: ignore[attr-defined]
    strips = d.base_reels.strips
    rows = {(o.group, o.prize): o.probability for o in odds(d, "base")[0]}
    # 5 x KG pays exactly when every reel shows KG or the wild
    p = Fraction(1)
    for s in strips:
        p *= Fraction(sum(bool({"KG", d.wild} & set(_window(s, i))) for i in range(len(s))), len(s))
    assert rows[("Way prizes", "way:KGx5")] == p
    # three scatters: the per-reel counts of scatters in view, convolved by hand
    dist = {0: Fraction(1)}
    for s in strips:
        nxt: dict[int, Fraction] = {}
        for i in range(len(s)):
            k = _window(s, i).count(d.scatter)
            for have, q in dist.items():
                nxt[have + k] = nxt.get(have + k, Fraction(0)) + q / len(s)
        dist = nxt
    assert rows[("Scatter prizes", "scatter:3")] == dist[3]


def test_gambini_line_odds_match_a_count_from_the_strips(gambini_data: dict[str, Any]) -> None:
    game = get_game("ghost-of-gambini")
    d: Any = game.data("92.00")  # type: ignore[attr-defined]
    wild = {d.wilds.gambini, d.wilds.ghost}
    center = 2 * 3 + 1
    shot = d.magic_shot
    p_shot = Fraction(shot.gambini + shot.ghost, shot.none + shot.gambini + shot.ghost)
    strip = d.strips[center]
    q_wild = Fraction(sum(s in wild for s in strip), len(strip))
    fire = Fraction(d.magic_rewind.center.fire, d.magic_rewind.center.fire + d.magic_rewind.center.skip)
    p_center_wild = p_shot + (1 - p_shot) * (q_wild + (1 - q_wild) * fire)  # the rewind always finds one

    def shows(pos: int, symbol: str) -> Fraction:
        if pos == center:
            return p_center_wild if symbol not in strip else Fraction(-1)  # P1 never in the center
        st = d.strips[pos]
        return Fraction(st.count(symbol), len(st))

    expected = sum(
        (_prod(shows(r * 3 + row, "P1") for r, row in enumerate(line)) for line in d.lines), Fraction(0)
    )
    section = next(s for s in gambini_data["sections"] if s["mode"] == "base")
    row = next(p for p in section["prizes"] if p["prize"] == "line:P1x5")
    assert expected > 0
    assert row["exact"] == f"{expected.numerator}/{expected.denominator}"


def _prod(xs: Any) -> Fraction:
    out = Fraction(1)
    for x in xs:
        assert x >= 0
        out *= x
    return out


def test_pinguinos_odds_match_a_count_over_the_stops() -> None:
    from reelforge.games.los_3_pinguinos.reach_odds import odds

    d: Any = get_game("los-3-pinguinos").data("95")  # type: ignore[attr-defined]
    s = d.strips
    lower = {o.prize: o.probability for o in odds(d, "base")[0]}
    for symbol in ("PE", d.disco):  # the wild lands on reels 1 and 3 only
        ends = [sum(x in (symbol, d.wild) for x in s[r]) for r in (0, 2)]
        count = ends[0] * s[1].count(symbol) * ends[1]
        key = "disco" if symbol == d.disco else f"line:{symbol}"
        assert lower[key] == Fraction(count, 16**3)
    u = d.upper
    n = 0
    for stops in product(range(16), repeat=3):
        w = [[u.strips[r][(st + k - 1) % 16] for k in range(3)] for r, st in enumerate(stops)]
        n += any(w[0][a] == w[1][b] == w[2][c] == "R7" for a, b, c in u.lines)
    upper = {o.prize: o.probability for o in odds(d, "upper")[0]}
    assert upper["bet0:line R7"] == Fraction(n, 16**3)


# -- the written section --------------------------------------------------------------------


@pytest.fixture(scope="module")
def gambini_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One variant of Ghost of Gambini written (its exact odds take ~10 s of CPU a variant)."""
    from reelforge.analysis.reachability import write_reachability

    out = tmp_path_factory.mktemp("gambini")
    paths = write_reachability("ghost-of-gambini", out, variants=["92.00"])
    assert [p.name for p in paths] == ["reachability.json", "reachability.html"]
    data: dict[str, Any] = json.loads(paths[0].read_text())
    data["_html"] = paths[1].read_text()
    return data


def _expected_prizes(game_id: str, d: Any, mode: str) -> set[str]:
    """Every prize of the paytable, as the section keys it."""
    if game_id == "reign-of-gnomes":
        ways = {f"way:{s}x{n}" for s, pays in d.ways_pays.items() for n in pays}
        return ways | {f"scatter:{k}" for k in d.scatter_pays}
    if game_id == "ghost-of-gambini":
        pots = {f"coin:{c}" for c in d.coin_values} | {f"jackpot:{j}" for j in d.jackpots}
        lines = {f"line:{s}x{n}" for s, pays in d.pays.items() for n in pays}
        return pots | (lines if mode == "base" else set())
    if mode == "upper":
        return {f"bet{i}:line {s}" for i in range(len(d.upper.bets)) for s in d.upper.pays}
    return {f"line:{s}" for s in d.pays} | {f"bonus:{b}" for b in d.bonus_pays.values()} | {"disco"}


def _check_written(game_id: str, data: dict[str, Any], html: str, variants: list[str]) -> None:
    game = get_game(game_id)
    assert {(s["variant"], s["mode"]) for s in data["sections"]} == {
        (v, m) for v in variants for m in game.modes
    }
    for sec in data["sections"]:
        d = game.data(sec["variant"])  # type: ignore[attr-defined]
        keys = {p["prize"] for p in sec["prizes"]}
        assert _expected_prizes(game_id, d, sec["mode"]) <= keys
        for p in sec["prizes"]:
            assert p["name"].replace("&", "&amp;") in html
        assert sec["max_win"] and all(m["ok"] and m["gap"] == 0 for m in sec["max_win"])
    assert data["passed"]
    assert "<script" not in html and "http" not in html  # self-contained, readable offline
    assert html.startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(("game_id", "variants"), [("reign-of-gnomes", None), ("los-3-pinguinos", ["95"])])
def test_write_reachability_writes_both_files_with_every_prize(
    game_id: str, variants: list[str] | None, tmp_path: Path
) -> None:
    """Every variant of Reign of Gnomes (the API's call); one of Los 3 Pinguinos (its 4,096-stop
    counts and upper odds take seconds a variant)."""
    from reelforge.analysis.reachability import write_reachability

    if variants is None:
        paths = write_reachability(game_id, tmp_path)
    else:
        paths = write_reachability(game_id, tmp_path, variants=variants)
    assert paths == [tmp_path / "reachability.json", tmp_path / "reachability.html"]
    data = json.loads(paths[0].read_text())
    _check_written(game_id, data, paths[1].read_text(), variants or get_game(game_id).variants)


def test_write_reachability_gambini(gambini_data: dict[str, Any]) -> None:
    _check_written("ghost-of-gambini", gambini_data, gambini_data["_html"], ["92.00"])
    buy_super = next(s for s in gambini_data["sections"] if s["mode"] == "buy-super-lock-spin")
    # Super Lock & Spin's frames turn only into pots: every coin is unreachable, by design
    assert set(buy_super["unreachable"]) == {
        f"coin:{c}" for c in get_game("ghost-of-gambini").data().coin_values
    }  # type: ignore[attr-defined]
    assert buy_super["unexpected_unreachable"] == []


def test_doc_page_states_every_stored_max_win() -> None:
    """docs/reachability.md's table is the stored sequences' (variants with the same figures
    share a row)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "reachability.md").read_text()
    for game_id in GAMES:
        rows: dict[tuple[Any, ...], list[str]] = {}
        for s in stored(game_id)["sequences"]:
            draws = sum(len(r["draws"]) for r in s["rounds"])
            actions = sum(len(r["actions"]) for r in s["rounds"])
            key = (s["mode"], s["stake"], len(s["rounds"]), draws, actions, s["expected_win"])
            rows.setdefault(key, []).append(s["variant"])
        for (mode, stake, n, draws, actions, win), variants in rows.items():
            row = (
                f"| {game_id} | {', '.join(variants)} | {mode} | {stake:,} | {n} | {draws} | {actions} | "
                f"{win:,} | {win / stake:,.0f}× |"
            )
            assert row in text, row
