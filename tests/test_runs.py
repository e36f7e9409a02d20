"""`Library.runs`, `stop_run` and `agents`: what the portal's Runs and Agents pages read.

The in-process library over real stores (the deterministic embedder); the daemon-backed
library answers the same through /api (tests/portal/test_portal.py compares the two).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from semlith.base.settings import Settings
from semlith.index.runs import RunBoard
from semlith.local import LocalLibrary
from semlith.setup.agents import configured, describe_agents
from semlith.setup.clients import CLIENTS, Places
from semlith.types import IndexReport, Progress
from tests.conftest import HashEmbedder


def _tree(root: Path, files: int) -> Path:
    root.mkdir()
    for i in range(files):
        (root / f"mod{i}.py").write_text(f"def handler_{i}(x):\n    return x + {i}\n")
    return root


def test_a_finished_run_is_the_stores_last_run(tmp_path: Path, settings: Settings) -> None:
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    root = _tree(tmp_path / "proj", 3)
    assert library.runs() == []
    report = library.index([str(root)])
    (run,) = library.runs()
    assert (run.store, run.state, run.by, run.root) == (report.store, "done", "index",
                                                       str(root))
    assert run.finished is not None and run.finished >= run.started
    assert run.summary == report.summary() and run.eta_s is None
    assert library.stop_run(report.store) is False  # nothing runs now


def _held() -> tuple[threading.Event, threading.Event, Callable[[str], HashEmbedder]]:
    """An embedder factory whose embedder says when it starts a batch (`embedding`) and
    holds it until `release` is set."""
    embedding = threading.Event()
    release = threading.Event()

    class Held(HashEmbedder):
        def embed_documents(self, texts: list[str]) -> np.ndarray:
            embedding.set()
            release.wait(30)
            return super().embed_documents(texts)

    return embedding, release, Held


def test_a_run_in_progress_shows_its_progress_and_stops_when_asked(
        tmp_path: Path, settings: Settings) -> None:
    embedding, release, factory = _held()

    library = LocalLibrary(settings, embedder_factory=factory)
    root = _tree(tmp_path / "proj", 40)
    reports: list[IndexReport] = []
    worker = threading.Thread(target=lambda: reports.append(library.index([str(root)])))
    worker.start()
    assert embedding.wait(30)
    (run,) = library.runs()
    assert run.state == "running" and run.phase in {"scan", "model", "embed"}
    assert run.files_total == 40
    assert library.stop_run(run.store) is True
    release.set()
    worker.join(30)
    (report,) = reports
    assert 0 < report.pending < 40  # stopped between two files; the rest is left to do
    (stopped,) = library.runs()
    assert stopped.state == "stopped" and "still to do" in stopped.summary
    again = library.index([str(root)])  # the next run does the rest
    assert again.indexed == report.pending and library.runs()[0].state == "done"


def test_a_failed_run_says_why() -> None:
    board = RunBoard(clock=lambda: 5.0)
    tracked = board.start("proj", "/p", "watch")
    tracked.progress(Progress("embed", 1, 4, 10, 20.0, 1.5, "a.py", 4, 40))
    (live,) = board.runs()
    assert (live.files_done, live.chunks_total, live.eta_s, live.path) == (1, 40, 1.5, "a.py")
    tracked.fail(OSError("disk full"))
    (run,) = board.runs()
    assert (run.state, run.summary, run.finished) == ("failed", "disk full", 5.0)


def test_agents_name_the_endpoint_and_the_key_file_never_the_key(
        tmp_path: Path, settings: Settings) -> None:
    from semlith.base.home import agent_key

    key = agent_key(settings.home)
    places = Places.of("linux", {}, tmp_path / "user")
    agents = describe_agents(settings, 7400, places)
    assert agents.endpoint == "http://127.0.0.1:7400/mcp"
    assert agents.key_file == str(settings.home / "agent.key")
    assert key not in json.dumps(agents.as_json())
    assert "semlith stop" in agents.rotate and "agent.key" in agents.rotate
    assert [c.name for c in agents.clients] == [c.name for c in CLIENTS if c.user_file]
    assert not any(c.configured for c in agents.clients)
    client = CLIENTS[0]
    path = Path(client.user_file(places))
    path.parent.mkdir(parents=True)
    path.write_text("not valid {")
    assert not configured(client, path)
    from semlith.setup.clients import Launch
    from semlith.setup.configfile import render

    path.write_text(render(client.stdio(Launch()), client.syntax))
    assert configured(client, path)
    assert describe_agents(settings, 7400, places).clients[0].configured


def test_a_stop_while_the_last_chunks_embed_leaves_the_unfinished_file_for_the_next_run(
        tmp_path: Path, settings: Settings) -> None:
    embedding, release, factory = _held()

    root = tmp_path / "proj"
    root.mkdir()
    for name in ("a", "b"):  # every file is cut before the second batch embeds
        (root / f"{name}.py").write_text("".join(  # 12 definitions of ~700 bytes: 12 chunks
            f"def {name}_{i}(x):\n" + "".join(f"    y{j} = x * {j} + {i}  # step {j} of the sum\n"
                                             for j in range(15)) + "    return y0\n\n\n"
            for i in range(12)))
    library = LocalLibrary(settings, embedder_factory=factory)
    reports: list[IndexReport] = []
    worker = threading.Thread(target=lambda: reports.append(library.index([str(root)])))
    worker.start()
    assert embedding.wait(30)
    assert library.stop_run(library.runs()[0].store)
    release.set()
    worker.join(30)
    (report,) = reports
    assert (report.indexed, report.pending) == (1, 1), report
    files = {f.path: f.state for f in library.files(scope=_everything())}
    assert sorted(files.values()) == ["indexed", "pending"]
    again = library.index([str(root)])
    assert again.indexed == 1 and again.complete


def _everything():  # type: ignore[no-untyped-def]
    from semlith.types import Scope

    return Scope(("*",))
