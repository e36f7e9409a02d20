"""The Milvus backend beside the local engine (issue #16): ingest, queries, concurrency.

Both sides hold the same synthetic vectors (clustered, 384 dimensions) over real text
(the standard library in line windows, 20 chunks a file). The Milvus side is a store
created with `backend=milvus://...` on a milvus-lite server this scenario starts on a
free loopback port (the C++ engine, one process; a cluster spreads the same work over
query nodes). Query vectors come from the same mixture; the query text from a fixed
list, so keyword and hybrid timings use real BM25 work.

- ingest: rows/s of the whole build (catalog writes and upserts of 256 rows, each
  acknowledged by Milvus before the next);
- dense / keyword: one list of 30, p50/p95;
- hybrid: the whole `Searcher.search` (both lists, the symbol list, ranking, k=10),
  unfiltered and with a `--path` filter that keeps ~1 % of the files;
- clients: N threads, each with its own read-only store and searcher, hybrid queries
  for a fixed time: queries/s and p50/p95 per query.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from harness import Context, Metrics, Result, percentiles, scenario, timed
from synth import DIM, Clusters, build_store

from semlith.base.settings import Settings
from semlith.embed.pool import EmbedderPool
from semlith.ranking.query import analyse
from semlith.search.searcher import Searcher
from semlith.store import Store
from semlith.store.query import Selection
from semlith.types import Filters

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.milvus_util import MilvusServer  # the tests' engine fixture

QUERIES = [f"how does the {a} {b} work" for a, b in itertools.product(
    ["retry", "cache", "socket", "queue", "parser", "thread"],
    ["handler", "timeout", "buffer", "encoding", "logger"])]
FILTER = Filters(paths=("src/mod0/",))  # 100 of the 5,000 files at 100k
CLIENT_SECONDS = 10.0


class _Vectors:
    """The query-side embedder: synthetic query vectors in turn (the model is not what
    this scenario measures)."""

    name, dim = "synthetic", DIM

    def __init__(self) -> None:
        self._cycle = itertools.cycle(Clusters(DIM).queries(64))
        self._lock = threading.Lock()

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(next(self._cycle))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the benchmark never embeds documents")


def _measure(folder: Path, prefix: str, seconds: float) -> Metrics:
    store = Store.open(folder, settings=Settings.load())
    queries = _Vectors()
    words = itertools.cycle(QUERIES)
    analysed = itertools.cycle([analyse(q) for q in QUERIES])  # once per search, as there
    searcher = Searcher([("bench", store)], EmbedderPool(lambda name: queries, cache=False))
    out: Metrics = {}
    for name, func in [
            ("dense", lambda: store.dense_search(queries.embed_query(""), 30, live=False)),
            ("keyword", lambda: store.corpus.keyword(next(analysed), 30, Selection())),
            ("hybrid", lambda: searcher.search(next(words), 10)),
            ("hybrid_filtered", lambda: searcher.search(next(words), 10, FILTER))]:
        out.update({f"{prefix}_{name}_{k}": v for k, v in timed(func, runs=60).items()})
    store.close()
    for clients in (8, 32):
        out.update({f"{prefix}_{k}": v for k, v in _clients(folder, clients, seconds).items()})
    return out


def _clients(folder: Path, clients: int, seconds: float) -> Metrics:
    """`clients` threads asking hybrid queries for `seconds`: queries/s, p50/p95."""
    ready = threading.Barrier(clients)
    stop = [0.0]

    def client(seed: int) -> list[float]:
        store = Store.open(folder, settings=Settings.load())
        queries = _Vectors()
        searcher = Searcher([("bench", store)], EmbedderPool(lambda name: queries,
                                                             cache=False))
        words: Iterator[str] = itertools.cycle(QUERIES[seed % len(QUERIES):] + QUERIES)
        samples = []
        try:
            if ready.wait() == 0:  # every client has opened its store: start the clock
                stop[0] = time.monotonic() + seconds
            ready.wait()
            while time.monotonic() < stop[0]:
                start = time.perf_counter()
                searcher.search(next(words), 10)
                samples.append(time.perf_counter() - start)
        finally:
            store.close()
        return samples

    with ThreadPoolExecutor(clients) as pool:
        samples = [s for part in pool.map(client, range(clients)) for s in part]
    stats = percentiles(samples)
    return {f"c{clients}_qps": round(len(samples) / seconds, 1),
            f"c{clients}_p50_ms": stats["p50_ms"], f"c{clients}_p95_ms": stats["p95_ms"]}


@scenario("milvus", sizes=[100_000], fast_sizes=[2_000])
def milvus(ctx: Context, sizes: list[int]) -> Result:
    """Milvus backend beside the local engine: ingest rows/s, dense/keyword/hybrid p50/p95,
    8 and 32 clients."""
    out: Result = {}
    server = MilvusServer(ctx.workdir / "milvus-data").start()
    try:
        for size in sizes:
            start = time.perf_counter()
            folder = build_store(ctx.workdir, size, words=True, log=ctx.log,
                                 backend=f"{server.uri}/bench_{size}")
            build_s = time.perf_counter() - start
            metrics: dict[str, Any] = {"milvus_ingest_rows_per_s": round(size / build_s)}
            seconds = 2.0 if ctx.fast else CLIENT_SECONDS
            metrics.update(_measure(folder, "milvus", seconds))
            local = build_store(ctx.workdir, size, words=True, log=ctx.log)
            metrics.update(_measure(local, "local", seconds))
            out[size] = metrics
            ctx.log(f"milvus {size}: {metrics}")
    finally:
        server.stop()
    return out


@scenario("milvus_path_filter", sizes=[50_000], fast_sizes=[2_000])
def milvus_path_filter(ctx: Context, sizes: list[int]) -> Result:
    """A `--path` filter on milvus-lite as `like` scans and as a `dirs` lookup, one
    collection, one run: dense search p50/p95 (issue #25)."""
    from pymilvus import DataType, MilvusClient

    from semlith.store.milvus.dirs import CAPACITY, ENTRY_MAX, path_dirs
    from semlith.store.milvus.target import among, literal, milvus_filter

    out: Result = {}
    server = MilvusServer(ctx.workdir / "milvus-filter").start()
    try:
        client = MilvusClient(uri=f"http://127.0.0.1:{server.port}")
        for size in sizes:
            name = f"filter_{size}"
            schema = MilvusClient.create_schema(auto_id=False)
            schema.add_field("pk", DataType.INT64, is_primary=True)
            schema.add_field("repo", DataType.VARCHAR, max_length=64)
            schema.add_field("path", DataType.VARCHAR, max_length=4096)
            schema.add_field("dirs", DataType.ARRAY, element_type=DataType.VARCHAR,
                             max_capacity=CAPACITY, max_length=ENTRY_MAX)
            schema.add_field("local_id", DataType.INT64)  # the catalog's chunk id, as a row has
            schema.add_field("dense", DataType.FLOAT_VECTOR, dim=32)
            params = MilvusClient.prepare_index_params()
            params.add_index(field_name="dense", index_type="AUTOINDEX", metric_type="IP")
            rng = np.random.default_rng(0)
            start = time.perf_counter()
            kept = client.has_collection(name) and any(
                f["name"] == "local_id" for f in client.describe_collection(name)["fields"]) \
                and client.query(name, filter="", output_fields=["count(*)"])[0]["count(*)"] == size
            if not kept:  # the rows of an earlier run in this --workdir are reused
                if client.has_collection(name):
                    client.drop_collection(name)
                client.create_collection(name, schema=schema, index_params=params)
            for first in range(0, 0 if kept else size, 5_000):
                rows = []
                for i in range(first, min(size, first + 5_000)):
                    f = i // 20  # 20 chunks a file, 50 top folders as in the store scenario
                    path = f"src/mod{f % 50}/sub{f % 7}/file{f}.py"
                    rows.append({"pk": i, "repo": "r", "path": path, "dirs": path_dirs(path),
                                 "local_id": i, "dense": rng.standard_normal(32).tolist()})
                client.insert(name, rows)
            client.load_collection(name)
            metrics: dict[str, Any] = {} if kept else {
                "insert_rows_per_s": round(size / (time.perf_counter() - start))}
            query = rng.standard_normal(32).tolist()
            wanted = Filters(paths=("src/mod3",))  # 2 % of the rows
            # What the catalog resolves `src/mod3` to (its selection): the chunk ids, the
            # files; the rows' primary keys are the ids here (a store's are hashes).
            chosen = [i for i in range(size) if (i // 20) % 50 == 3]
            run = list(range(size // 2, size // 2 + len(chosen)))
            files = sorted({f"src/mod{(i // 20) % 50}/sub{(i // 20) % 7}/file{i // 20}.py"
                            for i in chosen})
            for label, expr in [("none", 'repo == "r"'),
                                ("like", milvus_filter("r", wanted)),
                                ("dirs_with_deep_rows", milvus_filter("r", wanted, dirs=True)),
                                ("dirs", milvus_filter("r", wanted, dirs=True, deep=False)),
                                ("anchored_dirs", milvus_filter(
                                    "r", Filters(paths=("/src/mod3",)), dirs=True,
                                    deep=False)),
                                ("path_in", f'repo == "r" and path in {literal(files)}'),
                                ("local_id_in", f'repo == "r" and local_id in {chosen}'),
                                # as the store sends them: runs of ids as ranges (here
                                # 20-id runs, one a file), the rest as a list
                                ("among", 'repo == "r"' + among(np.asarray(chosen))),
                                # 2 % of the rows numbered one after another, as one
                                # index run numbers a folder's files: a list, and a range
                                ("contiguous_in", f'repo == "r" and local_id in {run}'),
                                ("contiguous_among", 'repo == "r"' + among(np.asarray(run))),
                                ("pk_in", f'repo == "r" and pk in {chosen}')]:
                got = timed(lambda e=expr, n=name, q=query: client.search(
                    n, data=[q], anns_field="dense", limit=30, filter=e,
                    output_fields=["pk"], search_params={"metric_type": "IP"}), runs=25)
                metrics.update({f"{label}_p50_ms": got["p50_ms"],
                                f"{label}_p95_ms": got["p95_ms"]})
                hits = client.search(name, data=[query], anns_field="dense", limit=30,
                                     filter=expr, output_fields=["pk"],
                                     search_params={"metric_type": "IP"})[0]
                metrics[f"{label}_hits"] = len(hits)
            out[size] = metrics
            ctx.log(f"milvus_path_filter {size}: {metrics}")
    finally:
        server.stop()
    return out
