"""Exact search over real code (no model): `Library.grep` p50/p95 over N stdlib files,
for a pattern matching a few files and one matching most: the first 100 lines (the CLI's
default), every line (up to 10,000), and `files_only`. Wall and CPU time: CPU time says
more on a shared machine."""

from __future__ import annotations

import os
import shutil
import sysconfig
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from harness import Context, Result, percentiles, scenario
from scenarios_index import _Filler

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.types import Scope

# (name, pattern): few files hold the first, most hold the second
PATTERNS = [("rare", "NotImplementedError"), ("common", "self.")]


def _timed(func: Callable[[], object], runs: int, warmup: int = 2
           ) -> tuple[dict[str, float], dict[str, float]]:
    """Wall and CPU p50/p95: on a shared machine CPU time says more than the clock."""
    for _ in range(warmup):
        func()
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        func()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return percentiles(wall), percentiles(cpu)


def _stdlib_tree(root: Path, files: int) -> None:
    """The first `files` .py files of this Python's stdlib, in path order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    picked = [p for p in sorted(stdlib.rglob("*.py")) if "test" not in p.parts
              and "site-packages" not in p.parts][:files]
    for n, path in enumerate(picked):
        target = root / f"m{n // 100:02d}" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


@scenario("grep", sizes=[200], fast_sizes=[40])
def grep(ctx: Context, sizes: list[int]) -> Result:
    """search --exact over N stdlib files: p50/p95 by pattern, lines vs files only."""
    out: Result = {}
    for files in sizes:
        root = ctx.workdir / f"grep-{files}"
        settings = Settings.load(env={**os.environ, "SEMLITH_HOME": str(ctx.workdir / "gh")})
        lib = LocalLibrary(settings, embedder_factory=_Filler())
        if not (root / ".semlith").exists():
            _stdlib_tree(root, files)
            lib.index([str(root)])
        where, metrics = Scope((str(root),)), {"files": files}
        for name, pattern in PATTERNS:
            found = lib.grep(pattern, limit=10_000, scope=where)
            metrics[f"{name}_matched_files"] = len(found.files)
            metrics[f"{name}_lines"] = len(found.matches)
            # the CLI's default limit, every line, and the paths only (`-l`)
            for mode, limit, only in (("lines", 100, False), ("all_lines", 10_000, False),
                                      ("files_only", 10_000, True)):
                wall, cpu = _timed(partial(lib.grep, pattern, limit=limit, files_only=only,
                                           scope=where), runs=3 if ctx.fast else 11)
                metrics[f"{name}_{mode}_p50_ms"] = wall["p50_ms"]
                metrics[f"{name}_{mode}_p95_ms"] = wall["p95_ms"]
                metrics[f"{name}_{mode}_cpu_p50_ms"] = cpu["p50_ms"]
        lib.close()
        out[files] = metrics
        ctx.log(f"grep {files}: {metrics}")
    return out
