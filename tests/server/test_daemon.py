"""The real daemon on an ephemeral loopback port, driven by the `mcp` SDK's client."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.daemon_util import (
    Daemon,
    env_for,
    indexed_sample,
    semlith,
    served_sample,
    start_daemon,
)

pytestmark = [pytest.mark.slow, pytest.mark.model]
MODERN = "2026-07-28"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    # Not watching: a watcher would index files these tests write before the calls under
    # test do (test_cli_index_of_a_held_store_goes_to_the_daemon then saw "0 indexed").
    # The watcher has its own tests (test_watch.py).
    for daemon, _ in served_sample(tmp_path_factory.mktemp("daemon"), "--no-watch"):
        yield daemon


def _session_client(daemon: Daemon) -> object:
    http = create_mcp_http_client(headers=daemon.headers)
    return http, streamable_http_client(daemon.url + "/mcp", http_client=http)


async def _with_client(daemon: Daemon, mode: str) -> tuple[str, list[str], str]:
    http, transport = _session_client(daemon)
    async with http, Client(transport, mode=mode) as client:  # type: ignore[attr-defined]
        tools = await client.list_tools()
        result = await client.call_tool("semlith_search", {"query": "retry backoff", "k": 3})
        return client.protocol_version, [t.name for t in tools.tools], result.content[0].text


@pytest.mark.parametrize("mode", [MODERN, "legacy"])
def test_sessions_of_the_current_revisions(served: Daemon, mode: str) -> None:
    version, tools, text = anyio.run(_with_client, served, mode)
    assert version == (MODERN if mode == MODERN else "2025-11-25")
    assert "semlith_search" in tools and "semlith_read" in tools
    assert text.splitlines()[0] == "net/retry.py"


async def _handshake(daemon: Daemon, offered: str) -> tuple[str, str, bool]:
    http, transport = _session_client(daemon)
    async with http, transport as (read, write), ClientSession(read, write) as session:  # type: ignore[attr-defined]
        result = await session.send_request(types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=offered, capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="test", version="0"))),
            types.InitializeResult)
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        await session.send_ping()
        called = await session.call_tool("semlith_symbol", {"name": "RetryPolicy"})
        return result.protocol_version, called.content[0].text, bool(called.is_error)


@pytest.mark.parametrize("revision", ["2025-06-18", "2024-11-05"])
def test_sessions_of_older_revisions(served: Daemon, revision: str) -> None:
    negotiated, text, failed = anyio.run(_handshake, served, revision)
    assert negotiated == revision and not failed
    assert text.startswith("net/retry.py:")


def test_an_unsupported_revision_gets_the_spec_answer(served: Daemon) -> None:
    # initialize with an unknown version: the server answers with one it supports.
    negotiated, _, _ = anyio.run(_handshake, served, "1999-01-01")
    assert negotiated == "2025-11-25"
    # A request of an unknown modern revision: error -32022 naming the supported ones.
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}}
    answer = httpx.post(served.url + "/mcp", json=body, headers={
        **served.headers, "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
    error = answer.json()["error"]
    assert error["code"] == -32022 and MODERN in error["data"]["supported"]


def test_tools_list_fits_in_a_thousand_tokens(served: Daemon) -> None:
    _, _, _ = anyio.run(_with_client, served, "legacy")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}}}
    answer = httpx.post(served.url + "/mcp", json=body, headers={
        **served.headers, "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})
    tools = answer.json()["result"]["tools"]
    size = len(json.dumps(tools).encode())
    assert size / 4 < 1000, size


def test_key_and_discovery_files_are_private(served: Daemon) -> None:
    for name in ("agent.key", "daemon.json"):
        mode = stat.S_IMODE((served.home / name).stat().st_mode)
        assert mode == 0o600, (name, oct(mode))
    found = json.loads((served.home / "daemon.json").read_text())
    assert set(found) == {"pid", "port", "version", "started"}
    assert served.key not in (served.home / "test-daemon.log").read_text()


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 401),
    ({"Authorization": "Bearer wrong"}, 401),
    ({"Authorization": "Basic abc"}, 401),
    ({"Host": "evil.example:80"}, 400),
    ({"Origin": "https://evil.example"}, 403),
])
def test_bad_credentials_hosts_and_origins(served: Daemon, headers: dict[str, str],
                                           status: int) -> None:
    full = {**served.headers, **headers} if "Authorization" not in headers and \
        status != 401 else headers
    answer = httpx.post(served.url + "/mcp", content=b"{}", headers=full)
    assert answer.status_code == status
    if status == 401:  # one line of JSON saying what is missing, never the key
        assert "bearer key" in answer.json()["error"]
        assert served.key not in answer.text and served.control not in answer.text


def test_loopback_origin_and_healthz(served: Daemon) -> None:
    healthz = httpx.get(served.url + "/healthz")
    assert healthz.status_code == 200
    # Dated by the daemon at the response, not by a tick it no longer runs (issue #25).
    dated = parsedate_to_datetime(healthz.headers["date"])
    assert abs((dated - datetime.now(UTC)).total_seconds()) < 60
    assert httpx.get(served.url + "/api/status").status_code == 401
    answer = httpx.get(served.url + "/api/status",
                       headers={**served.api, "Origin": "http://localhost:5173"})
    assert answer.status_code == 200


def test_cli_search_uses_the_daemon(served: Daemon, tmp_path: Path) -> None:
    before = httpx.get(served.url + "/api/status", headers=served.api).json()["searches"]
    root = next(Path(e["root"]) for e in json.loads(
        (served.home / "stores.json").read_text())["stores"])
    done = semlith(served.home, "search", "session token signature", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["path"] == "auth/tokens.go"
    after = httpx.get(served.url + "/api/status", headers=served.api).json()["searches"]
    assert after == before + 1
    status = semlith(served.home, "status")
    assert f"pid {served.proc.pid}" in status.stdout and "model ready" in status.stdout


def test_cli_index_of_a_held_store_goes_to_the_daemon(served: Daemon) -> None:
    root = next(Path(e["root"]) for e in json.loads(
        (served.home / "stores.json").read_text())["stores"])
    (root / "net" / "fresh.py").write_text("def brand_new_function():\n    return 42\n")
    done = semlith(served.home, "index", str(root))
    assert done.returncode == 0, done.stderr
    assert f"indexed by the running daemon (pid {served.proc.pid})" in done.stdout
    # The daemon's watcher may have indexed the new file before the CLI asked (likelier
    # since the int8 model embeds it in a few ms); either way it is in the store now.
    found = semlith(served.home, "search", "brand_new_function", "--store",
                    str(root / ".semlith"))
    assert found.returncode == 0 and "net/fresh.py" in found.stdout, found.stdout


def test_stdio_proxy_forwards_to_the_running_daemon(served: Daemon) -> None:
    async def run() -> tuple[str, str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "semlith", "mcp"],
                                       env=env_for(served.home),
                                       cwd=served.home.parent / "sample")
        with open(served.home / "proxy.err", "w") as errors:
            async with stdio_client(params, errlog=errors) as (read, write), \
                    ClientSession(read, write) as session:
                init = await session.initialize()
                found = await session.call_tool("semlith_read", {"target": "net/retry.py:7-8"})
                return init.protocol_version, found.content[0].text

    version, text = anyio.run(run)
    assert version == "2025-11-25"
    assert text.splitlines()[1].endswith("class RetryPolicy:")


def test_a_taken_port_is_an_error_naming_it(served: Daemon, tmp_path: Path) -> None:
    done = semlith(tmp_path / "other-home", "serve", "--port", str(served.port), timeout=60)
    assert done.returncode == 1
    assert f"port {served.port} on 127.0.0.1 is in use by a semlith 0.1.0 daemon" \
        in done.stderr
    again = semlith(served.home, "serve", "--port", "0", timeout=60)
    assert again.returncode == 1 and "a semlith daemon already runs" in again.stderr


def test_sigterm_drains_and_releases_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = indexed_sample(tmp_path, home)
    daemon = start_daemon(home)
    assert daemon.stop(signal.SIGTERM) == 0
    assert not (home / "daemon.json").exists()
    again = semlith(home, "index", str(root))  # the writer lock was released
    assert again.returncode == 0 and "9 unchanged" in again.stdout
    assert os.environ.get("SEMLITH_HOME") != str(home)


def test_proxy_answers_then_exits_when_stdin_closes(served: Daemon) -> None:
    """An editor that sends a request and closes the pipe still gets its answer."""
    request = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "0"}}}
    done = semlith(served.home, "mcp", timeout=60, input=json.dumps(request) + "\n")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["id"] == 7 and answer["result"]["protocolVersion"] == "2025-06-18"


def test_a_stale_discovery_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    home = tmp_path / "home"
    indexed_sample(tmp_path, home)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (home / "daemon.json").write_text(json.dumps(
        {"pid": dead.pid, "port": 1, "version": "0.0.1", "started": 0}))
    assert "no semlith daemon is running" in semlith(home, "status").stderr
    daemon = start_daemon(home)  # waits until daemon.json names the new pid
    try:
        assert json.loads((home / "daemon.json").read_text())["pid"] == daemon.proc.pid
    finally:
        assert daemon.stop() == 0


async def _ruled_calls(daemon: Daemon) -> list[tuple[bool, str]]:
    http, transport = _session_client(daemon)
    async with http, Client(transport, mode="legacy") as client:  # type: ignore[attr-defined]
        calls = [{"query": "retry backoff", "store": "sample", "k": 500, "path": "net/*"},
                 {"query": "retry backoff", "stores": "nope"},
                 {"query": "retry backoff", "limit": 3}]
        results = [await client.call_tool("semlith_search", c) for c in calls]
        return [(bool(r.is_error), r.content[0].text) for r in results]


def test_the_argument_rule_through_the_python_sdk(served: Daemon) -> None:
    (ok, text), (bad, unknown), (extra, refused) = anyio.run(_ruled_calls, served)
    assert not ok and text.splitlines()[0] == "net/retry.py"
    assert text.splitlines()[-1] == "note: k 500 is above 50, the most it takes; used 50"
    assert bad and unknown == 'unknown store nope; stores: sample (or "*" for all)'
    assert extra and refused.startswith("semlith_search has no argument 'limit'; it takes: ")
