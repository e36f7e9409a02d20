"""Watcher scenarios against the real daemon: edit_to_searchable, save_burst, storm,
idle_watch."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import httpx
from harness import Context, Metrics, Result, percentiles, scenario
from scenarios_daemon import Daemon
from scenarios_index import _Filler, _small_files

from semlith.base.settings import Settings
from semlith.local import LocalLibrary

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"


def _sample(workdir: Path, name: str) -> tuple[Path, Path]:
    """A fresh copy of the sample project indexed with the real model."""
    root = workdir / name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(workdir / "home")})).index([str(root)])
    return root, root / ".semlith"


def _found(client: httpx.Client, daemon: Daemon, word: str) -> bool:
    answer = client.post(daemon.url + "/api/search", json={"query": word, "k": 3},
                         headers=daemon.api)
    return answer.status_code == 200 and any(word in hit["text"]
                                             for hit in answer.json()["hits"])


def _watch_state(client: httpx.Client, daemon: Daemon) -> dict[str, Any]:
    stores = client.get(daemon.url + "/api/status", headers=daemon.api).json()["stores"]
    state: dict[str, Any] = next(iter(stores.values()))["watch"]
    return state


@scenario("edit_to_searchable", sizes=[20], fast_sizes=[5], needs_model=True)
def edit_to_searchable(ctx: Context, sizes: list[int]) -> Result:
    """Save -> first search that returns the new text, daemon running, default debounce."""
    root, folder = _sample(ctx.workdir, "edit")
    daemon = Daemon([folder])
    samples = []
    try:
        with httpx.Client(headers=daemon.auth, timeout=60) as client:
            for n in range(sizes[0]):
                word = f"quetzal{n}marker"
                time.sleep(3.5)  # past the cooldown of the previous edit of this file
                start = time.perf_counter()
                (root / "net" / "edited.py").write_text(f"def {word}():\n    return {n}\n")
                while not _found(client, daemon, word):
                    time.sleep(0.01)
                samples.append(time.perf_counter() - start)
    finally:
        daemon.stop()
    return {sizes[0]: {**percentiles(samples), "edits": len(samples)}}


def _io(pid: int) -> int:
    import psutil

    counters = psutil.Process(pid).io_counters()
    return int(getattr(counters, "write_chars", counters.write_bytes))


@scenario("save_burst", sizes=[10], fast_sizes=[10], needs_model=True)
def save_burst(ctx: Context, sizes: list[int]) -> Result:
    """Ten saves of one file in six seconds: index writes (batches) and bytes written."""
    root, folder = _sample(ctx.workdir, "burst")
    daemon = Daemon([folder])
    try:
        with httpx.Client(headers=daemon.auth, timeout=60) as client:
            before, io_before = _watch_state(client, daemon)["batches"], _io(daemon.proc.pid)
            for n in range(sizes[0]):
                (root / "web" / "router.js").write_text(f"// save {n}\nfunction r{n}() {{}}\n")
                time.sleep(0.6)
            while not _found(client, daemon, f"r{sizes[0] - 1}") or \
                    _watch_state(client, daemon)["pending"]:
                time.sleep(0.05)
            writes = _watch_state(client, daemon)["batches"] - before
            written = _io(daemon.proc.pid) - io_before
    finally:
        daemon.stop()
    return {sizes[0]: {"saves": sizes[0], "index_writes": writes, "bytes_written": written}}


@scenario("save_format", sizes=[100, 300], fast_sizes=[100], needs_model=True)
def save_format(ctx: Context, sizes: list[int]) -> Result:
    """A save, then a formatter's rewrite SIZE ms later, 8 times 3.5 s apart: index writes
    per save (1 is the goal) and save -> the rewritten text searchable."""
    out: Result = {}
    root, folder = _sample(ctx.workdir, "format")
    daemon = Daemon([folder])
    try:
        with httpx.Client(headers=daemon.auth, timeout=60) as client:
            for gap_ms in sizes:
                before = _watch_state(client, daemon)["batches"]
                samples = []
                for n in range(8):
                    word = f"formatted{gap_ms}x{n}"
                    time.sleep(3.5)  # past the cooldown of the previous save
                    start = time.perf_counter()
                    target = root / "net" / "saved.py"
                    target.write_text(f"def draft_{gap_ms}_{n}( ):\n  return {n}\n")
                    time.sleep(gap_ms / 1000)
                    target.write_text(f"def {word}():\n    return {n}\n")
                    while not _found(client, daemon, word):
                        time.sleep(0.01)
                    samples.append(time.perf_counter() - start)
                while _watch_state(client, daemon)["pending"]:
                    time.sleep(0.05)
                writes = _watch_state(client, daemon)["batches"] - before
                out[gap_ms] = {**percentiles(samples), "saves": 8, "index_writes": writes}
                ctx.log(f"save_format {gap_ms} ms: {out[gap_ms]}")
    finally:
        daemon.stop()
    return out


@scenario("storm", sizes=[2_000], fast_sizes=[200], needs_model=True)
def storm(ctx: Context, sizes: list[int]) -> Result:
    """Many changed files at once (a branch switch): time until the store matches."""
    out: Result = {}
    for n in sizes:
        root, folder = _sample(ctx.workdir, f"storm-{n}")
        daemon = Daemon([folder])
        try:
            with httpx.Client(headers=daemon.auth, timeout=60) as client:
                start = time.perf_counter()
                _small_files(root / "switched", n)
                last = f"VALUE_{n - 1}"
                while not _found(client, daemon, last) or \
                        _watch_state(client, daemon)["pending"]:
                    time.sleep(0.1)
                seconds = time.perf_counter() - start
                files = client.get(daemon.url + "/api/status", headers=daemon.api).json()
        finally:
            daemon.stop()
        out[n] = {"files": n, "seconds": round(seconds, 2),
                  "chunks_per_s": round(n / seconds, 1), "stores": len(files["stores"])}
        ctx.log(f"storm {n}: {out[n]}")
    return out


@scenario("idle_watch", sizes=[10_000], fast_sizes=[1_000], needs_model=True)
def idle_watch(ctx: Context, sizes: list[int]) -> Result:
    """Daemon CPU over an idle minute while watching a tree of many files."""
    from scenarios_daemon import _daemon_cpu_and_rss

    out: Result = {}
    for n in sizes:
        root = ctx.workdir / f"watched-{n}"
        if not (root / ".semlith").exists():
            _small_files(root, n)
            LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(ctx.workdir / "home")}),
                         embedder_factory=_Filler()).index([str(root)])
        daemon = Daemon([root / ".semlith"])
        try:
            time.sleep(5.0)  # the catch-up pass (all unchanged) and the watches settle
            metrics: Metrics = _daemon_cpu_and_rss(daemon, 10.0 if ctx.fast else 60.0)
        finally:
            daemon.stop()
        out[n] = {"files": n, **metrics}
        ctx.log(f"idle_watch {n}: {out[n]}")
    return out
