"""The bundle's pages: plain, self-contained HTML (inline CSS, no scripts, no fonts or
images fetched), readable offline and printable."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #176b2c; font-weight: bold; }
.fail { color: #a4161a; font-weight: bold; }
.weak { color: #9a6700; font-weight: bold; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
"""


def page(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>\n"
        f"<body><h1>{escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def verdict(passed: bool | None) -> str:
    if passed is None:
        return '<span class="info">evidence</span>'
    return '<span class="pass">PASS</span>' if passed else '<span class="fail">FAIL</span>'


def table(columns: Sequence[str], rows: Sequence[Sequence[str]], raw: bool = False) -> str:
    """A table; cells are escaped unless ``raw`` (then they are HTML the caller built)."""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{c if raw else escape(c)}</td>" for c in row) + "</tr>\n" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>"
