"""usearch beside turbovec: the same vectors, queries, k=10, one query at a time.

The turbovec baseline is the production path: a plain in-memory `IdMapIndex(dim=384,
bit_width=4)`, `search(q, 100)`, then exact f32 rescoring of those 100 with numpy. The
usearch variants: exact i8 search (`usearch.index.search(exact=True)` and
`Index.search(exact=True)`), exact b1 search of the sign bits (hamming, tanimoto), and
HNSW indexes (i8 and f16, default connectivity) at a few `expansion_search` values, each
alone and followed by the same top-100 exact rescore. Recall@10 is against exact f32
brute force computed in the same run.

Threads: every usearch search runs with `threads=1`; HNSW builds use `threads=0` (all
cores), and their CPU seconds are reported beside the wall time. turbovec picks its own.
The i8 vectors are scaled per row to a max-abs of 127 before rounding (cosine is scale
invariant; usearch's own f32->i8 cast multiplies by 127 and truncates, which puts the
components of a unit 384-d vector within about +-31, most of them under 10).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from importlib.metadata import version

import numpy as np
from harness import Context, Metrics, Result, isolated, scenario, timed
from synth import DIM, Clusters
from turbovec import IdMapIndex

if importlib.util.find_spec("usearch") is None:
    raise ImportError("usearch is not installed")

K = 10
HEAD = 100  # candidates rescored exactly, as in production (vectors.RESCORE_HEAD)
SEARCH_THREADS = 1
BUILD_THREADS = 0  # 0: usearch uses every core
EF_SWEEP = (256, 512)  # expansion_search values tried beside usearch's default

Find = Callable[[np.ndarray], np.ndarray]


def _to_i8(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to max-abs 127 and round: the best i8 code for cosine."""
    peak = np.abs(vectors).max(axis=-1, keepdims=True)
    codes: np.ndarray = np.round(vectors / np.maximum(peak, 1e-12) * 127).astype(np.int8)
    return codes


def _to_b1(vectors: np.ndarray) -> np.ndarray:
    return np.packbits(vectors > 0, axis=-1)


def _measure(name: str, find: Find, queries: np.ndarray, truth: list[set[int]]) -> Metrics:
    """p50/p95 of `find` cycling through the queries, and its recall@10 against `truth`."""
    got = [set(find(q)[:K].tolist()) for q in queries]
    recall = sum(len(g & t) for g, t in zip(got, truth, strict=True)) / (K * len(queries))
    it = iter(range(1 << 30))

    def one() -> None:
        find(queries[next(it) % len(queries)])

    times = timed(one, runs=len(queries) * 2)
    return {f"{name}_p50_ms": times["p50_ms"], f"{name}_p95_ms": times["p95_ms"],
            f"{name}_recall_at_10": round(recall, 4)}


def _rescored(exact: np.ndarray, head: Callable[[np.ndarray], np.ndarray]) -> Find:
    """`head(q)` gives candidate ids; rank them by exact f32 cosine, keep the top k."""
    def find(q: np.ndarray) -> np.ndarray:
        ids = head(q).astype(np.int64)
        return ids[np.argsort(-(exact[ids] @ q), kind="stable")[:K]]
    return find


def _hnsw(dtype: str, exact: np.ndarray, queries: np.ndarray,
          truth: list[set[int]]) -> Metrics:
    name = f"usearch_hnsw_{dtype}"
    encode: Callable[[np.ndarray], np.ndarray] = _to_i8 if dtype == "i8" else np.asarray
    from usearch.index import Index

    index = Index(ndim=DIM, metric="cos", dtype=dtype)
    wall, cpu = time.perf_counter(), time.process_time()
    index.add(np.arange(len(exact), dtype=np.uint64), encode(exact), threads=BUILD_THREADS)
    out: Metrics = {f"{name}_build_s": round(time.perf_counter() - wall, 3),
                    f"{name}_build_cpu_s": round(time.process_time() - cpu, 3),
                    f"{name}_bytes": int(index.serialized_length),
                    f"{name}_memory_bytes": int(index.memory_usage),
                    f"{name}_connectivity": int(index.connectivity),
                    f"{name}_isa": str(index.hardware_acceleration)}
    default_ef = int(index.expansion_search)
    for ef in (default_ef, *EF_SWEEP):
        index.expansion_search = ef  # type: ignore[misc]  # (mypy misses the setter)
        label = name if ef == default_ef else f"{name}_ef{ef}"

        def top(q: np.ndarray, count: int) -> np.ndarray:
            return np.asarray(index.search(encode(q), count, threads=SEARCH_THREADS).keys)

        out |= _measure(label, lambda q: top(q, K), queries, truth)
        out |= _measure(f"{label}_rescored", _rescored(exact, lambda q: top(q, HEAD)),
                        queries, truth)
    out[f"{name}_default_ef"] = default_ef
    if dtype == "i8":  # the same stored i8 codes, scanned exhaustively by the Index
        index.expansion_search = default_ef  # type: ignore[misc]

        def scan(q: np.ndarray, count: int) -> np.ndarray:
            matches = index.search(encode(q), count, threads=SEARCH_THREADS, exact=True)
            return np.asarray(matches.keys)

        out |= _measure("usearch_i8_index_exact", lambda q: scan(q, K), queries, truth)
        out |= _measure("usearch_i8_index_exact_rescored",
                        _rescored(exact, lambda q: scan(q, HEAD)), queries, truth)
    return out


