"""Driving the portal in the browser tests: waiting, finding, asking its pages, and
reading what they drew."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from semlith.base.home import portal_key
from semlith.server.portal.session import link_token
from tests.browser_util import emulate
from tests.daemon_util import Daemon, semlith

CANARY = "PORTALCANARY7f3e"  # inside the withheld key: must never reach a page
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # redacted in config.py
PAGES = ("stores", "files", "search", "runs", "agents", "graph")

def wait(chrome: Any, until: Callable[[Any], Any], timeout: float = 15) -> Any:
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.support.ui import WebDriverWait

    # Live pages redraw (Runs every second): an element found may be gone when read.
    return WebDriverWait(chrome, timeout, poll_frequency=0.05, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(until)


def css(chrome: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By

    return chrome.find_element(By.CSS_SELECTOR, selector)


def csss(chrome: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(chrome.find_elements(By.CSS_SELECTOR, selector))


def signed_in(chrome: Any, daemon: Daemon, page: str = "stores") -> None:
    """Open `page` with a session: a fresh link when the tab has none."""
    if not chrome.execute_script("return !!document.getElementById('top')"):
        chrome.get(f"{daemon.url}/#token={link_token(portal_key(daemon.home))}")
        wait(chrome, lambda d: d.execute_script("return !!document.getElementById('top')"))
    shown(chrome, page)
    assert not csss(chrome, "#page .error")


def shown(chrome: Any, page: str) -> None:
    """`page` is shown, rendered since it was asked for."""
    chrome.execute_script(f"""delete document.body.dataset.rendered;
        if (location.hash === '#/{page}') route(); else location.hash = '#/{page}';""")
    wait(chrome, lambda d: d.execute_script(
        f"return document.body.dataset.page === '{page}' && !!document.body.dataset.rendered"))


def cli_json(daemon: Daemon, *args: str) -> Any:
    done = semlith(daemon.home, *args, "--store", "proj", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def snap(chrome: Any, shots: Path, name: str) -> None:
    """The whole page, below the fold too (up to 4,000 px), as `name`.png."""
    size = chrome.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = chrome.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "clip": {
            "x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 4000),
            "scale": 1}})
    (shots / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))


def pick(chrome: Any, select: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(css(chrome, select)).select_by_value(value)


def search(chrome: Any, query: str, *, store: str = "*", ext: str = "",
           mode: str = "meaning") -> list[Any]:
    """Ask the Search page; the result's items (hits, or files of matching lines)."""
    css(chrome, "#q").clear()
    css(chrome, "#q").send_keys(query)
    pick(chrome, "#s-store", store)
    css(chrome, "#f-ext").clear()
    css(chrome, "#f-ext").send_keys(ext)
    pick(chrome, "#f-mode", mode)
    css(chrome, "form[role=search] button[type=submit]").click()  # drops data-searched
    wait(chrome, lambda d: d.execute_script("return !!document.body.dataset.searched"))
    return csss(chrome, ".hits > li")


def prose_text(chrome: Any) -> str:
    """The page's own words: its text without the files' (excerpts and passages)."""
    return str(chrome.execute_script("""
        const page = document.getElementById('page').cloneNode(true);
        page.querySelectorAll('pre, .passage').forEach(e => e.remove());
        return page.textContent;"""))


def in_view(chrome: Any, element: Any) -> bool:
    return bool(chrome.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.top >= 0 && r.top < window.innerHeight && window.scrollY > 0;", element))


def ask_graph(chrome: Any, button: str, name: str, target: str = "",
              all_edges: bool = False) -> None:
    """Ask the Graph page (`button`: its label) and wait for the answer drawn."""
    for field, value in (("#g-name", name), ("#g-target", target)):
        css(chrome, field).clear()
        css(chrome, field).send_keys(value)
    if css(chrome, "#g-all").is_selected() != all_edges:
        css(chrome, "#g-all").click()
    next(b for b in csss(chrome, "#page .row button") if b.text == button).click()
    wait(chrome, lambda d: d.execute_script("return !!document.body.dataset.graphed"))


def boxes(chrome: Any, selector: str) -> list[dict[str, Any]]:
    """The nodes `selector` finds: name, side, status, left x, and their titles."""
    return list(chrome.execute_script("""
        return [...document.querySelectorAll(arguments[0])].map(g => ({
            name: g.dataset.name, side: g.dataset.side, status: g.dataset.status,
            x: g.getBoundingClientRect().left, title: g.querySelector('title').textContent,
            role: g.getAttribute('role'), tabindex: g.getAttribute('tabindex')}));""",
        selector))


def dashes(chrome: Any, selector: str) -> dict[str, str]:
    """Each edge status's line style (its computed stroke-dasharray)."""
    return dict(chrome.execute_script("""
        return [...document.querySelectorAll(arguments[0])].map(e =>
            [e.dataset.status, getComputedStyle(e).strokeDasharray]);""", selector))


def broken_headers(chrome: Any, width: int) -> tuple[int, list[str]]:
    """At `width` px (a tablet's: tables not stacked, squeezed), how many table headers
    the page shows, and the words of headers and cells broken across two lines (a path,
    `.mono`, may break anywhere)."""
    emulate(chrome, width=width)
    try:
        found = chrome.execute_script("""
            const broken = [];
            for (const cell of document.querySelectorAll('#page th, #page td')) {
              const text = cell.firstChild;
              if (!text || text.nodeType !== Node.TEXT_NODE) continue;
              for (const m of text.data.matchAll(/\\S+/g)) {
                const word = document.createRange();
                word.setStart(text, m.index);
                word.setEnd(text, m.index + m[0].length);
                const lines = new Set([...word.getClientRects()].map(r => Math.round(r.top)));
                if (lines.size > 1) broken.push(m[0]);
              }
            }
            return [document.querySelectorAll('#page th').length, broken];""")
    finally:
        emulate(chrome)
    return int(found[0]), list(found[1])
