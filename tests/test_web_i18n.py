"""Languages: English and Spanish, from the locale files, in a real Chromium.

* Static: every key the client's code asks for (``t("…")`` and ``tk("…")`` in web/js and in
  the games' own renderers, games/*/web) has a Spanish entry, every plural key has its English
  forms, every placeholder of a translation is one its key fills, and the locale files hold no
  key the code no longer uses.
* The language comes from the operator's launch parameter (``?lang=es``), else the browser's
  languages, else English; it is kept for the tab when the launch URL is left.
* A round played in each language: the strings, ``<html lang>``, money by locale and
  currency (£1,000.00 / 1.000,00 €), a Spanish amount typed into the autoplay dialog, history
  labels; no key asked for in Spanish lacks its translation.

The screenshots of every screen in both languages and both viewports are the accessibility
tour's (``test_web_a11y.py``: ``a11y-{desktop,phone}-{en,es}-*.png``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, money, money_es, new_tab

WEB = Path(__file__).resolve().parent.parent / "src" / "reelforge" / "web"
GAMES = WEB.parent / "games"
KEY = re.compile(r'\b(?:t|tk)\(\s*"((?:[^"\\]|\\.)*)"')
PLACEHOLDER = re.compile(r"\{(\w+)\}")
GAME = "#/game/reign-of-gnomes"


def client_code() -> list[Path]:
    """Every module of the client: the shared ones (web/js) and the games' own (games/*/web)."""
    return sorted((WEB / "js").rglob("*.js")) + sorted(GAMES.glob("*/web/**/*.js"))


def used_keys() -> dict[str, str]:
    """Every key in the client's code: key -> the first file that uses it."""
    found: dict[str, str] = {}
    for path in client_code():
        for m in KEY.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(json.loads(f'"{m.group(1)}"'), path.relative_to(WEB.parent).as_posix())
    # The static page's strings (data-i18n text and data-i18n-attr attributes).
    html = (WEB / "index.html").read_text(encoding="utf-8")
    for m in re.finditer(r"<\w+[^>]*\sdata-i18n(?=[\s>])[^>]*>([^<]*)<", html):
        found.setdefault(m.group(1), "index.html")
    for m in re.finditer(r"<\w+([^>]*\sdata-i18n-attr=\"([^\"]+)\"[^>]*)>", html):
        attrs = dict(re.findall(r'\s([\w-]+)="([^"]*)"', m.group(1)))
        for name in m.group(2).split():
            found.setdefault(attrs[name], "index.html")
    return found


def locale(lang: str) -> dict[str, Any]:
    return dict(json.loads((WEB / "locales" / f"{lang}.json").read_text(encoding="utf-8")))


def test_every_key_has_its_spanish_and_plural_entries() -> None:
    used = used_keys()
    es, en = locale("es"), locale("en")
    assert len(used) > 300, len(used)  # the scan sees the client's strings
    assert not sorted(k for k in used if k not in es), "keys without Spanish"
    assert not sorted(k for k in es if k not in used), "Spanish entries no code uses"
    assert not sorted(k for k in en if k not in used), "English entries no code uses"
    for key, entry in es.items():
        forms = entry.values() if isinstance(entry, dict) else [entry]
        if isinstance(entry, dict):
            assert set(entry) >= {"one", "other"}, key
            assert isinstance(en.get(key), dict) and set(en[key]) >= {"one", "other"}, key
        for form in forms:
            assert isinstance(form, str) and form.strip(), key
            extra = set(PLACEHOLDER.findall(form)) - set(PLACEHOLDER.findall(key)) - {"n"}
            assert not extra, (key, form)
    for key, entry in en.items():
        assert isinstance(entry, dict), f"English needs entries only for plurals: {key}"


# A local binding named `t` hides the imported t(): a call before it throws (temporal dead
# zone), one after it calls the wrong thing.  Files that import t() bind no `t` of their own.
SHADOWS = re.compile(
    r"\b(?:const|let|var)\s+t\b|\bt\s*=>|\(\s*t\s*(?:,[^()]*)?\)\s*=>|function\s*\w*\s*\(\s*t\s*[,)]"
)
IMPORTS_T = re.compile(r"import\s*\{[^}]*\bt\b[^}]*\}\s*from\s*\"[./]*/?i18n\.js\"")


def test_no_module_that_uses_t_binds_a_t_of_its_own() -> None:
    users = [p for p in client_code() if IMPORTS_T.search(p.read_text(encoding="utf-8"))]
    assert len(users) > 20, [p.name for p in users]
    found = [
        f"{p.relative_to(WEB.parent).as_posix()}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for p in users
        for text in [p.read_text(encoding="utf-8")]
        for m in SHADOWS.finditer(text)
    ]
    assert not found, found


# -- in Chromium -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-i18n"), "20261202")


@pytest.fixture(scope="module")
def operator(server: ServerProcess) -> Iterator[Operator]:
    op = Operator(server)
    token = op.player("i18n-warmup", 0)
    r = op.http.get("/games", headers={"Authorization": f"Bearer {token}"}, timeout=600)
    assert r.status_code == 200, r.text
    yield op
    op.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("i18n")


