"""The browser client's files, served fast and never stale.

* The shared client is the ``web/`` folder (``index.html``, ``css/``, ``js/``, ``locales/``).
  A game with a renderer of its own keeps it in its own folder, ``games/<pkg>/web/`` (its entry
  module ``index.js``), and it is served as if it lay in the client's tree, at
  ``js/games/<game id>/``: its imports of the shared modules are plain relative paths
  (``../../ui.js``), and everything below holds for its files as for the shared ones.  The
  game folders come from the registry's games (``game.id``, ``game.folder``), read at each
  request; ``/games`` itself is the API's.  :meth:`ClientFiles.with_renderers` names each
  game's module in the game list (``"client": "js/games/<id>/index.js"``).
* Every file is named in the served ``index.html`` by its content hash (``js/app.js?v=<hash>``);
  JavaScript modules import each other by plain relative paths, so the page also gets an
  import map that sends each module's plain URL to its versioned one.  A versioned URL is
  cached for a year (``immutable``); ``index.html`` and any URL without the current hash
  (a stylesheet a renderer adds, an old release's hash) are ``no-cache``: revalidated with
  their ETag, so a new release is picked up on the next load.
* Text files are gzip-compressed once, in memory, and sent compressed to clients that accept it.
* Every file is sent with a Content-Security-Policy that allows scripts, styles and fetches
  from this origin only and no inline script but the import map, named by its SHA-256.

Files are re-read when their size or modification time changes, so an edited client is
served at once without a restart.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import mimetypes
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from reelforge.engine.game import Game

YEAR = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
VERSION_PARAM = "v"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
}
_COMPRESSIBLE = {".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".map"}
_MIN_COMPRESS = 256  # smaller bodies gain nothing from gzip
GAMES_URL = ("js", "games")  # js/games/<game id>/<file>: a game's own web folder
GAME_WEB = "web"  # that folder, inside the game's folder
GAME_ENTRY = "index.js"  # its entry module: createRenderer(ctx), lobbyTile(game) optionally
_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # ids that are one plain URL segment
# href="css/app.css" / src="js/app.js" in index.html: local, relative URLs only.
_LOCAL_URL = re.compile(r'(\s(?:href|src)=")(?![a-z][a-z0-9+.-]*:|/|#)([^"?#]+)(")', re.IGNORECASE)


def client_csp(script_hashes: list[str]) -> str:
    """The client's policy: its own files only; the inline scripts allowed are those whose
    SHA-256 (base64) is given (the import map); images also as data: URLs (the favicon)."""
    scripts = " ".join(["'self'", *(f"'sha256-{h}'" for h in script_hashes)])
    return (
        f"default-src 'self'; script-src {scripts}; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    media_type: str
    version: str  # the first 16 hex digits of the body's SHA-256
    stamp: tuple[int, int]  # (size, mtime_ns) it was read at

    def etag(self, gzipped: bool) -> str:
        # Each encoding is its own representation, so each has its own tag.
        return f'"{self.version}-gz"' if gzipped else f'"{self.version}"'


def _asset(body: bytes, suffix: str, stamp: tuple[int, int]) -> Asset:
    gz = None
    if suffix in _COMPRESSIBLE and len(body) >= _MIN_COMPRESS:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gz = packed if len(packed) < len(body) else None
    media = _TYPES.get(suffix) or mimetypes.guess_type("x" + suffix)[0] or "application/octet-stream"
    return Asset(body, gz, media, hashlib.sha256(body).hexdigest()[:16], stamp)


def _route_path(scope: Scope) -> str:
    """The path below where the app is mounted (as Starlette's own static files read it)."""
    path, root = scope["path"], scope.get("root_path", "")
    if root and path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/"):
        return path[len(root) :]
    return path


def _accepts_gzip(headers: Headers) -> bool:
    for part in headers.get("accept-encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=")
            try:
                return not params or float(q) > 0
            except ValueError:
                return True
    return False


def _modules(top: Path, prefix: tuple[str, ...]) -> list[str]:
    """The JavaScript modules under ``top`` (hidden folders apart), as URL paths ``prefix/...``."""
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".js", ".mjs")) and not name.startswith("."):
                found.append("/".join([*prefix, *Path(dirpath, name).relative_to(top).parts]))
    return found


