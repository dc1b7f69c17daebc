"""``reelforge certify``: the evidence bundle, built once for Los 3 Pinguinos (one RTP variant,
the base mode: its PAR sheet is the quickest to build; short samples: dieharder's birthdays
test alone, 1 MB for ent) and checked part by part against figures computed here
independently (hashlib, the exact calculator, simulate()).  The biased-source test runs the RNG
section alone on Reign of Gnomes, whose reel lengths a byte's modulo bias reaches (16, the
Pinguinos' reel length, divides 256: no bias to find)."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from reelforge.analysis.certify import rng_external, rng_section
from reelforge.analysis.certify.bundle import build_bundle
from reelforge.analysis.certify.digests import SOURCE_ROOT
from reelforge.analysis.certify.model import Options
from reelforge.analysis.certify.rng_tables import draw_tables
from reelforge.analysis.simulate import simulate
from reelforge.cli import app
from reelforge.games import get_game
from reelforge.rng import SeededRandom

GAME = "los-3-pinguinos"
VARIANT = "95"
MODES = ["base", "upper"]
BIASED_GAME, BIASED_VARIANT = "reign-of-gnomes", "95.97"
ROUNDS = 20_000
SEED = 7
DRAWS = 20_000
BIASED_DRAWS = 100_000  # enough for the chi-square to catch the mildest table's bias (see below)
runner = CliRunner()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    options = Options(
        variants=[VARIANT],
        modes=MODES,
        rounds=ROUNDS,
        seed=SEED,
        rng_draws=DRAWS,
        ent_bytes=1_000_000,
        dieharder_tests=[0],
    )
    build_bundle(get_game(GAME), out, options)
    return out


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- digests -----------------------------------------------------------------------------------


def test_manifest_digests_are_the_files_sha256(bundle: Path) -> None:
    m = _manifest(bundle)
    for name, digest in m["sources"].items():
        assert digest == _sha(SOURCE_ROOT / name), name
    # What decides the outcomes is listed: the data file, the rules, the engine, rng and money.
    data = [
        "reelforge/games/los_3_pinguinos/data/rtp-95.toml",
        "reelforge/games/los_3_pinguinos/data/upper.toml",
    ]
    assert m["data_files"] == data
    for name in (
        *data,
        "reelforge/games/los_3_pinguinos/rules.py",
        "reelforge/engine/game.py",
        "reelforge/rng.py",
        "reelforge/money.py",
        "reelforge/__init__.py",
    ):
        assert name in m["sources"], name
    evidence = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    assert set(m["evidence"]) == evidence - {"manifest.json"}
    for name, digest in m["evidence"].items():
        assert digest == _sha(bundle / name), name


def test_verify_passes_then_fails_naming_the_altered_file(bundle: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(bundle, copy)
    ok = runner.invoke(app, ["certify", "--verify", str(copy)])
    assert ok.exit_code == 0, ok.output
    m = _manifest(copy)
    m["sources"]["reelforge/rng.py"] = "0" * 64
    (copy / "manifest.json").write_text(json.dumps(m))
    (copy / "rng" / "ent.txt").write_text("tampered\n")
    bad = runner.invoke(app, ["certify", "--verify", str(copy)])
    assert bad.exit_code == 1
    mismatches = [line for line in bad.output.splitlines() if line.startswith("MISMATCH")]
    assert len(mismatches) == 2, bad.output
    assert any(line.startswith("MISMATCH reelforge/rng.py:") for line in mismatches)
    assert any(line.startswith("MISMATCH rng/ent.txt:") for line in mismatches)


# -- PAR and exact versus simulated ------------------------------------------------------------


def test_par_sheets_and_exact_versus_simulated(bundle: Path) -> None:
    game = get_game(GAME)
    rows = json.loads((bundle / "exact_vs_simulated.json").read_text())
    assert [(r["variant"], r["mode"]) for r in rows] == [(VARIANT, m) for m in MODES]
    assert [r["seed"] for r in rows] == [SEED + i for i in range(len(MODES))]  # one seed per row
    for row in rows:
        mode = row["mode"]
        sheet = (bundle / "par" / f"{VARIANT}-{mode}.html").read_text()
        assert game.name in sheet and 'data-key="rtp"' in sheet
        assert row["rounds"] == ROUNDS
        assert row["exact"] == pytest.approx(game.exact(variant=VARIANT, mode=mode)["rtp"], rel=1e-12)
        sim = simulate(game, ROUNDS, row["seed"], variant=VARIANT, mode=mode)
        if "not applied" in row["label"]:  # the uncapped RTP; its se from simulate()'s interval
            lo, hi = sim["ci99_uncapped"]
            key, se = "rtp_uncapped", (hi - lo) / (2 * stats.norm.ppf(0.995))
        else:
            key, se = "rtp", sim["std"] / ROUNDS**0.5
        assert row["simulated"] == pytest.approx(sim[key], rel=1e-12), mode
        assert row["se"] == pytest.approx(se, rel=1e-9), mode
        assert row["z"] == pytest.approx((row["simulated"] - row["exact"]) / row["se"], rel=1e-9)
        assert row["passed"] == (abs(row["z"]) <= stats.norm.ppf(0.995))


# -- RNG -----------------------------------------------------------------------------------------


def test_rng_summary(bundle: Path) -> None:
    s = json.loads((bundle / "rng" / "summary.json").read_text())
    dh = s["dieharder"]
    assert [r["test"] for r in dh["rows"]] == ["diehard_birthdays"]
    assert sum(dh["counts"].values()) == 1 and dh["bytes_fed"] > 0
    assert (
        rng_external.parse_dieharder((bundle / "rng" / "dieharder.txt").read_text())[0].p
        == dh["rows"][0]["p"]
    )
    assert 0 <= s["ent"]["chi_percent"] <= 100 and 7.9 < s["ent"]["entropy"] <= 8
    own = s["own"]
    d = get_game(GAME).data(VARIANT)
    # The reels and the weight tables the rules draw from are among the tables tested.
    assert {len(st) for st in d.strips} <= {t["outcomes"] for t in own["tables"] if t["kind"] == "reel"}
    weights = [t["weights"] for t in own["tables"]]
    for table in (d.hold.weights, d.nudges.offer.weights, list(d.nudges.count.values())):
        assert list(table) in weights
    for t in own["tables"]:
        for p in t["p"].values():
            assert p is None or 0 <= p <= 1
    assert own["tests"] == sum(p is not None for t in own["tables"] for p in t["p"].values())
    assert own["failures"] == sum(len(t["failures"]) for t in own["tables"])


class ModuloBiased:
    """A broken source: one byte reduced modulo n (no rejection), seeded."""

    def __init__(self, seed: int) -> None:
        self.gen = np.random.default_rng(seed)

    def randbelow(self, n: int) -> int:
        return int(self.gen.integers(0, 256)) % n

    def raw_bytes(self, n: int) -> bytes:
        # Bytes that never take the value 255: ent's chi-square sees the hole.
        return self.gen.integers(0, 255, n, dtype=np.uint8).tobytes()


def _biased_law(weights: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The law weighted_index gives over ModuloBiased, beside the table's own law."""
    total = sum(weights)
    r = np.bincount(np.arange(256) % total, minlength=total) / 256
    edges = np.cumsum((0, *weights))
    biased = np.array([r[lo:hi].sum() for lo, hi in itertools.pairwise(edges)])
    return biased, np.array(weights) / total


