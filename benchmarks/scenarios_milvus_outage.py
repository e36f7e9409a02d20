"""A Milvus engine that goes down and comes back, under a held store (issue #26).

The daemon's case: a Milvus-backed store and a local one, open and searched together
by one `Searcher`, with a milvus-lite server this scenario starts on a free loopback
port. Then the engine is
- killed (`kill -9`: its port refuses): the first search, the next one, the first write
  (nothing known down), the next write; started again on the same port and data
  folder, how long until a search answers from Milvus again, and that search's time;
- frozen (SIGSTOP: connections are accepted, nothing answers, as behind a network
  that drops packets): the first and the next search; thawed, the time to answer.

A search over both stores answers from the local one while the Milvus one fails (its
part is one line in `Searcher.failed`), so a search's time is the time the Milvus
store's failure took. Every number is one run, in seconds: an outage is an event, not
a distribution. The code under test uses only the library API, so the scenario also
runs on code from before the fix.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from harness import Context, Metrics, Result, scenario
from synth import DIM, Clusters, build_store

from semlith.base.settings import Settings
from semlith.embed.pool import EmbedderPool
from semlith.errors import BackendError
from semlith.search.searcher import Searcher
from semlith.store import ChunkRow, Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.milvus_util import MilvusServer  # the tests' engine fixture

QUERY = "how does the retry handler work"
RECOVERY_LIMIT_S = 600.0  # give up waiting for a recovered engine to answer


class _Queries:
    """The query embedder: synthetic query vectors in turn."""

    name, dim = "synthetic", DIM

    def __init__(self) -> None:
        self._cycle = itertools.cycle(Clusters(DIM).queries(16))

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(next(self._cycle))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the scenario embeds no documents")


def _seconds(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return round(time.perf_counter() - start, 3)


def _failing_write(store: Store, n: int, vector: np.ndarray) -> float:
    """Seconds an index batch (one file, catalog then Milvus) took to fail."""
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, f"outage/file{n}.py", size=1, mtime_ns=n)
        ids = store.catalog.replace_chunks(db, file_id, [ChunkRow(1, 1, f"def f{n}(): pass")])
    start = time.perf_counter()
    try:
        store.add_vectors(ids, vector)
    except BackendError:
        return round(time.perf_counter() - start, 3)
    raise AssertionError("a write to a down engine succeeded")


def _recovery(searcher: Searcher) -> tuple[float, float]:
    """(seconds until a search answers from Milvus again, that search's ms)."""
    start = time.perf_counter()
    while time.perf_counter() - start < RECOVERY_LIMIT_S:
        began = time.perf_counter()
        searcher.search(QUERY, 10)
        if not searcher.failed:
            return (round(time.perf_counter() - start, 3),
                    round((time.perf_counter() - began) * 1000, 1))
        time.sleep(0.1)
    return float("inf"), float("inf")


def _killed(server: MilvusServer, searcher: Searcher, store: Store) -> Metrics:
    vector = np.asarray(Clusters(DIM).queries(1), dtype=np.float32).reshape(1, DIM)
    out: Metrics = {}
    server.kill()
    out["killed_search_first_s"] = _seconds(lambda: searcher.search(QUERY, 10))
    assert searcher.failed, "a search with the engine down answered from it"
    out["killed_search_next_s"] = _seconds(lambda: searcher.search(QUERY, 10))
    server.start()
    out["killed_recovered_after_s"], out["killed_recovery_call_ms"] = _recovery(searcher)
    server.kill()  # writes, from an engine not yet known down
    out["killed_write_first_s"] = _failing_write(store, 1, vector)
    out["killed_write_next_s"] = _failing_write(store, 2, vector)
    server.start()
    _recovery(searcher)
    return out


def _frozen(server: MilvusServer, searcher: Searcher) -> Metrics:
    out: Metrics = {}
    server.pause()
    try:
        out["frozen_search_first_s"] = _seconds(lambda: searcher.search(QUERY, 10))
        out["frozen_search_next_s"] = _seconds(lambda: searcher.search(QUERY, 10))
    finally:
        server.pause(False)
    out["frozen_recovered_after_s"], out["frozen_recovery_call_ms"] = _recovery(searcher)
    return out


@scenario("milvus_outage", sizes=[2_000], fast_sizes=[2_000])
def milvus_outage(ctx: Context, sizes: list[int]) -> Result:
    """Milvus engine killed and frozen under a held store: time to fail, next failure,
    time to answer again."""
    out: Result = {}
    server = MilvusServer(ctx.workdir / "outage-data").start()
    try:
        for size in sizes:
            remote = Store.open(build_store(ctx.workdir, size, words=True, log=ctx.log,
                                            backend=f"{server.uri}/outage_{size}"),
                                settings=Settings.load(), writable=True)
            local = Store.open(build_store(ctx.workdir, size, words=True, log=ctx.log),
                               settings=Settings.load())
            with ThreadPoolExecutor(2) as pool:  # as the daemon runs the keyword list
                searcher = Searcher([("milvus", remote), ("local", local)],
                                    EmbedderPool(lambda name: _Queries(), cache=False),
                                    executor=pool)
                searcher.search(QUERY, 10)  # warm: both stores answer
                assert not searcher.failed, searcher.failed
                metrics = {**_killed(server, searcher, remote), **_frozen(server, searcher)}
            remote.close()
            local.close()
            out[size] = metrics
            ctx.log(f"milvus_outage {size}: {metrics}")
    finally:
        server.stop()
    return out
