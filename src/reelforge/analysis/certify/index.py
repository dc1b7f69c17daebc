"""The bundle's index page: every section, its verdict, its summary lines and its files."""

from __future__ import annotations

from html import escape
from pathlib import Path

import reelforge
from reelforge.engine.game import Game

from .digests import MANIFEST
from .html import page, verdict
from .model import Section

INDEX = "index.html"


def overall(sections: list[Section]) -> bool:
    return all(s.passed is not False for s in sections)


def write_index(game: Game, out_dir: Path, sections: list[Section]) -> Path:
    parts = [
        f"<p>{escape(game.name)} ({escape(game.id)} {escape(game.version)}), reelforge "
        f"{escape(reelforge.__version__)}. Overall: {verdict(overall(sections))}. "
        f'Digests of every file: <a href="{MANIFEST}">{MANIFEST}</a> '
        f"(check with <code>reelforge certify --verify {escape(out_dir.name)}</code>).</p>"
    ]
    for s in sections:
        links = "".join(f'<li><a href="{escape(f)}">{escape(f)}</a></li>' for f in s.files)
        lines = "".join(f"<li>{escape(line)}</li>" for line in s.summary)
        parts.append(
            f'<section id="{escape(s.key)}"><h2>{escape(s.title)} {verdict(s.passed)}</h2>'
            f"<ul>{lines}</ul><p>Files:</p><ul>{links}</ul></section>"
        )
    path = out_dir / INDEX
    path.write_text(page(f"Certification evidence: {game.name}", "\n".join(parts)), encoding="utf-8")
    return path
