"""The portal in a real browser: headless Chromium against the real daemon (its
fixtures: tests/portal/conftest.py), one browser session for the module.

Every page is checked against what the CLI says, for console errors and CSP violations,
at desktop and phone width, light and dark. Screenshots go to SEMLITH_PORTAL_SHOTS
(default: a temp folder): each page as its test leaves it (`files.png`; `search.png`: a
hit opened; `graph.png`: a neighbourhood), and each page at desktop and phone width,
light and dark (`files-phone-dark.png`). The Search and Graph pages' own tests:
test_portal_browser_search.py, test_portal_browser_graph.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import emulate, problems
from tests.daemon_util import Daemon, semlith
from tests.portal.browsing import (
    CANARY,
    PAGES,
    TOKEN,
    ask_graph,
    broken_headers,
    cli_json,
    css,
    csss,
    pick,
    prose_text,
    search,
    shown,
    signed_in,
    snap,
    wait,
)

pytestmark = pytest.mark.slow


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

def test_stores_page_shows_the_numbers_stats_shows(chrome: Any, daemon: tuple[Daemon, Path],
                                                    shots: Path) -> None:
    served, root = daemon
    signed_in(chrome, served, "stores")
    stats = cli_json(served, "stats")
    field = wait(chrome, lambda d: {  # read again when a refresh (every 2 s) replaced it
        e.get_attribute("data-field"): e.text
        for e in csss(d, f'[data-store="{stats["name"]}"] dd')})
    assert field["chunks"] == f"{stats['chunks']:,}"
    assert field["files"] == f"{stats['files']:,}"
    assert field["pending_chunks"] == "0"
    assert field["root"] == str(root) and field["model"] == stats["model"]
    assert field["backend"] == "local" and field["watch"] == "not watched"
    snap(chrome, shots, "stores")
    assert problems(chrome) == []


def test_files_page_shows_the_tree_the_skips_and_what_was_withheld(
        chrome: Any, daemon: tuple[Daemon, Path], shots: Path) -> None:
    served, _ = daemon
    signed_in(chrome, served, "files")
    pick(chrome, "#files-store", "proj")
    files = cli_json(served, "files")
    wait(chrome, lambda d: css(d, "#page h2").text == f"{len(files)} files indexed")
    summaries = [s.text for s in csss(chrome, ".tree summary")]
    assert any(s.startswith("net/") and "python 5" in s for s in summaries), summaries
    withheld = css(chrome, '[data-field="withheld"]').text
    assert withheld.startswith("1 secret file withheld; 1 credential-shaped string "
                               "redacted in 1 file.")
    # the paths the paragraph promises: the file kept out, and the file redacted
    assert css(chrome, '[data-field="secret-files"]').text.startswith("deploy/id_rsa (")
    assert [li.text for li in csss(chrome, '[data-field="redacted-files"] li')] == [
        "net/config.py (1 string redacted)"]
    assert [f["path"] for f in files if f["redacted"]] == ["net/config.py"]  # as the CLI says
    assert CANARY not in chrome.page_source and TOKEN not in chrome.page_source
    snap(chrome, shots, "files")
    assert problems(chrome) == []


def test_runs_page_starts_a_run_shows_it_move_and_stops_it(
        chrome: Any, daemon: tuple[Daemon, Path], shots: Path) -> None:
    served, root = daemon
    (root / "bulk").mkdir()
    for i in range(600):  # 12 s of embedding: a stop arrives with work left
        (root / "bulk" / f"job{i}.py").write_text(f"def job_{i}(queue):\n    return {i}\n")
    signed_in(chrome, served, "runs")
    pick(chrome, "#run-store", "proj")
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
    # who started it, in words: this page's runs and the CLI's are the person's
    assert css(row, 'td[data-label="Started by"]').text == "you"
    assert chrome.execute_script("return ['index', 'agent', 'watch'].map(startedBy)") == [
        "you", "an agent", "the watcher"]
    snap(chrome, shots, "runs")
    assert broken_headers(chrome, 700) == (6, [])  # "Store", "Action", "stopped" broke
    shown(chrome, "stores")  # the store's card says so too
    last_run = wait(chrome, lambda d: css(d, '[data-store="proj"] [data-field="last_run"]').text)
    assert last_run.startswith("stopped") and "started by you:" in last_run, last_run
    assert problems(chrome) == []


def test_forgetting_a_file_takes_effect(chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "runs")
    pick(chrome, "#forget-store", "proj")
    css(chrome, "#forget-path").send_keys("storage/cache.ts")
    css(chrome, "#forget-path").submit()
    wait(chrome, lambda d: "Forgot 1 file(s)" in css(d, "#page").text)
    assert "storage/cache.ts" not in [f["path"] for f in cli_json(served, "files")]
    assert problems(chrome) == []


def test_agents_page_shows_the_endpoint_never_the_key(chrome: Any, daemon: tuple[Daemon, Path],
                                                       shots: Path) -> None:
    served, _ = daemon
    signed_in(chrome, served, "agents")
    assert css(chrome, '[data-field="endpoint"]').text == f"{served.url}/mcp"
    assert "agent.key" in css(chrome, '[data-field="key_file"]').text
    # the library's Markdown backticks are code on the page, never raw
    assert "semlith stop" in [c.text for c in csss(chrome, "#page p code")]
    assert "semlith key show" in [c.text for c in csss(chrome, "#page dd code")]
    assert "`" not in prose_text(chrome)
    snap(chrome, shots, "agents")
    assert len(csss(chrome, "tr[data-client]")) >= 5
    assert served.key not in chrome.page_source and served.control not in chrome.page_source
    shown(chrome, "graph")  # the code graph (#22) answers: callers and callees of a name
    css(chrome, "#g-name").send_keys("call_with_retry")
    css(chrome, "#page .row button").click()
    answer = wait(chrome, lambda d: csss(d, "#graph h2") or csss(d, "#graph .error"))[0]
    assert answer.text.startswith("call_with_retry (net/retry.py:"), answer.text
    assert problems(chrome) == []


def test_a_table_header_never_breaks_inside_a_word(chrome: Any,
                                                   daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "agents")
    count, broken = broken_headers(chrome, 660)
    assert count == 3 and broken == [], broken  # "Configured" broke at 660 px
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
    order = [f"nav-{p}" for p in PAGES] + ["q", "s-store", "f-path", "f-ext", "f-lang",
                                          "f-mode", "Search"]
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
                elif page == "search":  # a hit, its words marked
                    search(chrome, "retry backoff delay", store="proj")
                elif page == "graph":  # the picture fits a phone too
                    ask_graph(chrome, "Callers and callees", "fetch_page")
                over = chrome.execute_script(
                    "return document.documentElement.scrollWidth - window.innerWidth")
                assert over <= 0, (page, width, over)
                background = chrome.execute_script(
                    "return getComputedStyle(document.body).backgroundColor")
                assert (background == "rgb(13, 17, 23)") == dark, (page, dark, background)
                assert "`" not in prose_text(chrome), page  # the library's Markdown as code
                chrome.save_screenshot(str(
                    shots / f"{page}-{'phone' if width == 390 else 'desktop'}"
                    f"{'-dark' if dark else ''}.png"))
    finally:
        emulate(chrome)
    assert {f"{page}-{width}{dark}.png" for page in PAGES for width in ("desktop", "phone")
            for dark in ("", "-dark")} <= {p.name for p in shots.glob("*.png")}
    assert problems(chrome) == []
