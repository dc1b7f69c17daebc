"""``reelforge par``: the PAR sheet, checked section by section against the exact calculators.

The sheet prints every key figure in a cell with ``data-key``; these tests read the printed
text back and hold it to the calculator's value *to the printed precision* (half a unit of the
last digit shown), so a figure that is wrong, stale or rounded the wrong way fails.  The
expected values come from the games' own calculators (``exact()``, ``win_distribution()``,
the ways and odds functions), never from the sheet's code.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reelforge.analysis.par.gather import assemble, gather_exact
from reelforge.analysis.par.model import SimPart
from reelforge.analysis.par.render import render
from reelforge.analysis.simulate import simulate
from reelforge.cli import app
from reelforge.engine.exact import symbol_count_distribution, ways_expectation_by_symbol
from reelforge.games import get_game

ROUNDS = 20_000
SEED = 11
runner = CliRunner()


# -- reading a sheet back ----------------------------------------------------------------------


@dataclass
class Figure:
    text: str
    value: float | None
    classes: set[str]
    title: str


class SheetParser(HTMLParser):
    """Every element with a ``data-key``: its text, ``data-value`` and classes; the ids of the
    sections, the rows of the comparison table, and every URL-bearing attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, Figure] = {}
        self.sections: list[str] = []
        self.rows: dict[str, set[str]] = {}  # data-row -> classes
        self.body: dict[str, str] = {}
        self.svgs = 0
        self.links: list[str] = []
        self._open: list[tuple[str, str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and a.get("id"):
            self.sections.append(str(a["id"]))
        if tag == "svg":
            self.svgs += 1
        if tag == "body":
            self.body = {k: str(v) for k, v in a.items() if v is not None}
        if tag == "tr" and a.get("data-row"):
            self.rows[str(a["data-row"])] = set(str(a.get("class") or "").split())
        for name in ("href", "src", "xlink:href", "action"):
            if a.get(name) and not str(a[name]).startswith("#"):
                self.links.append(str(a[name]))
        if a.get("data-key"):
            self._open.append((tag, str(a["data-key"]), a))
            self._text = ""

    def handle_data(self, data: str) -> None:
        if self._open:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, key, a = self._open.pop()
            value = a.get("data-value")
            self.figures[key] = Figure(
                self._text.strip(),
                None if value is None else float(value),
                set(str(a.get("class") or "").split()),
                str(a.get("title") or ""),
            )


def parse(html: str) -> SheetParser:
    p = SheetParser()
    p.feed(html)
    return p


_NUMBER = re.compile(r"-?[\d,]*\.?\d+(?:e[+-]?\d+)?", re.I)


def printed(text: str) -> tuple[float, float]:
    """The number a cell prints and half a unit of its last digit (its precision); a "%"
    figure is returned as a fraction."""
    m = _NUMBER.search(text.removeprefix("1 in "))
    assert m, f"no number in {text!r}"
    raw = m.group(0).replace(",", "")
    mantissa, _, exp = raw.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    half = 0.5 * 10.0 ** (-decimals) * 10.0 ** int(exp or 0)
    value = float(raw)
    if text.strip().endswith("%"):
        return value / 100, half / 100
    return value, half


def assert_printed(fig: Figure, expected: float | Fraction, what: str = "") -> None:
    value, half = printed(fig.text)
    exp = float(expected)
    assert abs(value - exp) <= half * (1 + 1e-9) + 1e-300, f"{what}: printed {fig.text!r}, calculator {exp!r}"
    if fig.value is not None:  # the unrounded figure the cell carries
        assert math.isclose(fig.value, exp, rel_tol=1e-12, abs_tol=1e-300), f"{what}: {fig.value} vs {exp}"


# -- the sheets --------------------------------------------------------------------------------


def make_sheet(tmp: Path, game: str, *extra: str, pdf: bool = False) -> tuple[str, Path | None]:
    out = tmp / f"{game}.html"
    args = ["par", game, "--rounds", str(ROUNDS), "--seed", str(SEED), "-o", str(out), *extra]
    pdf_path = tmp / f"{game}.pdf" if pdf else None
    if pdf_path is not None:
        args += ["--pdf", str(pdf_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8"), pdf_path


@pytest.fixture(scope="module")
def gnomes_html(tmp_path_factory: pytest.TempPathFactory) -> str:
    html, _ = make_sheet(tmp_path_factory.mktemp("par"), "reign-of-gnomes")
    return html


@pytest.fixture(scope="module")
def gnomes(gnomes_html: str) -> SheetParser:
    return parse(gnomes_html)


@pytest.fixture(scope="module")
def gnomes_game() -> Any:
    return get_game("reign-of-gnomes")


# -- Reign of Gnomes, section by section -------------------------------------------------------


def test_sections_in_order(gnomes: SheetParser) -> None:
    want = ["summary", "reels", "paytable", "bets", "exact", "odds", "max-win", "distribution", "volatility",
            "simulation"]  # fmt: skip
    assert [s for s in gnomes.sections if s in want] == want
    assert gnomes.body["data-game"] == "reign-of-gnomes"


def test_header_names_the_game_and_the_data_files_digest(gnomes: SheetParser, gnomes_game: Any) -> None:
    f = gnomes.figures
    assert f["version"].text == gnomes_game.version
    assert f["variant"].text == gnomes_game.default_variant
    assert f["mode"].text == "base"
    from reelforge.games.reign_of_gnomes import rules

    digests = {k.partition(":")[2]: v.text for k, v in f.items() if k.startswith("digest:")}
    assert len(digests) == 1
    ((name, text),) = digests.items()
    path = Path(rules.__file__).parent / "data" / Path(name).name
    assert text.endswith("sha256 " + hashlib.sha256(path.read_bytes()).hexdigest())
    assert f"--rounds {ROUNDS} --seed {SEED}" in f["command"].text


def test_symbol_counts_per_reel_and_reel_set(gnomes: SheetParser, gnomes_game: Any) -> None:
    d = gnomes_game.data()
    sets = {"Base game": d.base_reels.strips, "Free spins (Dragon Spins)": d.free_reels.strips,
            "Spin To Win": d.spin_to_win_reels.strips}  # fmt: skip
    for i, rw in enumerate(d.random_wild_sets):
        sets[f"Random Wilds set {i + 1}"] = rw.strips
    seen = 0
    for name, strips in sets.items():
        first = 1 if len(strips) == 5 else 2
        for r, strip in enumerate(strips):
            counts = Counter(strip)
            for sym in d.symbols:
                key = f"count:{name}:Reel {r + first}:{sym}"
                if counts[sym] or key in gnomes.figures:
                    assert gnomes.figures[key].value == counts[sym], key
                    seen += 1
    assert seen > 100


def test_rtp_components_and_hit_frequency(gnomes: SheetParser, gnomes_game: Any) -> None:
    ex = gnomes_game.exact()
    f = gnomes.figures
    assert_printed(f["rtp"], Fraction(ex["rtp_fraction"]), "rtp")
    assert set(k.partition(":")[2] for k in f if k.startswith("component:")) == set(ex["components"])
    for name, v in ex["components"].items():
        assert_printed(f[f"component:{name}"], v, name)
    assert_printed(f["hit_frequency"], ex["hit_frequency"], "hit frequency")
    assert_printed(f["exact:rtp"], Fraction(ex["rtp_fraction"]), "rtp beside the simulation")
    assert_printed(f["feature:free_spins"], ex["free_spins_frequency"], "free spins frequency")
    assert_printed(f["feature:mean_free_spins"], ex["mean_free_spins"], "mean free spins")


def test_every_paytable_prize_has_its_exact_odds(gnomes: SheetParser, gnomes_game: Any) -> None:
    d = gnomes_game.data()
    f = gnomes.figures
    n = 0
    for symbol, per_len in ways_expectation_by_symbol(d.base, d.ways_pays, d.wild).items():
        for length, (p, e) in per_len.items():
            assert_printed(f[f"prize:{symbol}x{length}"], p, f"{symbol}x{length}")
            assert_printed(
                f[f"prize-rtp:{symbol}x{length}"], e / d.game.base_credits, f"{symbol}x{length} rtp"
            )
            n += 1
    scatters = symbol_count_distribution(d.base, d.scatter)
    for k in d.scatter_pays:
        assert_printed(f[f"prize:{d.scatter}x{k}"], scatters.get(k, Fraction(0)), f"scatter {k}")
        n += 1
    assert n == sum(len(p) for p in d.ways_pays.values()) + len(d.scatter_pays)


def test_distribution_bands_max_win_and_volatility(gnomes: SheetParser, gnomes_game: Any) -> None:
    dist = gnomes_game.win_distribution(None, "base")
    f = gnomes.figures
    bands = dist.bands()
    for b in bands:
        assert_printed(f[f"band:{b.label}"], b.probability.value, b.label)
    assert_printed(f["p_no_win"], dist.p_no_win().value, "P(no win)")
    assert_printed(f["p_at_most_stake"], dist.p_at_most_stake().value, "P(at most the stake)")
    assert_printed(f["sd"], dist.sd().value, "sd")
    top, p_top = dist.max_win()
    assert_printed(f["max_win_multiple"], top / dist.stake, "max win")
    assert_printed(f["max_win_probability"], p_top.value, "max-win probability")
    assert_printed(f["max_win_one_in"], 1 / p_top.value, "max-win odds")
    # The law and the RTP calculator are two routes to the same game: no win is a miss.
    ex = gnomes_game.exact()
    assert dist.p_no_win().value == pytest.approx(1 - ex["hit_frequency"], abs=1e-12)


def test_rtp_band_after_n_rounds_from_the_exact_sd(gnomes: SheetParser, gnomes_game: Any) -> None:
    sd = gnomes_game.win_distribution(None, "base").sd().value
    rtp = float(Fraction(gnomes_game.exact()["rtp_fraction"]))
    for n in (10**4, 10**6, 10**8):
        for name, z in (("90%", 1.6448536), ("95%", 1.9599640), ("99%", 2.5758293)):
            text = gnomes.figures[f"funnel:{n}:{name}"].text
            lo_t, hi_t = text.split("..")
            (lo, h1), (hi, h2) = printed(lo_t.strip()), printed(hi_t.strip())
            half = z * sd / math.sqrt(n)
            assert abs(lo - max(0.0, rtp - half)) <= h1 * 1.0001 and abs(hi - (rtp + half)) <= h2 * 1.0001, (
                text
            )


def test_simulated_figures_are_the_simulation(gnomes: SheetParser, gnomes_game: Any) -> None:
    sim = simulate(gnomes_game, ROUNDS, SEED)
    f = gnomes.figures
    assert_printed(f["sim:rtp"], sim["rtp_uncapped"], "simulated rtp")
    lo, hi = (printed(x.strip().strip("[]"))[0] for x in f["ci:rtp"].text.split(","))
    assert lo == pytest.approx(sim["ci99_uncapped"][0], abs=5e-7) and hi == pytest.approx(
        sim["ci99_uncapped"][1], abs=5e-7
    )
    assert_printed(f["sim:hit_frequency"], sim["hit_frequency"], "simulated hit frequency")
    triggers = sim["features"]["free_spins_triggers"]["count"]
    assert_printed(f["sim:free_spins_frequency"], triggers / ROUNDS, "simulated trigger rate")
    # The band tallies replay the same rounds: their no-win band is the simulation's misses.
    freqs = {k: v.value for k, v in f.items() if k.startswith("band-sim:")}
    assert sum(freqs.values()) == pytest.approx(1.0, abs=1e-12)
    assert freqs["band-sim:0 (no win)"] == pytest.approx(1 - sim["hit_frequency"], abs=1e-12)


def test_self_contained_offline(gnomes_html: str, gnomes: SheetParser) -> None:
    assert not re.search(r"https?:", gnomes_html, re.I)
    # url(#id) is a clip path of the SVG's own; any other url( would be a fetch
    assert not re.search(r"<script|<link|<img|<iframe|@import|url\((?!#)", gnomes_html, re.I)
    assert gnomes.links == []
    assert gnomes.svgs >= 2
    assert "<style>" in gnomes_html


def test_exact_outside_its_interval_is_marked(gnomes_game: Any) -> None:
    part = gather_exact(gnomes_game, None, "base")  # the law is memoised: no second computation
    n = 100_245
    rtp = float(Fraction(gnomes_game.exact()["rtp_fraction"]))
    hit = gnomes_game.exact()["hit_frequency"]
    fake = {
        "rounds": n, "seed": 0, "chunk_rounds": n, "chunks": 1, "seconds": 1.0, "rounds_per_second": n,
        "rtp": rtp - 0.2, "ci99": [rtp - 0.25, rtp - 0.15], "rtp_uncapped": rtp - 0.2,
        "ci99_uncapped": [rtp - 0.25, rtp - 0.15], "std": 6.0, "hit_frequency": hit,
        "max_win": 100.0, "features": {},
    }  # fmt: skip
    # Too many misses and small wins, the (1x, 2x] band about right, nothing bigger.
    stake = part.stake_credits
    hist = {0: 80_000, stake // 2: 15_000, 3 * stake // 2: 5_245}
    sheet = assemble(part, SimPart(fake, hist, "fabricated"), generated="test")
    html = render(sheet)
    p = parse(html)
    assert "outside" in p.rows["rtp"] and "outside" in p.rows["rtp_capped"]
    assert "outside" not in p.rows["hit_frequency"]  # the true figure, fed back: inside
    assert "OUTSIDE" in html and int(p.body["data-outside"]) == len(sheet.outside) >= 4
    assert {"rtp", "band:0 (no win)", "band:(0x, 1x]"} <= set(sheet.outside)
    assert "band:(1x, 2x]" not in sheet.outside
    marks = {k: v for k, v in p.figures.items() if k.startswith(("mark:", "band-mark:"))}
    assert marks["mark:rtp"].text == "OUTSIDE" and "outside" in marks["mark:rtp"].classes
    assert marks["band-mark:(0x, 1x]"].text == "OUTSIDE" and marks["band-mark:(1x, 2x]"].text == "inside"
    assert marks["mark:hit_frequency"].text == "inside"
    assert sorted(k for k, v in marks.items() if v.text == "OUTSIDE") == sorted(
        ("mark:" if not k.startswith("band:") else "band-mark:") + k.removeprefix("band:")
        for k in sheet.outside
    )


# -- the other games -----------------------------------------------------------------------------


def test_gambini_base_sheet(tmp_path: Path) -> None:
    game = get_game("ghost-of-gambini")
    html, _ = make_sheet(tmp_path, "ghost-of-gambini")
    p = parse(html)
    ex = game.exact()
    assert_printed(p.figures["rtp"], Fraction(ex["rtp_fraction"]), "rtp")
    for name, v in ex["components"].items():
        assert_printed(p.figures[f"component:{name}"], v, name)
    assert_printed(p.figures["hit_frequency"], ex["hit_frequency"], "hit")
    for s in ex["by_state"]:  # the return by state of the persistent piggy banks
        key = "state:{},{}".format(*s["piggies"])
        assert_printed(p.figures[key], s["next_spin_rtp"], key)
    assert len([k for k in p.figures if k.startswith("state:")]) == len(ex["by_state"])
    from reelforge.games.ghost_of_gambini.odds import max_win_odds

    lo, hi = max_win_odds(game.data())["base"]
    assert_printed(p.figures["max_win_probability_low"], lo, "max-win odds, low")
    assert_printed(p.figures["max_win_probability_high"], hi, "max-win odds, high")
    assert "Exact distribution not available" in html  # the base game's law defeats the method
    # ...but its volatility is exact (first two moments), bracketed by the cap
    from reelforge.games.ghost_of_gambini.distribution import base_figures

    vol = base_figures(game.data())["volatility_index"]
    assert_printed(p.figures["sd"], vol["value"], "sd")
    assert vol["high"] - vol["low"] < 1e-9
    assert p.figures["band-sim:0 (no win)"].value == pytest.approx(
        1 - simulate(game, ROUNDS, SEED)["hit_frequency"]
    )
    assert sum(1 for k in p.figures if k.startswith("count:")) >= 15 * 10


def test_pinguinos_lower_sheet(tmp_path: Path) -> None:
    game = get_game("los-3-pinguinos")
    html, _ = make_sheet(tmp_path, "los-3-pinguinos", "--mode", "base")
    p = parse(html)
    ex = game.exact()
    assert_printed(p.figures["rtp"], Fraction(ex["rtp_fraction"]), "rtp")
    for name, v in ex["components"].items():
        assert_printed(p.figures[f"component:{name}"], v, name)
    for play, v in ex["rtp_by_play"].items():
        assert_printed(p.figures[f"play:{play}"], v, play)
    # the promised RTP: the whole machine's cash return per play, as machine_best computes it
    machine = ex["machine_rtp_by_play"]
    lo, hi = machine["best"]["bounds"]
    assert_printed(p.figures["machine:best"], Fraction(hi), "best play bound")
    assert_printed(p.figures["machine:best:attained"], Fraction(lo), "best play attained")
    for play in ("auto", "default", "auto_risk", "worst"):
        for row in machine[play]["by_pairing"]:
            for lines in (5, 8):
                key = f"machine:{play}:{row['upper_stake']}:{lines}"
                assert_printed(p.figures[key], row[f"rtp_{lines}_lines"], key)
    d = game.data()
    for r, strip in enumerate(d.strips):
        for sym, k in Counter(strip).items():
            assert p.figures[f"count:Lower game:Reel {r + 1}:{sym}"].value == k
    dist = game.win_distribution(None, "base")
    if dist is not None:
        for b in dist.bands():
            assert_printed(p.figures[f"band:{b.label}"], b.probability.value, b.label)
    # the line as it lands: three cherries, counted over the 4,096 stops by hand
    wild = d.wild
    hits = sum(
        1
        for a in d.strips[0] for b in d.strips[1] for c in d.strips[2]
        if b == "CH" and a in ("CH", wild) and c in ("CH", wild)
    )  # fmt: skip
    assert_printed(p.figures["prize:CH"], Fraction(hits, 16**3), "3 cherries")


# -- the browser and the PDF ---------------------------------------------------------------------


def test_sheet_renders_in_chromium_without_errors(gnomes_html: str, tmp_path: Path) -> None:
    from web_support import SHOTS, chromium_browser

    path = tmp_path / "gnomes.html"
    path.write_text(gnomes_html, encoding="utf-8")
    browser_gen = chromium_browser("par")
    browser = next(browser_gen)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(path.as_uri())
        assert errors == []
        assert requests == [path.as_uri()]  # nothing else fetched
        sizes = page.eval_on_selector_all(
            "figure.chart svg", "els => els.map(e => e.getBoundingClientRect().width)"
        )
        assert len(sizes) == 2 and min(sizes) > 400
        assert page.locator("#summary .kpi").count() >= 4
        assert page.locator("td[data-key='rtp']").inner_text().endswith("%")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "par-gnomes.png"), full_page=True)
    finally:
        browser_gen.close()


def test_pdf_is_printed_through_chromium(tmp_path: Path) -> None:
    from web_support import chromium_or_skip

    chromium_or_skip()
    pypdf = pytest.importorskip("pypdf")
    _, pdf = make_sheet(tmp_path, "reign-of-gnomes", pdf=True)
    assert pdf is not None
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(pypdf.PdfReader(pdf).pages) >= 2


def test_pdf_without_chromium_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reelforge.analysis.par import pdf

    monkeypatch.setattr(pdf, "CHROMIUM", tmp_path / "no-chromium")
    out = tmp_path / "s.html"
    r = runner.invoke(
        app, ["par", "reign-of-gnomes", "--rounds", "0", "-o", str(out), "--pdf", str(tmp_path / "s.pdf")]
    )
    assert r.exit_code == 1
    assert "no-chromium is missing" in r.output
    assert out.exists()  # the HTML is written first


def test_bad_input_is_refused(tmp_path: Path) -> None:
    out = str(tmp_path / "x.html")
    for args, text in (
        (["par", "no-such-game", "-o", out], "unknown game"),
        (["par", "reign-of-gnomes", "--mode", "upper", "-o", out], "unknown mode"),
        (["par", "reign-of-gnomes", "--variant", "1", "-o", out], "unknown RTP variant"),
        (["par", "reign-of-gnomes", "--rounds", "-1", "-o", out], "--rounds"),
    ):
        r = runner.invoke(app, args)
        assert r.exit_code == 2 and text in r.output, (args, r.output)
