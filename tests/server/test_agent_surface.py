"""The agent surface with the real daemon, the real proxy and real MCP clients (#12).

Two projects are indexed in one SEMLITH_HOME: the sample, and `other`, whose only
document is about deployment — the kind of unrelated store that used to outrank an
editor's own project.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from tests.daemon_util import Daemon, env_for, interruptible, semlith, start_daemon, wait_model

pytestmark = [pytest.mark.slow, pytest.mark.model]
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "sample"
SEMLITH = Path(sys.executable).parent / "semlith"  # the console script editors launch


def eventually(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path, Path]]:
    tmp = tmp_path_factory.mktemp("surface")
    home = tmp / "home"
    proj = tmp / "proj"
    shutil.copytree(SAMPLE, proj, ignore=shutil.ignore_patterns(".semlith"))
    other = tmp / "other"
    (other / "docs").mkdir(parents=True)
    (other / "docs" / "deployment.md").write_text(
        "# Deployment\n\nRoll out the service; the retry backoff settings live here.\n")
    for root in (proj, other):
        done = semlith(home, "index", str(root), "--quiet")
        assert done.returncode == 0, done.stderr
    daemon = start_daemon(home)
    wait_model(daemon)
    yield daemon, proj, other
    assert daemon.stop() == 0


def _status(daemon: Daemon) -> dict[str, object]:
    answer: dict[str, object] = httpx.get(daemon.url + "/api/status", headers=daemon.api,
                                          timeout=10).json()
    return answer


def test_a_store_registered_after_the_start_is_served_without_a_restart(
        world: tuple[Daemon, Path, Path], tmp_path: Path) -> None:
    daemon, _, _ = world
    late = tmp_path / "late"
    late.mkdir()
    (late / "heron.py").write_text("def heron_late():\n    return 1\n")
    # Indexed by another process that does not go through the daemon (its own home
    # lookup, e.g. started while the daemon was down): the daemon follows stores.json.
    code = ("from semlith.local import LocalLibrary; from semlith.base.settings import Settings; "
            f"LocalLibrary(Settings.load()).index([{str(late)!r}])")
    done = subprocess.run([sys.executable, "-c", code], env=env_for(daemon.home),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    eventually(lambda: "late" in _status(daemon)["stores"])  # type: ignore[operator]
    found = semlith(daemon.home, "search", "heron_late", "--json", cwd=late)
    assert json.loads(found.stdout)[0]["path"] == "heron.py"
    # A deleted store is dropped, not an error later. The daemon may still be writing
    # into it (its watcher's catch-up) while it is deleted, as when a user deletes it:
    # delete until it stays gone.
    def deleted() -> bool:
        shutil.rmtree(late / ".semlith", ignore_errors=True)
        return not (late / ".semlith").exists()

    eventually(deleted)
    eventually(lambda: "late" not in _status(daemon)["stores"])  # type: ignore[operator]
    everything = semlith(daemon.home, "search", "heron_late", "--json", "--store", "*")
    assert everything.returncode in (0, 1), everything.stderr  # no error: found or not


def test_cli_index_forget_and_watch_go_to_the_daemon(world: tuple[Daemon, Path, Path],
                                                     tmp_path: Path) -> None:
    daemon, _, _ = world
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "puffin.py").write_text("def puffin():\n    return 2\n")
    done = semlith(daemon.home, "index", str(fresh))
    assert done.returncode == 0, done.stderr
    assert f"indexed by the running daemon (pid {daemon.proc.pid})" in done.stdout
    assert "fresh" in _status(daemon)["stores"]  # type: ignore[operator]
    watched = semlith(daemon.home, "watch", str(fresh))
    assert watched.returncode == 0
    assert f"the running daemon (pid {daemon.proc.pid}) watches {fresh}" in watched.stdout
    forgot = semlith(daemon.home, "forget", str(fresh / "puffin.py"))
    assert forgot.returncode == 0 and forgot.stdout.strip() == "forgot 1 file"


def test_a_second_folder_of_a_served_name_is_renamed_by_the_daemon(
        world: tuple[Daemon, Path, Path], tmp_path: Path) -> None:
    daemon, proj, _ = world
    twin = tmp_path / "proj"  # the same folder name as the served sample
    twin.mkdir()
    (twin / "grebe.py").write_text("def grebe():\n    return 3\n")
    done = semlith(daemon.home, "index", str(twin))
    assert done.returncode == 0, done.stderr
    assert f"note: the name 'proj' is taken (by {proj / '.semlith'}); this store is " \
        "'proj-2'" in done.stderr
    assert "proj-2" in _status(daemon)["stores"]  # type: ignore[operator]
    found = semlith(daemon.home, "search", "grebe", "--store", "proj-2", "--json")
    assert json.loads(found.stdout)[0]["store"] == "proj-2"


async def _search_through_proxy(home: Path, cwd: Path, roots: list[Path] | None) -> str:
    async def list_roots(context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{r}")  # type: ignore[arg-type]
                                            for r in roots or []])

    params = StdioServerParameters(command=str(SEMLITH), args=["mcp"], env=env_for(home),
                                   cwd=str(cwd))
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(
                read, write, list_roots_callback=list_roots if roots else None) as session:
            await session.initialize()
            result = await session.call_tool("semlith_search", {
                "query": "deployment retry backoff settings", "k": 10})
            assert not result.is_error
            text: str = result.content[0].text  # type: ignore[union-attr]
            everything = await session.call_tool("semlith_search", {
                "query": "deployment retry backoff settings", "k": 10, "stores": ["*"]})
            text += "\n---\n" + everything.content[0].text  # type: ignore[union-attr]
            return text


def test_the_proxy_scopes_search_to_the_editors_folder(world: tuple[Daemon, Path, Path]
                                                       ) -> None:
    daemon, proj, _ = world
    text = anyio.run(_search_through_proxy, daemon.home, proj / "net", None)
    mine, everything = text.split("\n---\n")
    assert "deployment.md" in mine.splitlines()[0] or "docs/deployment.md" in mine
    assert "other:" not in mine  # one store: the project's own, no store prefixes
    assert "other:docs/deployment.md" in everything and "proj:" in everything


def test_the_proxy_scopes_search_to_the_clients_mcp_roots(world: tuple[Daemon, Path, Path],
                                                         tmp_path: Path) -> None:
    daemon, _, other = world
    text = anyio.run(_search_through_proxy, daemon.home, tmp_path, [other])
    mine, _ = text.split("\n---\n")
    assert mine.splitlines()[0] == "docs/deployment.md"
    assert "net/retry.py" not in mine  # the sample project is not the client's


def test_a_semlith_folder_where_the_editor_runs_does_not_shadow_the_daemon(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "editor-project"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns(".semlith"))
    assert semlith(home, "index", str(project), "--quiet").returncode == 0
    (project / "semlith").mkdir()
    (project / "semlith" / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    (project / "semlith" / "__main__.py").write_text("raise SystemExit('shadowed')\n")

    async def run() -> str:
        params = StdioServerParameters(command=str(SEMLITH), args=["mcp"],
                                       env=env_for(home), cwd=str(project))
        with open(tmp_path / "proxy.err", "w") as errlog, anyio.fail_after(120):
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("semlith_search", {"query": "retry"})
                return result.content[0].text  # type: ignore[union-attr]

    try:
        assert anyio.run(run).splitlines()[0] == "net/retry.py"
        errors = (tmp_path / "proxy.err").read_text()
        assert "in this process instead" not in errors, errors
        assert (home / "daemon.json").exists()
    finally:
        pid = json.loads((home / "daemon.json").read_text())["pid"] \
            if (home / "daemon.json").exists() else None
        if pid:
            import os

            os.kill(pid, signal.SIGTERM)
            eventually(lambda: not (home / "daemon.json").exists(), timeout=60)


def test_ctrl_c_during_an_index_exits_130_with_one_line(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    from click.testing import CliRunner

    from semlith.cli import Env, main
    from tests.conftest import HashEmbedder

    class Interrupted(HashEmbedder):
        def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
            raise KeyboardInterrupt

    monkeypatch.setenv("SEMLITH_HOME", str(tmp_path / "home"))
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.py").write_text("A = 1\n")
    result = CliRunner().invoke(main, ["index", str(project)],
                                obj=Env(embedder_factory=lambda name: Interrupted(name)))
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines()[-1] == \
        "semlith: interrupted; the store is consistent and the next run continues"


def test_ctrl_c_stops_a_foreground_watch_with_exit_0(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.py").write_text("A = 1\n")
    with subprocess.Popen([sys.executable, "-m", "semlith", "watch", str(project)],
                          env=env_for(home), stderr=subprocess.PIPE, text=True,
                          preexec_fn=interruptible) as proc:
        assert proc.stderr is not None
        line, seen = proc.stderr.readline(), []
        while "watching" not in line:
            # once seen under two test workers: the child ended without a line (a signal?)
            assert line, f"watch ended before it started ({proc.wait(10)}): {seen}"
            seen.append(line)
            line = proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(60) == 0  # Ctrl-C is how a watch is meant to end
    assert rest.strip().splitlines()[-1] == "stopped watching; the store is consistent"
    assert "Traceback" not in rest