class ClientFiles:
    """An ASGI app serving the client directory (mounted at ``/`` after the API routes), and the
    web folders of ``games`` under ``js/games/<id>/``.  ``games`` is read again at each request
    (a live view, e.g. ``server.games.values()``, sees a game added later)."""

    def __init__(self, root: Path, games: Iterable[Game] = ()) -> None:
        self.root = root.resolve()
        self.games = games
        self.assets: dict[str, Asset] = {}
        self.index_page: Asset | None = None
        self.index_key: object = None  # what index_page was made from
        self.csp = client_csp([])  # with the import map's hash once index.html is made

    # -- files -----------------------------------------------------------------------------

    def game_folders(self) -> dict[str, Path]:
        """The web folder of each game with a renderer of its own (``web/index.js`` in its
        folder), by game id."""
        found = {}
        for game in self.games:
            web = Path(game.folder) / GAME_WEB
            if _GAME_ID.fullmatch(game.id) and (web / GAME_ENTRY).is_file():
                found[game.id] = web.resolve()
        return found

    def with_renderers(self, listing: dict) -> dict:
        """A game list (``GET /games``) with ``client``, the URL path of its renderer module
        from the client's root, on each game that has one of its own."""
        folders = self.game_folders()
        for info in listing["games"]:
            if info.get("id") in folders:
                info["client"] = "/".join([*GAMES_URL, info["id"], GAME_ENTRY])
        return listing

    def _path(self, rel: str) -> Path | None:
        """The file for a URL path inside the root or a game's web folder, or None (missing,
        a folder, outside)."""
        parts = [p for p in rel.split("/") if p]
        if any(p in (".", "..") or p.startswith(".") or "\\" in p for p in parts) or not parts:
            return None
        n = len(GAMES_URL)
        if tuple(parts[:n]) == GAMES_URL:
            folder = self.game_folders().get(parts[n]) if len(parts) > n + 1 else None
            if folder is None:
                return None
            path = folder.joinpath(*parts[n + 1 :])
        else:
            path = self.root.joinpath(*parts)
        return path if path.is_file() else None

    def asset(self, rel: str) -> Asset | None:
        path = self._path(rel)
        if path is None:
            self.assets.pop(rel, None)
            return None
        st = path.stat()
        stamp = (st.st_size, st.st_mtime_ns)
        known = self.assets.get(rel)
        if known is not None and known.stamp == stamp:
            return known
        made = _asset(path.read_bytes(), path.suffix.lower(), stamp)
        self.assets[rel] = made
        return made

    def modules(self) -> list[str]:
        """Every JavaScript module of the client and of the games' web folders, as URL paths
        relative to the root."""
        found = _modules(self.root, ())
        for game_id, folder in sorted(self.game_folders().items()):
            found += _modules(folder, (*GAMES_URL, game_id))
        return found

    def index(self) -> Asset | None:
        """index.html with every local URL versioned and the modules' import map."""
        source = self.asset("index.html")
        if source is None:
            return None
        versions = {rel: a.version for rel in self.modules() if (a := self.asset(rel)) is not None}
        key = (source.version, tuple(sorted(versions.items())))
        if self.index_page is not None and self.index_key == key:
            return self.index_page
        html = source.body.decode("utf-8")

        def versioned(m: re.Match[str]) -> str:
            a = self.asset(m.group(2))
            url = f"{m.group(2)}?{VERSION_PARAM}={a.version}" if a is not None else m.group(2)
            return m.group(1) + url + m.group(3)

        html = _LOCAL_URL.sub(versioned, html)
        imports = {f"./{rel}": f"./{rel}?{VERSION_PARAM}={v}" for rel, v in versions.items()}
        mapping = json.dumps({"imports": imports}, indent=1).replace("</", "<\\/")
        inline = f"\n{mapping}\n"
        tag = f'<script type="importmap">{inline}</script>\n  '
        # Every module is fetched at once, not import after import: the lobby draws every game's
        # tile, so it needs them all, and the renderers' imports wait for the game list otherwise.
        tag += "".join(f'<link rel="modulepreload" href="{url}">\n  ' for url in imports.values())
        # The import map must come before the first module script.
        at = html.find("<script")
        html = html[:at] + tag + html[at:] if at >= 0 else html.replace("</head>", tag + "</head>", 1)
        self.index_key = key
        self.csp = client_csp([base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()])
        self.index_page = _asset(html.encode("utf-8"), ".html", source.stamp)
        return self.index_page

    # -- ASGI ------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        method = scope["method"]
        if method not in ("GET", "HEAD"):
            refuse = PlainTextResponse("Method Not Allowed", 405, headers={"Allow": "GET, HEAD"})
            await refuse(scope, receive, send)
            return
        rel = _route_path(scope).lstrip("/")
        is_index = rel in ("", "index.html")
        asset = self.index() if is_index else self.asset(rel)
        if asset is None:
            await PlainTextResponse("Not Found", 404)(scope, receive, send)
            return
        request_headers = Headers(scope=scope)
        asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(VERSION_PARAM, [])
        current = not is_index and asked == [asset.version]
        gzipped = asset.gzipped is not None and _accepts_gzip(request_headers)
        headers = {
            "Cache-Control": YEAR if current else REVALIDATE,
            "ETag": asset.etag(gzipped),
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": self.csp,
        }
        if asset.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if headers["ETag"] in [t.strip() for t in request_headers.get("if-none-match", "").split(",")]:
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return
        body = asset.gzipped if gzipped and asset.gzipped is not None else asset.body
        if gzipped:
            headers["Content-Encoding"] = "gzip"
        response = Response(body if method == "GET" else b"", media_type=asset.media_type, headers=headers)
        if method == "HEAD":
            response.headers["Content-Length"] = str(len(body))
        await response(scope, receive, send)