def _numpy_brute_p50(exact: np.ndarray, queries: np.ndarray) -> float:
    it = iter(range(1 << 30))

    def brute() -> None:
        q = queries[next(it) % len(queries)]
        np.argpartition(-(exact @ q), K)[:K]

    return timed(brute, runs=len(queries))["p50_ms"]


def _turbovec(exact: np.ndarray, queries: np.ndarray, truth: list[set[int]]) -> Metrics:
    start = time.perf_counter()
    index = IdMapIndex(dim=DIM, bit_width=4)
    index.add_with_ids(exact, np.arange(len(exact), dtype=np.uint64))
    index.prepare()
    out: Metrics = {"turbovec_build_s": round(time.perf_counter() - start, 3),
                    "turbovec_bytes": len(index.to_bytes())}

    def top(q: np.ndarray, count: int) -> np.ndarray:
        return np.asarray(index.search(q[None, :], count)[1][0])

    out |= _measure("turbovec", _rescored(exact, lambda q: top(q, HEAD)), queries, truth)
    out |= _measure("turbovec_raw", lambda q: top(q, K), queries, truth)
    return out


def _exact_kernels(exact: np.ndarray, queries: np.ndarray, truth: list[set[int]]) -> Metrics:
    from usearch.index import search

    codes_i8, codes_b1 = _to_i8(exact), _to_b1(exact)
    out: Metrics = {"usearch_i8_bytes": codes_i8.nbytes, "usearch_b1_bytes": codes_b1.nbytes}

    def i8(q: np.ndarray, count: int) -> np.ndarray:
        return np.asarray(search(codes_i8, _to_i8(q), count, "cos", exact=True,
                                 threads=SEARCH_THREADS).keys)

    def b1(q: np.ndarray, count: int, metric: str = "hamming") -> np.ndarray:
        return np.asarray(search(codes_b1, _to_b1(q), count, metric, exact=True,
                                 threads=SEARCH_THREADS).keys)

    out |= _measure("usearch_i8_exact", lambda q: i8(q, K), queries, truth)
    out |= _measure("usearch_i8_exact_rescored", _rescored(exact, lambda q: i8(q, HEAD)),
                    queries, truth)
    out |= _measure("usearch_b1_exact", lambda q: b1(q, K), queries, truth)
    out |= _measure("usearch_b1_rescored", _rescored(exact, lambda q: b1(q, HEAD)),
                    queries, truth)
    out |= _measure("usearch_b1_tanimoto_rescored",
                    _rescored(exact, lambda q: b1(q, HEAD, "tanimoto")), queries, truth)
    return out


@scenario("usearch", sizes=[10_000, 100_000], fast_sizes=[3_000])
def usearch_vs_turbovec(ctx: Context, sizes: list[int]) -> Result:
    """usearch (exact i8/b1, HNSW i8/f16) beside turbovec 4-bit+rescore: p50/p95, recall@10."""
    out: Result = {}
    for size in sizes:
        # In a child process: importing usearch 2.26 before onnxruntime segfaults the
        # process (seen here), and the other scenarios load onnxruntime.
        out[size] = isolated(_compare, size, 20 if ctx.fast else 100)
        ctx.log(f"usearch {size:,}: {out[size]}")
    return out


def _compare(size: int, n_queries: int) -> Metrics:
    clusters = Clusters()
    queries = clusters.queries(n_queries)
    exact = clusters.all_vectors(size)
    truth = [set(np.argsort(-(exact @ q))[:K].tolist()) for q in queries]
    metrics: Metrics = {"numpy_f32_p50_ms": _numpy_brute_p50(exact, queries),
                        "f32_bytes": exact.nbytes, "usearch_version": version("usearch"),
                        "usearch_search_threads": SEARCH_THREADS,
                        "usearch_build_threads": BUILD_THREADS}
    metrics |= _turbovec(exact, queries, truth)
    metrics |= _exact_kernels(exact, queries, truth)
    for dtype in ("i8", "f16"):
        metrics |= _hnsw(dtype, exact, queries, truth)
    return metrics
