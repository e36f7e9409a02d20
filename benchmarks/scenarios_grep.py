"""Exact search over real code (no model): `Library.grep` p50/p95 over N stdlib files,
for a pattern matching a few files and one matching most: the first 100 lines (the CLI's
default), every line (up to 10,000), and `files_only`. Wall and CPU time: CPU time says
more on a shared machine. `grep_cold`: a fresh `semlith search --exact` process each
time (start-up included, issue #45), beside `rg`; `grep_daemon`: /api/grep through a
running daemon, and a search's time beside 16 greps at once (issue #47)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import threading
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


def _stdlib_store(ctx: Context, files: int, name: str) -> tuple[Path, dict[str, str]]:
    """The indexed stdlib tree of `files` files, and an environment whose SEMLITH_HOME
    holds it (made once per work folder)."""
    root, home = ctx.workdir / f"{name}-{files}", ctx.workdir / f"{name}-home"
    env = {**os.environ, "SEMLITH_HOME": str(home)}
    if not (root / ".semlith").exists():
        _stdlib_tree(root, files)
        lib = LocalLibrary(Settings.load(env=env), embedder_factory=_Filler())
        lib.index([str(root)])
        lib.close()
    return root, env


def _child_cpu() -> float:
    try:
        import resource
    except ImportError:  # Windows: no CPU time of children
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@scenario("grep_cold", sizes=[1000], fast_sizes=[40])
def grep_cold(ctx: Context, sizes: list[int]) -> Result:
    """A fresh `semlith search --exact` process over N stdlib files, as a person runs it
    without a daemon: wall and CPU p50/p95, start-up included; `rg` over the same tree."""
    out: Result = {}
    for files in sizes:
        root, env = _stdlib_store(ctx, files, "cold")
        metrics: dict[str, float | int | str] = {"files": files}
        for name, pattern in PATTERNS:
            wall, cpu = [], []
            for _ in range(3 if ctx.fast else 11):
                start, used = time.perf_counter(), _child_cpu()
                subprocess.run([sys.executable, "-m", "semlith", "search", "--exact", pattern],
                               cwd=root, env=env, capture_output=True, check=False)
                wall.append(time.perf_counter() - start)
                cpu.append(_child_cpu() - used)
            metrics[f"{name}_p50_ms"] = percentiles(wall)["p50_ms"]
            metrics[f"{name}_p95_ms"] = percentiles(wall)["p95_ms"]
            metrics[f"{name}_cpu_p50_ms"] = percentiles(cpu)["p50_ms"]
            if shutil.which("rg"):
                rg, _ = _timed(partial(subprocess.run, ["rg", "-n", "-F", pattern, "."],
                                       cwd=root, capture_output=True, check=False), runs=5)
                metrics[f"{name}_rg_p50_ms"] = rg["p50_ms"]
        out[files] = metrics
        ctx.log(f"grep_cold {files}: {metrics}")
    return out


@scenario("grep_daemon", sizes=[1000], fast_sizes=[40], needs_model=True)
def grep_daemon(ctx: Context, sizes: list[int]) -> Result:
    """/api/grep p50/p95 through a running daemon over N stdlib files, and a search's p50
    alone and its slowest while 16 greps of a backtracking pattern are sent at once."""
    from scenarios_daemon import Daemon

    out: Result = {}
    for files in sizes:
        root, env = _stdlib_store(ctx, files, "daemon")
        daemon = Daemon([root], env={"SEMLITH_HOME": env["SEMLITH_HOME"]})
        try:
            out[files] = _daemon_metrics(daemon.url, daemon.api, str(root), ctx.fast)
        finally:
            daemon.stop()
        ctx.log(f"grep_daemon {files}: {out[files]}")
    return out


def _daemon_metrics(url: str, headers: dict[str, str], root: str, fast: bool
                    ) -> dict[str, float | int | str]:
    import httpx

    scope = {"stores": [root], "near": []}

    def call(client: httpx.Client, op: str, **body: object) -> tuple[float, int]:
        start = time.perf_counter()
        status = client.post(f"{url}/api/{op}", json={**body, "scope": scope}).status_code
        return time.perf_counter() - start, status

    runs = 3 if fast else 15
    with httpx.Client(timeout=60, headers=headers) as client:
        for _ in range(3):
            call(client, "grep", pattern=PATTERNS[0][1]), call(client, "search", query="retry")
        metrics: dict[str, float | int | str] = {}
        for name, pattern in PATTERNS:
            metrics.update({f"{name}_{k}": v for k, v in percentiles(
                [call(client, "grep", pattern=pattern)[0] for _ in range(runs)]).items()})
        alone = [call(client, "search", query="retry backoff")[0] for _ in range(runs)]
        answers: list[int] = []

        def backtracker() -> None:  # each on its own connection, as 16 clients would
            with httpx.Client(timeout=60, headers=headers) as own:
                answers.append(call(own, "grep", pattern=r"(a|aa)+$", regex=True)[1])
        threads = [threading.Thread(target=backtracker) for _ in range(16)]
        for thread in threads:
            thread.start()
        beside = [call(client, "search", query="retry backoff")[0] for _ in range(5)]
        for thread in threads:
            thread.join()
    metrics.update(search_alone_p50_ms=round(statistics.median(alone) * 1000, 3),
                   search_beside_greps_max_ms=round(max(beside) * 1000, 3),
                   greps_answered=answers.count(200), greps_busy=answers.count(400))
    return metrics