def test_chi_square_fails_on_a_modulo_biased_source(tmp_path: Path) -> None:
    game = get_game(BIASED_GAME)
    biased = Options(
        variants=[BIASED_VARIANT],
        rng_draws=BIASED_DRAWS,
        ent_bytes=1_000_000,
        skip_dieharder=True,
        source=lambda: ModuloBiased(1),
        raw_source=lambda: ModuloBiased(2),
    )
    section = rng_section.build(game, tmp_path, biased)
    s = json.loads((tmp_path / "rng" / "summary.json").read_text())
    assert section.passed is False and s["own"]["passed"] is False
    assert s["ent"]["verdict"] == "FAILED"
    for t in s["own"]["tables"]:
        weights = tuple(t["weights"] or [1] * t["outcomes"])
        q, p0 = _biased_law(weights)
        # The chi-square's power against this bias at these draws (noncentral chi-square): the
        # test is only asked to fail where it is near certain to.
        mask = p0 > 0
        lam = BIASED_DRAWS * float(((q[mask] - p0[mask]) ** 2 / p0[mask]).sum())
        df = int(mask.sum()) - 1
        power = stats.ncx2.sf(stats.chi2.isf(0.01, df), df, lam)
        assert power > 0.999, (t["places"][0], lam)
        assert t["p"]["chi_square"] <= 0.01, t["places"][0]
    # The control: the same tables through an unbiased seeded source pass the chi-square.
    control = Options(
        variants=[BIASED_VARIANT],
        rng_draws=BIASED_DRAWS,
        ent_bytes=1_000_000,
        skip_dieharder=True,
        source=lambda: SeededRandom(3),
    )
    (tmp_path / "control").mkdir()
    rng_section.build(game, tmp_path / "control", control)
    c = json.loads((tmp_path / "control" / "rng" / "summary.json").read_text())
    assert len(c["own"]["tables"]) == len(draw_tables(game, [BIASED_VARIANT]))
    assert all(t["p"]["chi_square"] > 0.01 for t in c["own"]["tables"])


# -- index and the command ---------------------------------------------------------------------


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.links += [str(v) for k, v in attrs if k in ("href", "src") and v]


def test_index_links_every_file_and_nothing_outside(bundle: Path) -> None:
    parser = Links()
    parser.feed((bundle / "index.html").read_text())
    assert not parser.tags & {"script", "link", "img", "iframe"}
    assert parser.links and all((bundle / link).is_file() for link in parser.links), parser.links
    files = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    assert files - {"index.html"} <= set(parser.links)
    text = (bundle / "index.html").read_text()
    assert not re.search(r"https?://", text)
    for page in ("exact_vs_simulated.html", "rng.html"):
        inner = Links()
        inner.feed((bundle / page).read_text())
        assert all((bundle / link).is_file() for link in inner.links), (page, inner.links)


def test_missing_binary_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = shutil.which
    monkeypatch.setattr(rng_external.shutil, "which", lambda b: None if b == "dieharder" else real(b))
    result = runner.invoke(app, ["certify", GAME, "-o", str(tmp_path / "b")])
    assert result.exit_code == 1
    assert "apt-get install -y dieharder" in result.output
    assert not (tmp_path / "b").exists()
