"""Indexing and query scenarios: index (real model), reindex (no model), query."""

from __future__ import annotations

import itertools
import os
import resource
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from harness import Context, Metrics, Result, isolated, scenario, timed
from synth import DIM, build_store

from semlith.base.settings import Settings
from semlith.embed.models import load_embedder
from semlith.embed.pool import EmbedderPool
from semlith.embed.text import DEFAULT_MODEL, Embedder, FastEmbedder
from semlith.local import LocalLibrary
from semlith.ranking.pipeline import REACH as CANDIDATES
from semlith.ranking.query import analyse
from semlith.search.searcher import Searcher
from semlith.store import Store
from semlith.store.query import Selection

TOPICS = ["parse configuration files", "render html templates", "schedule cron jobs",
          "compress log archives", "resize uploaded images", "send email receipts",
          "retry failed requests with backoff", "verify session tokens"]


def write_corpus(root: Path, files: int, functions: int = 12) -> None:
    """A fixed, seeded Python corpus (the same bytes on every machine)."""
    root.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        lines = []
        for f in range(functions):
            topic = TOPICS[(n * 7 + f) % len(TOPICS)]
            lines += [f"def step_{n}_{f}(items, limit={f + 1}):",
                      f'    """Part {f} of module {n}: {topic} for the nightly batch."""',
                      "    done = []",
                      "    for item in items[:limit]:",
                      f"        done.append(('{topic}', item, {n * f}))",
                      "    return done", ""]
        (root / f"mod_{n:03d}.py").write_text("\n".join(lines))


def _index_once(root: str) -> Metrics:
    settings = Settings.load(env={**os.environ, "SEMLITH_HOME": str(Path(root).parent / "h")})
    start = time.perf_counter()
    report = LocalLibrary(settings).index([root])
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"files": report.indexed, "chunks": report.chunks, "seconds": round(seconds, 2),
            "chunks_per_s": round(report.chunks / seconds, 2), "peak_rss_mb": round(peak_mb)}


def _sorting_gain(root: str) -> Metrics:
    """Embed the corpus's chunks with and without length-sorted batches."""
    from semlith.ingest.chunk import chunk_text

    texts = [c.text for p in sorted(Path(root).glob("*.py"))
             for c in chunk_text(p.read_text())]
    rng = np.random.default_rng(0)
    texts = [texts[i] for i in rng.permutation(len(texts))]
    model = FastEmbedder()
    start = time.perf_counter()
    model.embed_documents(texts)
    sorted_s = time.perf_counter() - start
    start = time.perf_counter()
    model._embed(texts)
    unsorted_s = time.perf_counter() - start
    return {"sorted_chunks_per_s": round(len(texts) / sorted_s, 2),
            "unsorted_chunks_per_s": round(len(texts) / unsorted_s, 2)}


@scenario("index", sizes=[60], fast_sizes=[8], needs_model=True)
def index(ctx: Context, sizes: list[int]) -> Result:
    """Index a fixed corpus with the real model: chunks/s and peak RSS (sizes = files)."""
    out: Result = {}
    for files in sizes:
        root = ctx.workdir / f"corpus-{files}"
        shutil.rmtree(root, ignore_errors=True)
        write_corpus(root, files)
        out[files] = {**isolated(_index_once, str(root)), **isolated(_sorting_gain, str(root))}
        ctx.log(f"index {files} files: {out[files]}")
    return out


class _NoModel:
    def __call__(self, name: str) -> object:
        raise AssertionError("a no-op re-index loaded the model")


class _Filler:
    """A fast stand-in model to build the big store the timed no-op run re-indexes."""

    name, dim = DEFAULT_MODEL, DIM

    def __call__(self, name: str) -> _Filler:
        return self

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        vecs = rng.standard_normal((len(texts), DIM)).astype(np.float32)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector


def _small_files(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"pkg{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:05d}.py").write_text(f"VALUE_{i} = {i}  # small file {i}\n")


@scenario("reindex", sizes=[10_000], fast_sizes=[1_000])
def reindex(ctx: Context, sizes: list[int]) -> Result:
    """A no-op re-index of many small files: wall time; the model must never load."""
    out: Result = {}
    for n in sizes:
        root = ctx.workdir / f"small-{n}"
        settings = Settings.load(env={**os.environ, "SEMLITH_HOME": str(ctx.workdir / "h")})
        if not (root / ".semlith").exists():
            _small_files(root, n)
            LocalLibrary(settings, embedder_factory=_Filler()).index([str(root)])
        lib = LocalLibrary(settings, embedder_factory=_NoModel())

        def once(a: LocalLibrary = lib, r: Path = root, n: int = n) -> None:
            report = a.index([str(r)])
            assert report.unchanged == n and report.indexed == 0

        out[n] = {**timed(once, runs=5, warmup=1), "files": n, "model_loaded": 0}
        ctx.log(f"reindex {n}: {out[n]}")
    return out


