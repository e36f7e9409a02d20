"""Kill -9 the writer at random moments: the store always opens, consistent, and resumes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.store import Store
from semlith.store.vectors import LocalSpace

ROOT = Path(__file__).resolve().parent.parent


def start_writer(folder: Path, seed: int, rounds: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.crash_writer", str(folder), str(seed),
                             str(rounds)], cwd=ROOT, stdout=subprocess.PIPE, text=True)


def assert_consistent(folder: Path, settings: Settings) -> Store:
    """Open as the next writer would and check: no committed file lacks a vector."""
    store = Store.open(folder, settings=settings, writable=True, command="checker")
    leftovers = [p for p in folder.rglob("*") if ".tmp" in p.name]
    assert leftovers == [], f"temp files survived the locked open: {leftovers}"
    committed = store.catalog.vector_ids()
    space = store.vectors
    assert isinstance(space, LocalSpace)
    found, _ = space.exact.fetch(committed)
    assert found.all(), "a committed chunk has no exact vector"
    for first in space.shards.listing():
        part = committed[(committed >= first) & (committed < first + 65536)]
        assert space.shards.holds_all(first, part), f"shard {first} misses committed vectors"
    shard_firsts = set(space.shards.listing())
    assert all(int(i) // 65536 * 65536 in shard_firsts for i in committed)
    if len(committed):
        vec = space.exact.fetch(committed[:1])[1][0]
        assert store.dense_search(vec, 1)[0][0] == int(committed[0])
    return store


@pytest.mark.slow
def test_kill_minus_nine_at_random_points(tmp_path: Path, settings: Settings) -> None:
    folder = tmp_path / "store"
    rng = random.Random(20261130)
    kills = 0
    for attempt in range(30):
        proc = start_writer(folder, seed=attempt, rounds=1000)
        assert proc.stdout is not None
        if attempt % 5 == 4:
            time.sleep(rng.uniform(0.0, 0.4))  # sometimes during start-up and recovery
        else:
            assert proc.stdout.readline().strip() == "ready"
            time.sleep(rng.uniform(0.0, 0.8))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        kills += proc.returncode == -signal.SIGKILL
        assert_consistent(folder, settings).close()
    assert kills >= 25
    # A re-run with nothing killed completes every pending file.
    proc = start_writer(folder, seed=999, rounds=3)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out.split()[-1] == "done"
    store = assert_consistent(folder, settings)
    assert store.catalog.counts()["pending_files"] == 0
    assert len(store.catalog.vector_ids()) == store.catalog.counts()["chunks"]
    assert np.array_equal(np.sort(store.catalog.vector_ids()), store.catalog.vector_ids())
    store.close()


def _project(root: Path, files: int = 10) -> None:
    """Files of eight definitions, each its own chunk (80 chunks in all)."""
    root.mkdir(parents=True)
    for n in range(files):
        (root / f"job_{n:02d}.py").write_text("".join(
            f"def task_{n}_{f}(items):\n" + "".join(
                f"    total_{k} = sum(i * {k} for i in items if i % {f + 2} == {k % 3})\n"
                for k in range(8)) + "    return total_0\n\n\n" for f in range(8)))


def _committed(folder: Path, settings: Settings) -> int:
    store = assert_consistent(folder, settings)
    try:
        return sum(1 for f in store.catalog.files() if f.hash)
    finally:
        store.close()


@pytest.mark.slow
def test_runs_killed_inside_checkpoints_still_make_progress(tmp_path: Path,
                                                             settings: Settings) -> None:
    """Issue 13: on a busy machine a checkpoint came every 256 chunks, so a run killed
    before then committed nothing and the backlog never shrank. Each run here is killed
    inside its second checkpoint, after its vectors are flushed and before its catalog
    commit; every run keeps what its first checkpoint committed, and the store stays
    consistent."""
    root = tmp_path / "proj"
    _project(root)
    committed = [0]
    while True:
        proc = subprocess.Popen([sys.executable, "-m", "tests.crash_indexer", str(root), "2"],
                                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip()]
        while lines[-1] not in ("blocked", "done", ""):
            lines.append(proc.stdout.readline().strip())
        proc.kill()
        proc.communicate()
        if lines[-1] != "blocked":
            break
        committed.append(_committed(root / ".semlith", settings))
        assert committed[-1] > committed[-2], committed  # the first checkpoint survived
        assert len(committed) < 30, "no run finished"
    assert lines[-1] == "done", lines
    assert len(committed) >= 4  # several runs were killed on the way
    assert _committed(root / ".semlith", settings) == 10
