"""A second, independent MCP client against the real daemon: the official TypeScript SDK.

The SDK is installed from npm once into a cache folder reused across runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon_util import Daemon, served_sample

pytestmark = [
    pytest.mark.slow,
    pytest.mark.model,
    pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                       reason="node and npm are needed to run the TypeScript MCP SDK"),
]
SDK_VERSION = "1.32.2"  # a recent 1.x (supports Node >= 18)
CLIENT = """\
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.env.SEMLITH_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.SEMLITH_KEY}` } },
});
const client = new Client({ name: "semlith-node-test", version: "0.0.0" });
await client.connect(transport);
const tools = await client.listTools();
const result = await client.callTool({
  name: "semlith_search", arguments: { query: process.env.SEMLITH_QUERY, k: 3 },
});
// The argument rule (#23): an alias, a string for a list, a k out of range.
const ruled = await client.callTool({
  name: "semlith_search",
  arguments: { query: process.env.SEMLITH_QUERY, k: 500, store: "nope", ext: "go" },
});
console.log(JSON.stringify({
  protocol: transport.protocolVersion,
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  tools: tools.tools.map((tool) => tool.name),
  result,
  ruled,
}));
await client.close();
"""


@pytest.fixture(scope="module")
def node_sdk() -> Path:
    """node_modules holding @modelcontextprotocol/sdk, installed on first use only."""
    folder = Path.home() / ".cache" / "semlith-tests" / "node-mcp" / SDK_VERSION
    modules = folder / "node_modules"
    if not (modules / "@modelcontextprotocol" / "sdk" / "package.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(json.dumps(
            {"name": "semlith-node-mcp", "private": True, "type": "module"}))
        package = f"@modelcontextprotocol/sdk@{SDK_VERSION}"
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", package],
                              cwd=folder, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    return modules


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    for daemon, _ in served_sample(tmp_path_factory.mktemp("node")):
        yield daemon


def _run_client(node_sdk: Path, tmp_path: Path, daemon: Daemon,
                key: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "node_modules").symlink_to(node_sdk, target_is_directory=True)
    script = tmp_path / "client.mjs"
    script.write_text(CLIENT)
    env = {**os.environ, "SEMLITH_URL": daemon.url + "/mcp", "SEMLITH_KEY": key,
           "SEMLITH_QUERY": "session token signature"}
    return subprocess.run(["node", str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


def test_the_typescript_sdk_lists_tools_and_searches(node_sdk: Path, tmp_path: Path,
                                                     served: Daemon) -> None:
    done = _run_client(node_sdk, tmp_path, served, served.key)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["server"]["name"] == "semlith" and out["protocol"] == "2025-11-25"
    assert {"semlith_search", "semlith_brief", "semlith_read", "semlith_symbol",
            "semlith_neighbors", "semlith_impact"} == set(out["tools"])
    result = out["result"]
    assert not result.get("isError") and result["content"][0]["type"] == "text"
    assert result["content"][0]["text"].splitlines()[0] == "auth/tokens.go"
    ruled = out["ruled"]
    assert ruled["isError"] and ruled["content"][0]["text"] == \
        'unknown store nope; stores: sample (or "*" for all)'
    assert set(out["capabilities"]) >= {"tools"}
    assert "prompts" not in out["capabilities"] and "resources" not in out["capabilities"]


def test_the_typescript_sdk_is_refused_with_a_wrong_key(node_sdk: Path, tmp_path: Path,
                                                        served: Daemon) -> None:
    done = _run_client(node_sdk, tmp_path, served, "not-the-key")
    assert done.returncode != 0
    assert done.stdout == ""
    assert "401" in done.stderr, done.stderr
