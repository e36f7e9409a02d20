"""Chunking throughput per language, and on a large real file (no model)."""

from __future__ import annotations

import sysconfig
import time
from pathlib import Path

from harness import Context, Result, scenario

from semlith.ingest.chunk import chunk_file
from semlith.languages import language_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"
LARGE = Path(sysconfig.get_paths()["stdlib"]) / "_pydecimal.py"  # ~230 KB of real Python


def _throughput(text: str, path: str, seconds: float) -> dict[str, float]:
    language = language_of(path)
    runs, chunks, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds or runs < 3:
        result = chunk_file(text, language)
        chunks = len(result.chunks)
        runs += 1
    elapsed = time.perf_counter() - start
    size = len(text.encode())
    return {"files_per_s": round(runs / elapsed, 1),
            "mb_per_s": round(runs * size / elapsed / 1e6, 2),
            "chunks_per_s": round(runs * chunks / elapsed), "chunks": chunks,
            "strategy": result.strategy}  # type: ignore[dict-item]


@scenario("chunk", sizes=[1], fast_sizes=[1])
def chunk(ctx: Context, sizes: list[int]) -> Result:
    """Chunking throughput per language (fixtures) and on a large real Python file."""
    seconds = 0.2 if ctx.fast else 1.0
    metrics: dict[str, float | int | str] = {}
    for path in sorted(FIXTURES.glob("*")):
        lang = language_of(path)
        if lang is None:
            continue
        one = _throughput(path.read_text(), path.name, seconds)
        metrics[f"{lang.name}_files_per_s"] = one["files_per_s"]
        metrics[f"{lang.name}_mb_per_s"] = one["mb_per_s"]
    if LARGE.exists():
        large = _throughput(LARGE.read_text(), LARGE.name, seconds * 3)
        metrics.update({f"large_{k}": v for k, v in large.items()})
        ctx.log(f"chunk {LARGE.name} ({LARGE.stat().st_size / 1e3:.0f} KB): {large}")
    return {1: metrics}
