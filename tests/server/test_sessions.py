"""MCP sessions are capped (`SEMLITH_MCP_SESSIONS`): a new one beyond the cap ends the one
idle the longest, and the daemon still answers and stops promptly (issue #47: 5,000
abandoned sessions held 176 MB and made a SIGTERM take 12.3 s)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from tests.conftest import HashEmbedder
from tests.daemon_util import SAMPLE, env_for, start_daemon
from tests.server_util import ACCEPT, app_over_fleet, open_session

CAP = 3
STOP_GUARD_S = 8.0  # a hang guard below the daemon's 10 s graceful wait, not a measurement
HASH_CLI = ("-m", "tests.hash_cli", "0")  # the real command, with the test model


def _project(tmp: Path) -> Path:
    root = tmp / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    return root


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The daemon's app, in process, keeping at most CAP sessions: (client, auth)."""
    config = Settings.load(env={"SEMLITH_HOME": str(tmp_path / "home"),
                                "SEMLITH_MCP_SESSIONS": str(CAP)})
    engine = Engine(config, lambda name: HashEmbedder(name))
    LocalLibrary(config, engine=engine).index([str(_project(tmp_path))])
    asgi, fleet, keys = app_over_fleet(config, engine)
    with TestClient(asgi, base_url="http://127.0.0.1:7365") as client:
        yield client, {"Authorization": f"Bearer {keys.agent}", **ACCEPT}
    fleet.close()
    engine.close()


def _ping(client: TestClient, session: dict[str, str]) -> int:
    answer = client.post("/mcp", headers=session,
                         json={"jsonrpc": "2.0", "id": 3, "method": "ping"})
    return answer.status_code


def test_past_the_cap_the_session_idle_the_longest_is_ended(
        capped: tuple[TestClient, dict[str, str]]) -> None:
    client, auth = capped
    a, b, c = (open_session(client, auth) for _ in range(CAP))
    assert _ping(client, a) == 200  # a was used last: b is idle the longest
    d = open_session(client, auth)
    assert _ping(client, b) == 404  # ended: a client still there would open a new one
    assert [_ping(client, s) for s in (a, c, d)] == [200, 200, 200]
    e = open_session(client, auth)  # a was pinged first of the three: it goes next
    assert [_ping(client, s) for s in (a, c, d, e)] == [404, 200, 200, 200]


@pytest.mark.slow
def test_a_daemon_holding_many_sessions_answers_and_stops_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = subprocess.run([sys.executable, *HASH_CLI, "index", str(_project(tmp_path)),
                           "--quiet"], env=env_for(home), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    limit = 16
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SEMLITH_MCP_SESSIONS", str(limit))
        daemon = start_daemon(home, "--no-watch", command=HASH_CLI)
    try:
        auth = {**daemon.headers, **ACCEPT}
        with httpx.Client(base_url=daemon.url, timeout=30) as client:
            sessions = [open_session(client, auth) for _ in range(10 * limit)]
            answers = [_ping(client, s) for s in sessions]
        assert answers == [404] * 9 * limit + [200] * limit
        assert daemon.proc.poll() is None
        daemon.proc.send_signal(signal.SIGTERM)
        assert daemon.proc.wait(STOP_GUARD_S) == 0
    finally:
        daemon.stop()
