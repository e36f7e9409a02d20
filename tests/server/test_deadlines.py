"""No wait on the daemon outlasts its deadline (issue #47): the stdio proxy waited 330 s on a
frozen daemon (the SDK's 300 s read, then a 30 s retry) and 65 s on a daemon.json naming a
port that accepts and never answers; the CLI's calls waited 600 s. A daemon that answers
nothing, not even its health check, is given up within `SEMLITH_DAEMON_DEADLINE` with
a sentence that says what to do. The bounds below are hang guards well under the old
waits, not measurements."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

from semlith.base.home import Discovery
from semlith.base.settings import Settings
from semlith.errors import DaemonHung
from semlith.remote import RemoteLibrary
from tests.daemon_util import SAMPLE, env_for, semlith, serve_processes, start_daemon

pytestmark = pytest.mark.slow
HASH_CLI = ("-m", "tests.hash_cli", "0")  # the real command, with the test model
DEADLINE = 8  # SEMLITH_DAEMON_DEADLINE for these tests (30 by default)
GUARD_S = DEADLINE + 12  # a hang guard: the old waits were 65 s and more
HUNG = "has answered nothing"


def _indexed(tmp: Path) -> tuple[Path, Path]:
    """(home, root): the sample indexed with the test model."""
    root, home = tmp / "app", tmp / "home"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    done = subprocess.run([sys.executable, *HASH_CLI, "index", str(root), "--quiet"],
                          env=env_for(home), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return home, root


def _proxy(home: Path, cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "semlith", "mcp"], cwd=cwd,
        env={**env_for(home), "SEMLITH_DAEMON_DEADLINE": str(DEADLINE)})


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP freezes a process on POSIX")
def test_a_frozen_daemon_gets_the_proxys_calls_an_error_within_the_deadline(
        tmp_path: Path) -> None:
    home, root = _indexed(tmp_path)
    daemon = start_daemon(home, "--no-watch", command=HASH_CLI)
    failures: list[tuple[float, str]] = []

    async def timed_failure(session: ClientSession) -> None:
        started = time.monotonic()
        with anyio.fail_after(GUARD_S), pytest.raises(MCPError) as failed:
            await session.call_tool("semlith_search", {"query": "retry"})
        failures.append((time.monotonic() - started, failed.value.error.message))

    async def run() -> str:
        with open(tmp_path / "proxy.err", "w") as errlog:
            async with stdio_client(_proxy(home, root), errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                assert not (await session.call_tool("semlith_search", {"query": "retry"})
                            ).is_error
                os.kill(daemon.proc.pid, signal.SIGSTOP)
                try:
                    await timed_failure(session)  # waits on the frozen daemon
                    await timed_failure(session)  # finds it still frozen
                finally:
                    os.kill(daemon.proc.pid, signal.SIGCONT)
                with anyio.fail_after(60):  # thawed: the next call is answered
                    back = await session.call_tool("semlith_search", {"query": "retry"})
                return str(back.content[0].text)

    try:
        answered = anyio.run(run)
    finally:
        assert daemon.stop() == 0
        _no_daemon_started(home)
    assert answered.startswith("net/retry.py")
    for waited, message in failures:
        assert waited < GUARD_S and message.startswith(
            f"the semlith daemon (pid {daemon.proc.pid}, port {daemon.port}) {HUNG}"), message
        assert message.endswith(f"end process {daemon.proc.pid} and run `semlith serve`")
    errors = (tmp_path / "proxy.err").read_text()
    assert f"{HUNG} for " in errors and "Traceback" not in errors, errors


def _no_daemon_started(home: Path) -> None:
    """The proxy started no `semlith serve` of its own (ended here if it did): beside a
    daemon that lives, one would only refuse to run, or outlive the test."""
    started = serve_processes(home)
    for proc in started:
        proc.kill()
    assert started == []


@pytest.fixture
def silent(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """(home, port): daemon.json names a live process (this one) and a port that accepts
    connections and never answers (nothing accepts them: the kernel's backlog does)."""
    home, _ = _indexed(tmp_path)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        port = listener.getsockname()[1]
        (home / "daemon.json").write_text(json.dumps(
            {"pid": os.getpid(), "port": port, "version": "0", "started": time.time() - 3600}))
        yield home, port


def _within(seconds: float, func: object) -> object:
    """`func()` on a thread, failing the test if it is still running after `seconds`."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = func()  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - re-raised on the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still waiting after {seconds} s")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def test_the_cli_gives_up_on_a_silent_daemon_within_the_deadline(
        silent: tuple[Path, int]) -> None:
    home, port = silent
    settings = Settings.load(env={"SEMLITH_HOME": str(home),
                                  "SEMLITH_DAEMON_DEADLINE": str(DEADLINE)})
    library = RemoteLibrary(settings, Discovery(os.getpid(), port, "0", 0.0))
    with pytest.raises(DaemonHung, match=f"pid {os.getpid()}, port {port}\\) {HUNG} for"):
        _within(GUARD_S, library.status)  # waited 600 s
    stopped = semlith(home, "stop", timeout=GUARD_S)  # said no daemon was running
    assert stopped.returncode == 1 and HUNG in stopped.stderr, stopped.stderr
    served = semlith(home, "serve", "--port", "0", timeout=GUARD_S)  # "already runs"
    assert served.returncode == 1 and f"end process {os.getpid()}" in served.stderr


def test_the_proxy_serves_the_tools_itself_at_once_beside_a_silent_daemon(
        silent: tuple[Path, int], tmp_path: Path) -> None:
    home, _ = silent

    async def run() -> list[str]:
        with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(GUARD_S + 10):
            async with stdio_client(_proxy(home, tmp_path / "app"), errlog=errlog) as (
                    read, write), ClientSession(read, write) as session:
                await session.initialize()  # took 65 s
                return [t.name for t in (await session.list_tools()).tools]

    assert "semlith_search" in anyio.run(run)
    _no_daemon_started(home)
    errors = (tmp_path / "proxy.err").read_text()
    assert HUNG in errors and "serving the tools in this process" in errors, errors
