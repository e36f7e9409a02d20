"""The graph over the daemon's app (issue #22): the MCP tools, the default tools/list
within 1,000 tokens (and every tool with SEMLITH_MCP_TOOLS=all), an unlisted tool that
still answers, and `/api` routes that the CLI's RemoteLibrary reads back."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from semlith.local.fleet import Fleet
from semlith.types.graph import Neighbors
from tests.conftest import HashEmbedder
from tests.graph.conftest import GRAPH
from tests.server_util import ACCEPT, app_over_fleet, open_session


@dataclass
class App:
    client: TestClient
    session: dict[str, str]
    control: dict[str, str]
    root: Path


def _serve(tmp: Path, env: dict[str, str]) -> Iterator[App]:
    root = tmp / "shop"
    if not root.exists():
        shutil.copytree(GRAPH / "python", root, ignore=shutil.ignore_patterns("expected.json"))
    config = Settings.load(env={"SEMLITH_HOME": str(tmp / "home"), **env})
    engine = Engine(config, lambda name: HashEmbedder(name))
    LocalLibrary(config, engine=engine).index([str(root)])
    asgi, fleet, keys = app_over_fleet(config, engine)
    with TestClient(asgi, base_url="http://127.0.0.1:7365",
                    raise_server_exceptions=False) as client:
        auth = {"Authorization": f"Bearer {keys.agent}", **ACCEPT}
        yield App(client, open_session(client, auth),
                  {"Authorization": f"Bearer {keys.control}", **ACCEPT}, root)
    close(fleet, engine)


def close(fleet: Fleet, engine: Engine) -> None:
    fleet.close()
    engine.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    yield from _serve(tmp_path_factory.mktemp("surface"), {})


def _rpc(app: App, method: str, params: dict[str, Any]) -> Any:
    answer = app.client.post("/mcp", headers=app.session, json={
        "jsonrpc": "2.0", "id": 3, "method": method, "params": params})
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def _tool(app: App, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    result = _rpc(app, "tools/call", {"name": name, "arguments": {
        **arguments, "stores": [str(app.root)]}})
    return "\n".join(c["text"] for c in result["content"]), bool(result["isError"])


def test_default_tools_list_fits_and_holds_the_graph(app: App) -> None:
    tools = _rpc(app, "tools/list", {})["tools"]
    names = {t["name"] for t in tools}
    assert {"semlith_search", "semlith_brief", "semlith_read", "semlith_symbol",
            "semlith_neighbors", "semlith_impact"} == names
    assert len(json.dumps(tools).encode()) / 4 < 1000


def test_the_graph_tools_answer(app: App) -> None:
    text, error = _tool(app, "semlith_neighbors", {"name": "Base.save", "kind": ["calls"]})
    assert not error and "main app.py:6-14 calls resolved at app.py:9" in text
    text, error = _tool(app, "semlith_impact", {"name": "Base.validate", "depth": 1})
    assert not error and "1 Base.save shop/models.py:13-15" in text
    text, error = _tool(app, "semlith_path", {"source": "main", "target": "Store.put"})
    assert not error and text.splitlines()[-1].startswith("-> Store.put shop/store.py:2-3")
    text, error = _tool(app, "semlith_neighbors", {"name": "Nonexistent.save"})
    assert error and text == "no definition of `Nonexistent.save`; nearest: Base.save"


def test_the_api_route_round_trips_neighbors(app: App) -> None:
    answer = app.client.post("/api/neighbors", headers=app.control, json={
        "name": "Base.save", "kinds": ["calls"], "scope": {"stores": [str(app.root)]}})
    assert answer.status_code == 200, answer.text
    back = Neighbors.from_json(answer.json())
    assert back.symbol.name == "Base.save" and {e.name for e in back.callers} == {
        "main", "Cart.add"}
    refused = app.client.post("/api/neighbors", headers=app.control, json={
        "name": "Nope.save", "scope": {"stores": [str(app.root)]}})
    assert refused.status_code == 400 and refused.json()["kind"] == "UnknownSymbol"


def test_every_tool_is_listed_when_asked(tmp_path: Path) -> None:
    for served in _serve(tmp_path, {"SEMLITH_MCP_TOOLS": "all"}):
        names = {t["name"] for t in _rpc(served, "tools/list", {})["tools"]}
        assert {"semlith_path", "semlith_files", "semlith_stats", "semlith_index",
                "semlith_forget"} <= names
