"""The Search page in a real browser (tests/portal/conftest.py): hits as `semlith search`
finds them, the question's words marked, the definition each hit is in named, a hit
opened under itself and scrolled to, the store picker, and the exact mode's lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import problems
from tests.daemon_util import Daemon
from tests.portal.browsing import (
    cli_json,
    css,
    csss,
    in_view,
    search,
    signed_in,
    wait,
)

pytestmark = pytest.mark.slow


def test_a_search_with_a_filter_returns_what_semlith_search_returns_and_opens_a_hit(
        chrome: Any, daemon: tuple[Daemon, Path], shots: Path) -> None:
    served, _ = daemon
    signed_in(chrome, served, "search")
    hits = search(chrome, "retry backoff delay", store="proj", ext="py")
    expected = cli_json(served, "search", "retry backoff delay", "--ext", "py", "-k", "20")
    assert [h.get_attribute("data-path") for h in hits] == [h["path"] for h in expected]
    assert {h.get_attribute("data-store") for h in hits} == {"proj"}
    # the question's words marked where they occur exactly, and nothing else
    marks = [m.text.lower() for m in csss(chrome, ".hits mark")]
    assert "retry" in marks and set(marks) <= {"retry", "backoff", "delay"}, marks
    flow = hits[[h["path"] for h in expected].index("net/flow.py")]
    assert "retry" in [m.text for m in flow.find_elements("css selector", "mark")]  # _retry(
    # the definition each hit is in, named
    for hit, want in zip(hits, expected, strict=True):
        named = [w.text for w in hit.find_elements("css selector", ".within code")]
        assert named == ([want["symbol"]] if want["symbol"] else []), (named, want)
    # the last hit opens under itself, scrolled into view (not below all the hits)
    last, want = hits[-1], expected[-1]
    button = last.find_element("css selector", ".hit-head button")
    button.click()
    passage = wait(chrome, lambda d: csss(d, "#passage"))[0]
    assert chrome.execute_script("return arguments[0].contains(arguments[1])", last, passage)
    assert in_view(chrome, passage), chrome.execute_script(
        "return [window.scrollY, arguments[0].getBoundingClientRect().top]", passage)
    assert passage.find_element("css selector", "h3").text == (
        f"{want['store']}:{want['path']}:{want['start_line']}-{want['end_line']}")
    lines = [li.text.strip() for li in passage.find_elements("css selector", "li")]
    read = cli_json(served, "read", f"{want['path']}:{want['start_line']}-{want['end_line']}")
    assert lines == [line.strip() for line in read["lines"]]  # .text trims each line
    assert chrome.switch_to.active_element == passage  # focus moves to what was opened
    assert button.get_attribute("aria-expanded") == "true"
    chrome.save_screenshot(str(shots / "search.png"))  # what the person sees: the viewport
    button.click()  # asked again, it closes
    wait(chrome, lambda d: not csss(d, "#passage"))
    assert button.get_attribute("aria-expanded") == "false"
    assert problems(chrome) == []


def test_the_store_picker_searches_the_store_picked(chrome: Any,
                                                    daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "search")
    assert [o.get_attribute("value") for o in csss(chrome, "#s-store option")] == [
        "*", "proj", "wiki"]
    for store in ("wiki", "proj"):
        hits = search(chrome, "how does the retry backoff work", store=store)
        assert hits and {h.get_attribute("data-store") for h in hits} == {store}
        assert css(chrome, "#results [role=status]").text.endswith(f"hits in {store}")
    files = search(chrome, "retry", mode="exact")  # every store: both have the word
    assert {f.get_attribute("data-store") for f in files} == {"proj", "wiki"}
    assert problems(chrome) == []


def test_the_exact_mode_shows_the_lines_semlith_search_exact_finds(
        chrome: Any, daemon: tuple[Daemon, Path]) -> None:
    served, _ = daemon
    signed_in(chrome, served, "search")
    files = search(chrome, "retry", store="proj", ext="py", mode="exact")
    expected = cli_json(served, "search", "--exact", "retry", "--ext", "py", "-C", "2",
                        "--limit", "200")
    assert [f.get_attribute("data-path") for f in files] == [
        name.split(":", 1)[1] for name in expected["files"]]
    matches = csss(chrome, ".hits .match")
    assert [m.find_element("css selector", "button").text for m in matches] == [
        f"{m['line']}:" for m in expected["matches"]]
    for shown_match, want in zip(matches, expected["matches"], strict=True):
        marks = [m.text for m in shown_match.find_elements("css selector", "mark")]
        assert marks == [want["text"][a:b] for a, b in want["spans"]] and set(marks) == {"retry"}
        named = [w.text for w in shown_match.find_elements("css selector", ".within code")]
        assert named == ([want["definition"]["name"]] if want["definition"] else [])
    assert problems(chrome) == []
