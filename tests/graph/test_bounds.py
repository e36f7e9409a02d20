"""Every graph answer within its budget on adversarial graphs (issue #47): a chain of
20,000 calls, a cycle of 2,000 functions, a function with 5,000 callers — through the
MCP tools (tokens = characters / 4, as the library counts them), the CLI's text and
its --json; and each says what it left out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from tests.cli_util import run
from tests.conftest import HashEmbedder
from tests.hostile_files import CALLERS, CHAIN, CYCLE, hostile_graph
from tests.server_util import ACCEPT, app_over_fleet, open_session

pytestmark = pytest.mark.slow  # indexes ~27,000 functions once (~15 s)


@dataclass
class Served:
    client: TestClient
    session: dict[str, str]
    root: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("bounds")
    root = tmp / "hostile"
    for rel, text in hostile_graph().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config = Settings.load(env={"SEMLITH_HOME": str(tmp / "home")})
    engine = Engine(config, lambda name: HashEmbedder(name))
    LocalLibrary(config, engine=engine).index([str(root)])
    asgi, fleet, keys = app_over_fleet(config, engine)
    with TestClient(asgi, base_url="http://127.0.0.1:7365",
                    raise_server_exceptions=False) as client:
        auth = {"Authorization": f"Bearer {keys.agent}", **ACCEPT}
        yield Served(client, open_session(client, auth), root)
    fleet.close()
    engine.close()


def tool(served: Served, tool_name: str, **arguments: Any) -> str:
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": tool_name, "arguments": {**arguments, "stores": [str(served.root)]}}})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    text = "\n".join(c["text"] for c in result["content"])
    assert not result["isError"], text
    return text


def tokens(text: str) -> float:
    return len(text) / 4


def test_path_over_a_20000_hop_chain(served: Served) -> None:
    text = tool(served, "semlith_path", source="f0", target=f"f{CHAIN - 1}")
    assert tokens(text) <= 4000
    lines = text.splitlines()
    assert f"({CHAIN - 1} hops)" in lines[0]
    assert lines[1].startswith("-> f1 ") and lines[-1].startswith(f"-> f{CHAIN - 1} ")
    assert any(line.startswith("... ") and line.endswith(" hops not shown") for line in lines)


def test_path_around_a_2000_function_cycle(served: Served) -> None:
    text = tool(served, "semlith_path", source="g1", target="g0")
    assert tokens(text) <= 4000 and f"({CYCLE - 1} hops)" in text


def test_path_that_stops_at_its_walk_limit_says_so(served: Served) -> None:
    text = tool(served, "semlith_path", source="f0", target="target")
    assert "before the walk's limit" in text and "no chain of settled calls" not in text


@pytest.mark.parametrize("budget", [4000, 100])
def test_neighbors_of_a_function_with_5000_callers(served: Served, budget: int) -> None:
    text = tool(served, "semlith_neighbors", name="target", max_tokens=budget)
    assert tokens(text) <= budget
    assert f"callers ({CALLERS}):" in text and f"of {CALLERS} callers shown" in text


@pytest.mark.parametrize(("name", "depth"), [("target", 3), ("g0", 10), (f"f{CHAIN - 1}", 10)])
def test_impact_on_each_graph(served: Served, name: str, depth: int) -> None:
    text = tool(served, "semlith_impact", name=name, depth=depth)
    assert tokens(text) <= 4000
    if name == "target":
        assert "entries shown" in text and "callers not followed" in text
    small = tool(served, "semlith_impact", name=name, depth=depth, max_tokens=100)
    assert tokens(small) <= 100


@pytest.mark.parametrize("budget", [2000, 100])
def test_brief_on_the_function_with_5000_callers(served: Served, budget: int) -> None:
    text = tool(served, "semlith_brief", question="target the function everything calls",
                max_tokens=budget)
    assert tokens(text) <= budget
    assert "callers not shown" in text


def test_the_cli_and_its_json_stay_bounded(served: Served) -> None:
    store = str(served.root / ".semlith")
    shown = run("path", "f0", f"f{CHAIN - 1}", "--budget", "100", "--store", store)
    assert shown.exit_code == 0 and tokens(shown.output) <= 100 + 40  # + click's layout
    as_json = run("path", "f0", f"f{CHAIN - 1}", "--json", "--store", store)
    answer = json.loads(as_json.output)
    assert answer["length"] == CHAIN - 1 and answer["omitted"]["hops"] > CHAIN - 200
    assert len(json.dumps(answer)) <= 4000 * 4  # the budget counts compact JSON
    near = run("neighbors", "target", "--budget", "100", "--json", "--store", store)
    assert len(json.dumps(json.loads(near.output))) <= 100 * 4
