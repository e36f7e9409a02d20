"""The vector cache on disk: hits, the bound, permissions, corruption, kill -9, two writers."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from semlith.store.vector_cache import VectorCache, entry_key
from tests.vector_cache_writer import DIM, IDENTITY, key_of, text_of, vector_of

ROOT = Path(__file__).resolve().parents[2]
BIG = 1 << 30
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX modes and SIGKILL")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "vectors"


@pytest.fixture
def cache(folder: Path) -> Iterator[VectorCache]:
    opened = VectorCache(folder, BIG)
    yield opened
    opened.close()


def put_range(cache: VectorCache, numbers: range) -> None:
    cache.put(IDENTITY, [key_of(i) for i in numbers],
              np.stack([vector_of(text_of(i)) for i in numbers]))


def assert_right(cache: VectorCache, numbers: range | list[int]) -> set[int]:
    """Every vector the cache returns is the one written for its text; returns the hits."""
    found = cache.get([key_of(i) for i in numbers], DIM)
    hits = set()
    for i, vector in zip(numbers, found, strict=True):
        if vector is not None:
            assert np.array_equal(vector, vector_of(text_of(i))), f"wrong vector for {i}"
            hits.add(i)
    return hits


def test_a_put_text_is_a_hit_and_others_are_misses(cache: VectorCache) -> None:
    put_range(cache, range(10))
    assert assert_right(cache, range(20)) == set(range(10))
    assert cache.get([], DIM) == []
    assert cache.info().entries == 10 and cache.info().errors == 0


def test_the_key_is_the_model_and_the_exact_text() -> None:
    assert entry_key("m@1", "x") != entry_key("m@2", "x")
    assert entry_key("m@1", "x") != entry_key("m@1", "x ")
    assert entry_key("m", "a\0b") != entry_key("m\0a", "b")  # no ambiguity at the NUL
    assert len(entry_key("m", "\ud800 lone surrogate")) == 32  # a hostile text still keys


def test_entries_survive_reopening_in_another_instance(folder: Path) -> None:
    first = VectorCache(folder, BIG)
    put_range(first, range(50))
    first.close()
    again = VectorCache(folder, BIG)
    assert assert_right(again, range(50)) == set(range(50))
    again.close()


def test_eviction_keeps_the_most_recently_used(folder: Path) -> None:
    clock = Clock()
    cache = VectorCache(folder, 1 << 20, clock=clock)
    put_range(cache, range(0, 1000))  # old
    put_range(cache, range(5000, 5020))  # kept: used again later
    clock.now += 2 * 3600
    assert assert_right(cache, range(5000, 5020)) == set(range(5000, 5020))  # stamps them
    clock.now += 3600
    for start in range(10_000, 10_400, 100):  # new: 400 more push the file over 1 MB
        put_range(cache, range(start, start + 100))
    info = cache.info()
    assert info.entries < 1420 and info.bytes <= 1 << 20, info
    assert assert_right(cache, range(5000, 5020)) == set(range(5000, 5020))
    assert assert_right(cache, range(10_000, 10_400)) == set(range(10_000, 10_400))
    assert len(assert_right(cache, range(0, 1000))) < 1000
    cache.close()  # folds the log into the file
    assert cache.path.stat().st_size <= 1 << 20  # evicted pages went back to the disk


def test_an_entry_used_within_the_hour_is_not_rewritten(folder: Path) -> None:
    clock = Clock()
    cache = VectorCache(folder, BIG, clock=clock)
    put_range(cache, range(3))
    clock.now += 1800
    assert_right(cache, range(3))
    clock.now += 3 * 3600
    assert_right(cache, range(1))
    cache.close()
    db = sqlite3.connect(next(folder.glob("vectors-*.db")))
    stamps = {key: used for key, used in db.execute("SELECT key, used FROM vectors")}
    db.close()
    assert stamps[key_of(0)] == 1_000_000 + 1800 + 3 * 3600
    assert stamps[key_of(1)] == stamps[key_of(2)] == 1_000_000


@posix_only
def test_the_cache_is_owner_only(folder: Path) -> None:
    old = os.umask(0o022)
    try:
        cache = VectorCache(folder, BIG)
        put_range(cache, range(5))
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}
        cache.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert modes == {"vectors-1.db": 0o600, "vectors-1.db-wal": 0o600,
                     "vectors-1.db-shm": 0o600}, modes


def test_a_changed_byte_in_a_vector_is_a_miss_never_a_wrong_vector(folder: Path) -> None:
    cache = VectorCache(folder, BIG)
    put_range(cache, range(20))
    cache.close()  # the log is folded into the file and removed
    path = next(folder.glob("vectors-*.db"))
    data = bytearray(path.read_bytes())
    at = data.find(vector_of(text_of(7)).tobytes())
    assert at > 0
    data[at + 100] ^= 0x10  # one bit of one float
    path.write_bytes(bytes(data))
    again = VectorCache(folder, BIG)
    assert assert_right(again, range(20)) == set(range(20)) - {7}
    put_range(again, range(7, 8))  # the bad row was dropped; writing it again heals it
    assert assert_right(again, range(20)) == set(range(20))
    again.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed pages"])
def test_a_corrupt_file_is_misses_then_a_fresh_generation(folder: Path, damage: str) -> None:
    cache = VectorCache(folder, BIG)
    put_range(cache, range(400))
    cache.close()
    path = next(folder.glob("vectors-*.db"))
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a database at all " * 4000)
    elif damage == "truncated":
        path.write_bytes(data[:len(data) // 2])
    else:
        path.write_bytes(data[:8192] + bytes(8192 * 4) + data[8192 * 5:])
    again = VectorCache(folder, BIG)
    assert_right(again, range(400))  # whatever it still finds is right; no exception
    put_range(again, range(1000, 1010))
    assert assert_right(again, range(1000, 1010)) == set(range(1000, 1010))
    assert_right(again, range(400))
    assert again.info().errors >= 1  # it said so (logged, and counted for `stats`)
    again.close()
    assert sorted(p.name for p in folder.glob("vectors-*.db")) == ["vectors-2.db"]


def test_a_cache_written_by_a_newer_semlith_is_left_alone(folder: Path) -> None:
    cache = VectorCache(folder, BIG)
    put_range(cache, range(3))
    cache.close()
    path = next(folder.glob("vectors-*.db"))
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    newer = VectorCache(folder, BIG)
    assert newer.get([key_of(0)], DIM) == [None]
    assert newer.put(IDENTITY, [key_of(9)], vector_of(text_of(9))[None, :]) is False
    assert newer.info().errors == 1
    newer.close()
    assert path.exists()


def test_an_unusable_folder_turns_the_cache_off_not_the_caller(tmp_path: Path) -> None:
    blocker = tmp_path / "vectors"
    blocker.write_text("a file where the folder should be")
    cache = VectorCache(blocker, BIG)
    assert cache.get([key_of(1)], DIM) == [None]
    assert cache.put(IDENTITY, [key_of(1)], vector_of(text_of(1))[None, :]) is False
    assert cache.info().errors == 1  # warned and counted once, not per call


def test_a_bound_must_be_positive(folder: Path) -> None:
    with pytest.raises(ValueError, match="positive bound"):
        VectorCache(folder, 0)


# -- other processes ---------------------------------------------------------------------------

def start_writer(folder: Path, max_bytes: int, first: int, last: int, batch: int,
                 *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.vector_cache_writer", str(folder), str(max_bytes),
         str(first), str(last), str(batch), *flags],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def kill_at(proc: subprocess.Popen[str], trigger: str, target: int) -> set[int]:
    """Read progress until `trigger target`, then SIGKILL; returns the batches acknowledged."""
    assert proc.stdout is not None
    acked = set()
    for line in proc.stdout:
        word, _, n = line.strip().partition(" ")
        if word == "wrote":
            acked.add(int(n))
        if word == trigger and int(n) == target:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    if proc.stdin is not None:
        proc.stdin.close()
    assert proc.returncode == -signal.SIGKILL, "the writer finished before it was killed"
    return acked


@posix_only
@pytest.mark.slow
def test_kill_minus_nine_mid_write_loses_at_most_the_batch_in_flight(folder: Path) -> None:
    rng = random.Random(20260525)
    batch, lost_in_flight = 128, 0
    for attempt in range(12):
        first = attempt * 100_000  # each attempt its own texts, so each batch is checked
        trigger = "writing" if attempt % 3 else "wrote"  # in the commit, or between two
        target = rng.randint(0, 10)
        acked = kill_at(start_writer(folder, BIG, first, first + 5000, batch), trigger,
                        target)
        cache = VectorCache(folder, BIG)
        for n in range(target + 3):
            numbers = range(first + n * batch, first + (n + 1) * batch)
            hits = assert_right(cache, numbers)
            assert hits in (set(), set(numbers)), f"batch {n} is torn: {len(hits)} of {batch}"
            assert n not in acked or hits, f"batch {n} was committed and is lost"
            lost_in_flight += trigger == "writing" and n == target and not hits
        cache.close()
    assert lost_in_flight >= 1, "no kill landed inside a write: the test proved nothing"


@posix_only
@pytest.mark.slow
def test_kill_minus_nine_during_eviction_returns_no_wrong_vector(folder: Path) -> None:
    bound = 2 << 20  # ~1,100 entries: most batches evict
    rng = random.Random(7)
    for attempt in range(6):
        first = attempt * 100_000
        kill_at(start_writer(folder, bound, first, first + 20_000, 256), "writing",
                rng.randint(3, 12))
        cache = VectorCache(folder, bound)
        assert_right(cache, list(range(first, first + 5000)))
        cache.close()
    cache = VectorCache(folder, bound)
    put_range(cache, range(10))  # the next write brings it back under the bound
    assert cache.info().bytes <= bound
    cache.close()


@pytest.mark.slow
def test_two_writers_at_once_lose_nothing_and_tear_nothing(folder: Path) -> None:
    writers = [start_writer(folder, BIG, 0, 3000, 64, "wait"),
               start_writer(folder, BIG, 1500, 4500, 64, "desc", "wait")]  # 1,500 shared
    for proc in writers:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in writers:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    reader, rng, reads = VectorCache(folder, BIG), random.Random(3), 0
    while any(proc.poll() is None for proc in writers) and reads < 2000:
        assert_right(reader, rng.sample(range(4500), 64))  # a third process reading
        reads += 1
    outputs = [proc.communicate(timeout=120)[0].split() for proc in writers]
    assert [proc.returncode for proc in writers] == [0, 0]
    assert [out[-2:] for out in outputs] == [["done", "0"], ["done", "0"]]  # no write dropped
    assert assert_right(reader, range(4500)) == set(range(4500))
    assert reader.info().entries == 4500
    reader.close()
