"""Delivery of the browser client: compressed, cached for a year under versioned URLs, and never
stale after a release.

In-process (the real app): index.html names every file by its content hash and is itself
``no-cache``; every URL in it, and every module in its import map, answers 200, gzip-encoded,
``public, max-age=31536000, immutable``; an unversioned or outdated URL is revalidated
(``no-cache`` with an ETag, 304 when unchanged); a changed file gets a new URL at once.  A
game's own renderer is served from its folder (``games/<pkg>/web/``) at ``js/games/<id>/``,
mapped and versioned like the shared modules, named in the game list (``client``), and
nothing outside its web folder is reachable through that path.  In
Chromium: a cold load fetches every module once, by its versioned URL, compressed; the next
visit takes them all from the browser's cache.  (The load time is measured by
bench/client_load.py.)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.routing import Mount

from reelforge.games import registry
from reelforge.server.http.api import WEB_DIR
from reelforge.server.http.webclient import ClientFiles
from server_process import ServerProcess
from server_support import OPERATOR_KEY, client_for, make_server
from web_support import Operator, browser_server, chromium_browser, new_tab

YEAR = "public, max-age=31536000, immutable"
GZIP = {"Accept-Encoding": "gzip"}
# The games with a renderer of their own: id -> their web folder (games/<pkg>/web/).
GAME_WEB = {g.id: g.folder / "web" for g in registry().values() if (g.folder / "web" / "index.js").is_file()}


def served_file(path: str) -> Path:
    """The file a client URL path names: js/games/<id>/... in a game's web folder, else the
    shared client's."""
    game = re.fullmatch(r"js/games/([\w-]+)/(.+)", path)
    return GAME_WEB[game.group(1)] / game.group(2) if game else WEB_DIR / path


def client_modules() -> list[str]:
    """Every module the client has, as URL paths: the shared ones and each game's own."""
    found = [p.relative_to(WEB_DIR).as_posix() for p in WEB_DIR.rglob("*.js")]
    for game_id, web in GAME_WEB.items():
        found += [f"js/games/{game_id}/{p.relative_to(web).as_posix()}" for p in web.rglob("*.js")]
    return sorted(found)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data = tmp_path_factory.mktemp("delivery")
    with client_for(make_server(f"sqlite:///{data / 'db.sqlite'}", data)) as c:
        yield c


def page_urls(html: str) -> list[str]:
    """The local URLs index.html loads: href/src attributes and the import map's targets."""
    urls = [u for u in re.findall(r'\s(?:href|src)="([^"#][^"]*)"', html) if not u.startswith("data:")]
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert found, "index.html has no import map"
    imports = json.loads(found.group(1))["imports"]
    return urls + list(imports.values())


def test_index_is_revalidated_and_names_every_file_by_its_hash(client: TestClient) -> None:
    r = client.get("/", headers=GZIP)
    assert r.status_code == 200
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
    assert r.headers["content-type"].startswith("text/html")
    html = r.text
    urls = page_urls(html)
    modules = client_modules()
    assert {"js/games/reign-of-gnomes/index.js", "js/games/los-3-pinguinos/index.js"} <= set(modules)
    mapping = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    imports = json.loads(mapping.group(1))["imports"]
    assert sorted(k.removeprefix("./") for k in imports) == modules  # every module is mapped
    # The map comes before the first module script.
    assert html.index('type="importmap"') < html.index('type="module"')
    assert {"css/app.css", "js/app.js"} <= {u.split("?")[0] for u in urls}
    for url in urls:
        path, _, query = url.removeprefix("./").partition("?")
        assert re.fullmatch(r"v=[0-9a-f]{16}", query), f"{url} is not versioned"
        got = client.get("/" + path + "?" + query, headers=GZIP)
        assert got.status_code == 200, url
        assert got.headers["cache-control"] == YEAR, url
        assert got.headers["content-encoding"] == "gzip", url
        assert got.content == served_file(path).read_bytes(), url  # httpx undid the gzip
        assert got.headers["etag"] == f'"{query.removeprefix("v=")}-gz"'  # the gzip variant's tag
    # /index.html is the same page.
    assert client.get("/index.html").text == html


