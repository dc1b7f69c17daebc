"""Printing a sheet to PDF through Debian's Chromium (Playwright's ``page.pdf``), never a
browser that Playwright downloads."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class PdfUnavailable(RuntimeError):
    """No Chromium at :data:`CHROMIUM`, or no Playwright to drive it."""


def print_pdf(html: str, out: Path, chromium: Path | None = None) -> None:
    """Write ``html`` (a self-contained page: nothing to fetch) to ``out`` as an A4 PDF."""
    chromium = CHROMIUM if chromium is None else chromium
    if not chromium.exists():
        raise PdfUnavailable(
            f"{chromium} is missing: --pdf prints through Debian's Chromium (apt-get install chromium)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise PdfUnavailable("--pdf needs the playwright package (pip install playwright)") from exc
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_content(html, wait_until="load")
            page.emulate_media(media="print")
            page.pdf(path=str(out), format="A4", print_background=True, prefer_css_page_size=True)
        finally:
            browser.close()
