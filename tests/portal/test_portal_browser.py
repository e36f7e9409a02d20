"""The portal in a real browser: headless Chromium against the real daemon.

One daemon (`semlith serve` with the deterministic test model, tests/hash_cli.py) on an
ephemeral loopback port, serving a copy of the sample project plus a withheld key and a
redacted token; one browser session for the module. Every page is checked against
what the CLI says, for console errors and CSP violations, at desktop and phone width,
light and dark. Screenshots go to SEMLITH_PORTAL_SHOTS (default: a temp folder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from semlith.base.home import portal_key
from semlith.server.portal.session import link_token
from tests.browser_util import browser_paths, emulate, problems, start_chromium
from tests.daemon_util import SAMPLE, Daemon, env_for, semlith, start_daemon

pytestmark = pytest.mark.slow
HASH_CLI = ("-m", "tests.hash_cli")
DELAY = "0.02"  # seconds the daemon's test model spends per chunk: a run can be watched
CANARY = "PORTALCANARY7f3e"  # inside the withheld key: must never reach a page
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # redacted in config.py
PAGES = ("stores", "files", "search", "runs", "agents", "graph")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path]]:
    browser_paths()  # skip (or fail in CI) before starting anything
    tmp = tmp_path_factory.mktemp("portal-browser")
    root = tmp / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (root / "deploy").mkdir()
    (root / "deploy" / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{CANARY}\n-----END OPENSSH PRIVATE KEY-----\n")
    (root / "net" / "config.py").write_text(f'GITHUB_TOKEN = "{TOKEN}"\nRETRIES = 3\n')
    home = tmp / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, *HASH_CLI, "0", "index", str(root), "--quiet"],
                          env=env_for(home), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    served = start_daemon(home, "--no-watch", command=(*HASH_CLI, DELAY))
    yield served, root
    assert served.stop() == 0


@pytest.fixture(scope="module")
def chrome(daemon: tuple[Daemon, Path], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Any]:
    browser = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("SEMLITH_PORTAL_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


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


# -- the link and the gate --------------------------------------------------------------

def test_without_a_token_the_page_only_explains(chrome: Any,
                                                daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    chrome.get(f"{served.url}/")
    text = css(chrome, "body").text
    assert "semlith portal --open" in text
    assert not csss(chrome, "nav") and not csss(chrome, "#page")
    assert "proj" not in chrome.page_source and CANARY not in chrome.page_source
    assert problems(chrome) == []


def test_the_link_semlith_portal_prints_opens_the_portal_once(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    done = semlith(served.home, "portal")
    assert done.returncode == 0, done.stderr
    link = done.stdout.strip()
    chrome.get(link)
    wait(chrome, lambda d: d.execute_script("return document.body.dataset.page === 'stores'"))
    assert "token=" not in chrome.current_url  # the spent link leaves the address bar
    assert [a.text for a in csss(chrome, "nav a")] == [
        "Stores", "Files", "Search", "Runs", "Agents", "Graph"]
    assert problems(chrome) == []
    chrome.execute_script("sessionStorage.clear()")
    chrome.get("about:blank")
    chrome.get(link)  # again: the link is spent
    error = wait(chrome, lambda d: css(d, "#gate-error").text)
    assert "used already" in error and not csss(chrome, "nav")
    problems(chrome)  # the refused exchange logs its 401; nothing else to see here


# -- the pages ----------------------------------------------------------------------------

def test_stores_page_shows_the_numbers_stats_shows(chrome: Any,
                                                    daemon: tuple[Daemon, Path]) -> None:
    served, root = daemon
    signed_in(chrome, served, "stores")
    stats = cli_json(served, "stats")
    card = css(chrome, f'[data-store="{stats["name"]}"]')
    field = {e.get_attribute("data-field"): e.text for e in card.find_elements(
        "css selector", "dd")}
    assert field["chunks"] == f"{stats['chunks']:,}"
    assert field["files"] == f"{stats['files']:,}"
    assert field["pending_chunks"] == "0"
    assert field["root"] == str(root) and field["model"] == stats["model"]
    assert field["backend"] == "local" and field["watch"] == "not watched"
    assert problems(chrome) == []


def test_files_page_shows_the_tree_the_skips_and_what_was_withheld(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "files")
    files = cli_json(served, "files")
    assert css(chrome, "#page h2").text == f"{len(files)} files indexed"
    summaries = [s.text for s in csss(chrome, ".tree summary")]
    assert any(s.startswith("net/") and "python 3" in s for s in summaries), summaries
    withheld = css(chrome, '[data-field="withheld"]').text
    assert withheld.startswith("1 secret files withheld; 1 credential-shaped strings")
    assert "deploy/id_rsa" in css(chrome, "#page").text
    assert CANARY not in chrome.page_source and TOKEN not in chrome.page_source
    assert problems(chrome) == []


def test_a_search_with_a_filter_returns_what_semlith_search_returns_and_opens_a_hit(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "search")
    css(chrome, "#q").send_keys("retry backoff delay")
    css(chrome, "#f-ext").send_keys("py")
    css(chrome, "form[role=search] button[type=submit]").click()
    hits = wait(chrome, lambda d: csss(d, ".hits > li"))
    expected = cli_json(served, "search", "retry backoff delay", "--ext", "py", "-k", "20")
    assert [h.get_attribute("data-path") for h in hits] == [h["path"] for h in expected]
    assert all(h.get_attribute("data-path").endswith(".py") for h in hits)
    first = expected[0]
    hits[0].find_element("css selector", "button").click()
    passage = wait(chrome, lambda d: csss(d, "#passage"))[0]
    assert passage.find_element("css selector", "h2").text == (
        f"{first['store']}:{first['path']}:{first['start_line']}-{first['end_line']}")
    lines = [li.text.strip() for li in passage.find_elements("css selector", "li")]
    read = cli_json(served, "read", f"{first['path']}:{first['start_line']}-"
                    f"{first['end_line']}")
    assert lines == [line.strip() for line in read["lines"]]  # .text trims each line
    assert chrome.switch_to.active_element == passage  # focus moves to what was opened
    assert problems(chrome) == []


def test_the_exact_mode_shows_the_lines_semlith_search_exact_finds(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "search")
    css(chrome, "#q").send_keys("retry")
    css(chrome, "#f-ext").send_keys("py")
    chrome.execute_script("document.getElementById('f-mode').value = 'exact'")
    css(chrome, "form[role=search] button[type=submit]").click()
    files = wait(chrome, lambda d: csss(d, ".hits > li"))
    expected = cli_json(served, "search", "--exact", "retry", "--ext", "py", "-C", "2",
                        "--limit", "200")
    assert [f.get_attribute("data-path") for f in files] == [
        name.split(":", 1)[1] for name in expected["files"]]
    shown_lines = [b.text for f in files for b in f.find_elements("css selector", "button")]
    assert shown_lines == [f"{m['line']}:" for m in expected["matches"]]
    assert problems(chrome) == []


def test_runs_page_starts_a_run_shows_it_move_and_stops_it(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, root = daemon
    (root / "bulk").mkdir()
    for i in range(600):  # 12 s of embedding: a stop arrives with work left
        (root / "bulk" / f"job{i}.py").write_text(f"def job_{i}(queue):\n    return {i}\n")
    signed_in(chrome, served, "runs")
    css(chrome, "#run-start").click()
    bar = wait(chrome, lambda d: csss(d, 'tr[data-state="running"] progress'))[0]
    first = float(bar.get_attribute("value"))
    wait(chrome, lambda d: [float(b.get_attribute("value")) for b in csss(
        d, 'tr[data-state="running"] progress')] > [first])  # it moves, and still runs
    assert "left" in css(chrome, 'tr[data-state="running"]').text or \
        "estimating" in css(chrome, 'tr[data-state="running"]').text
    wait(chrome, lambda d: css(d, 'tr[data-state="running"] button').click() or True)
    row = wait(chrome, lambda d: csss(d, 'tr[data-state="stopped"]'))[0]
    assert "files still to do" in row.text
    shown(chrome, "stores")  # the store's card says so too
    card = css(chrome, '[data-store="proj"]')
    assert css(card, '[data-field="last_run"]').text.startswith("stopped")
    assert problems(chrome) == []


def test_forgetting_a_file_takes_effect(chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "runs")
    css(chrome, "#forget-path").send_keys("storage/cache.ts")
    css(chrome, "#forget-path").submit()
    wait(chrome, lambda d: "Forgot 1 file(s)" in css(d, "#page").text)
    assert "storage/cache.ts" not in [f["path"] for f in cli_json(served, "files")]
    assert problems(chrome) == []


def test_agents_page_shows_the_endpoint_never_the_key(chrome: Any,
                                                       daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "agents")
    assert css(chrome, '[data-field="endpoint"]').text == f"{served.url}/mcp"
    assert "agent.key" in css(chrome, '[data-field="key_file"]').text
    assert "semlith stop" in css(chrome, "#page").text
    assert len(csss(chrome, "tr[data-client]")) >= 5
    assert served.key not in chrome.page_source and served.control not in chrome.page_source
    shown(chrome, "graph")  # the code graph (#22) answers: callers and callees of a name
    css(chrome, "#g-name").send_keys("call_with_retry")
    css(chrome, "#page .row button").click()
    answer = wait(chrome, lambda d: csss(d, "#graph h2") or csss(d, "#graph .error"))[0]
    assert answer.text.startswith("call_with_retry (net/retry.py:"), answer.text
    assert problems(chrome) == []


# -- for everyone, everywhere -------------------------------------------------------------

def test_every_control_is_labelled_and_reachable_by_keyboard(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    served, _ = daemon
    signed_in(chrome, served, "stores")
    for page in PAGES:
        shown(chrome, page)
        unnamed = chrome.execute_script("""
            const named = el => (el.labels && el.labels.length) || el.getAttribute('aria-label')
                || el.textContent.trim();
            return [...document.querySelectorAll('input, select, button, a[href]')]
                .filter(el => !named(el)).map(el => el.outerHTML.slice(0, 80));""")
        assert unnamed == [], (page, unnamed)
    shown(chrome, "search")  # the page with the most controls
    controls = chrome.execute_script(
        "return document.querySelectorAll('nav a, #page input, #page select, #page button')"
        ".length")
    reached = []
    for _ in range(2 * controls + 2):  # Tab goes round every control, in reading order
        ActionChains(chrome).send_keys(Keys.TAB).perform()
        reached.append(chrome.execute_script(
            "const e = document.activeElement;"
            "return e === document.body ? '' : e.id || e.textContent.trim()"))
    order = [f"nav-{p}" for p in PAGES] + ["q", "f-path", "f-ext", "f-lang", "f-mode",
                                          "Search"]
    start = reached.index("nav-stores")
    assert [r for r in reached[start:] if r][:controls] == order, reached
    css(chrome, "#nav-agents").send_keys(Keys.ENTER)  # a link follows the Enter key
    wait(chrome, lambda d: d.execute_script("return document.body.dataset.page === 'agents'"))
    assert problems(chrome) == []


def test_phone_width_and_dark_mode(chrome: Any, daemon: tuple[Daemon, Path],
                                   shots: Path) -> None:
    served, _ = daemon
    signed_in(chrome, served, "stores")
    try:
        for width, dark in ((1280, False), (390, False), (390, True), (1280, True)):
            emulate(chrome, width=None if width == 1280 else width, dark=dark)
            for page in PAGES:
                shown(chrome, page)
                if page == "files":
                    for summary in csss(chrome, ".tree summary")[:2]:
                        summary.click()
                over = chrome.execute_script(
                    "return document.documentElement.scrollWidth - window.innerWidth")
                assert over <= 0, (page, width, over)
                background = chrome.execute_script(
                    "return getComputedStyle(document.body).backgroundColor")
                assert (background == "rgb(13, 17, 23)") == dark, (page, dark, background)
                chrome.save_screenshot(str(
                    shots / f"{page}-{'phone' if width == 390 else 'desktop'}"
                    f"{'-dark' if dark else ''}.png"))
    finally:
        emulate(chrome)
    assert len(list(shots.glob("*.png"))) == 4 * len(PAGES)
    assert problems(chrome) == []