def test_compressed_bodies_are_real_gzip_and_smaller(client: TestClient) -> None:
    for path in ["js/game-screen.js", "css/app.css", "js/games/los-3-pinguinos/index.js"]:
        with client.stream("GET", "/" + path, headers=GZIP) as r:
            assert r.headers["content-encoding"] == "gzip"
            wire = b"".join(r.iter_raw())
        plain = served_file(path).read_bytes()
        assert int(r.headers["content-length"]) == len(wire)
        assert gzip.decompress(wire) == plain
        assert len(wire) < len(plain) / 2, (path, len(wire), len(plain))
    # A client that does not take gzip gets the plain file.
    r = client.get("/js/ui.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers
    assert r.content == (WEB_DIR / "js/ui.js").read_bytes()
    refused = client.get("/js/ui.js", headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers


def test_unversioned_or_outdated_urls_are_revalidated(client: TestClient) -> None:
    css = "/js/games/ghost-of-gambini/gambini.css"
    plain = client.get(css, headers=GZIP)  # a renderer adds its stylesheet by plain URL
    assert plain.status_code == 200
    assert plain.headers["cache-control"] == "no-cache"
    etag = plain.headers["etag"]
    again = client.get(css, headers={**GZIP, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    # The plain variant has its own tag: the gzip one does not revalidate it.
    identity = {"Accept-Encoding": "identity", "If-None-Match": etag}
    assert client.get(css, headers=identity).status_code == 200
    old = client.get(f"{css}?v=0123456789abcdef")  # a past release's hash
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    version = etag.strip('"').removesuffix("-gz")
    assert client.get(f"{css}?v={version}").headers["cache-control"] == YEAR
    # Nothing outside the client's folder, no folders, no writes.
    for path in ["/../pyproject.toml", "/%2e%2e/pyproject.toml", "/js/", "/js/.hidden", "/nope.js"]:
        assert client.get(path).status_code == 404, path
    assert client.post("/js/ui.js").status_code == 405
    head = client.head("/js/ui.js", headers=GZIP)
    assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) > 0
    # The API is untouched by the static files.
    assert client.get("/api/v1/health").json() == {"ok": True}


def test_a_new_release_gets_new_urls_at_once(tmp_path: Path) -> None:
    root = tmp_path / "web"
    shutil.copytree(WEB_DIR, root)
    c = TestClient(Starlette(routes=[Mount("/", ClientFiles(root))]))
    before = c.get("/").text
    old = re.search(r'"\./js/ui\.js\?v=([0-9a-f]+)"', before).group(1)
    css = re.search(r"css/app\.css\?v=([0-9a-f]+)", before).group(1)
    time.sleep(0.01)
    (root / "js/ui.js").write_text((root / "js/ui.js").read_text() + "\n// release 2\n")
    after = c.get("/").text
    new = re.search(r'"\./js/ui\.js\?v=([0-9a-f]+)"', after).group(1)
    assert new != old
    assert re.search(r"css/app\.css\?v=([0-9a-f]+)", after).group(1) == css  # unchanged file, same URL
    assert c.get(f"/js/ui.js?v={new}").text.endswith("// release 2\n")
    assert c.get(f"/js/ui.js?v={new}").headers["cache-control"] == YEAR
    assert c.get(f"/js/ui.js?v={old}").headers["cache-control"] == "no-cache"


def test_a_games_renderer_is_served_from_its_own_folder(client: TestClient) -> None:
    entry = GAME_WEB["reign-of-gnomes"] / "index.js"
    assert entry.parent.parent.name == "reign_of_gnomes"  # games/reign_of_gnomes/web/index.js
    assert not (WEB_DIR / "js" / "games").exists()  # nothing of a game's in the shared tree
    html = client.get("/").text
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    imports = json.loads(found.group(1))["imports"]
    version = hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
    url = imports["./js/games/reign-of-gnomes/index.js"]
    assert url == f"./js/games/reign-of-gnomes/index.js?v={version}"
    assert f'<link rel="modulepreload" href="{url}">' in html
    got = client.get(url.removeprefix("."), headers=GZIP)
    assert got.status_code == 200 and got.content == entry.read_bytes()
    assert got.headers["cache-control"] == YEAR and got.headers["content-encoding"] == "gzip"
    assert got.headers["content-type"].startswith("text/javascript")
    assert "script-src 'self'" in got.headers["content-security-policy"]
    # Its imports of the shared client are relative to where it is served, and land there.
    shared = re.findall(r'from "(\.\./\.\./[^"]+)"', got.text)
    assert "../../ui.js" in shared
    for rel in shared:
        assert f"./js/{rel.removeprefix('../../')}" in imports, rel
    # A game's stylesheet comes from its folder too; the shared tree has none of it.
    assert client.get("/js/games/ghost-of-gambini/gambini.css").status_code == 200
    assert client.get("/css/gambini.css").status_code == 404
    assert client.get("/js/renderers/reign-of-gnomes.js").status_code == 404
    # The game list names each game's module; a game drawn by its kind's renderer has none.
    listing = client.get("/api/v1/games", headers={"X-Operator-Key": OPERATOR_KEY}).json()["games"]
    named = {g["id"]: g.get("client") for g in listing}
    assert named["reign-of-gnomes"] == "js/games/reign-of-gnomes/index.js"
    assert named["los-3-pinguinos"] == "js/games/los-3-pinguinos/index.js"
    assert named["golden-scarab"] is None
    # Nothing but the web folder's files: not the game's Python, not a folder, not another game.
    for path in [
        "/js/games/reign-of-gnomes/%2e%2e/rules.py",
        "/js/games/reign-of-gnomes/%2e%2e/%2e%2e/%2e%2e/%2e%2e/pyproject.toml",
        "/js/games/reign-of-gnomes/..%2frules.py",
        "/js/games/reign-of-gnomes/.%2e/rules.py",
        "/js/games/reign-of-gnomes/",
        "/js/games/reign-of-gnomes",
        "/js/games/golden-scarab/data/golden-scarab.toml",
        "/js/games/nope/index.js",
    ]:
        assert client.get(path).status_code == 404, path


def test_a_game_folder_is_served_only_below_its_web_folder(tmp_path: Path) -> None:
    """Straight to the app (no HTTP client tidies the path first): ``..`` out of a game's web
    folder is refused, as is any path a game's id does not name; a game added later is served."""
    root = tmp_path / "web"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text('<html><head></head><body><script type="module" src="js/a.js"></script>')
    (root / "js" / "a.js").write_text("export const a = 1;\n")
    folder = tmp_path / "games" / "toy"
    (folder / "web").mkdir(parents=True)
    (folder / "web" / "index.js").write_text('import { a } from "../../a.js";\n')
    (folder / "rules.py").write_text("SECRET = 1\n")
    games = {"toy": SimpleNamespace(id="toy", folder=folder)}
    files = ClientFiles(root, games.values())  # type: ignore[arg-type]
    assert files.modules() == ["js/a.js", "js/games/toy/index.js"]
    refused = [
        "js/games/toy/../rules.py",
        "js/games/toy/web/../../rules.py",
        "js/games/../../games/toy/rules.py",
        "js/games/toy/./index.js",
        "js/games/toy",
        "js/games/toy/",
        "js/games/other/index.js",
    ]
    for rel in refused:
        assert files.asset(rel) is None, rel
    c = TestClient(Starlette(routes=[Mount("/", files)]))
    assert c.get("/js/games/toy/index.js").text.startswith("import")
    assert c.get("/js/games/toy/%2e%2e/rules.py").status_code == 404
    assert '"./js/games/toy/index.js": "./js/games/toy/index.js?v=' in c.get("/").text
    # A game added after the app was made (the server's tests do) is served at once.
    later = tmp_path / "games" / "later"
    (later / "web").mkdir(parents=True)
    (later / "web" / "index.js").write_text("export {};\n")
    games["later"] = SimpleNamespace(id="later", folder=later)
    assert c.get("/js/games/later/index.js").status_code == 200
    assert files.with_renderers({"games": [{"id": "toy"}, {"id": "x"}]}) == {
        "games": [{"id": "toy", "client": "js/games/toy/index.js"}, {"id": "x"}]
    }


# -- in Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from browser_server(tmp_path_factory.mktemp("web-delivery"), "20261211")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium_browser("delivery")


RESOURCES = """() => performance.getEntriesByType('resource')
    .filter((e) => e.initiatorType !== 'fetch' && e.initiatorType !== 'xmlhttprequest')
    .map((e) => ({ url: e.name, transfer: e.transferSize, size: e.decodedBodySize }))"""


def test_cold_load_fetches_versioned_compressed_files_then_the_cache_serves_them(
    browser: Any, server: ServerProcess
) -> None:
    op = Operator(server)
    token = op.player("delivery-cold", 100_00)
    op.close()
    # The first game list computes every game's exact RTP (seconds): a server cost, not the page's.
    games = httpx.get(f"{server.url}/games", headers={"Authorization": f"Bearer {token}"}, timeout=300)
    assert games.status_code == 200, games.text
    base = server.url.removesuffix("/api/v1")
    gen = new_tab(browser, base)
    tab = next(gen)
    try:
        page = tab.page
        responses: list[Any] = []
        page.on("response", lambda r: responses.append(r))
        tab.open(token)
        page.wait_for_selector("[data-testid=game-tile]")
        client = [r for r in responses if r.request.resource_type in ("script", "stylesheet")]
        modules = [r.url.removeprefix(base + "/") for r in client if r.request.resource_type == "script"]
        assert any(m.startswith("js/renderers/") for m in modules)  # the lobby drew every game's tile
        assert any(m.startswith("js/games/reign-of-gnomes/index.js?") for m in modules)  # from its folder
        for r in client:
            assert r.status == 200, r.url
            assert r.headers.get("content-encoding") == "gzip", r.url
        # Every module came by its versioned URL, once (one module, one instance).
        assert all(re.fullmatch(r"js/[\w/-]+\.js\?v=[0-9a-f]{16}", m) for m in modules), modules
        assert len(set(modules)) == len(modules)
        cold = {e["url"]: e for e in page.evaluate(RESOURCES)}
        assert all(e["transfer"] > 0 for e in cold.values())  # nothing was cached yet

        # The next visit: the page is revalidated, the versioned files come from the cache.
        page.goto(base + "/")
        page.wait_for_selector("#app[data-ready='1'] [data-testid=game-tile]")
        warm = {e["url"]: e for e in page.evaluate(RESOURCES)}
        versioned = [u for u in warm if "?v=" in u]
        assert len(versioned) >= len(modules)
        assert all(warm[u]["transfer"] == 0 for u in versioned), [u for u in versioned if warm[u]["transfer"]]
    finally:
        next(gen, None)
