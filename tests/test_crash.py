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

from semlith.settings import Settings
from semlith.store import Store

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
    found, _ = store.exact.fetch(committed)
    assert found.all(), "a committed chunk has no exact vector"
    for first in store.shards.listing():
        part = committed[(committed >= first) & (committed < first + 65536)]
        assert store.shards.holds_all(first, part), f"shard {first} misses committed vectors"
    shard_firsts = set(store.shards.listing())
    assert all(int(i) // 65536 * 65536 in shard_firsts for i in committed)
    if len(committed):
        vec = store.exact.fetch(committed[:1])[1][0]
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