def base_url(server: ServerProcess) -> str:
    return server.url.removesuffix("/api/v1")


def tab_in(browser: Any, server: ServerProcess, browser_locale: str) -> Iterator[Tab]:
    return new_tab(browser, base_url(server), locale=browser_locale)


def missing(tab: Tab) -> list[str]:
    return list(tab.page.evaluate("[...window.__i18nMissing]"))


@pytest.mark.parametrize(
    ("browser_locale", "launch", "expected"),
    [
        ("es-ES", None, "es"),  # the browser's language
        ("es-MX", None, "es"),  # any Spanish
        ("en-US", None, "en"),
        ("fr-FR", None, "en"),  # not offered: English
        ("en-GB", "es", "es"),  # the operator's launch parameter wins
        ("es-ES", "en", "en"),
    ],
)
def test_the_language_comes_from_the_launch_parameter_or_the_browser(
    browser: Any,
    server: ServerProcess,
    operator: Operator,
    browser_locale: str,
    launch: str | None,
    expected: str,
) -> None:
    gen = tab_in(browser, server, browser_locale)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(operator.player(f"i18n-pick-{browser_locale}-{launch}", 100_000), lang=launch)
        page.wait_for_selector("[data-testid=game-tile]")
        assert page.evaluate("document.documentElement.lang") == expected
        heading = tab.text(".lobby__title")
        assert heading == ("Elige tu juego" if expected == "es" else "Choose your game"), heading
        label = tab.text(".meter--balance .meter__label").casefold()
        assert label == ("saldo" if expected == "es" else "balance")
        # The launch parameter is kept for the tab: a reload without it keeps the language.
        page.goto(base_url(server) + "/")
        page.wait_for_selector("[data-testid=game-tile]")
        assert page.evaluate("document.documentElement.lang") == expected
    finally:
        next(gen, None)


def play_one_round(tab: Tab) -> None:
    page = tab.page
    page.click("[data-testid=spin]")
    page.wait_for_selector(".game[data-state='busy']")
    tab.idle()


def test_a_round_in_english(browser: Any, server: ServerProcess, operator: Operator) -> None:
    gen = tab_in(browser, server, "en-GB")
    tab = next(gen)
    try:
        page = tab.page
        token = operator.player("i18n-en", 100_000)
        tab.open(token, GAME)
        tab.idle()
        assert tab.text("[data-testid=balance]") == "£1,000.00"
        assert tab.text("[data-testid=bet-value]") == "£0.40"
        assert page.get_attribute("[data-testid=spin]", "aria-label")
        play_one_round(tab)
        assert money(tab.text("[data-testid=balance]")) == operator.balance("i18n-en")
        page.keyboard.press("a")
        page.wait_for_selector("[data-testid=dialog-autoplay]")
        assert page.input_value("#ap-loss") == "8.00"  # 20 bets, with a decimal point
        page.click("[data-testid=dialog-autoplay] .modal__close")
        page.evaluate("location.hash = '#/history'")
        page.wait_for_selector("[data-testid=history] [data-round]")
        assert "Bet" in (page.text_content("[data-testid=history]") or "")
        tab.shot("i18n-en-history")
    finally:
        next(gen, None)


def test_a_round_in_spanish(browser: Any, server: ServerProcess, operator: Operator) -> None:
    gen = tab_in(browser, server, "es-ES")
    tab = next(gen)
    try:
        page = tab.page
        token = operator.player("i18n-es", 100_000)
        tab.open(token, GAME)
        tab.idle()
        assert page.evaluate("document.documentElement.lang") == "es"
        # Money by locale and currency: the sign after the amount, a dot between thousands.
        shown = tab.text("[data-testid=balance]")
        assert re.fullmatch(r"1\.000,00\s£", shown), shown
        assert re.fullmatch(r"0,40\s£", tab.text("[data-testid=bet-value]"))
        spin_label = page.get_attribute("[data-testid=spin]", "aria-label") or ""
        assert spin_label and "spin" not in spin_label.casefold(), spin_label
        tab.shot("i18n-es-game")
        play_one_round(tab)
        assert money_es(tab.text("[data-testid=balance]")) == operator.balance("i18n-es")
        # A Spanish amount in the autoplay dialog: shown with a decimal comma, read back.
        page.keyboard.press("a")
        dialog = page.locator("[data-testid=dialog-autoplay]")
        dialog.wait_for()
        assert page.input_value("#ap-loss") == "8,00"
        dialog.locator("[data-spins='10']").click()
        page.fill("#ap-loss", "1,20")
        tab.shot("i18n-es-autoplay")
        dialog.locator("[data-testid=autoplay-start]").click()
        page.wait_for_selector("[data-testid=spins-left]")
        status = operator.as_player(token, "GET", "/autoplay")["autoplay"]
        assert status["limits"]["loss_limit"] == 120, status
        page.wait_for_selector(".game[data-autoplay-stop]", timeout=90_000)
        tab.idle()
        # The history in Spanish.
        page.evaluate("location.hash = '#/history'")
        page.wait_for_selector("[data-testid=history] [data-round]")
        text = page.text_content("[data-testid=history]") or ""
        assert "Apuesta" in text, text[:400]
        tab.shot("i18n-es-history")
        assert not missing(tab), missing(tab)
        # Los 3 Pinguinos, a Spanish machine priced in euros: 1.000,00 €.
        tab.open(operator.player("i18n-es-eur", 100_000, currency="EUR"), "#/game/los-3-pinguinos")
        tab.idle()
        shown = tab.text("[data-testid=balance]")
        assert re.fullmatch(r"1\.000,00\s€", shown), shown
        assert "BONOS" in (page.text_content("[data-testid=renderer-los-3-pinguinos]") or "").upper()
        tab.shot("i18n-es-pinguinos")
        assert not missing(tab), missing(tab)
    finally:
        next(gen, None)


