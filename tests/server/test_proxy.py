"""`semlith mcp`, the stdio proxy, as editors run it: it starts one daemon when none runs,
every proxy shares it, it serves the tools itself when no daemon can start, and it
outlives the daemon behind it (a restart, a forgotten session, a daemon that stays away)."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import psutil
import pytest
from anyio.abc import SocketAttribute, SocketStream, TaskStatus
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types

from semlith.server.upstream import UNREACHABLE
from tests.daemon_util import env_for, indexed_sample, start_daemon, wait_model
from tests.daemon_util import serve_processes as _serve_processes

pytestmark = [pytest.mark.slow, pytest.mark.model]
FALLBACK = "serving the tools in this process"
MODERN = "2026-07-28"
RESTARTED = re.compile(r"semlith mcp: the daemon restarted \(pid (\d+) -> (\d+)\); reconnected")
SESSION_ID = re.compile(rb"mcp-session-id: *([0-9a-f]+)", re.IGNORECASE)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A fresh SEMLITH_HOME with the sample indexed and registered, and no daemon.

    Teardown stops the daemons a proxy started for it (by pid), so none outlives the test.
    """
    home = tmp_path / "home"
    indexed_sample(tmp_path, home)
    assert not (home / "daemon.json").exists() and _serve_processes(home) == []
    yield home
    for proc in _serve_processes(home):
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except psutil.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    assert _serve_processes(home) == []


def _wait_for_one_daemon(home: Path, timeout: float = 30) -> list[int]:
    """The pids of `semlith serve` for `home` once at most one is left (a serve that lost
    the race to start exits on its own), polling; the list as it is at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        pids = [p.pid for p in _serve_processes(home)]
        if len(pids) <= 1 or time.monotonic() > deadline:
            return pids
        time.sleep(0.1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _proxy(env: dict[str, str], cwd: Path | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "semlith", "mcp"],
                                 env=env, cwd=cwd)


def _searches(home: Path) -> tuple[int, int]:
    """(pid, searches answered) of the daemon daemon.json names."""
    found = json.loads((home / "daemon.json").read_text())
    key = (home / "control.key").read_text().strip()
    status = httpx.get(f"http://127.0.0.1:{found['port']}/api/status",
                       headers={"Authorization": f"Bearer {key}"}, timeout=10)
    return int(found["pid"]), int(status.json()["searches"])


def test_two_proxies_start_one_daemon_and_share_it(home: Path) -> None:
    env = {**env_for(home), "SEMLITH_PORT": str(_free_port())}
    up = [anyio.Event(), anyio.Event()]
    go = anyio.Event()
    answers: dict[int, tuple[types.InitializeResult, types.CallToolResult]] = {}
    seen: dict[str, Any] = {}

    async def proxy(n: int) -> None:
        with open(home / f"proxy-{n}.err", "w") as errlog:
            async with stdio_client(_proxy(env, home.parent / "sample"), errlog=errlog) as (
                    read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                up[n].set()
                await go.wait()
                answers[n] = init, await session.call_tool(
                    "semlith_search", {"query": "retry backoff", "k": 3})

    async def run() -> None:
        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(proxy, 0)
                group.start_soon(proxy, 1)
                await up[0].wait()
                await up[1].wait()
                seen["pid"], seen["before"] = await anyio.to_thread.run_sync(_searches, home)
                seen["serving"] = await anyio.to_thread.run_sync(_wait_for_one_daemon, home)
                go.set()

    anyio.run(run)
    pid, after = _searches(home)
    assert seen["serving"] == [pid] == [seen["pid"]]  # one daemon, the one daemon.json names
    assert after == seen["before"] + 2  # both proxies' searches reached it
    assert sorted(answers) == [0, 1]
    for init, result in answers.values():
        assert init.server_info.name == "semlith"
        assert not result.is_error and result.content[0].text.splitlines()[0] == "net/retry.py"
    for n in (0, 1):
        errors = (home / f"proxy-{n}.err").read_text()
        assert FALLBACK not in errors and "Traceback" not in errors, errors
    assert "serving 1 store(s)" in (home / "daemon.log").read_text()
    assert [p.pid for p in _serve_processes(home)] == [pid]  # it outlives the proxies


def test_the_proxy_serves_the_tools_itself_when_no_daemon_can_start(
        home: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**env_for(home), "SEMLITH_PORT": str(port)}

        async def run() -> tuple[list[str], types.CallToolResult]:
            with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(120):
                async with stdio_client(_proxy(env, home.parent / "sample"),
                                        errlog=errlog) as (read, write), \
                        ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    found = await session.call_tool("semlith_search",
                                                    {"query": "retry backoff", "k": 3})
                    return [t.name for t in tools.tools], found

        names, found = anyio.run(run)
    assert "semlith_search" in names and "semlith_read" in names
    assert not found.is_error and found.content[0].text.splitlines()[0] == "net/retry.py"
    errors = (tmp_path / "proxy.err").read_text()
    assert FALLBACK in errors and f"port {port}" in errors, errors
    assert not (home / "daemon.json").exists() and _serve_processes(home) == []


async def _search(client: Client) -> str:
    found = await client.call_tool("semlith_search", {"query": "retry backoff", "k": 3})
    assert not found.is_error, found.content
    return str(found.content[0].text)


def _clean(errors: str, home: Path) -> None:
    """The proxy's stderr holds neither a traceback nor the key."""
    assert "Traceback" not in errors and FALLBACK not in errors, errors
    assert (home / "agent.key").read_text().strip() not in errors


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_a_call_after_the_daemon_restarted_is_answered(home: Path, tmp_path: Path,
                                                       mode: str) -> None:
    """`semlith stop`, `semlith serve` (here on a new port) between two calls."""
    root, elsewhere = home.parent / "sample", tmp_path / "elsewhere"
    elsewhere.mkdir()
    legacy = mode == "legacy"
    daemon = start_daemon(home)
    wait_model(daemon)
    old, asked = daemon.proc.pid, []

    async def roots(context: Any) -> types.ListRootsResult:
        asked.append(context)
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri())])

    async def run() -> tuple[str, str, int]:
        nonlocal daemon
        # At legacy the roots come from the client (the proxy runs elsewhere), at
        # 2026-07-28 from the proxy's working folder.
        params = _proxy(env_for(home), elsewhere if legacy else root)
        with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(120):
            async with Client(stdio_client(params, errlog=errlog), mode=mode,
                              list_roots_callback=roots if legacy else None) as client:
                first = await _search(client)
                await anyio.to_thread.run_sync(daemon.stop)
                daemon = await anyio.to_thread.run_sync(start_daemon, home)
                await anyio.to_thread.run_sync(wait_model, daemon)
                second = await _search(client)
                _, searches = await anyio.to_thread.run_sync(_searches, home)
                return first, second, searches

    try:
        first, second, searches = anyio.run(run)
    finally:
        daemon.stop()
    assert first.splitlines()[0] == second.splitlines()[0] == "net/retry.py"
    assert "searched every store" not in second  # still the editor's roots
    assert searches == 1  # the new daemon ran the failed call, once
    assert len(asked) == (1 if legacy else 0)  # the roots were not asked for again
    errors = (tmp_path / "proxy.err").read_text()
    assert RESTARTED.findall(errors) == [(str(old), str(daemon.proc.pid))], errors
    _clean(errors, home)


