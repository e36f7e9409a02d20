"""The Graph page in a real browser (tests/portal/conftest.py): a neighbourhood drawn
(callers left, callees right, each edge's status as its line), recentred by a click or
the keyboard; a path drawn as a chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import problems
from tests.daemon_util import Daemon
from tests.portal.browsing import (
    ask_graph,
    boxes,
    cli_json,
    css,
    csss,
    dashes,
    signed_in,
    snap,
    wait,
)

pytestmark = pytest.mark.slow


def test_the_graph_page_draws_the_neighbourhood_and_recentres_on_a_click(
        chrome: Any, daemon: tuple[Daemon, Path], shots: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    served, _ = daemon
    signed_in(chrome, served, "graph")
    ask_graph(chrome, "Callers and callees", "fetch_page")
    expected = cli_json(served, "neighbors", "fetch_page")
    nodes = boxes(chrome, "#graph-picture .node")
    by_side = {side: [b for b in nodes if b["side"] == side]
               for side in ("caller", "centre", "callee")}
    for side, edges in (("caller", expected["callers"]), ("callee", expected["callees"])):
        assert sorted((b["name"], b["status"]) for b in by_side[side]) == sorted(
            (e["name"], e["status"]) for e in edges)  # one box per definition, none twice
    assert [b["name"] for b in by_side["centre"]] == ["fetch_page"]
    centre_x = by_side["centre"][0]["x"]  # callers left, callees right
    assert all(b["x"] < centre_x for b in by_side["caller"])
    assert all(b["x"] > centre_x for b in by_side["callee"])
    lines = csss(chrome, "#graph-picture path.edge")
    assert len(lines) == len(expected["callers"]) + len(expected["callees"])
    style = dashes(chrome, "#graph-picture path.edge")  # extracted solid, resolved dashed
    assert style["extracted"] == "none" and style["resolved"] != "none", style
    for box in nodes:  # a title per node; every other definition a button, its edge said
        assert box["name"] in box["title"]
        if box["side"] != "centre":
            assert box["status"] in box["title"]
            assert (box["role"], box["tabindex"]) == ("button", "0")
    assert css(chrome, "#graph-picture").get_attribute("role") == "group"
    snap(chrome, shots, "graph")
    css(chrome, '#graph-picture .node.caller[data-name="sync_all"]').click()
    wait(chrome, lambda d: css(d, "#graph h2").text.startswith("sync_all (net/flow.py:"))
    centre = css(chrome, "#graph-picture .node.centre")
    assert centre.get_attribute("data-name") == "sync_all"
    assert chrome.switch_to.active_element == centre  # the keyboard stays in the picture
    assert css(chrome, "#g-name").get_attribute("value") == "sync_all"
    back = css(chrome, "#graph .trail button")
    assert back.text == "fetch_page"
    # by keyboard: a callee focused, Enter recentres on it
    callee = css(chrome, '#graph-picture .node.callee[data-name="fetch_page"]')
    chrome.execute_script("arguments[0].focus()", callee)
    ActionChains(chrome).send_keys(Keys.ENTER).perform()
    wait(chrome, lambda d: css(d, "#graph h2").text.startswith("fetch_page (net/flow.py:"))
    assert [b.text for b in csss(chrome, "#graph .trail button")] == ["fetch_page", "sync_all"]
    assert problems(chrome) == []


def test_the_graph_page_draws_a_path_as_a_chain(chrome: Any, daemon: tuple[Daemon, Path],
                                                 shots: Path) -> None:
    served, _ = daemon
    signed_in(chrome, served, "graph")
    ask_graph(chrome, "Path", "main", "download")
    hops = cli_json(served, "path", "main", "download")["hops"]
    chain = boxes(chrome, "#graph-chain .node")
    assert [b["name"] for b in chain] == ["main", *(hop["name"] for hop in hops)]
    assert [b["side"] for b in chain] == ["source", "hop", "hop", "target"]
    assert [b["x"] for b in chain] == sorted(b["x"] for b in chain)  # left to right
    assert [e.get_attribute("data-status") for e in csss(chrome, "#graph-chain path.edge")] == [
        hop["status"] for hop in hops]
    snap(chrome, shots, "graph-path")
    # across the ambiguous call: a hypothesis, its last edge dotted
    ask_graph(chrome, "Path", "main", "Latin.normalise", all_edges=True)
    assert "A hypothesis" in css(chrome, "#graph .notice").text
    style = dashes(chrome, "#graph-chain path.edge")
    assert list(style) == ["extracted", "ambiguous"], style
    assert style["ambiguous"] not in ("none", dashes(chrome, ".legend .edge")["resolved"])
    css(chrome, '#graph-chain .node[data-name="fetch_page"]').click()  # recentres there
    wait(chrome, lambda d: csss(d, "#graph-picture .node.centre"))
    assert css(chrome, "#graph h2").text.startswith("fetch_page (net/flow.py:")
    assert problems(chrome) == []