def test_money_parses_and_formats_in_each_locale(
    browser: Any, server: ServerProcess, operator: Operator
) -> None:
    """The money module itself, in the page: formatting and reading typed amounts."""
    gen = tab_in(browser, server, "en-GB")
    tab = next(gen)
    try:
        page = tab.page
        tab.open(operator.player("i18n-money", 0))
        page.wait_for_selector("[data-testid=game-tile]")
        got = page.evaluate(
            """async () => {
                const i18n = await import('./js/i18n.js');
                const m = await import('./js/money.js');
                const out = {};
                for (const lang of ['en', 'es']) {
                    await i18n.setLanguage(lang);
                    out[lang] = {
                        gbp: m.formatMoney(100000, 'GBP'), eur: m.formatMoney(123456789, 'EUR'),
                        neg: m.formatMoney(-5, 'EUR'), small: m.formatMoney(40, 'EUR'),
                        input: m.moneyInput(480),
                        parse: ['4.80', '4,80', '1.000', '1,000', '1.000,50', '£1,000.50', '12', 'x', '1.2.3']
                            .map((s) => m.parseMoney(s)),
                    };
                }
                await i18n.setLanguage('en');
                return out;
            }"""
        )
        nb = "\u00a0"
        assert got["en"] == {
            "gbp": "£1,000.00", "eur": "€1,234,567.89", "neg": "-€0.05", "small": "€0.40", "input": "4.80",
            "parse": [480, None, None, 100000, None, 100050, 1200, None, None],
        }  # fmt: skip
        assert got["es"] == {
            "gbp": f"1.000,00{nb}£", "eur": f"1.234.567,89{nb}€", "neg": f"-0,05{nb}€", "small": f"0,40{nb}€",
            "input": "4,80",
            "parse": [480, 480, 100000, None, 100050, None, 1200, None, None],
        }  # fmt: skip
    finally:
        next(gen, None)


@pytest.mark.parametrize(
    ("currency", "browser_locale", "profile", "sign", "other"),
    [("GBP", "en-GB", None, "£", "€"), ("EUR", "es-ES", "es", "€", "£")],
    ids=["GBP-en", "EUR-es"],
)
def test_one_currency_on_every_game_screen(
    browser: Any,
    server: ServerProcess,
    operator: Operator,
    currency: str,
    browser_locale: str,
    profile: str | None,
    sign: str,
    other: str,
) -> None:
    """A player sees their wallet's currency on every display of every game (top bar, bets,
    cabinet, prizes), never a game's own; the net position is held like the balance while a
    round is presented (the stake at once, the win when the presentation ends)."""
    limits = {"time_limit_seconds": 3600, "spend_limit": 100_000} if profile else None
    who = f"i18n-cur-{currency}"
    token = operator.player(who, 100_000, profile=profile, currency=currency, session=limits)
    parse = money if currency == "GBP" else money_es
    gen = tab_in(browser, server, browser_locale)
    tab = next(gen)
    try:
        page = tab.page
        tab.open(token)
        page.wait_for_selector("[data-testid=game-tile]")
        games = page.eval_on_selector_all("[data-testid=game-tile]", "els => els.map(e => e.dataset.game)")
        assert {"reign-of-gnomes", "ghost-of-gambini", "los-3-pinguinos"} <= set(games), games
        lobby = page.inner_text("main")
        assert sign in lobby and other not in lobby, lobby
        for game in games:
            tab.open(token, f"#/game/{game}")
            tab.idle()
            text = page.inner_text("body")
            assert sign in text and other not in text, (game, text[:2000])
            tab.shot(f"i18n-currency-{currency}-{game}")
        tab.open(token, GAME)
        tab.idle()
        tab.speed(4)  # slow: the presentation lasts long enough to read the held meters
        assert parse(tab.text("#net-position")) == 0
        page.click("[data-testid=spin]")
        page.wait_for_selector("#balance[data-held='1']")
        assert parse(tab.text("#net-position")) == -40  # the stake, before any win is shown
        tab.speed(1)
        tab.idle()
        net = operator.balance(who) - 100_000
        page.wait_for_function(
            "n => document.getElementById('net-position').dataset.net === String(n)", arg=net
        )
        assert other not in page.inner_text("body")
        assert not tab.unexpected_errors()
    finally:
        next(gen, None)
