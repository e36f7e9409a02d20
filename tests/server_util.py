"""The daemon's HTTP app in process, for tests: a real indexed store, a real `Fleet`, the
real `create_app` under Starlette's TestClient, and the MCP calls the tests make on it.

`served` is a module fixture: a test module imports it (`# noqa: F401`) to use it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.inbound import encode_header_value
from starlette.testclient import TestClient

from semlith.base.home import agent_key, control_key, registered_stores
from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from semlith.local.fleet import Fleet
from semlith.server.app import Keys, create_app
from tests.conftest import HashEmbedder

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
MODERN = "2026-07-28"
SECRET = "semlith-test-secret-4f1c2a"  # the content of files outside the root
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass
class Served:
    client: TestClient
    key: str
    control: str
    session: dict[str, str]  # headers of an initialized legacy session

    @property
    def auth(self) -> dict[str, str]:
        """For /mcp: the agent key."""
        return {"Authorization": f"Bearer {self.key}", **ACCEPT}

    @property
    def api(self) -> dict[str, str]:
        """For /api: the control key."""
        return {"Authorization": f"Bearer {self.control}", **ACCEPT}


def _app_tree(tmp: Path) -> Path:
    """The sample tree, plus symlinks (a file and a folder) that point outside it."""
    root = tmp / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (tmp / "secret.txt").write_text(f"{SECRET}\n")
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.py").write_text(f"TOKEN = {SECRET!r}\n")
    (root / "leak.txt").symlink_to(tmp / "secret.txt")
    (root / "vendor").symlink_to(tmp / "outside", target_is_directory=True)
    return root


def app_over_fleet(config: Settings, engine: Engine) -> tuple[Any, Fleet, Keys]:
    """The daemon's app over a fleet holding every registered store, models loaded:
    (app, fleet, keys). The caller closes the fleet and the engine."""
    fleet = Fleet(engine)
    fleet.open(registered_stores(config.home))
    fleet.load_models()
    keys = Keys(agent_key(config.home), control_key(config.home))
    app = create_app(config, agent=LocalLibrary(config, engine=engine, source=fleet,
                                                agent=True),
                     person=LocalLibrary(config, engine=engine, source=fleet), keys=keys)
    return app, fleet, keys


def open_session(client: TestClient, headers: dict[str, str]) -> dict[str, str]:
    init = client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
    assert init.status_code == 200, init.text
    session = {**headers, "Mcp-Session-Id": init.headers["mcp-session-id"],
               "MCP-Protocol-Version": init.json()["result"]["protocolVersion"]}
    done = client.post("/mcp", headers=session,
                       json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert done.status_code == 202, done.text
    return session


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("app")
    root = _app_tree(tmp)
    config = Settings.load(env={"SEMLITH_HOME": str(tmp / "home")})
    engine = Engine(config, lambda name: HashEmbedder(name))
    assert LocalLibrary(config, engine=engine).index([str(root)]).indexed == 9
    asgi, fleet, keys = app_over_fleet(config, engine)
    with TestClient(asgi, base_url="http://127.0.0.1:7365",
                    raise_server_exceptions=False) as client:
        auth = {"Authorization": f"Bearer {keys.agent}", **ACCEPT}
        yield Served(client, keys.agent, keys.control, open_session(client, auth))
    fleet.close()
    engine.close()


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": encode_header_value(method)}
    if name is not None:
        headers["Mcp-Name"] = encode_header_value(name)
    return headers


def modern_meta() -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}


def call_tool(served: Served, name: str, arguments: Any) -> tuple[str, bool]:
    """tools/call in the legacy session -> (text, isError)."""
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    return "\n".join(c["text"] for c in result["content"]), bool(result["isError"])
