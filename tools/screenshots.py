"""Screenshots of the built documentation site, taken in headless Chromium.

Usage: ``python tools/screenshots.py SITE OUT [--browser PATH]``

Serves the built site ``SITE`` on 127.0.0.1 (a free port), opens the pages a
newcomer reads first in Debian's Chromium through Playwright, and writes a
full-page PNG of each, in the light and the dark palette, to ``OUT``. Then
every page of the site is checked as a reader would meet it, at desktop and
at phone width, and the script exits with status 1 naming every problem:

- the page loads (HTTP 200) and has a title heading;
- the browser reports no script error;
- nothing is wider than the window (wide code and tables must scroll inside
  their own box, not push the page);
- no inline code in running text runs past the text column (over the table
  of contents);
- at desktop width (1280 px), every line of every code block fits its block:
  no code block scrolls sideways (code written for 100 columns reads whole);
- at desktop width, every image loads, and is shown at least 600 px wide, or
  at its own full size, or links to its file so a click opens it full size.

``nox -s screenshots`` builds the site and runs this script.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, ViewportSize, sync_playwright

__all__ = ["PAGES", "main"]

PAGES = {
    "home": "",
    "getting-started": "guides/getting-started/",
    "vector-guide": "guides/vector/",
    "training-guide": "guides/training/",
    "rendering-guide": "guides/rendering/",
    "api-vector": "api/vector/",
    "api-finance": "api/finance/",
}
"""Screenshot name -> page path in the site."""

DESKTOP = ViewportSize(width=1280, height=900)
PHONE = ViewportSize(width=390, height=844)
MIN_IMAGE_WIDTH = 600
"""Images narrower than this on the desktop (and smaller than their file) link to their file."""

# What Chromium needs in this sandbox: no setuid sandbox as root, no GPU, and no
# calls home (the network is closed, and each refused call slows the start).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A page closed while a file was still on its way (the search index,
        # an image): the browser hung up, the site is not at fault.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on a free port of 127.0.0.1; yield its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than its window (0 when it fits)."""
    width: int = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return max(0, width)


# Inline code outside code blocks and tables (which scroll in their own box)
# whose right edge passes the text column's. A few pixels are allowed: inline
# code that wraps carries its side padding onto every line.
_OVERRUNS = """() => {
  const column = document.querySelector(".md-content__inner");
  if (!column) return [];
  const right = column.getBoundingClientRect().right + 4;
  return [...column.querySelectorAll("code")]
    .filter((code) => !code.closest("pre, table, .md-typeset__scrollwrap"))
    .filter((code) => code.getBoundingClientRect().right > right)
    .map((code) => code.textContent.slice(0, 60));
}"""


def overruns(page: Page) -> list[str]:
    """The inline code of ``page`` that runs past the text column (its first 60 characters)."""
    found: list[str] = page.evaluate(_OVERRUNS)
    return found


# Code blocks with a line wider than the block (it scrolls sideways): how many
# pixels too wide, and the block's longest line.
_WIDE_CODE = """() => [...document.querySelectorAll("article pre > code")]
  .filter((code) => code.scrollWidth > code.clientWidth)
  .map((code) => ({
    over: code.scrollWidth - code.clientWidth,
    line: code.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a), ""),
  }))"""


def wide_code(page: Page) -> list[tuple[int, str]]:
    """The code blocks of ``page`` that scroll sideways: (pixels too wide, longest line)."""
    found: list[dict[str, Any]] = page.evaluate(_WIDE_CODE)
    return [(int(block["over"]), str(block["line"])) for block in found]


# Images that did not load, or that are shown smaller than both MIN_IMAGE_WIDTH
# and their file without a link to that file (a click would not enlarge them).
_SMALL_IMAGES = """(minWidth) => [...document.querySelectorAll("article img")]
  .map((img) => ({
    src: img.getAttribute("src"),
    shown: Math.round(img.getBoundingClientRect().width),
    natural: img.naturalWidth,
    linked: img.closest("a[href]")?.href === img.src,
  }))
  .filter((img) => img.natural === 0
    || (img.shown < Math.min(minWidth, img.natural) && !img.linked))"""


def small_images(page: Page) -> list[str]:
    """What is wrong with the images of ``page``: not loaded, or small and not linked."""
    found: list[dict[str, Any]] = page.evaluate(_SMALL_IMAGES, MIN_IMAGE_WIDTH)
    return [
        f"image {image['src']} did not load"
        if image["natural"] == 0
        else f"image {image['src']} is shown {image['shown']}px wide (its file: "
        f"{image['natural']}px) and does not link to its file"
        for image in found
    ]


def check_page(page: Page, url: str, name: str, *, desktop: bool = True) -> list[str]:
    """Open ``url`` in ``page``; return what a reader would find wrong with it.

    ``desktop`` adds the checks of the desktop layout: code lines fit their
    blocks, images are large enough or open full size.
    """
    problems: list[str] = []
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = page.goto(url, wait_until="load")
    if response is None or response.status != 200:
        status = "no response" if response is None else f"HTTP {response.status}"
        return [f"{name}: {url} gave {status}"]
    if page.locator("article h1").count() == 0:
        problems.append(f"{name}: no title heading")
    problems += [f"{name}: script error: {error}" for error in errors]
    wider = overflow(page)
    if wider:
        width = page.viewport_size["width"] if page.viewport_size else "?"
        problems.append(f"{name}: {wider}px wider than a {width}px window")
    problems += [f"{name}: inline code runs past the text: {code!r}" for code in overruns(page)]
    if desktop:
        problems += [
            f"{name}: a code block scrolls, {over}px too narrow for {line[:60]!r}"
            for over, line in wide_code(page)
        ]
        problems += [f"{name}: {problem}" for problem in small_images(page)]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs build -d SITE)")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--browser", default="/usr/bin/chromium", help="Chromium to drive")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site (no index.html); run mkdocs build first")
    args.out.mkdir(parents=True, exist_ok=True)

    problems: list[str] = []
    with serve(args.site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.browser, args=CHROMIUM_ARGS)
        try:
            for scheme in ("light", "dark"):
                context = browser.new_context(viewport=DESKTOP, color_scheme=scheme)
                for name, path in PAGES.items():
                    page = context.new_page()
                    problems += check_page(page, base + path, f"{name} ({scheme})")
                    target = args.out / f"{name}-{scheme}.png"
                    page.screenshot(path=target, full_page=True)
                    print(f"wrote {target}")
                    page.close()
                context.close()
            every_page = sorted(
                str(index.parent.relative_to(args.site)) + "/"
                for index in args.site.glob("**/index.html")
                if index.parent != args.site and not index.parent.name.startswith(".")
            )
            for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                context = browser.new_context(viewport=viewport, is_mobile=size == "phone")
                for path in ["", *every_page]:
                    page = context.new_page()
                    problems += check_page(
                        page, base + path, f"/{path} ({size})", desktop=size == "desktop"
                    )
                    page.close()
                context.close()
        finally:
            browser.close()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
