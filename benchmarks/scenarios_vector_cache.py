"""The machine-wide vector cache (issue #25): lookups, puts, and a second copy of a tree.

- `vector_cache`: a cache of N 384-wide entries: lookups of 32 and 256 texts (hits,
  misses, hits whose stamp is rewritten), put throughput, bytes per entry, one eviction.
- `vector_cache_copy`: index a tree, then a second copy of it, with the cache on and
  off, with a deterministic stand-in model (what the cache costs a first index).
- `vector_cache_copy_model`: the same with the real model (what a second clone saves).
"""

from __future__ import annotations

import os
import shutil
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from harness import Context, Metrics, Result, isolated, percentiles, scenario
from scenarios_index import write_corpus

from semlith.base.settings import Settings
from semlith.embed.cached import CachingEmbedder, with_vector_cache
from semlith.embed.text import DEFAULT_MODEL
from semlith.local import Engine, LocalLibrary
from semlith.store.vector_cache import REFRESH_S, VectorCache, entry_key

DIM = 384
IDENTITY = "bench-model@1"


class _Clock:
    now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _vectors(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _keys(numbers: Sequence[int]) -> list[bytes]:
    return [entry_key(IDENTITY, f"def handler_{i}(request):\n    return {i}\n")
            for i in numbers]


def _fill(cache: VectorCache, n: int) -> float:
    """Put n entries in batches of 256; returns vectors per second."""
    start = time.perf_counter()
    for first in range(0, n, 256):
        numbers = range(first, min(n, first + 256))
        cache.put(IDENTITY, _keys(numbers), _vectors(len(numbers), first))
    return n / (time.perf_counter() - start)


def _lookups(cache: VectorCache, clock: _Clock, n: int, batch: int, kind: str) -> Metrics:
    """p50/p95 of get() for `batch` texts: all hits, all misses, or hits whose stamps are
    over an hour old (`stamp`: each is rewritten, as on the first hit in an hour)."""
    rng = np.random.default_rng(batch)
    samples = []
    for _ in range(60):
        numbers = rng.choice(n, batch, replace=False) + (10 * n if kind == "miss" else 0)
        keys = _keys(numbers.tolist())
        if kind == "stamp":
            clock.now += REFRESH_S + 1
        started = time.perf_counter()
        found = cache.get(keys, DIM)
        samples.append(time.perf_counter() - started)
        assert sum(v is not None for v in found) == (0 if kind == "miss" else batch)
    p = percentiles(samples[10:])
    out: Metrics = {f"get{batch}_{kind}_p50_ms": p["p50_ms"],
                    f"get{batch}_{kind}_p95_ms": p["p95_ms"]}
    if kind == "hit":
        out[f"get{batch}_hits_per_s"] = round(batch / (p["p50_ms"] / 1000))
    return out


@scenario("vector_cache", sizes=[10_000, 100_000], fast_sizes=[2_000])
def vector_cache(ctx: Context, sizes: list[int]) -> Result:
    """Vector cache of N entries: lookup ms per 32/256 texts, puts/s, bytes per entry."""
    out: Result = {}
    for n in sizes:
        folder = ctx.workdir / f"vector-cache-{n}"
        shutil.rmtree(folder, ignore_errors=True)
        clock = _Clock()
        cache = VectorCache(folder, 1 << 40, clock=clock)
        metrics: Metrics = {"puts_per_s": round(_fill(cache, n))}
        info = cache.info()
        metrics["bytes_per_entry"] = round(info.bytes / info.entries)
        for kind in ("hit", "miss", "stamp"):  # stamps last: they move the clock
            for batch in (32, 256):
                metrics.update(_lookups(cache, clock, n, batch, kind))
        cache.close()
        bounded = VectorCache(folder, int(info.bytes * 0.5), clock=clock)
        started = time.perf_counter()
        bounded.put(IDENTITY, _keys([20 * n]), _vectors(1, 0))  # evicts down to 45 %
        metrics["evict_half_s"] = round(time.perf_counter() - started, 3)
        metrics["entries_after_evict"] = bounded.info().entries
        bounded.close()
        out[n] = metrics
        ctx.log(f"vector_cache {n}: {metrics}")
    return out


class _Stand_in:
    """A deterministic model: a seeded vector per text, no ONNX."""

    dim = DIM

    def __init__(self, name: str) -> None:
        self.name = name

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(DIM)
                for t in texts]
        vectors = np.asarray(rows, np.float32).reshape(len(texts), DIM)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.embed_documents([text])[0])


def _copies(work: Path, files: int) -> tuple[Path, Path]:
    first, second = work / "copy-a", work / "copy-b"
    for root in (first, second):
        shutil.rmtree(root, ignore_errors=True)
        write_corpus(root, files)
    return first, second


def _index_both(work: str, files: int, cache_mb: int, real: bool) -> Metrics:
    """Index copy A then copy B with one engine (as the daemon would): seconds for each,
    and the rows the model embedded for each. The model is loaded before the clock."""
    home = Path(work) / f"home-{cache_mb}"
    shutil.rmtree(home, ignore_errors=True)
    env = {"SEMLITH_MODELS": str(Path(work) / "models"), **os.environ,
           "SEMLITH_HOME": str(home), "SEMLITH_VECTOR_CACHE_MB": str(cache_mb)}
    settings = Settings.load(env=env)
    engine = Engine(settings, None if real else with_vector_cache(_Stand_in, settings))
    model = engine.pool.get(DEFAULT_MODEL)
    out: Metrics = {}
    embedded = 0
    for label, root in zip("ab", _copies(Path(work) / f"trees-{cache_mb}", files),
                           strict=True):
        started = time.perf_counter()
        report = LocalLibrary(settings, engine=engine).index([str(root)])
        out[f"{label}_s"] = round(time.perf_counter() - started, 2)
        out[f"{label}_chunks"] = report.chunks
        now = model.counts.embedded if isinstance(model, CachingEmbedder) else -1
        out[f"{label}_embedded"] = now - embedded if now >= 0 else report.chunks
        embedded = max(now, 0)
    engine.close()
    return out


def _copy_scenario(ctx: Context, sizes: list[int], real: bool) -> Result:
    """Cache off, then on. The stand-in runs once untimed (imports, grammars) and then 3
    times per state, medians kept; the real model runs once per state in a fresh process."""
    out: Result = {}
    for files in sizes:
        if not real:
            _index_both(str(ctx.workdir), files, 0, real)
        metrics: Metrics = {}
        for state, mb in (("off", 0), ("on", 512)):
            runs = [isolated(_index_both, str(ctx.workdir), files, mb, real)] if real else \
                [_index_both(str(ctx.workdir), files, mb, real) for _ in range(3)]
            metrics.update({f"{state}_{k}": sorted(run[k] for run in runs)[len(runs) // 2]
                            for k in runs[0]})
        out[files] = metrics
        ctx.log(f"vector_cache_copy{'_model' if real else ''} {files}: {metrics}")
    return out


@scenario("vector_cache_copy", sizes=[200], fast_sizes=[20])
def vector_cache_copy(ctx: Context, sizes: list[int]) -> Result:
    """A tree then its copy, cache on and off, stand-in model: seconds, chunks embedded."""
    return _copy_scenario(ctx, sizes, real=False)


@scenario("vector_cache_copy_model", sizes=[60], fast_sizes=[8], needs_model=True)
def vector_cache_copy_model(ctx: Context, sizes: list[int]) -> Result:
    """A tree then its copy, cache on and off, the real model: seconds for each copy."""
    return _copy_scenario(ctx, sizes, real=True)