QUESTIONS = [f"how does the {a} {b} work" for a, b in
             itertools.product(["retry", "cache", "socket", "queue", "parser", "thread"],
                               ["handler", "timeout", "buffer", "encoding", "logger"])]


def _issue(n: int) -> str:
    """A pasted issue of ~2,000 characters (issue #46): prose, an example, a traceback."""
    a, b = QUESTIONS[n % len(QUESTIONS)].split()[3:5]
    prose = (f"After upgrading, the {a} {b} stops working when the {a} is reused across "
             f"threads. We call it from a worker and the {b} is closed too early, so the "
             "second request fails with the error below. It worked in the previous "
             "release and the changelog does not mention it. ") * 3
    example = f"```python\nfrom pkg import {a}\nh = {a}.{b.title()}({a}_size=10)\nh.run()\n```\n"
    trace = ("Traceback (most recent call last):\n"
             + "".join(f'  File "/srv/app/pkg/{a}_{i}.py", line {10 + i}, in run_{b}\n'
                       f"    self._{b}(x)\n" for i in range(6))
             + f"RuntimeError: {b} is closed\n")
    return (prose + "\n\n" + example + "\n" + trace + "\n" + prose)[:2000]


def _query_at(store: Store, model: Embedder, executor: ThreadPoolExecutor | None,
              baseline: Embedder) -> Metrics:
    cycle = itertools.cycle(QUESTIONS)
    embed = timed(lambda: model.embed_query(next(cycle)), runs=len(QUESTIONS))
    vector = model.embed_query(QUESTIONS[0])
    dense = timed(lambda: store.dense_search(vector, CANDIDATES), runs=60)
    analysed = itertools.cycle([analyse(q) for q in QUESTIONS])  # once per search, as there
    keyword = timed(lambda: store.corpus.keyword(next(analysed), CANDIDATES, Selection()),
                    runs=60)
    # Every query embedded (the honest total), then the same query again (an LRU hit).
    uncached = Searcher([("bench", store)], EmbedderPool(lambda n: model, cache=False),
                        executor=executor)
    total = timed(lambda: uncached.search(next(cycle), 10), runs=len(QUESTIONS) * 2)
    lru = Searcher([("bench", store)], EmbedderPool(lambda n: model), executor=executor)
    cached = timed(lambda: lru.search(QUESTIONS[0], 10), runs=60)
    # In the same run: the simple set-up (the indexing model, keyword after vectors).
    plain = Searcher([("bench", store)], EmbedderPool(lambda n: baseline, cache=False))
    simple = timed(lambda: plain.search(next(cycle), 10), runs=len(QUESTIONS) * 2)
    fusion = total["p50_ms"] - embed["p50_ms"] - dense["p50_ms"] - keyword["p50_ms"]
    # A pasted issue, each different (no LRU hit): read as evidence (ranking/evidence.py).
    issues = itertools.cycle([_issue(n) + f" ({n})" for n in range(len(QUESTIONS))])
    issue = timed(lambda: uncached.search(next(issues), 10), runs=len(QUESTIONS))
    return {**total, "issue_p50_ms": issue["p50_ms"], "issue_p95_ms": issue["p95_ms"],
            "embed_p50_ms": embed["p50_ms"], "dense_p50_ms": dense["p50_ms"],
            "keyword_p50_ms": keyword["p50_ms"], "rest_p50_ms": round(fusion, 3),
            "cached_query_p50_ms": cached["p50_ms"], "simple_p50_ms": simple["p50_ms"],
            "simple_p95_ms": simple["p95_ms"]}


@scenario("query", sizes=[1_000, 10_000, 100_000], fast_sizes=[1_000], needs_model=True)
def query(ctx: Context, sizes: list[int]) -> Result:
    """Warm search p50/p95 incl. query embedding, split into embed/dense/keyword/rest.

    `rest` is the total minus the parts timed alone: negative when the keyword search,
    which runs on a worker beside the embedding and the vector scan, is hidden by them.
    """
    out: Result = {}
    # As semlith.local.Engine sets it up: a one-thread query model, keyword lists on workers.
    perf = Settings.load().perf
    settings = Settings.load()
    model = load_embedder(DEFAULT_MODEL, home=settings.home, models_dir=settings.models_dir,
                          threads=1 if perf else None)
    baseline = load_embedder(DEFAULT_MODEL, home=settings.home,
                             models_dir=settings.models_dir)
    executor = ThreadPoolExecutor(2) if perf else None
    for size in sizes:
        store = Store.open(build_store(ctx.workdir, size, log=ctx.log, words=True),
                           settings=Settings.load())
        out[size] = _query_at(store, model, executor, baseline)
        ctx.log(f"query {size:,}: {out[size]}")
        store.close()
    return out
