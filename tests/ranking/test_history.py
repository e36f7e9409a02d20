"""Same content, same answers, whatever the store's history (issue #47, finding 8).

Chunk ids follow the order a store was built in. A killed-and-resumed store and a fresh one
of identical content gave different top-10s for 12 of 20 questions: tied keyword scores
were ordered by row id and cut before fusion. Here one tree is indexed three ways (at
once; in steps with files changed, deleted and put back; by a run killed inside a
checkpoint and resumed) and every answer must be the same, path, lines and order.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.embed.pool import EmbedderPool
from semlith.index.indexer import Indexer
from semlith.search.searcher import Searcher
from semlith.store import Store
from tests.conftest import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
MODEL = "crash-hash"  # what tests/crash_indexer.py creates its store with
WORDS = ["walrus", "colony", "ice", "tusk", "clam", "arctic", "pod", "seal", "floe",
         "krill", "haul", "molt"]
QUESTIONS = ["walrus colony", "arctic seal", "tusk", "clam pod ice", "krill", "haul out",
             "molt season", "walrus", "seal floe krill", "run", "Handler.run", "setup",
             "license", "permission notice", "copies of the software", "colony ice tusk",
             "pod", "floe", "arctic walrus haul", "clam"]


def _tree(root: Path) -> dict[str, str]:
    """A project whose chunks tie often: short chunks of few words (equal bm25 for
    equal counts and lengths), 150 copies of one licence (more ties than a list holds),
    and 600 definitions named `run` (more than a name lookup reads)."""
    files: dict[str, str] = {}
    for n in range(40):
        sections = [f"## part {s}\n\n" + " ".join(WORDS[(n * 5 + s * 3 + j) % len(WORDS)]
                                                  for j in range(3 + s % 2)) + "\n"
                    for s in range(4)]
        files[f"notes/n{n:02d}.md"] = f"# note {n}\n\n" + "\n".join(sections)
    for n in range(24):
        files[f"jobs/job{n:02d}.py"] = "".join(
            f"class Handler{c}:\n    def run(self):\n        return {n} * {c}\n\n\n"
            f"def setup_{c}():\n    return Handler{c}()\n\n\n" for c in range(25))
    licence = ("# License\n\nPermission is hereby granted to any person obtaining copies of "
               "the software, walrus and seal alike.\n")
    for n in range(150):
        files[f"vendor/v{n:03d}/LICENSE.md"] = licence
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return files


def _index(root: Path, settings: Settings) -> None:
    folder = root / ".semlith"
    store = (Store.open(folder, settings=settings, writable=True) if folder.exists()
             else Store.create(folder, model=MODEL, dim=64, settings=settings))
    try:
        assert Indexer(store, root, lambda: HashEmbedder(MODEL)).run().complete
    finally:
        store.close()


def _stepwise(root: Path, settings: Settings) -> None:
    """Built in steps: the second half first, then the rest, then files changed, deleted
    and put back; every chunk id differs from a store built at once."""
    files = _tree(root)
    paths = sorted(files)
    for path in paths[: len(paths) // 2]:
        (root / path).unlink()
    _index(root, settings)
    _tree(root)
    _index(root, settings)
    for path in paths[::7]:
        (root / path).write_text("walrus " * 3 + "\n")
    _index(root, settings)
    for path in paths[::5]:
        (root / path).unlink()
    _index(root, settings)
    _tree(root)
    _index(root, settings)


def _run(root: Path, block: str) -> None:
    """tests/crash_indexer.py over `root`: killed -9 inside its `block`-th checkpoint
    ("0": none, runs to the end)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.crash_indexer", str(root), block],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = [proc.stdout.readline().strip()]
    while lines[-1] not in ("blocked", "done", ""):
        lines.append(proc.stdout.readline().strip())
    proc.kill()
    proc.communicate()
    assert lines[-1] == ("done" if block == "0" else "blocked"), lines


def _killed(root: Path) -> None:
    """Killed mid-edit: indexed, a third of the files changed and a run killed -9 inside
    its second checkpoint, the files put back and the run resumed."""
    paths = sorted(_tree(root))
    _run(root, "0")
    for path in paths[::3]:
        (root / path).write_text("seal " * 4 + "\n")
    _run(root, "2")
    _tree(root)
    _run(root, "0")


def _answers(root: Path, settings: Settings, k: int) -> dict[str, list[tuple[str, int, int]]]:
    store = Store.open(root / ".semlith", settings=settings)
    try:
        assert store.catalog.counts()["pending_files"] == 0
        searcher = Searcher([("t", store)], EmbedderPool(HashEmbedder))
        return {q: [(h.path, h.start_line, h.end_line) for h in searcher.search(q, k=k)]
                for q in QUESTIONS}
    finally:
        store.close()


@pytest.mark.slow
def test_same_content_gives_the_same_answers_whatever_the_history(
        tmp_path: Path, settings: Settings) -> None:
    fresh, stepwise, killed = (tmp_path / name for name in ("fresh", "stepwise", "killed"))
    fresh.mkdir()
    _tree(fresh)
    _index(fresh, settings)
    stepwise.mkdir()
    _stepwise(stepwise, settings)
    killed.mkdir()
    _killed(killed)
    for k in (10, 100):
        expected = _answers(fresh, settings, k)
        assert all(expected.values())
        for other in (stepwise, killed):
            got = _answers(other, settings, k)
            differ = [q for q in QUESTIONS if got[q] != expected[q]]
            assert differ == [], (other.name, k, differ)
