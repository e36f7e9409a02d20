"""`semlith mcp`, the stdio proxy, as editors run it: it starts one daemon when none runs,
every proxy shares it, and it serves the tools itself when no daemon can start."""

from __future__ import annotations

import json
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
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from tests.daemon_util import env_for, indexed_sample

pytestmark = [pytest.mark.slow, pytest.mark.model]
FALLBACK = "serving the tools in this process"


def _serve_processes(home: Path) -> list[psutil.Process]:
    """`semlith serve` processes whose SEMLITH_HOME is `home`."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = proc.info["cmdline"] or []
            args = [a for a in cmdline[1:] if a != "-P"]  # the proxy starts it with -P
            if args[:3] == ["-m", "semlith", "serve"] and \
                    proc.environ().get("SEMLITH_HOME") == str(home):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


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


def _proxy(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "semlith", "mcp"],
                                 env=env)


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
            async with stdio_client(_proxy(env), errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
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
                async with stdio_client(_proxy(env), errlog=errlog) as (read, write), \
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
