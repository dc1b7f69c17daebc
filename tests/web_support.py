"""Support for the browser tests: a real ``reelforge serve`` process, Debian's Chromium
driven by Playwright, players made through the operator API, console checks and
screenshots (saved under ``test-artifacts/screenshots/``, which git ignores).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reelforge.server.core.config import Settings
from server_process import OP_HEADERS, ServerProcess, local_client

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
# Animations run at this fraction of their length in the tests (the client's own timing
# rules, such as the GB 2.5 s cycle, are not scaled).
TEST_SPEED = 0.12

_keys = itertools.count(1)


def chromium_or_skip() -> str:
    """The Chromium binary; a missing one fails in CI (test.sh installs it) and skips elsewhere."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing: test.sh installs Debian's chromium in CI")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")


def playwright_or_skip() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extras install it
        if os.environ.get("CI"):
            pytest.fail("the playwright package is missing (pip install -e '.[dev]')")
        pytest.skip("playwright is not installed")
    return sync_playwright


class Operator:
    """The operator side of the server, for setting up players and profiles."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.http = local_client(base_url=server.url, timeout=30)

    def key(self) -> dict[str, str]:
        return {**OP_HEADERS, "Idempotency-Key": f"web-test-{next(_keys)}"}

    def player(
        self,
        external_id: str,
        credit: int,
        profile: str | None = None,
        currency: str | None = None,
        session: dict[str, Any] | None = None,
    ) -> str:
        """Create a player with ``credit`` minor units (in ``currency``, the server's default
        otherwise) and open a session (under ``profile``, which is put back to default
        afterwards; ``session``: its limits).  Returns the session token."""
        body = {"external_id": external_id, **({"currency": currency} if currency else {})}
        r = self.http.post("/operator/players", json=body, headers=OP_HEADERS)
        assert r.status_code == 201, r.text
        if credit:
            r = self.http.post(
                f"/operator/players/{external_id}/credit", json={"amount": credit}, headers=self.key()
            )
            assert r.status_code == 200, r.text
        if profile:
            self.set_profile(profile)
        try:
            r = self.http.post(
                f"/operator/players/{external_id}/sessions", json=session or {}, headers=self.key()
            )
            assert r.status_code == 201, r.text
        finally:
            if profile:
                self.set_profile("default")
        return str(r.json()["token"])

    def set_profile(self, profile: str) -> None:
        r = self.http.put("/operator/profile", json={"profile": profile}, headers=OP_HEADERS)
        assert r.status_code == 200, r.text

    def history(self, external_id: str) -> list[dict[str, Any]]:
        r = self.http.get(f"/operator/players/{external_id}/history?limit=100", headers=OP_HEADERS)
        assert r.status_code == 200, r.text
        return list(r.json()["rounds"])

    def balance(self, external_id: str) -> int:
        r = self.http.get(f"/operator/players/{external_id}", headers=OP_HEADERS)
        assert r.status_code == 200, r.text
        return int(r.json()["balance"])

    def as_player(self, token: str, method: str, path: str) -> Any:
        r = self.http.request(method, path, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return r.json()

    def close(self) -> None:
        self.http.close()


@dataclass
class Tab:
    """One browser page with its console watched: every console error and uncaught
    exception is kept; a test allows the ones it provokes on purpose."""

    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]

    def open(self, token: str | None = None, route: str = "", lang: str | None = None) -> None:
        """Load the client as an operator's launch URL would: the session token and, when
        given, the language (``?lang=es``)."""
        params = [f"token={token}"] * bool(token) + [f"lang={lang}"] * bool(lang)
        url = self.base_url + "/" + ("?" + "&".join(params) if params else "")
        self.page.goto(url + route)
        self.page.wait_for_selector("#app[data-ready='1']", timeout=30_000)

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        # Finite CSS/Web animations are shown finished (a dialog fully faded in).
        self.page.screenshot(path=str(path), animations="disabled")
        return path

    def idle(self, timeout: float = 60_000) -> None:
        """Wait until the game screen has nothing in play."""
        self.page.wait_for_selector(".game[data-state='idle']", timeout=timeout)

    def watch(self, selector: str) -> None:
        """Record from now on whether ``selector`` ever matches: an animation's class (a cell
        collecting, a piggy popping) can come and go between two polls of a wait on a loaded
        machine, so the page notes it the moment it is set; :meth:`seen` waits for the note."""
        self.page.evaluate(
            """(sel) => {
                window.__seen = window.__seen || {};
                window.__seen[sel] = !!document.querySelector(sel);
                new MutationObserver(() => {
                    if (document.querySelector(sel)) window.__seen[sel] = true;
                }).observe(document.body,
                    { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
            }""",
            selector,
        )

    def seen(self, selector: str, timeout: float = 30_000) -> None:
        """Wait until ``selector`` has matched since :meth:`watch` (now or at any moment since)."""
        self.page.wait_for_function(
            "(sel) => window.__seen && window.__seen[sel]", arg=selector, timeout=timeout
        )

    def text(self, selector: str) -> str:
        return str(self.page.locator(selector).first.inner_text())

    def speed(self, factor: float) -> None:
        """Run the client's animations at ``factor`` of their length from now on."""
        self.page.evaluate("f => { window.__reelforgeSpeed = f; }", factor)

    def script(self, *scripts: list[int]) -> None:
        """Test-only draw scripts for the next requests (the server allows them here)."""
        self.page.evaluate("s => { window.__reelforgeScripts = s; }", [list(s) for s in scripts])


def watch(page: Any, base_url: str) -> Tab:
    tab = Tab(page, base_url)

    def on_console(msg: Any) -> None:
        if msg.type == "error":
            where = msg.location.get("url", "") if isinstance(msg.location, dict) else ""
            tab.errors.append(f"{msg.text} [{where}]")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: tab.errors.append(f"pageerror: {exc}"))
    page.add_init_script(f"window.__reelforgeSpeed = {TEST_SPEED};")
    return tab


def new_tab(browser: Any, base_url: str, **context: Any) -> Iterator[Tab]:
    ctx = browser.new_context(viewport=context.pop("viewport", DESKTOP), **context)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    tab = watch(page, base_url)
    try:
        yield tab
    finally:
        ctx.close()
    assert not tab.unexpected_errors(), f"console errors: {tab.unexpected_errors()}"


def clean_shots() -> None:
    if SHOTS.exists():
        shutil.rmtree(SHOTS)


def money(text: str) -> int:
    """Shown money in minor units: '£1,234.50' -> 123450; '-€0.40' -> -40."""
    m = re.search(r"(-?)\D*([\d,]+)\.(\d\d)", text)
    assert m, text
    value = int(m.group(2).replace(",", "")) * 100 + int(m.group(3))
    return -value if m.group(1) else value


def money_es(text: str) -> int:
    """Shown money in Spanish, in minor units: '1.234,50 €' -> 123450; '-0,40 €' -> -40."""
    m = re.search(r"(-?)\D*?([\d.]+),(\d\d)\s*\S", text)
    assert m, text
    value = int(m.group(2).replace(".", "")) * 100 + int(m.group(3))
    return -value if m.group(1) else value


def browser_server(data: Path, seed: str) -> Iterator[ServerProcess]:
    """A demo-mode server on SQLite dealing from a seeded stream (the same outcomes every run)."""
    chromium_or_skip()
    # The request rate limit at its default: a browser plays well within it.
    rate = str(Settings.model_fields["rate_limit_per_second"].default)
    env = {"REELFORGE_DEMO_MODE": "1", "REELFORGE_TEST_SEED": seed, "REELFORGE_RATE_LIMIT_PER_SECOND": rate}
    proc = ServerProcess(f"sqlite:///{data / 'web.db'}", data, env)
    proc.start()
    try:
        yield proc
    finally:
        proc.kill()


def chromium_browser(shots_prefix: str | None) -> Iterator[Any]:
    """Debian's Chromium through Playwright.  Old screenshots go first: all of them, or only
    ``<shots_prefix>-*.png`` (a module's own)."""
    executable = chromium_or_skip()
    sync_playwright = playwright_or_skip()
    if shots_prefix is None:
        clean_shots()
    else:
        for old in SHOTS.glob(f"{shots_prefix}-*.png"):
            old.unlink()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
