"""The benchmark harness: scenarios by name, warm-up discarded, p50/p95, JSON output.

Scenario modules register functions with `@scenario(...)`; `bench.py` is the command.
A scenario gets a `Context` (sizes, work folder, fast mode) and returns
`{size: {metric: value}}`. Timings are medians and 95th percentiles, never means.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Metrics = dict[str, float | int | str]
Result = dict[int, Metrics]


@dataclass
class Context:
    workdir: Path
    fast: bool
    sizes: list[int] | None = None  # from --sizes; None means the scenario's defaults
    log: Callable[[str], None] = print


@dataclass
class Scenario:
    name: str
    func: Callable[[Context, list[int]], Result]
    sizes: list[int]
    fast_sizes: list[int]
    needs_model: bool = False
    doc: str = ""


SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str, *, sizes: list[int], fast_sizes: list[int],
             needs_model: bool = False) -> Callable[[Callable[[Context, list[int]], Result]],
                                                    Callable[[Context, list[int]], Result]]:
    def register(func: Callable[[Context, list[int]], Result]) -> Callable[..., Result]:
        SCENARIOS[name] = Scenario(name, func, sizes, fast_sizes, needs_model,
                                   (func.__doc__ or "").strip().splitlines()[0])
        return func
    return register


def percentiles(samples_s: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds (nearest-rank), from samples in seconds."""
    ordered = sorted(samples_s)
    def rank(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered) + 0.5) - 1))] * 1000
    return {"p50_ms": round(rank(0.50), 3), "p95_ms": round(rank(0.95), 3)}


def timed(func: Callable[[], Any], runs: int, warmup: int = 5) -> dict[str, float]:
    """Run `func` warmup + runs times; p50/p95 of the timed runs only."""
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def isolated(func: Callable[..., Any], *args: Any) -> Any:
    """Run `func(*args)` in a fresh process (clean RSS, cold caches of this process)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(func, args)


def peak_rss_mb() -> float:
    """This process's peak RSS in MB since it started. Linux's `VmHWM` is the process's
    own; `ru_maxrss` also counts the parent's memory at the fork before a spawned child's
    exec (every `tables` row read 2,418 MB in a `--fast` run after scenarios that grew
    the bench process), so it is the fallback only where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # POSIX; the benchmarks that read a peak run there
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024  # bytes / KiB


def rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / (1 << 20)


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "perf": os.environ.get("SEMLITH_PERF", "on"),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        import psutil

        info["memory_gb"] = round(psutil.virtual_memory().total / (1 << 30), 1)
    except (OSError, ImportError):
        pass
    from importlib.metadata import PackageNotFoundError, version

    for pkg in ("numpy", "turbovec", "onnxruntime", "fastembed"):
        try:
            info[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return info


def write_json(path: Path, results: dict[str, Result]) -> None:
    payload = {
        "scenarios": {name: {str(size): m for size, m in res.items()}
                      for name, res in results.items()},
        "machine": machine(),
    }
    path.write_text(json.dumps(payload, indent=2) + "\n")
