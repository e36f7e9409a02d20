"""Store-engine scenarios: scan, open, budget, rewrite (synthetic vectors, no model)."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
from harness import Context, Metrics, Result, isolated, percentiles, rss_mb, scenario, timed
from synth import DIM, Clusters, build_store

from semlith.base.settings import Settings
from semlith.store import ChunkRow, Store


@scenario("scan", sizes=[10_000, 100_000, 1_000_000], fast_sizes=[3_000])
def scan(ctx: Context, sizes: list[int]) -> Result:
    """Dense search p50/p95, recall@10 of 4-bit+rescore vs exact f32, numpy brute-force ratio."""
    out: Result = {}
    clusters = Clusters()
    queries = clusters.queries(20 if ctx.fast else 100)
    for size in sizes:
        folder = build_store(ctx.workdir, size, log=ctx.log)
        exact = clusters.all_vectors(size)
        store = Store.open(folder, settings=Settings.load())
        truth = [set((np.argsort(-(exact @ q))[:10] + 1).tolist()) for q in queries]
        got = [{i for i, _ in store.dense_search(q, 10)} for q in queries]
        raw = [set(store.vectors.shards.search(q, 10)[1].tolist()) for q in queries]
        recall = sum(len(g & t) for g, t in zip(got, truth, strict=True)) / (10 * len(queries))
        raw_recall = sum(len(g & t) for g, t in zip(raw, truth, strict=True)) / (
            10 * len(queries))
        cycle = itertools.cycle(queries)
        ours = timed(lambda s=store, c=cycle: s.dense_search(next(c), 10),
                     runs=len(queries) * 2)
        numpy = timed(lambda e=exact, c=cycle: np.argpartition(-(e @ next(c)), 10)[:10],
                      runs=max(10, len(queries) // 2))
        out[size] = {**ours, "recall_at_10": round(recall, 4),
                     "recall_at_10_4bit_only": round(raw_recall, 4),
                     "numpy_f32_p50_ms": numpy["p50_ms"],
                     "speedup_vs_numpy": round(numpy["p50_ms"] / ours["p50_ms"], 2)}
        ctx.log(f"scan {size:,}: {out[size]}")
        store.close()
    return out


def _open_in_fresh_process(folder: str) -> Metrics:
    import gc

    gc.collect()
    before = rss_mb()
    samples = []
    for _ in range(7):
        start = time.perf_counter()
        store = Store.open(Path(folder), settings=Settings.load())
        store.catalog.generation()  # one catalog read: the store is usable
        samples.append(time.perf_counter() - start)
        store.close()
    store = Store.open(Path(folder), settings=Settings.load())
    after = rss_mb()
    return {**percentiles(samples[2:]), "rss_delta_mb": round(after - before, 2)}


@scenario("open", sizes=[10_000, 1_000_000], fast_sizes=[1_000, 3_000])
def open_store(ctx: Context, sizes: list[int]) -> Result:
    """Time and RSS to open a store (must not grow with the store's size)."""
    out: Result = {}
    for size in sizes:
        folder = build_store(ctx.workdir, size, log=ctx.log)
        out[size] = isolated(_open_in_fresh_process, str(folder))
        ctx.log(f"open {size:,}: {out[size]}")
    return out


def _search_under_budget(folder: str, budget_mb: int, n_queries: int) -> Metrics:
    store = Store.open(Path(folder), settings=Settings.load(index_memory_mb=budget_mb))
    queries = Clusters().queries(n_queries)
    base = rss_mb()
    it = iter(range(1 << 30))
    peak = 0

    def one() -> None:
        nonlocal peak
        store.dense_search(queries[next(it) % n_queries], 10)
        peak = max(peak, store.vectors.shards.stats().resident_bytes)

    times = timed(one, runs=n_queries, warmup=3)
    stats = store.vectors.shards.stats()
    return {**times, "budget_mb": budget_mb, "resident_mb_peak": round(peak / (1 << 20), 1),
            "resident_shards": stats.resident, "shards": stats.shards,
            "shard_reads_per_query": round(stats.reads_per_query / max(1, stats.queries), 2),
            "rss_growth_mb": round(rss_mb() - base, 1)}


@scenario("budget", sizes=[1_000_000], fast_sizes=[140_000])
def budget(ctx: Context, sizes: list[int]) -> Result:
    """A large store searched under a 64 MB and a 512 MB budget: memory stays within it."""
    out: Result = {}
    for size in sizes:
        folder = build_store(ctx.workdir, size, log=ctx.log)
        budgets = [8, 64] if ctx.fast else [64, 512]
        for mb in budgets:
            metrics = isolated(_search_under_budget, str(folder), mb, 10 if ctx.fast else 40)
            out.setdefault(size, {}).update({f"{k}@{mb}mb": v for k, v in metrics.items()})
            ctx.log(f"budget {size:,} @ {mb} MB: {metrics}")
    return out


def _io_written() -> int:
    import psutil

    counters = psutil.Process().io_counters()
    return int(getattr(counters, "write_chars", counters.write_bytes))


def _rewrite_one_file(folder: str, rounds: int) -> Metrics:
    store = Store.open(Path(folder), settings=Settings.load(), writable=True, command="bench")
    clusters = Clusters()
    path = store.catalog.files().__next__().path  # the file with the oldest chunks
    written, samples = [], []
    for r in range(rounds):
        start_io, start = _io_written(), time.perf_counter()
        with store.catalog.transaction() as db:
            file_id = store.catalog.put_file(db, path, size=2, mtime_ns=r)
            ids = store.catalog.replace_chunks(
                db, file_id, [ChunkRow(i, i, f"changed {r} {i}") for i in range(20)])
        store.add_vectors(ids, clusters.sample(20, seed=5000 + r))
        store.checkpoint([(file_id, f"r{r}")])
        samples.append(time.perf_counter() - start)
        written.append(_io_written() - start_io)
    # For comparison: rewriting a whole full shard (the rejected write()-per-change design).
    shard = next(iter(store.vectors.shards.listing().values()))
    start_io = _io_written()
    from turbovec import IdMapIndex

    IdMapIndex.load(str(shard)).write(str(shard.with_suffix(".copy")))
    whole = _io_written() - start_io
    shard.with_suffix(".copy").unlink()
    store.close()
    return {**percentiles(samples), "bytes_written_p50": int(np.median(written)),
            "bytes_written_max": int(max(written)), "whole_shard_rewrite_bytes": whole}


@scenario("rewrite", sizes=[200_000], fast_sizes=[3_000])
def rewrite(ctx: Context, sizes: list[int]) -> Result:
    """Bytes written when one file's 20 chunks change (incremental shard commits)."""
    out: Result = {}
    for size in sizes:
        folder = build_store(ctx.workdir, size, log=ctx.log)
        out[size] = isolated(_rewrite_one_file, str(folder), 5 if ctx.fast else 20)
        ctx.log(f"rewrite {size:,}: {out[size]}")
    return out


__all__ = ["DIM"]
