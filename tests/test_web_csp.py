"""The browser client under its Content-Security-Policy, in a real Chromium against
``reelforge serve`` (the request rate limit at its default): the lobby and a game load and a
spin plays with no policy violation (none reported to the page's ``securitypolicyviolation``
listener, none in the console), and the page is served with the policy and the other
security headers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_process import ServerProcess
from web_support import Operator, Tab, browser_server, chromium_browser, new_tab

# Recorded from the first script on: every violation the page sees, whatever its directive.
WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-csp"), "20261202")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("csp")


@pytest.fixture
def tab(browser: Any, server: ServerProcess) -> Iterator[Tab]:
    yield from new_tab(browser, server.url.removesuffix("/api/v1"))


def test_the_client_plays_a_spin_with_no_policy_violation(tab: Tab, server: ServerProcess) -> None:
    page = tab.page
    page.add_init_script(WATCH)
    reply = httpx.get(server.url.removesuffix("/api/v1") + "/")
    policy = reply.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy and "unsafe-inline" not in policy
    assert reply.headers["x-frame-options"] == "DENY" and reply.headers["x-content-type-options"] == "nosniff"

    operator = Operator(server)
    token = operator.player("csp-1", 100_000)
    tab.open(token)
    page.wait_for_selector("[data-testid=game-tile][data-game=reign-of-gnomes]")
    page.click("[data-game=reign-of-gnomes]")
    page.wait_for_selector("[data-testid=game-screen]")
    tab.idle()
    page.keyboard.press("Space")
    page.wait_for_selector(".game[data-state='busy']")
    tab.idle()
    assert operator.history("csp-1")[0]["status"] == "complete"  # the spin was played
    operator.close()
    assert page.evaluate("() => window.__cspViolations") == []
    csp_console = [e for e in tab.errors if "Content Security Policy" in e]
    assert not csp_console, csp_console