class _Relay:
    """A TCP relay to the daemon that notes the MCP session ids going through it: the
    test's way to learn the proxy's session, to make the daemon forget it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sessions: list[str] = []

    async def serve(self, *, task_status: TaskStatus[int]) -> None:
        async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener:
            task_status.started(listener.extra(SocketAttribute.local_port))
            await listener.serve(self._connection)

    async def _connection(self, client: SocketStream) -> None:
        with contextlib.suppress(OSError):
            async with client, await anyio.connect_tcp("127.0.0.1", self.port) as daemon, \
                    anyio.create_task_group() as group:
                group.start_soon(self._copy, daemon, client, group.cancel_scope)
                await self._copy(client, daemon, group.cancel_scope)

    async def _copy(self, source: SocketStream, sink: SocketStream,
                    scope: anyio.CancelScope) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async for chunk in source:
                for found in SESSION_ID.findall(chunk):
                    if found.decode() not in self.sessions:
                        self.sessions.append(found.decode())
                await sink.send(chunk)
        scope.cancel()  # one side closed: close both


def test_a_call_after_the_daemon_forgot_the_session_is_answered(home: Path,
                                                                 tmp_path: Path) -> None:
    """What the daemon does to a session idle for 30 minutes (the SDK's reaping): the
    session's id gets 404 from then on, while the daemon runs on."""
    daemon = start_daemon(home)
    wait_model(daemon)
    relay = _Relay(daemon.port)

    async def run() -> tuple[str, str]:
        with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                port = await group.start(relay.serve)
                found = json.loads((home / "daemon.json").read_text())
                (home / "daemon.json").write_text(json.dumps({**found, "port": port}))
                params = _proxy(env_for(home), home.parent / "sample")
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    await _search(client)
                    gone = await anyio.to_thread.run_sync(lambda: httpx.delete(
                        f"{daemon.url}/mcp", timeout=10,
                        headers={**daemon.headers, "Mcp-Session-Id": relay.sessions[0]}))
                    assert gone.status_code == 200, gone.text
                    second = await _search(client)
                group.cancel_scope.cancel()
        return second, relay.sessions[-1]

    try:
        second, last = anyio.run(run)
        searches = httpx.get(f"{daemon.url}/api/status", headers=daemon.api,
                             timeout=10).json()["searches"]
    finally:
        daemon.stop()
    assert second.splitlines()[0] == "net/retry.py"
    assert last != relay.sessions[0]  # a new session
    assert searches == 2  # the refused call ran once, in the new session
    errors = (tmp_path / "proxy.err").read_text()
    assert f"the daemon (pid {daemon.proc.pid}) had ended this session; reconnected" \
        in errors, errors
    _clean(errors, home)


def test_a_call_gets_one_sentence_when_no_daemon_comes_back(home: Path,
                                                            tmp_path: Path) -> None:
    """The daemon stops and the proxy cannot start one (its port is taken): the call is
    answered with what to do within the bound, and a call after a daemon is back works."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {**env_for(home), "SEMLITH_PORT": str(taken.getsockname()[1])}
        daemon = start_daemon(home)
        wait_model(daemon)

        async def run() -> tuple[MCPError, str]:
            nonlocal daemon
            with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(180):
                params = _proxy(env, home.parent / "sample")
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    await _search(client)
                    await anyio.to_thread.run_sync(daemon.stop)
                    with pytest.raises(MCPError) as failed:
                        await _search(client)
                    daemon = await anyio.to_thread.run_sync(start_daemon, home)
                    await anyio.to_thread.run_sync(wait_model, daemon)
                    return failed.value, await _search(client)

        try:
            failed, later = anyio.run(run)
        finally:
            daemon.stop()
    assert failed.message == UNREACHABLE
    assert later.splitlines()[0] == "net/retry.py"
    errors = (tmp_path / "proxy.err").read_text()
    assert f"semlith mcp: {UNREACHABLE} (answered 1 request(s) with this error)" in errors
    assert len(RESTARTED.findall(errors)) == 1, errors
    _clean(errors, home)
