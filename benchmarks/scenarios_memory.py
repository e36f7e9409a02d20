"""Where the daemon's memory goes (issue #25): benchmarks/memory_parts.py in a fresh
process per variant, with 1 and 3 stores of 2,000 chunks (as the `idle` scenario)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness import Context, Result, scenario
from synth import build_store

from semlith.embed.text import DEFAULT_MODEL

PARTS = Path(__file__).resolve().parent / "memory_parts.py"


def parts(folders: list[Path], *flags: str) -> dict[str, float]:
    """step -> MB it added, plus "total_mb", from one run of memory_parts.py."""
    done = subprocess.run([sys.executable, str(PARTS), *map(str, folders), *flags],
                          capture_output=True, text=True, check=True, timeout=600)
    out: dict[str, float] = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        if "step" in row:
            out[row["step"]] = row["delta_mb"]
            out["total_mb"] = row["rss_mb"]
    return out


@scenario("memory_parts", sizes=[1, 3], fast_sizes=[1], needs_model=True)
def memory_parts(ctx: Context, sizes: list[int]) -> Result:
    """The daemon's RSS by part (MB each part adds), one store and three; and with the
    query model sharing the document model's session (`one_session_total_mb`)."""
    out: Result = {}
    for count in sizes:
        stores = [build_store(ctx.workdir / f"idle-{i}", 2_000, log=ctx.log, words=True,
                              model=DEFAULT_MODEL) for i in range(count)]
        metrics = parts(stores)
        metrics["one_session_total_mb"] = parts(stores, "--one-session")["total_mb"]
        out[count] = metrics
        ctx.log(f"memory_parts {count}: {json.dumps(metrics)}")
    return out
