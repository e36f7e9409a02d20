"""`semlith mcp` started in a folder no store covers (issue #45): a call without `stores`
is refused as the CLI refuses, with the command that indexes the folder, instead of
searching every store. The real proxy, a real daemon (the test model), a real client."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from tests.daemon_util import SAMPLE, Daemon, env_for, start_daemon

pytestmark = pytest.mark.slow
HASH_CLI = ("-m", "tests.hash_cli", "0")  # the real command, with the test model


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("proxy-scope")
    root = tmp / "app"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    done = subprocess.run([sys.executable, *HASH_CLI, "index", str(root), "--quiet"],
                          env=env_for(tmp / "home"), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    daemon = start_daemon(tmp / "home", "--no-watch", command=HASH_CLI)
    yield daemon
    assert daemon.stop() == 0


def _calls(daemon: Daemon, cwd: Path, *arguments: dict[str, object]
           ) -> list[types.CallToolResult]:
    """semlith_search with each of `arguments`, through `semlith mcp` started in `cwd`."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "semlith", "mcp"],
                                   env=env_for(daemon.home), cwd=cwd)

    async def run() -> list[types.CallToolResult]:
        with open(cwd.parent / "proxy.err", "w") as errlog, anyio.fail_after(120):
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return [await session.call_tool("semlith_search", {"query": "retry", **a})
                        for a in arguments]

    return anyio.run(run)


def test_a_proxy_in_a_folder_no_store_covers_refuses_and_says_how_to_index_it(
        daemon: Daemon, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    refused, everything = _calls(daemon, elsewhere, {}, {"stores": ["*"]})
    assert refused.is_error
    assert refused.content[0].text == (
        f'no store indexes {elsewhere.resolve()}; `semlith index {elsewhere.resolve()}` '
        'indexes it, or pass stores: ["*"] for every store (app)')
    assert not everything.is_error and everything.content[0].text.startswith("net/retry.py")


def test_a_proxy_in_an_indexed_folder_searches_its_store(daemon: Daemon) -> None:
    (found,) = _calls(daemon, daemon.home.parent / "app" / "net", {})
    assert not found.is_error and found.content[0].text.startswith("net/retry.py")
